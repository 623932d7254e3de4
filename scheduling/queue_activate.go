package scheduling

import "time"

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
			q.touch(p.key)
			q.unlink(p)
			q.push(p, qActive)
		}
	}
}

// takeSpecific takes a queued pod out of whichever sub-queue holds it and
// puts it in flight, as pop does for the head (kube's PopSpecificPod). A
// pod already in flight or not queued is left alone; it reports whether
// the pod was taken.
func (q *schedulingQueue) takeSpecific(p *queuedPod) bool {
	if p.where == qInFlight || p.where == qNowhere {
		return false
	}
	now := q.clock.Now()
	q.touch(p.key)
	q.unlink(p)
	p.where = qInFlight
	p.Attempts++
	p.backoffExpiry = time.Time{}
	if p.InitialAttemptTimestamp == nil {
		t := now
		p.InitialAttemptTimestamp = &t
	}
	p.moveSeen = q.moves
	q.startFlight(p)
	return true
}
