package scheduling

import (
	"errors"
	"fmt"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/scheduling/cluster"
	"github.com/schedkit/schedkit/scheduling/internal/queue"
)

// UpdatePod replaces the object of an existing pod (see Cluster.UpdatePod)
// and reports the update as kube-scheduler does, with its UpdatePodX
// events (a label change, a request lowered, a toleration added).
//
// A pending pod keeps its schedulerName (a change is an error) and takes
// the new object's nominated node; a gated pod is checked again by its
// profile's PreEnqueue plugins (removing the last scheduling gate lets it
// in); a pod waiting in the unschedulable pool is retried when, with
// queueing hints, a plugin that rejected it says Queue for one of the
// events (without hints, on any update); a queued pod keeps its place.
//
// A bound pod's update is a cluster event for the pods waiting (a label
// change may satisfy their affinity, a lower request may let them fit).
func (s *Scheduler) UpdatePod(pod *api.Pod) error { return s.updatePod(nil, pod) }

func (s *Scheduler) updatePod(f *Fork, pod *api.Pod) error {
	if err := s.check(f, "UpdatePod"); err != nil {
		return err
	}
	if pod == nil {
		return errors.New("scheduling: UpdatePod: nil pod")
	}
	if err := s.enter(f, "UpdatePod"); err != nil {
		return err
	}
	defer s.mu.Unlock()
	key := pod.Key()
	old, st, ok := s.cluster.PodInfo(key)
	if !ok {
		return fmt.Errorf("scheduling: UpdatePod: unknown pod %s", key)
	}
	if st == cluster.StatePending && pod.Spec.SchedulerName != old.Pod.Spec.SchedulerName {
		return fmt.Errorf("scheduling: UpdatePod: pod %s: spec.schedulerName %q -> %q: may not change", key, old.Pod.Spec.SchedulerName, pod.Spec.SchedulerName)
	}
	if err := s.cluster.UpdatePod(pod); err != nil {
		return err
	}
	pi, _, _ := s.cluster.PodInfo(key)
	events := framework.PodUpdateEvents(old.Pod, pi.Pod, s.kubeVersion)
	if st != cluster.StatePending {
		s.podAssigned(old, false)
		s.podAssigned(pi, true)
		s.reportEvents(events, old, pi, nil, true)
		s.signal()
		return nil
	}
	s.queue.Events++
	wasGated := false
	if p, ok := s.queue.Get(key); ok {
		wasGated = p.Where == queue.Gated
	}
	s.queue.Update(pi, old, events)
	if p, ok := s.queue.Get(key); ok && p.Where == queue.Gated {
		s.setReason(key, p.GateMsg)
	} else if wasGated {
		s.setReason(key, "")
	}
	if nnn := pi.Pod.Status.NominatedNodeName; nnn != "" {
		s.nominator.Add(key, pi, nnn)
	} else {
		s.nominator.Remove(key)
	}
	s.signal()
	return nil
}
