package scheduling

import (
	"container/heap"
	"fmt"
	"maps"
	"slices"
	"sort"
	"sync/atomic"
	"time"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/internal/journal"
)

// Queue defaults, as kube-scheduler v1.36 (backend/queue/scheduling_queue.go).
const (
	// DefaultPodInitialBackoff is the first backoff of an unschedulable pod.
	DefaultPodInitialBackoff = time.Second
	// DefaultPodMaxBackoff caps the doubling backoff.
	DefaultPodMaxBackoff = 10 * time.Second
	// DefaultPodMaxInUnschedulablePods is how long a pod may sit in the
	// unschedulable pool before it is retried without any cluster event.
	DefaultPodMaxInUnschedulablePods = 5 * time.Minute
	// qBackoffFlushPeriod and qLeftoverFlushPeriod are kube-scheduler's
	// flush ticks of the backoff queue and of the unschedulable pool.
	qBackoffFlushPeriod  = time.Second
	qLeftoverFlushPeriod = 30 * time.Second
)

// QueueOptions tune the scheduling queue.
type QueueOptions struct {
	// InitialBackoff is the backoff after the first failed attempt (default
	// DefaultPodInitialBackoff); each further attempt doubles it up to
	// MaxBackoff (default DefaultPodMaxBackoff).
	InitialBackoff time.Duration
	MaxBackoff     time.Duration
	// MaxInUnschedulablePods is how long an unschedulable pod waits for a
	// cluster event before it is retried anyway (default 5 min).
	MaxInUnschedulablePods time.Duration
	// DisablePopFromBackoffQ turns off kube-scheduler's SchedulerPopFromBackoffQ
	// (beta, on by default since v1.33): with it on, backoff expiries are
	// aligned to whole seconds, pods with the same expiry second are ordered
	// by QueueSort, and when the active queue is empty the head of the
	// backoff queue is scheduled without waiting for its backoff to end.
	DisablePopFromBackoffQ bool
	// DisableQueueingHints turns off queueing hints (on by default, as
	// kube-scheduler since v1.34): every cluster event then moves every
	// unschedulable pod, and a pod that fails after an event arrived while
	// it was in flight is retried at once — schedkit's behaviour before
	// hints, for comparison. (kube-scheduler without hints still skipped
	// events no enabled plugin registered.)
	DisableQueueingHints bool
}

// validate rejects negative durations and a maximum below the initial
// backoff (zero values mean the defaults).
func (o *QueueOptions) validate() error {
	switch {
	case o.InitialBackoff < 0:
		return fmt.Errorf("scheduling: QueueOptions.InitialBackoff=%v: must not be negative", o.InitialBackoff)
	case o.MaxBackoff < 0:
		return fmt.Errorf("scheduling: QueueOptions.MaxBackoff=%v: must not be negative", o.MaxBackoff)
	case o.MaxBackoff > 0 && o.InitialBackoff > o.MaxBackoff:
		return fmt.Errorf("scheduling: QueueOptions.MaxBackoff=%v: must not be below InitialBackoff=%v", o.MaxBackoff, o.InitialBackoff)
	case o.MaxInUnschedulablePods < 0:
		return fmt.Errorf("scheduling: QueueOptions.MaxInUnschedulablePods=%v: must not be negative", o.MaxInUnschedulablePods)
	}
	return nil
}

func (o *QueueOptions) setDefaults() {
	if o.InitialBackoff <= 0 {
		o.InitialBackoff = DefaultPodInitialBackoff
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = DefaultPodMaxBackoff
	}
	if o.MaxBackoff < o.InitialBackoff {
		o.MaxBackoff = o.InitialBackoff
	}
	if o.MaxInUnschedulablePods <= 0 {
		o.MaxInUnschedulablePods = DefaultPodMaxInUnschedulablePods
	}
}

// Where a queued pod is.
const (
	qNowhere = iota
	qActive
	qBackoff
	qErrorBackoff
	qUnschedulable
	qInFlight
	// qGated: a PreEnqueue plugin holds the pod back (scheduling gates).
	qGated
)

