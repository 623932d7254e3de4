package scheduling

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/schedkit/schedkit/estimator"
	"github.com/schedkit/schedkit/framework"
)

// schedUsageCache is the part of LoadAwareScheduling's usage cache
// (estimator.AssignCache) that hears cluster events: pods placed outside
// the scheduler's Reserve, deleted pods and NodeMetric updates.
type schedUsageCache interface {
	AddPod(pod *framework.Pod) error
	DeletePod(pod *framework.Pod)
	UpdateNodeMetric(m *framework.NodeMetric) error
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
func (s *Scheduler) nodeMetricUpdated(m *framework.NodeMetric) {
	for _, c := range s.usage {
		_ = c.UpdateNodeMetric(m)
	}
}

// schedForkState is the scheduler state a Fork saves besides the cluster.
type schedForkState struct {
	pcg       rand.PCG
	nextStart int
	cycle     int64
}

// Fork opens a what-if branch: the cluster forks (O(1)), and the round-robin
// index, the random source and the cycle counter are saved, so that Revert
// puts everything back and later decisions are as if the branch never
// happened. Use SchedulePod inside the branch; the queue, the nominations
// and pods waiting at Permit are not part of the branch.
func (s *Scheduler) Fork() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.forks = append(s.forks, schedForkState{pcg: *s.pcg, nextStart: s.nextStart, cycle: s.cycle})
	s.cluster.Fork()
}

// Commit keeps the branch opened by the matching Fork.
func (s *Scheduler) Commit() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.forks) == 0 {
		return errors.New("scheduling: Scheduler.Commit without Fork")
	}
	s.forks = s.forks[:len(s.forks)-1]
	return s.cluster.Commit()
}

// Revert undoes the branch opened by the matching Fork.
func (s *Scheduler) Revert() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.forks) == 0 {
		return errors.New("scheduling: Scheduler.Revert without Fork")
	}
	st := s.forks[len(s.forks)-1]
	s.forks = s.forks[:len(s.forks)-1]
	s.nextStart, s.cycle = st.nextStart, st.cycle
	*s.pcg = st.pcg
	return s.cluster.Revert()
}

// SchedulePod adds a copy of pod to the cluster and runs one scheduling
// cycle for it at once, outside the queue, with synchronous binding: the
// what-if primitive (place a pod, look at the decision, Revert). When no
// node fits the pod stays pending (and queued, as AddPod would leave it).
func (s *Scheduler) SchedulePod(ctx context.Context, pod *framework.Pod) (Decision, error) {
	if pod == nil {
		return Decision{}, errors.New("scheduling: SchedulePod: nil pod")
	}
	if pod.Spec.NodeName != "" {
		return Decision{}, fmt.Errorf("scheduling: SchedulePod: pod %s already names node %q", pod.Key(), pod.Spec.NodeName)
	}
	if err := s.AddPod(pod); err != nil {
		return Decision{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	qp, ok := s.queue.get(pod.Key())
	if ok && qp.where == qGated {
		return Decision{}, fmt.Errorf("scheduling: SchedulePod: pod %s is gated: %s", pod.Key(), qp.gateMsg)
	}
	if !ok || qp.where != qActive {
		return Decision{}, fmt.Errorf("scheduling: SchedulePod: pod %s is not queued", pod.Key())
	}
	s.queue.unlink(qp)
	qp.where = qInFlight
	qp.Attempts++
	qp.moveSeen = s.queue.moves
	async := s.async
	s.async = false
	defer func() { s.async = async }()
	return s.scheduleCycle(ctx, qp), nil
}
