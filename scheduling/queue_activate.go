package scheduling

// activate is kube-scheduler's PriorityQueue.Activate: each named pod
// waiting in the unschedulable pool or a backoff queue moves to the active
// queue at once (its backoff is skipped); pods active, in flight or
// unknown are left alone. Keys are processed in the order given.
func (q *schedulingQueue) activate(keys []string) {
	for _, k := range keys {
		p, ok := q.pods[k]
		if !ok {
			continue
		}
		switch p.where {
		case qUnschedulable, qBackoff, qErrorBackoff:
			q.touch(k) // journaled in a fork
			q.unlink(p)
			q.push(p, qActive)
		}
	}
}

// takeSpecific takes a queued pod out of whichever sub-queue holds it and
// puts it in flight, as pop does for the head (kube's PopSpecificPod, which
// activates the pod first: a gated or unschedulable pod goes through the
// PreEnqueue plugins again and stays where it is when they refuse it). A
// pod already in flight or not queued is left alone; it reports whether
// the pod was taken.
func (q *schedulingQueue) takeSpecific(p *queuedPod) bool {
	switch p.where {
	case qInFlight, qNowhere:
		return false
	case qGated, qUnschedulable:
		q.touch(p.key) // journaled in a fork
		q.unlink(p)
		if q.gateHolds(p) {
			return false
		}
	}
	q.take(p, q.clock.Now())
	return true
}