// queuedPod is the queue's record of one pending pod.
type queuedPod struct {
	framework.QueuedPodInfo
	key string
	// seq orders pods that QueueSort ties (first added first).
	seq uint64
	// unschedulablePlugins and pendingPlugins are from the last failure;
	// both empty after an error.
	unschedulablePlugins []string
	pendingPlugins       []string
	// backoffExpiry caches the end of the current backoff (zero: unset).
	backoffExpiry time.Time
	// moveSeen is the queue's move counter when the pod was popped;
	// eventSeen its event counter when the pod last failed (requeued).
	moveSeen, eventSeen uint64
	// flightAt is, with queueing hints, the position in the queue's
	// in-flight event list at which the pod was popped.
	flightAt int
	// sig is the pod's signature once signed (reuse.go); a new pod object
	// (setPodInfo) is signed again.
	sig    framework.PodSignature
	signed bool
	where  int
	index  int
	// gateMsg is the PreEnqueue rejection of a gated pod, gatePlugin the
	// plugin that gated it.
	gateMsg, gatePlugin string
	// detached: a record the queue does not hold (schedulingQueue.detached).
	detached bool
}

// schedulingQueue orders pending pods as kube-scheduler's PriorityQueue: an
// active queue sorted by the profile's QueueSort plugin, a backoff queue
// sorted by backoff expiry, an error-backoff queue, and the unschedulable
// pool, which cluster events (or the 5-minute leftover flush) empty into the
// backoff or active queue. Kube-scheduler moves pods on 1 s and 30 s flush
// ticks; this queue evaluates the same ticks lazily when a pod is popped,
// which on a virtual clock gives the same order at the same times. It is
// not safe for concurrent use.
type schedulingQueue struct {
	opts  QueueOptions
	clock framework.Clock
	less  func(a, b *framework.QueuedPodInfo) bool
	start time.Time

	active, backoff, errorBackoff *qHeap
	unschedulable                 map[string]*queuedPod
	pods                          map[string]*queuedPod
	// gate runs the pod's PreEnqueue plugins (nil: none); gated holds the
	// pods they rejected, outside the other sub-queues, until an update of
	// the pod or a cluster event lets them through.
	gate  func(*framework.PodInfo) *framework.Status
	gated map[string]*queuedPod
	seq   uint64
	// moves counts MoveAll calls; a pod that fails after a move that
	// happened while it was in flight is retried instead of parked.
	// events counts the cluster events reported (moving pods or not).
	moves, events uint64
	// marks and saved make the queue part of a Scheduler's fork: per open
	// fork, the counters at Fork and the first saved record of every pod
	// changed since (see fork, touch, revert).
	marks []qMark
	saved forkJournal[qSaved]
	// reorder is set when the QueueSort plugin's order of the pods already
	// queued changed (Coscheduling's group failure times): the active heap
	// is rebuilt before the next pop, so that the pop takes the first pod
	// in the current order whatever the heap's layout. Atomic: Unreserve
	// may run in a binding goroutine.
	reorder atomic.Bool

	// hints are the profiles' queueing hints (nil: DisableQueueingHints);
	// snapshot is the cluster the hint functions see.
	hints    *queueingHints
	snapshot func() *framework.Snapshot
	// flight holds the pods popped and not yet requeued or done, and
	// flightEvents the cluster events since the earliest of them
	// (flightEvents[0] is event number flightBase); flightSaved the
	// bookkeeping at each open Fork (nil while unchanged).
	flight       map[string]*queuedPod
	flightEvents []qEvent
	flightBase   int
	flightSaved  []*qFlightSaved
}

// qMark is the queue's counters at a Fork.
type qMark struct{ seq, moves, events uint64 }

// qSaved is a pod's queue record as it was at a Fork: p is the record
// (nil when the queue did not hold the pod) and v a copy of its contents
// (nil with p). A copy apart keeps the fork journal's entries small: most
// records a fork saves are of pods added inside it (p nil).
type qSaved struct {
	p, v *queuedPod
}

