package scheduling

import (
	"context"
	"fmt"

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
type replicaAdder struct {
	tmpl *framework.PodInfo // the first replica's PodInfo, nil before it
}

// schedule is SchedulePod(ctx, p) for the next replica p, a fresh copy the
// cluster may keep, whose key (namespace/name) is key.
func (a *replicaAdder) schedule(ctx context.Context, s *Scheduler, p *framework.Pod, key string) (Decision, error) {
	if a.tmpl == nil {
		d, err := s.SchedulePod(ctx, p)
		if err != nil {
			return d, err
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if rec, ok := s.cluster.pods[key]; ok {
			a.tmpl = rec.info
		}
		return d, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
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
	return s.scheduleAddedLocked(ctx, key)
}
