package scheduling

import (
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

// draStore is the cluster's DRA manager for a cycle (h; nil outside one):
// in-flight allocations and claims are journaled in the Cluster, so forks
// cover them, and each claim change is reported as a ResourceClaim event;
// a change from a binding goroutine takes the scheduler's lock; with a
// ClaimWriter, claim changes are written through it first.
func (s *Scheduler) draStore(h *cycleHandle) framework.DRAManager {
	st := s.clusterDRAStore(h)
	if s.claimWriter != nil {
		return writingDRAStore{DRAManager: st, s: s}
	}
	return st
}

func (s *Scheduler) clusterDRAStore(h *cycleHandle) framework.DRAManager {
	return cluster.NewDRAManager(s.cluster, func(f func()) {
		if h != nil && h.binding && !h.bindingLocked {
			s.lockBinding()
			defer s.mu.Unlock()
		}
		f()
	}, func(old, cur *api.ResourceClaim) {
		ev := framework.ClusterEvent{Resource: framework.ResourceResourceClaim, ActionType: framework.Update}
		if old == nil {
			ev.ActionType = framework.Add
		} else if cur == nil {
			ev.ActionType = framework.Delete
		}
		s.reportEvent(ev, old, cur, nil, true)
	})
}