func newSchedulingQueue(clock framework.Clock, less func(a, b *framework.QueuedPodInfo) bool, opts QueueOptions) *schedulingQueue {
	opts.setDefaults()
	if less == nil {
		less = qPriorityLess
	}
	q := &schedulingQueue{opts: opts, clock: clock, less: less, start: clock.Now(),
		unschedulable: map[string]*queuedPod{}, pods: map[string]*queuedPod{}, gated: map[string]*queuedPod{}, flight: map[string]*queuedPod{}}
	q.active = &qHeap{less: q.activeLess}
	q.backoff = &qHeap{less: q.backoffLess}
	q.errorBackoff = &qHeap{less: q.errorBackoffLess}
	return q
}

// qPriorityLess is kube-scheduler's PrioritySort order (higher priority
// first, then earlier queue timestamp), used when a profile has no
// QueueSort plugin.
func qPriorityLess(a, b *framework.QueuedPodInfo) bool {
	pa, pb := a.Pod.PriorityValue(), b.Pod.PriorityValue()
	return pa > pb || (pa == pb && a.Timestamp.Before(b.Timestamp))
}

func (q *schedulingQueue) activeLess(a, b *queuedPod) bool {
	if q.less(&a.QueuedPodInfo, &b.QueuedPodInfo) {
		return true
	}
	if q.less(&b.QueuedPodInfo, &a.QueuedPodInfo) {
		return false
	}
	return a.seq < b.seq
}

func (q *schedulingQueue) backoffLess(a, b *queuedPod) bool {
	ea, eb := q.backoffExpiry(a), q.backoffExpiry(b)
	if !ea.Equal(eb) {
		return ea.Before(eb)
	}
	if !q.opts.DisablePopFromBackoffQ {
		return q.activeLess(a, b)
	}
	return a.seq < b.seq
}

func (q *schedulingQueue) errorBackoffLess(a, b *queuedPod) bool {
	ea, eb := q.backoffExpiry(a), q.backoffExpiry(b)
	if !ea.Equal(eb) {
		return ea.Before(eb)
	}
	return a.seq < b.seq
}

// backoffDuration is initial × 2^(attempts−1), capped at the max; zero
// before the first attempt (kube's calculateBackoffDuration).
func (q *schedulingQueue) backoffDuration(attempts int) time.Duration {
	if attempts == 0 {
		return 0
	}
	d := q.opts.InitialBackoff
	for i := 1; i < attempts; i++ {
		if d > q.opts.MaxBackoff-d {
			return q.opts.MaxBackoff
		}
		d += d
	}
	return d
}

func (q *schedulingQueue) align(t time.Time) time.Time {
	if q.opts.DisablePopFromBackoffQ {
		return t
	}
	return t.Truncate(qBackoffFlushPeriod)
}

// backoffExpiry is the (aligned) time the pod's backoff ends.
func (q *schedulingQueue) backoffExpiry(p *queuedPod) time.Time {
	if p.Attempts == 0 {
		return time.Time{}
	}
	if p.backoffExpiry.IsZero() {
		p.backoffExpiry = q.align(p.Timestamp.Add(q.backoffDuration(p.Attempts)))
	}
	return p.backoffExpiry
}

// backingOff reports whether the pod is still in backoff at time t.
func (q *schedulingQueue) backingOff(p *queuedPod, t time.Time) bool {
	if q.opts.DisablePopFromBackoffQ {
		return q.backoffExpiry(p).After(t)
	}
	return !q.backoffExpiry(p).Before(q.align(t))
}

// lastTick returns the latest flush tick at or before now: whole seconds
// when backoff is aligned, otherwise start + k·period.
func (q *schedulingQueue) lastTick(now time.Time, period time.Duration, aligned bool) time.Time {
	if aligned {
		return now.Truncate(period)
	}
	if now.Before(q.start) {
		return q.start
	}
	return q.start.Add(now.Sub(q.start) / period * period)
}

// nextTickAfter returns the first flush tick at or after t.
func (q *schedulingQueue) nextTickAtOrAfter(t time.Time, period time.Duration, aligned bool) time.Time {
	tick := q.lastTick(t, period, aligned)
	if tick.Before(t) {
		tick = tick.Add(period)
	}
	return tick
}

