package scheduling

import (
	"context"
	"fmt"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
)

// replicaAdder adds a capacity question's replicas to the scheduler and
// runs each one's scheduling cycle at once, as SchedulePod does (the same
// cluster, queue and event steps, then the same cycle), but without
// deriving each replica's PodInfo anew. Replicas differ from their
// template only in name (and, for a StatefulSet, in the claims their
// volumes name), and a PodInfo derives from neither (requests, compiled
// affinity terms over the labels and namespace), so the PodInfo AddPod
// built for the first replica serves every later one with that replica's
// own Pod. Each replica is still validated (ValidatePod is cheap; compiling
// its affinity terms again is what costs).
//
// From the second replica on, each cycle goes to the question's
// incremental evaluator (replicaEval) when the profile allows one.
type replicaAdder struct {
	tmpl *framework.PodInfo // the first replica's PodInfo, nil before it
	eval *replicaEval       // nil when the profile allows none
	// evalTried: newReplicaEval ran (eval is its answer).
	evalTried bool
}

// replicaEval is a framework.Incremental for the cycles of one capacity
// question's replicas under the profile fw: between two replicas' cycles
// the fork changes only by the replica placed, which the evaluator is told.
type replicaEval struct {
	fw  *framework.Framework
	inc *framework.Incremental
}

// newReplicaEval returns the evaluator for replicas sharing tmpl, or nil
// when the profile's Reserve, Permit or PreBind plugins could read what
// PreFilter wrote to the cycle state (the evaluator keeps that in a state
// of its own): only VolumeBinding is allowed there, for a pod without
// volumes (its PreFilter skips, so it reserves and binds nothing).
func (s *Scheduler) newReplicaEval(tmpl *framework.PodInfo) *replicaEval {
	prof, err := s.profileFor(tmpl.Pod)
	if err != nil {
		return nil
	}
	p := prof.fw.Profile()
	for _, list := range [][]string{p.Reserve, p.Permit, p.PreBind} {
		for _, name := range list {
			if name != config.VolumeBindingName || len(tmpl.Pod.Spec.Volumes) > 0 {
				return nil
			}
		}
	}
	return &replicaEval{fw: prof.fw, inc: prof.fw.NewIncremental()}
}

// close releases the evaluator's state.
func (a *replicaAdder) close() {
	if a.eval != nil {
		a.eval.inc.Close()
	}
}

// schedule is SchedulePod(ctx, p) for the next replica p, a fresh copy the
// cluster may keep.
func (a *replicaAdder) schedule(ctx context.Context, s *Scheduler, p *framework.Pod) (Decision, error) {
	if a.tmpl == nil {
		d, err := s.SchedulePod(ctx, p)
		if err != nil {
			return d, err
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if rec, ok := s.cluster.pods[p.Key()]; ok {
			a.tmpl = rec.info
		}
		return d, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	key := p.Key()
	if _, dup := s.cluster.pods[key]; dup {
		return Decision{}, fmt.Errorf("scheduling: AddPod: pod %s already exists", key)
	}
	if err := framework.ValidatePod(p); err != nil {
		return Decision{}, fmt.Errorf("scheduling: AddPod: %w", err)
	}
	pi := *a.tmpl
	pi.Pod = p
	if err := s.cluster.addPodInfo(key, &pi); err != nil {
		return Decision{}, err
	}
	s.podAdded(key)
	if !a.evalTried {
		a.eval, a.evalTried = s.newReplicaEval(a.tmpl), true
	}
	s.replicas = a.eval
	d, err := s.scheduleAddedLocked(ctx, key)
	s.replicas = nil
	if a.eval != nil && err == nil && d.Outcome == OutcomeScheduled {
		if placed, _, ok := s.cluster.podInfo(key); ok {
			a.eval.inc.Added(placed, d.Node)
		}
	}
	return d, err
}
