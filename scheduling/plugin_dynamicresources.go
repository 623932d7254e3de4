package scheduling

import (
	"github.com/schedkit/schedkit/filter"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

// dynamicResourcesPlugin is filter.DynamicResources writing to its
// scheduler's Cluster: in-flight allocations and claims (journaled, so
// forks cover them), each claim change reported as a ResourceClaim event.
type dynamicResourcesPlugin struct{ *filter.DynamicResources }

// DynamicResourcesFactory is filter.DynamicResourcesFactory bound to the
// scheduler that runs it.
func DynamicResourcesFactory(args any, h framework.Handle) (framework.Plugin, error) {
	p, err := filter.DynamicResourcesFactory(args, h)
	if err != nil {
		return nil, err
	}
	return dynamicResourcesPlugin{p.(*filter.DynamicResources)}, nil
}

func (p dynamicResourcesPlugin) attach(s *Scheduler) error {
	p.SetStore(s.draStore(nil), func(st *framework.CycleState) filter.DRAStore {
		if h, ok := handleFrom(st); ok {
			return h.s.draStore(h)
		}
		return nil
	})
	return nil
}

// draStore is the cluster's DRA store for a cycle (h; nil outside one): a
// change from a binding goroutine takes the scheduler's lock; with a
// ClaimWriter, claim changes are written through it first.
func (s *Scheduler) draStore(h *cycleHandle) filter.DRAStore {
	st := s.clusterDRAStore(h)
	if s.claimWriter != nil {
		return writingDRAStore{DRAStore: st, s: s}
	}
	return st
}

func (s *Scheduler) clusterDRAStore(h *cycleHandle) filter.DRAStore {
	return cluster.NewDRAStore(s.cluster, func(f func()) {
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