// add enqueues a new pod in the active queue, or holds it gated when a
// PreEnqueue plugin rejects it.
func (q *schedulingQueue) add(pi *framework.PodInfo) *queuedPod {
	now := q.clock.Now()
	q.seq++
	p := &queuedPod{QueuedPodInfo: framework.QueuedPodInfo{PodInfo: pi, Timestamp: now}, key: pi.Pod.Key(), seq: q.seq, index: -1}
	q.touch(p.key)
	q.pods[p.key] = p
	if !q.gateHolds(p) {
		q.push(p, qActive)
	}
	return p
}

// detachedPod is a detached in-flight record and its first attempt's time.
type detachedPod struct {
	p     queuedPod
	first time.Time
}

// detached returns the in-flight record add and take would hand a cycle
// for pi (key its namespace/name) at now, without the queue holding it:
// for a pod whose cycle runs at once, on a fork, while nothing pops the
// queue until the fork is reverted (a capacity question's replica,
// whatif_capacity.go). When the cycle ends, done and requeueFailed find no
// record and leave the queue alone, and the binding reports no
// assigned-pod event (runBinding): its only effect would be moving queued
// pods, which no one pops before Revert restores them.
// r is the memory for the record (the caller allocates it with the pod).
func (q *schedulingQueue) detached(r *detachedPod, pi *framework.PodInfo, key string, now time.Time) *queuedPod {
	r.first = now
	r.p = queuedPod{QueuedPodInfo: framework.QueuedPodInfo{PodInfo: pi, Timestamp: now, Attempts: 1, InitialAttemptTimestamp: &r.first},
		key: key, index: -1, where: qInFlight, moveSeen: q.moves, detached: true}
	return &r.p
}

// gateHolds runs the PreEnqueue plugins on p; when one rejects it, p is
// held in the gated set (with the rejection) and gateHolds reports true.
// The caller has unlinked p.
func (q *schedulingQueue) gateHolds(p *queuedPod) bool {
	if q.gate == nil {
		return false
	}
	st := q.gate(p.PodInfo)
	if st.IsSuccess() {
		p.gateMsg, p.gatePlugin = "", ""
		return false
	}
	p.gateMsg, p.gatePlugin = st.Message(), st.Plugin()
	q.push(p, qGated)
	return true
}

// ungate lets the gated pods the PreEnqueue plugins now admit into the
// active queue (in queue order), as kube-scheduler re-runs PreEnqueue when
// it moves pods on a cluster event.
func (q *schedulingQueue) ungate() {
	if len(q.gated) == 0 {
		return
	}
	ps := make([]*queuedPod, 0, len(q.gated))
	for _, p := range q.gated {
		ps = append(ps, p)
	}
	q.regate(ps)
}

// regate runs the PreEnqueue plugins again on gated pods, in queue order:
// those they admit go to the active queue.
func (q *schedulingQueue) regate(ps []*queuedPod) {
	sort.Slice(ps, func(i, j int) bool { return ps[i].seq < ps[j].seq })
	for _, p := range ps {
		q.touch(p.key) // journaled in a fork
		q.unlink(p)
		if !q.gateHolds(p) {
			q.push(p, qActive)
		}
	}
}

