package queue

// Activate is kube-scheduler's PriorityQueue.Activate: each named pod
// waiting in the unschedulable pool or a backoff queue moves to the active
// queue at once (its backoff is skipped); pods active, in flight or
// unknown are left alone. Keys are processed in the order given.
func (q *Queue) Activate(keys []string) {
	for _, k := range keys {
		p, ok := q.Pods[k]
		if !ok {
			continue
		}
		switch p.Where {
		case Unschedulable, Backoff, ErrorBackoff:
			q.touch(k) // journaled in a fork
			q.Unlink(p)
			q.push(p, Active)
		}
	}
}

// TakeSpecific takes a queued pod out of whichever sub-queue holds it and
// puts it in flight, as pop does for the head (kube's PopSpecificPod, which
// activates the pod first: a gated or unschedulable pod goes through the
// PreEnqueue plugins again and stays where it is when they refuse it). A
// pod already in flight or not queued is left alone; it reports whether
// the pod was taken.
func (q *Queue) TakeSpecific(p *QueuedPod) bool {
	switch p.Where {
	case InFlight, Nowhere:
		return false
	case Gated, Unschedulable:
		q.touch(p.Key) // journaled in a fork
		q.Unlink(p)
		if q.gateHolds(p) {
			return false
		}
	}
	q.Take(p, q.clock.Now())
	return true
}
