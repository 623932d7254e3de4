package scheduling

import (
	"fmt"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/scheduling/cluster"
	"github.com/schedkit/schedkit/scheduling/internal/queue"
)

// Preempt evicts the chosen victims from node in favour of the pending pod
// preemptor (namespace/name), as DefaultPreemption does once it has chosen
// them (kube-scheduler's prepareCandidate): a victim held at Permit is
// rejected and returns to the queue, any other is deleted; lower-priority
// pods nominated to node lose their nomination; preemptor is nominated to
// node. It returns the victims' keys in the order given.
//
// It is the what-if primitive for preemption: call it on a Fork
// (Fork.Preempt) and Fork.Revert puts every victim back on its node
// exactly (the cluster's journal restores the pods, their order on the
// node and the nominations; what Revert restores beyond the cluster is
// listed at Fork). To let DefaultPreemption choose the victims instead,
// call SchedulePod for the preemptor on the fork: its Decision names the
// victims and the nominated node.
//
// Victims are taken as given (DefaultPreemption picks only lower-priority
// pods; this does not check priorities). An unknown or non-pending
// preemptor, an unknown node, and a victim that is unknown, listed twice or
// not placed on node are errors naming the pod and the node; nothing is
// evicted then.
func (s *Scheduler) Preempt(preemptor, node string, victims ...string) ([]string, error) {
	return s.preempt(nil, preemptor, node, victims...)
}

func (s *Scheduler) preempt(f *Fork, preemptor, node string, victims ...string) ([]string, error) {
	if err := s.check(f, "Preempt"); err != nil {
		return nil, err
	}
	if err := s.enter(f, "Preempt"); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	pi, st, ok := s.cluster.PodInfo(preemptor)
	if !ok {
		return nil, fmt.Errorf("scheduling: Preempt: unknown preemptor %s", preemptor)
	}
	if st != cluster.StatePending {
		return nil, fmt.Errorf("scheduling: Preempt: preemptor %s is %s, not pending", preemptor, st)
	}
	qp, queued := s.queue.Get(preemptor)
	if !queued {
		return nil, fmt.Errorf("scheduling: Preempt: preemptor %s is not queued", preemptor)
	}
	if _, ok := s.cluster.NodeInfo(node); !ok {
		return nil, fmt.Errorf("scheduling: Preempt: unknown node %q", node)
	}
	infos := make([]*framework.PodInfo, 0, len(victims))
	seen := make(map[string]bool, len(victims))
	for _, v := range victims {
		vi, vst, ok := s.cluster.PodInfo(v)
		switch {
		case !ok:
			return nil, fmt.Errorf("scheduling: Preempt: unknown victim %s", v)
		case seen[v]:
			return nil, fmt.Errorf("scheduling: Preempt: victim %s listed twice", v)
		case vst == cluster.StatePending || vi.Pod.Spec.NodeName != node:
			return nil, fmt.Errorf("scheduling: Preempt: victim %s is not placed on node %q (%s on %q)", v, node, vst, vi.Pod.Spec.NodeName)
		}
		seen[v] = true
		infos = append(infos, vi)
	}
	keys := s.preemptVictims(pi.Pod, node, infos, "Preempt")
	s.applyNomination(qp, &framework.NominatingInfo{NominatedNodeName: node, Mode: framework.ModeOverride})
	return keys, nil
}

// preemptVictims evicts the victims for preemptor (kube's prepareCandidate):
// a victim held at Permit is rejected (it returns to the queue), any other
// is deleted; lower-priority pods nominated to node lose their nomination
// and are retried. It returns the victims' keys. The scheduler's lock is
// held (PostFilter runs in the scheduling cycle, and DefaultPreemption
// evicts through the scheduler's Evictor).
func (s *Scheduler) preemptVictims(preemptor *api.Pod, node string, victims []*framework.PodInfo, plugin string) []string {
	keys := make([]string, 0, len(victims))
	for _, v := range victims {
		if v.Pod.DeletionTimestamp != nil {
			continue
		}
		key := v.Pod.Key()
		keys = append(keys, key)
		if w, ok := s.waiting.get(key); ok {
			w.Reject(plugin, "preempted")
			continue
		}
		if !s.observedEviction || s.cluster.Forked() > 0 {
			_ = s.deletePodLocked(v.Pod.Namespace, v.Pod.Name, "preempted by "+preemptor.Key())
		}
		s.setReason(key, fmt.Sprintf("preempted by %s on node %s", preemptor.Key(), node))
	}
	var lower []string
	for _, np := range s.nominator.ForNode(node) {
		if np.Pod.PriorityValue() < preemptor.PriorityValue() {
			lower = append(lower, np.Pod.Key())
		}
	}
	for _, key := range lower {
		s.nominator.Remove(key)
		s.cluster.SetNominated(key, "")
		if qp, ok := s.queue.Get(key); ok {
			if pi, _, ok := s.cluster.PodInfo(key); ok {
				s.queue.SetPodInfo(qp, pi)
			}
			if qp.Where == queue.Unschedulable {
				s.queue.MoveToActiveOrBackoff([]*queue.QueuedPod{qp}, s.clock.Now())
			}
		}
	}
	return keys
}