// update replaces a queued pod's PodInfo (its spec changed from old; the
// update reports events): a gated pod is re-checked; an unschedulable one
// moves to the backoff or active queue — with queueing hints only when a
// plugin that rejected it says Queue for one of the events (kube's
// PriorityQueue.Update); in the active and backoff queues it keeps its
// place; a pod in flight hears of the events when it fails.
func (q *schedulingQueue) update(pi, old *framework.PodInfo, events []framework.ClusterEvent) {
	p, ok := q.pods[pi.Pod.Key()]
	if !ok {
		return
	}
	q.touch(p.key)
	p.PodInfo = pi
	p.sig, p.signed = "", false
	if q.hints != nil {
		switch p.where {
		case qInFlight:
			for _, ev := range events {
				q.recordFlight(&qEvent{ev: ev, old: old, new: pi})
			}
			return
		case qUnschedulable:
			now := q.clock.Now()
			for _, ev := range events {
				if s := q.worthRequeuing(p, &qEvent{ev: ev, old: old, new: pi}); s != queueSkip {
					q.requeueWithStrategy(p, s, now)
					return
				}
			}
			return
		}
	}
	switch p.where {
	case qGated:
		q.unlink(p)
		if !q.gateHolds(p) {
			q.push(p, qActive)
		}
	case qActive:
		heap.Fix(q.active, p.index)
	case qBackoff:
		heap.Fix(q.backoff, p.index)
	case qErrorBackoff:
		heap.Fix(q.errorBackoff, p.index)
	case qUnschedulable:
		q.moveToActiveOrBackoff([]*queuedPod{p}, q.clock.Now())
	}
}

func (q *schedulingQueue) push(p *queuedPod, where int) {
	p.where = where
	switch where {
	case qActive:
		heap.Push(q.active, p)
	case qBackoff:
		heap.Push(q.backoff, p)
	case qErrorBackoff:
		heap.Push(q.errorBackoff, p)
	case qUnschedulable:
		q.unschedulable[p.key] = p
	case qGated:
		q.gated[p.key] = p
	}
}

// unlink removes the pod from whatever sub-queue holds it.
func (q *schedulingQueue) unlink(p *queuedPod) {
	switch p.where {
	case qActive:
		heap.Remove(q.active, p.index)
	case qBackoff:
		heap.Remove(q.backoff, p.index)
	case qErrorBackoff:
		heap.Remove(q.errorBackoff, p.index)
	case qUnschedulable:
		delete(q.unschedulable, p.key)
	case qGated:
		delete(q.gated, p.key)
	}
	p.where = qNowhere
}

// delete forgets the pod entirely.
func (q *schedulingQueue) delete(key string) {
	p, ok := q.pods[key]
	if !ok {
		return
	}
	q.touch(key)
	q.endFlight(p)
	q.unlink(p)
	delete(q.pods, key)
}

// get returns the pod's queue record.
func (q *schedulingQueue) get(key string) (*queuedPod, bool) {
	p, ok := q.pods[key]
	return p, ok
}

// flush applies the backoff and leftover flush ticks due by now.
func (q *schedulingQueue) flush(now time.Time) {
	aligned := !q.opts.DisablePopFromBackoffQ
	tick := q.lastTick(now, qBackoffFlushPeriod, aligned)
	for _, h := range []*qHeap{q.backoff, q.errorBackoff} {
		for h.Len() > 0 && !q.backingOff(h.items[0], tick) {
			q.touch(h.items[0].key)
			p := heap.Pop(h).(*queuedPod)
			q.push(p, qActive)
		}
	}
	if len(q.unschedulable) == 0 {
		return
	}
	leftTick := q.lastTick(now, qLeftoverFlushPeriod, false)
	var stale []*queuedPod
	for _, p := range q.unschedulable {
		if leftTick.Sub(p.Timestamp) > q.opts.MaxInUnschedulablePods {
			stale = append(stale, p)
		}
	}
	if q.hints != nil {
		if len(stale) > 0 {
			q.movePods(stale, &qEvent{ev: framework.EventUnschedulableTimeout})
		}
		return
	}
	q.moveToActiveOrBackoff(stale, tick)
}

// moveToActiveOrBackoff moves unschedulable pods (in queue-sequence order)
// to the backoff queue while they back off, else to the active queue; pods
// that failed with Pending skip the backoff.
func (q *schedulingQueue) moveToActiveOrBackoff(ps []*queuedPod, now time.Time) {
	sort.Slice(ps, func(i, j int) bool { return ps[i].seq < ps[j].seq })
	for _, p := range ps {
		q.touch(p.key)
		q.unlink(p)
		switch {
		case len(p.pendingPlugins) > 0:
			q.push(p, qActive)
		case q.backingOff(p, now):
			q.push(p, qBackoff)
		default:
			q.push(p, qActive)
		}
	}
}

