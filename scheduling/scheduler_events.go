package scheduling

import (
	"context"
	"errors"
	"fmt"

	"github.com/schedkit/schedkit/estimator"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
)

// schedUsageCache is the part of LoadAwareScheduling's usage cache
// (estimator.AssignCache) that hears cluster events: pods placed outside
// the scheduler's Reserve, deleted pods and NodeMetric updates.
type schedUsageCache interface {
	AddPod(pod *api.Pod) error
	DeletePod(pod *api.Pod)
	UpdateNodeMetric(m *api.NodeMetric) error
}

var _ schedUsageCache = (*estimator.AssignCache)(nil)

// collectUsageCaches finds the usage caches of the profiles' plugins
// (LoadAwareScheduling exposes Cache()), each once.
func (s *Scheduler) collectUsageCaches() {
	seen := map[*estimator.AssignCache]bool{}
	for _, name := range s.order {
		f := s.profiles[name].fw
		for _, pn := range f.Profile().Reserve {
			pl, ok := f.Plugin(pn)
			if !ok {
				continue
			}
			owner, ok := pl.(interface{ Cache() *estimator.AssignCache })
			if !ok || owner.Cache() == nil || seen[owner.Cache()] {
				continue
			}
			seen[owner.Cache()] = true
			s.usage = append(s.usage, owner.Cache())
		}
	}
}

// podAssigned tells usage caches of a pod placed (added) or removed by a
// cluster event. Errors (a pod the estimator rejects) leave the cache as
// it was; the cluster is the source of truth.
func (s *Scheduler) podAssigned(pi *framework.PodInfo, added bool) {
	for _, c := range s.usage {
		if added {
			_ = c.AddPod(pi.Pod)
		} else {
			c.DeletePod(pi.Pod)
		}
	}
}

// nodeMetricUpdated passes a NodeMetric to the usage caches.
func (s *Scheduler) nodeMetricUpdated(m *api.NodeMetric) {
	for _, c := range s.usage {
		_ = c.UpdateNodeMetric(m)
	}
}

// setReason records the pod's PendingReason ("" deletes it), journaled in
// an open fork.
func (s *Scheduler) setReason(key, msg string) {
	if msg == "" {
		if _, had := s.reasons[key]; !had {
			return // nothing to delete, nothing to journal
		}
	}
	if s.reasonsSaved.Needs(key) {
		old, had := s.reasons[key]
		s.reasonsSaved.Put(key, schedReason{msg: old, had: had})
	}
	if msg == "" {
		delete(s.reasons, key)
	} else {
		s.reasons[key] = msg
	}
}

// SchedulePod adds a copy of pod to the cluster and runs one scheduling
// cycle for it at once, outside the queue, with synchronous binding: the
// what-if primitive (on a Fork: place a pod, look at the decision,
// Revert). When no node fits the pod stays pending (and queued, as AddPod
// would leave it).
func (s *Scheduler) SchedulePod(ctx context.Context, pod *api.Pod) (Decision, error) {
	return s.schedulePod(nil, ctx, pod)
}

func (s *Scheduler) schedulePod(f *Fork, ctx context.Context, pod *api.Pod) (Decision, error) {
	if err := s.check(f, "SchedulePod"); err != nil {
		return Decision{}, err
	}
	if pod == nil {
		return Decision{}, errors.New("scheduling: SchedulePod: nil pod")
	}
	if pod.Spec.NodeName != "" {
		return Decision{}, fmt.Errorf("scheduling: SchedulePod: pod %s already names node %q", pod.Key(), pod.Spec.NodeName)
	}
	if err := s.enter(f, "SchedulePod"); err != nil {
		return Decision{}, err
	}
	defer s.mu.Unlock()
	if err := s.addPodEvent(pod); err != nil {
		return Decision{}, err
	}
	return s.scheduleAddedLocked(ctx, pod.Key())
}

// scheduleAddedLocked is SchedulePod after the pod key was added: it runs
// the pod's cycle at once. The scheduler's lock is held.
func (s *Scheduler) scheduleAddedLocked(ctx context.Context, key string) (Decision, error) {
	qp, ok := s.queue.get(key)
	if ok && qp.where == qGated {
		return Decision{}, fmt.Errorf("scheduling: SchedulePod: pod %s is gated: %s", key, qp.gateMsg)
	}
	if !ok || qp.where != qActive {
		return Decision{}, fmt.Errorf("scheduling: SchedulePod: pod %s is not queued", key)
	}
	s.queue.take(qp, s.clock.Now())
	async := s.async
	s.async = false
	defer func() { s.async = async }()
	return s.scheduleCycle(ctx, qp), nil
}
