package scheduling

import (
	"errors"
	"fmt"

	"github.com/schedkit/schedkit/framework"
)

// UpdatePod replaces the object of an existing pod (by namespace/name) with
// a copy of pod, keeping its state: a bound pod stays on its node (its
// resources are recounted), a pending pod stays pending. The pod's UID and
// spec.nodeName cannot change (binding goes through the scheduler), and
// status.nominatedNodeName keeps the cluster's value (the scheduler owns
// it). An assumed pod (being bound) cannot be updated. Errors name the pod
// and the field.
func (c *Cluster) UpdatePod(pod *framework.Pod) error {
	if pod == nil {
		return errors.New("scheduling: UpdatePod: nil pod")
	}
	key := pod.Key()
	cp, ok := c.pods[key]
	if !ok {
		return fmt.Errorf("scheduling: UpdatePod: unknown pod %s", key)
	}
	old := cp.info.Pod
	switch {
	case cp.state == StateAssumed:
		return fmt.Errorf("scheduling: UpdatePod: pod %s is assumed on node %q (being bound); update it once bound", key, old.Spec.NodeName)
	case pod.UID != old.UID:
		return fmt.Errorf("scheduling: UpdatePod: pod %s: metadata.uid=%q: cannot change (was %q)", key, pod.UID, old.UID)
	case pod.Spec.NodeName != old.Spec.NodeName:
		return fmt.Errorf("scheduling: UpdatePod: pod %s: spec.nodeName=%q: cannot change (was %q)", key, pod.Spec.NodeName, old.Spec.NodeName)
	}
	if err := framework.ValidatePod(pod); err != nil {
		return fmt.Errorf("scheduling: UpdatePod: %w", err)
	}
	p := *pod
	p.Status.NominatedNodeName = old.Status.NominatedNodeName
	pi, err := framework.NewPodInfo(&p)
	if err != nil {
		return fmt.Errorf("scheduling: UpdatePod: %w", err)
	}
	if cp.state == StateBound {
		if err := c.snapRemove(cp.info); err != nil {
			return err
		}
		if err := c.snapAdd(pi); err != nil {
			return err
		}
	}
	c.setPod(key, &clusterPod{info: pi, state: cp.state})
	return nil
}

// UpdatePod replaces the object of an existing pod (see Cluster.UpdatePod)
// and reports the update as kube-scheduler does: a pending pod waiting in
// the unschedulable pool is retried when the update may help it (with
// queueing hints, when a plugin that rejected it says Queue for one of the
// update's events: a label change, a request lowered, a toleration added;
// without hints, on any update); a bound pod's update is a cluster event
// for the other pods (a label change may satisfy their affinity, a lower
// request may let them fit).
func (s *Scheduler) UpdatePod(pod *framework.Pod) error {
	if err := s.built(); err != nil {
		return err
	}
	if pod == nil {
		return errors.New("scheduling: UpdatePod: nil pod")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	key := pod.Key()
	oldPI, st, ok := s.cluster.podInfo(key)
	if !ok {
		return fmt.Errorf("scheduling: UpdatePod: unknown pod %s", key)
	}
	if st == StatePending {
		if _, err := s.profileFor(pod); err != nil {
			return err
		}
	}
	if err := s.cluster.UpdatePod(pod); err != nil {
		return err
	}
	newPI, _, _ := s.cluster.podInfo(key)
	events := framework.PodUpdateEvents(oldPI.Pod, newPI.Pod)
	if st != StatePending {
		s.podAssigned(oldPI, false)
		s.podAssigned(newPI, true)
		s.reportEvents(events, oldPI, newPI, nil, true)
		s.signal()
		return nil
	}
	if nnn := newPI.Pod.Status.NominatedNodeName; nnn != "" {
		s.nominator.add(key, newPI, nnn)
	}
	s.queue.events++
	qp, ok := s.queue.get(key)
	if !ok {
		return nil
	}
	s.queue.setPodInfo(qp, newPI)
	switch {
	case qp.where != qUnschedulable:
		// Queued or in flight: the next attempt sees the new object; an
		// attempt in flight hears of the update when it fails.
		if qp.where == qInFlight && s.queue.hints != nil && len(s.queue.flight) > 0 {
			for _, ev := range events {
				s.queue.recordFlight(&qEvent{ev: ev, old: oldPI, new: newPI})
			}
		}
	case s.queue.hints == nil:
		s.queue.moveToActiveOrBackoff([]*queuedPod{qp}, s.clock.Now())
	default:
		now := s.clock.Now()
		for _, ev := range events {
			strategy := s.queue.worthRequeuing(qp, &qEvent{ev: ev, old: oldPI, new: newPI})
			if strategy == queueSkip {
				continue
			}
			s.queue.requeueWithStrategy(qp, strategy, now)
			break
		}
	}
	s.signal()
	return nil
}