// moveAll is kube-scheduler's MoveAllToActiveOrBackoffQueue without
// queueing hints: every event moves every unschedulable pod.
func (q *schedulingQueue) moveAll() { q.moveAllWhere(nil) }

// moveAllWhere is moveAll for the pods that pass preCheck (nil: all).
func (q *schedulingQueue) moveAllWhere(preCheck func(*queuedPod) bool) {
	q.moves++
	q.ungate()
	if len(q.unschedulable) == 0 {
		return
	}
	ps := make([]*queuedPod, 0, len(q.unschedulable))
	for _, p := range q.unschedulable {
		if preCheck == nil || preCheck(p) {
			ps = append(ps, p)
		}
	}
	q.moveToActiveOrBackoff(ps, q.clock.Now())
}

// pop returns the next pod to schedule, or nil: the head of the active
// queue after the due flushes, else (with PopFromBackoffQ) the head of the
// backoff queue. The pod's attempt count goes up and it is in flight until
// requeued or deleted.
func (q *schedulingQueue) pop() *queuedPod {
	now := q.clock.Now()
	q.flush(now)
	if q.reorder.Swap(false) {
		heap.Init(q.active)
	}
	var p *queuedPod
	switch {
	case q.active.Len() > 0:
		p = q.active.items[0]
	case !q.opts.DisablePopFromBackoffQ && q.backoff.Len() > 0:
		p = q.backoff.items[0]
	default:
		return nil
	}
	q.take(p, now)
	return p
}

// take moves a queued pod in flight for an attempt: out of its sub-queue,
// one attempt more, the first attempt's time recorded.
func (q *schedulingQueue) take(p *queuedPod, now time.Time) {
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
}

// requeueFailed puts an in-flight pod back after a failed attempt:
// errors go to the error-backoff queue; rejections go to the unschedulable
// pool, unless a cluster event arrived while the pod was in flight, in
// which case it goes to the backoff or active queue at once.
func (q *schedulingQueue) requeueFailed(p *queuedPod, unschedulablePlugins, pendingPlugins []string, isError bool) {
	if _, ok := q.pods[p.key]; !ok || p.where != qInFlight {
		return
	}
	q.touch(p.key)
	now := q.clock.Now()
	p.Timestamp = now
	p.backoffExpiry = time.Time{}
	p.unschedulablePlugins = slices.Clone(unschedulablePlugins)
	p.pendingPlugins = slices.Clone(pendingPlugins)
	p.eventSeen = q.events
	if q.hints != nil && !isError {
		s := q.flightStrategy(p)
		q.endFlight(p)
		p.where = qNowhere
		q.requeueWithStrategy(p, s, now)
		return
	}
	q.endFlight(p)
	switch {
	case isError:
		p.where = qNowhere
		q.push(p, qErrorBackoff)
	case q.moves != p.moveSeen:
		p.where = qUnschedulable
		q.unschedulable[p.key] = p
		q.moveToActiveOrBackoff([]*queuedPod{p}, now)
	default:
		p.where = qNowhere
		q.push(p, qUnschedulable)
	}
}

// setPodInfo replaces the pod object of a queued pod (its nomination
// changed).
func (q *schedulingQueue) setPodInfo(p *queuedPod, pi *framework.PodInfo) {
	q.touch(p.key)
	p.PodInfo = pi
	p.sig, p.signed = "", false
}

// done forgets an in-flight pod that was scheduled. A detached record
// (detached) is none of the queue's: nothing to look up.
func (q *schedulingQueue) done(p *queuedPod) {
	if p.detached {
		return
	}
	if cur, ok := q.pods[p.key]; ok && cur == p && p.where == qInFlight {
		q.touch(p.key)
		q.endFlight(p)
		delete(q.pods, p.key)
		p.where = qNowhere
	}
}

// nextWakeup returns the earliest time at which a flush would make a pod
// active, when the active queue is empty and nothing else changes.
func (q *schedulingQueue) nextWakeup() (time.Time, bool) { return q.wakeup(nil) }

