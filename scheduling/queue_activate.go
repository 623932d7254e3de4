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
			q.unlink(p)
			q.push(p, qActive)
		}
	}
}