// wakeup is nextWakeup counting, of the error backoff queue and the
// unschedulable pool, only the pods count accepts (nil: all); the backoff
// queue always counts.
func (q *schedulingQueue) wakeup(count func(*queuedPod) bool) (time.Time, bool) {
	var best time.Time
	found := false
	consider := func(t time.Time) {
		if !found || t.Before(best) {
			best, found = t, true
		}
	}
	aligned := !q.opts.DisablePopFromBackoffQ
	backoffDone := func(p *queuedPod) {
		e := q.backoffExpiry(p)
		if aligned {
			// Done once align(t) > e, i.e. from e + 1 s on.
			consider(e.Add(qBackoffFlushPeriod))
		} else {
			consider(q.nextTickAtOrAfter(e, qBackoffFlushPeriod, false))
		}
	}
	if q.backoff.Len() > 0 {
		backoffDone(q.backoff.items[0])
	}
	for _, p := range q.errorBackoff.items {
		if count == nil || count(p) {
			backoffDone(p)
		}
	}
	for _, p := range q.unschedulable {
		if count != nil && !count(p) {
			continue
		}
		// The first leftover tick strictly more than MaxInUnschedulablePods
		// after the pod's timestamp.
		threshold := p.Timestamp.Add(q.opts.MaxInUnschedulablePods)
		t := q.nextTickAtOrAfter(threshold, qLeftoverFlushPeriod, false)
		if !t.After(threshold) {
			t = t.Add(qLeftoverFlushPeriod)
		}
		consider(t)
	}
	return best, found
}

// staleWakeup is nextWakeup counting, of the error backoff queue and the
// unschedulable pool, only the pods that failed before the latest cluster
// event: a retry of the others would meet the cluster they failed on.
func (q *schedulingQueue) staleWakeup() (time.Time, bool) {
	return q.wakeup(func(p *queuedPod) bool { return p.eventSeen != q.events })
}

// lens returns the sizes of the active queue, the backoff queues and the
// unschedulable pool (which counts gated pods, as kube-scheduler's does).
func (q *schedulingQueue) lens() (active, backoff, unschedulable int) {
	return q.active.Len(), q.backoff.Len() + q.errorBackoff.Len(), len(q.unschedulable) + len(q.gated)
}

// touch saves the record of the pod key as it is now, before a change,
// when a fork is open and the record is not saved for it yet. Every change
// of a record or of its place in the queue calls it first.
func (q *schedulingQueue) touch(key string) {
	if !q.saved.Needs(key) {
		return
	}
	s := qSaved{p: q.pods[key]}
	if s.p != nil {
		v := *s.p
		s.v = &v
	}
	q.saved.Put(key, s)
}

// fork, commit and revert follow the Scheduler's: revert puts back every
// record changed since the matching fork (O(changes · log pods)) and the
// counters, so pops, backoffs and flushes go on as if the fork never
// happened.
func (q *schedulingQueue) fork() {
	q.marks = append(q.marks, qMark{seq: q.seq, moves: q.moves, events: q.events})
	q.saved.Open()
	q.flightSaved = append(q.flightSaved, nil)
}

func (q *schedulingQueue) commit() {
	q.marks = q.marks[:len(q.marks)-1]
	q.saved.Commit()
	k := len(q.flightSaved)
	top := q.flightSaved[k-1]
	q.flightSaved = q.flightSaved[:k-1]
	if k > 1 && q.flightSaved[k-2] == nil {
		q.flightSaved[k-2] = top
	}
}

func (q *schedulingQueue) revert() {
	m := q.marks[len(q.marks)-1]
	q.marks = q.marks[:len(q.marks)-1]
	q.seq, q.moves, q.events = m.seq, m.moves, m.events
	if fs := q.flightSaved[len(q.flightSaved)-1]; fs != nil {
		q.flightEvents, q.flightBase, q.flight = fs.events, fs.base, fs.flight
	}
	q.flightSaved = q.flightSaved[:len(q.flightSaved)-1]
	saved := q.saved.Revert()
	for key := range saved {
		if cur, ok := q.pods[key]; ok {
			q.unlink(cur)
			delete(q.pods, key)
		}
	}
	for key, s := range saved {
		if s.p == nil {
			continue
		}
		*s.p = *s.v
		s.p.index = -1
		q.pods[key] = s.p
		q.push(s.p, s.v.where)
	}
}

// qHeap is a binary heap of queued pods that tracks each pod's index.
type qHeap struct {
	items []*queuedPod
	less  func(a, b *queuedPod) bool
}

func (h *qHeap) Len() int           { return len(h.items) }
func (h *qHeap) Less(i, j int) bool { return h.less(h.items[i], h.items[j]) }
func (h *qHeap) Swap(i, j int) {
	h.items[i], h.items[j] = h.items[j], h.items[i]
	h.items[i].index = i
	h.items[j].index = j
}
func (h *qHeap) Push(x any) {
	p := x.(*queuedPod)
	p.index = len(h.items)
	h.items = append(h.items, p)
}
func (h *qHeap) Pop() any {
	n := len(h.items)
	p := h.items[n-1]
	h.items[n-1] = nil
	h.items = h.items[:n-1]
	p.index = -1
	return p
}

// nominator tracks pods nominated to nodes by preemption, in nomination
// order per node (kube-scheduler's nominator).
type nominator struct {
	byNode map[string][]*framework.PodInfo
	nodeOf map[string]string
	// saved holds, per open fork, the nominations at Fork (copied on the
	// first change; nil while unchanged).
	saved []*nominator
}

func newNominator() *nominator {
	return &nominator{byNode: map[string][]*framework.PodInfo{}, nodeOf: map[string]string{}}
}

// add nominates pi (keyed by its pod) to node, replacing an earlier
// nomination; an empty node deletes it.
func (n *nominator) add(key string, pi *framework.PodInfo, node string) {
	n.changing()
	n.remove(key)
	if node == "" {
		return
	}
	n.nodeOf[key] = node
	n.byNode[node] = append(n.byNode[node], pi)
}

func (n *nominator) remove(key string) {
	node, ok := n.nodeOf[key]
	if !ok {
		return
	}
	n.changing()
	delete(n.nodeOf, key)
	list := n.byNode[node]
	for i, pi := range list {
		if pi.Pod.Key() == key {
			list = slices.Delete(list, i, i+1)
			break
		}
	}
	if len(list) == 0 {
		delete(n.byNode, node)
	} else {
		n.byNode[node] = list
	}
}

// forNode returns the pods nominated to node (shared; do not modify).
func (n *nominator) forNode(node string) []*framework.PodInfo { return n.byNode[node] }

func (n *nominator) empty() bool { return len(n.nodeOf) == 0 }

// changing copies the nominations before the first change in an open fork.
func (n *nominator) changing() {
	k := len(n.saved)
	if k == 0 || n.saved[k-1] != nil {
		return
	}
	c := &nominator{byNode: make(map[string][]*framework.PodInfo, len(n.byNode)), nodeOf: maps.Clone(n.nodeOf)}
	for node, list := range n.byNode {
		c.byNode[node] = slices.Clone(list)
	}
	n.saved[k-1] = c
}

func (n *nominator) fork() { n.saved = append(n.saved, nil) }

// commit hands the fork's saved nominations to the enclosing fork when
// that one has none (nothing changed between the two Forks).
func (n *nominator) commit() {
	k := len(n.saved)
	top := n.saved[k-1]
	n.saved = n.saved[:k-1]
	if k > 1 && n.saved[k-2] == nil {
		n.saved[k-2] = top
	}
}

func (n *nominator) revert() {
	k := len(n.saved)
	top := n.saved[k-1]
	n.saved = n.saved[:k-1]
	if top != nil {
		n.byNode, n.nodeOf = top.byNode, top.nodeOf
	}
}

// forkJournal keeps, per open fork, the first saved value of every key
// changed since that fork, so that a revert restores exactly the keys that
// changed: O(1) to open, O(changes) to revert or commit.
type forkJournal[V any] = journal.Saves[string, V]
