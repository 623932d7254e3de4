package queue

import (
	"container/heap"
	"maps"
	"slices"
	"sort"
	"sync/atomic"
	"time"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/internal/journal"
)

// Flush periods, kube-scheduler's (the same in v1.36 and v1.37;
// backend/queue/scheduling_queue.go).
const (
	// backoffFlushPeriod and leftoverFlushPeriod are kube-scheduler's
	// flush ticks of the backoff queue and of the unschedulable pool.
	backoffFlushPeriod  = time.Second
	leftoverFlushPeriod = 30 * time.Second
)

// Config is scheduling.QueueOptions with its defaults applied.
type Config struct {
	InitialBackoff, MaxBackoff, MaxInUnschedulablePods time.Duration
	DisablePopFromBackoffQ, DisableQueueingHints       bool
}

// Where a queued pod is.
const (
	Nowhere = iota
	Active
	Backoff
	ErrorBackoff
	Unschedulable
	InFlight
	// Gated: a PreEnqueue plugin holds the pod back (scheduling gates).
	Gated
)

// WhereName names a place as State.Queued shows it.
func WhereName(where int) string {
	return [...]string{"nowhere", "active", "backoff", "error-backoff", "unschedulable", "in-flight", "gated"}[where]
}

// QueuedPod is the queue's record of one pending pod.
type QueuedPod struct {
	framework.QueuedPodInfo
	Key string
	// Seq orders pods that QueueSort ties (first added first).
	Seq uint64
	// UnschedulablePlugins and pendingPlugins are from the last failure;
	// both empty after an error.
	UnschedulablePlugins []string
	PendingPlugins       []string
	// backoffExpiry caches the end of the current backoff (zero: unset).
	backoffExpiry time.Time
	// MoveSeen is the queue's move counter when the pod was popped;
	// eventSeen its event counter when the pod last failed (requeued).
	MoveSeen, eventSeen uint64
	// flightAt is, with queueing hints, the position in the queue's
	// in-flight event list at which the pod was popped.
	flightAt int
	// Sig is the pod's signature once signed (reuse.go); a new pod object
	// (setPodInfo) is signed again.
	Sig    framework.PodSignature
	Signed bool
	// Class caches the scheduler's answer to which class of pods the pod
	// belongs to (scheduling's classeval.go); reset with Sig.
	Class any
	Where int
	index int
	// GateMsg is the PreEnqueue rejection of a gated pod, gatePlugin the
	// plugin that gated it.
	GateMsg, gatePlugin string
	// Detached: a record the queue does not hold (Queue.detached).
	Detached bool
}

// Queue orders pending pods as kube-scheduler's PriorityQueue: an
// active queue sorted by the profile's QueueSort plugin, a backoff queue
// sorted by backoff expiry, an error-backoff queue, and the unschedulable
// pool, which cluster events (or the 5-minute leftover flush) empty into the
// backoff or active queue. Kube-scheduler moves pods on 1 s and 30 s flush
// ticks; this queue evaluates the same ticks lazily when a pod is popped,
// which on a virtual clock gives the same order at the same times. It is
// not safe for concurrent use.
type Queue struct {
	opts  Config
	clock framework.Clock
	less  func(a, b *framework.QueuedPodInfo) bool
	start time.Time

	ActiveQ, BackoffQ, ErrorBackoffQ *Heap
	UnschedulableQ                   map[string]*QueuedPod
	Pods                             map[string]*QueuedPod
	// Gate runs the pod's PreEnqueue plugins (nil: none); gated holds the
	// pods they rejected, outside the other sub-queues, until an update of
	// the pod or a cluster event lets them through.
	Gate  func(*framework.PodInfo) *framework.Status
	gated map[string]*QueuedPod
	// leftoverTick is the leftover flush tick every pod in UnschedulableQ
	// was last checked against, while leftoverChecked holds: the pods
	// there are not stale at that tick, so Flush need not look again
	// until the tick moves.
	leftoverTick    time.Time
	leftoverChecked bool
	Seq             uint64
	// Moves counts MoveAll calls; a pod that fails after a move that
	// happened while it was in flight is retried instead of parked.
	// events counts the cluster events reported (moving pods or not).
	Moves, Events uint64
	// marks and saved make the queue part of a Scheduler's fork: per open
	// fork, the counters at Fork and the first saved record of every pod
	// changed since (see fork, touch, revert).
	marks []mark
	saved forkSaves[saved]
	// Reorder is set when the QueueSort plugin's order of the pods already
	// queued changed (Coscheduling's group failure times): the active heap
	// is rebuilt before the next pop, so that the pop takes the first pod
	// in the current order whatever the heap's layout. Atomic: Unreserve
	// may run in a binding goroutine.
	Reorder atomic.Bool

	// Hints are the profiles' queueing hints (nil: DisableQueueingHints);
	// snapshot is the cluster the hint functions see.
	Hints    *Hints
	Snapshot func() *framework.Snapshot
	// Flight holds the pods popped and not yet requeued or done, and
	// flightEvents the cluster events since the earliest of them
	// (flightEvents[0] is event number flightBase); flightSaved the
	// bookkeeping at each open Fork (nil while unchanged).
	Flight       map[string]*QueuedPod
	FlightEvents []Event
	flightBase   int
	flightSaved  []*flightSaved
}

// mark is the queue's counters at a Fork.
type mark struct{ seq, moves, events uint64 }

// saved is a pod's queue record as it was at a Fork: p is the record
// (nil when the queue did not hold the pod) and v a copy of its contents
// (nil with p). A copy apart keeps the fork journal's entries small: most
// records a fork saves are of pods added inside it (p nil).
type saved struct {
	p, v *QueuedPod
}

func New(clock framework.Clock, less func(a, b *framework.QueuedPodInfo) bool, opts Config) *Queue {
	if less == nil {
		less = priorityLess
	}
	q := &Queue{opts: opts, clock: clock, less: less, start: clock.Now(),
		UnschedulableQ: map[string]*QueuedPod{}, Pods: map[string]*QueuedPod{}, gated: map[string]*QueuedPod{}, Flight: map[string]*QueuedPod{}}
	q.ActiveQ = &Heap{LessFn: q.activeLess}
	q.BackoffQ = &Heap{LessFn: q.backoffLess}
	q.ErrorBackoffQ = &Heap{LessFn: q.errorBackoffLess}
	return q
}

// priorityLess is kube-scheduler's PrioritySort order (higher priority
// first, then earlier queue timestamp), used when a profile has no
// QueueSort plugin.
func priorityLess(a, b *framework.QueuedPodInfo) bool {
	pa, pb := a.Pod.PriorityValue(), b.Pod.PriorityValue()
	return pa > pb || (pa == pb && a.Timestamp.Before(b.Timestamp))
}

func (q *Queue) activeLess(a, b *QueuedPod) bool {
	if q.less(&a.QueuedPodInfo, &b.QueuedPodInfo) {
		return true
	}
	if q.less(&b.QueuedPodInfo, &a.QueuedPodInfo) {
		return false
	}
	return a.Seq < b.Seq
}

func (q *Queue) backoffLess(a, b *QueuedPod) bool {
	ea, eb := q.backoffExpiry(a), q.backoffExpiry(b)
	if !ea.Equal(eb) {
		return ea.Before(eb)
	}
	if !q.opts.DisablePopFromBackoffQ {
		return q.activeLess(a, b)
	}
	return a.Seq < b.Seq
}

func (q *Queue) errorBackoffLess(a, b *QueuedPod) bool {
	ea, eb := q.backoffExpiry(a), q.backoffExpiry(b)
	if !ea.Equal(eb) {
		return ea.Before(eb)
	}
	return a.Seq < b.Seq
}

// backoffDuration is initial × 2^(attempts−1), capped at the max; zero
// before the first attempt (kube's calculateBackoffDuration).
func (q *Queue) backoffDuration(attempts int) time.Duration {
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

func (q *Queue) align(t time.Time) time.Time {
	if q.opts.DisablePopFromBackoffQ {
		return t
	}
	return t.Truncate(backoffFlushPeriod)
}

// backoffExpiry is the (aligned) time the pod's backoff ends.
func (q *Queue) backoffExpiry(p *QueuedPod) time.Time {
	if p.Attempts == 0 {
		return time.Time{}
	}
	if p.backoffExpiry.IsZero() {
		p.backoffExpiry = q.align(p.Timestamp.Add(q.backoffDuration(p.Attempts)))
	}
	return p.backoffExpiry
}

// backingOff reports whether the pod is still in backoff at time t.
func (q *Queue) backingOff(p *QueuedPod, t time.Time) bool {
	if q.opts.DisablePopFromBackoffQ {
		return q.backoffExpiry(p).After(t)
	}
	return !q.backoffExpiry(p).Before(q.align(t))
}

// lastTick returns the latest flush tick at or before now: whole seconds
// when backoff is aligned, otherwise start + k·period.
func (q *Queue) lastTick(now time.Time, period time.Duration, aligned bool) time.Time {
	if aligned {
		return now.Truncate(period)
	}
	if now.Before(q.start) {
		return q.start
	}
	return q.start.Add(now.Sub(q.start) / period * period)
}

// nextTickAfter returns the first flush tick at or after t.
func (q *Queue) nextTickAtOrAfter(t time.Time, period time.Duration, aligned bool) time.Time {
	tick := q.lastTick(t, period, aligned)
	if tick.Before(t) {
		tick = tick.Add(period)
	}
	return tick
}

// Add enqueues a new pod in the active queue, or holds it gated when a
// PreEnqueue plugin rejects it.
func (q *Queue) Add(pi *framework.PodInfo) *QueuedPod {
	now := q.clock.Now()
	q.Seq++
	p := &QueuedPod{QueuedPodInfo: framework.QueuedPodInfo{PodInfo: pi, Timestamp: now}, Key: pi.Pod.Key(), Seq: q.Seq, index: -1}
	q.touch(p.Key)
	q.Pods[p.Key] = p
	if !q.gateHolds(p) {
		q.push(p, Active)
	}
	return p
}

// DetachedPod is a detached in-flight record and its first attempt's time.
type DetachedPod struct {
	p     QueuedPod
	first time.Time
}

// Detached returns the in-flight record add and take would hand a cycle
// for pi (key its namespace/name) at now, without the queue holding it:
// for a pod whose cycle runs at once, on a fork, while nothing pops the
// queue until the fork is reverted (a capacity question's replica,
// whatif_capacity.go). When the cycle ends, done and requeueFailed find no
// record and leave the queue alone, and the binding reports no
// assigned-pod event (runBinding): its only effect would be moving queued
// pods, which no one pops before Revert restores them.
// r is the memory for the record (the caller allocates it with the pod).
func (q *Queue) Detached(r *DetachedPod, pi *framework.PodInfo, key string, now time.Time) *QueuedPod {
	r.first = now
	r.p = QueuedPod{QueuedPodInfo: framework.QueuedPodInfo{PodInfo: pi, Timestamp: now, Attempts: 1, InitialAttemptTimestamp: &r.first},
		Key: key, index: -1, Where: InFlight, MoveSeen: q.Moves, Detached: true}
	return &r.p
}

// gateHolds runs the PreEnqueue plugins on p; when one rejects it, p is
// held in the gated set (with the rejection) and gateHolds reports true.
// The caller has unlinked p.
func (q *Queue) gateHolds(p *QueuedPod) bool {
	if q.Gate == nil {
		return false
	}
	st := q.Gate(p.PodInfo)
	if st.IsSuccess() {
		p.GateMsg, p.gatePlugin = "", ""
		return false
	}
	p.GateMsg, p.gatePlugin = st.Message(), st.Plugin()
	q.push(p, Gated)
	return true
}

// ungate lets the gated pods the PreEnqueue plugins now admit into the
// active queue (in queue order), as kube-scheduler re-runs PreEnqueue when
// it moves pods on a cluster event.
func (q *Queue) ungate() {
	if len(q.gated) == 0 {
		return
	}
	ps := make([]*QueuedPod, 0, len(q.gated))
	for _, p := range q.gated {
		ps = append(ps, p)
	}
	q.regate(ps)
}

// regate runs the PreEnqueue plugins again on gated pods, in queue order:
// those they admit go to the active queue.
func (q *Queue) regate(ps []*QueuedPod) {
	sort.Slice(ps, func(i, j int) bool { return ps[i].Seq < ps[j].Seq })
	for _, p := range ps {
		q.touch(p.Key) // journaled in a fork
		q.Unlink(p)
		if !q.gateHolds(p) {
			q.push(p, Active)
		}
	}
}

// Update replaces a queued pod's PodInfo (its spec changed from old; the
// update reports events): a gated pod is re-checked; an unschedulable one
// moves to the backoff or active queue — with queueing hints only when a
// plugin that rejected it says Queue for one of the events (kube's
// PriorityQueue.Update); in the active and backoff queues it keeps its
// place; a pod in flight hears of the events when it fails.
func (q *Queue) Update(pi, old *framework.PodInfo, events []framework.ClusterEvent) {
	p, ok := q.Pods[pi.Pod.Key()]
	if !ok {
		return
	}
	q.touch(p.Key)
	p.PodInfo = pi
	p.Sig, p.Signed, p.Class = "", false, nil
	if q.Hints != nil {
		switch p.Where {
		case InFlight:
			for _, ev := range events {
				q.recordFlight(&Event{ClusterEvent: ev, Old: old, New: pi})
			}
			return
		case Unschedulable:
			now := q.clock.Now()
			for _, ev := range events {
				if s := q.WorthRequeuing(p, &Event{ClusterEvent: ev, Old: old, New: pi}); s != Skip {
					q.requeueWithStrategy(p, s, now)
					return
				}
			}
			return
		}
	}
	switch p.Where {
	case Gated:
		q.Unlink(p)
		if !q.gateHolds(p) {
			q.push(p, Active)
		}
	case Active:
		heap.Fix(q.ActiveQ, p.index)
	case Backoff:
		heap.Fix(q.BackoffQ, p.index)
	case ErrorBackoff:
		heap.Fix(q.ErrorBackoffQ, p.index)
	case Unschedulable:
		q.MoveToActiveOrBackoff([]*QueuedPod{p}, q.clock.Now())
	}
}

func (q *Queue) push(p *QueuedPod, where int) {
	p.Where = where
	switch where {
	case Active:
		heap.Push(q.ActiveQ, p)
	case Backoff:
		heap.Push(q.BackoffQ, p)
	case ErrorBackoff:
		heap.Push(q.ErrorBackoffQ, p)
	case Unschedulable:
		q.UnschedulableQ[p.Key] = p
		if q.leftoverChecked && q.stale(p, q.leftoverTick) {
			q.leftoverChecked = false
		}
	case Gated:
		q.gated[p.Key] = p
	}
}

// stale reports whether p has waited in the unschedulable pool longer than
// MaxInUnschedulablePods at the leftover flush tick.
func (q *Queue) stale(p *QueuedPod, tick time.Time) bool {
	return tick.Sub(p.Timestamp) > q.opts.MaxInUnschedulablePods
}

// Unlink removes the pod from whatever sub-queue holds it.
func (q *Queue) Unlink(p *QueuedPod) {
	switch p.Where {
	case Active:
		heap.Remove(q.ActiveQ, p.index)
	case Backoff:
		heap.Remove(q.BackoffQ, p.index)
	case ErrorBackoff:
		heap.Remove(q.ErrorBackoffQ, p.index)
	case Unschedulable:
		delete(q.UnschedulableQ, p.Key)
	case Gated:
		delete(q.gated, p.Key)
	}
	p.Where = Nowhere
}

// Delete forgets the pod entirely.
func (q *Queue) Delete(key string) {
	p, ok := q.Pods[key]
	if !ok {
		return
	}
	q.touch(key)
	q.endFlight(p)
	q.Unlink(p)
	delete(q.Pods, key)
}

// Get returns the pod's queue record.
func (q *Queue) Get(key string) (*QueuedPod, bool) {
	p, ok := q.Pods[key]
	return p, ok
}

// Flush applies the backoff and leftover flush ticks due by now.
func (q *Queue) Flush(now time.Time) {
	aligned := !q.opts.DisablePopFromBackoffQ
	tick := q.lastTick(now, backoffFlushPeriod, aligned)
	for _, h := range []*Heap{q.BackoffQ, q.ErrorBackoffQ} {
		for h.Len() > 0 && !q.backingOff(h.Items[0], tick) {
			q.touch(h.Items[0].Key)
			p := heap.Pop(h).(*QueuedPod)
			q.push(p, Active)
		}
	}
	if len(q.UnschedulableQ) == 0 {
		return
	}
	leftTick := q.lastTick(now, leftoverFlushPeriod, false)
	if q.leftoverChecked && leftTick.Equal(q.leftoverTick) {
		return
	}
	var stale []*QueuedPod
	for _, p := range q.UnschedulableQ {
		if q.stale(p, leftTick) {
			stale = append(stale, p)
		}
	}
	if q.Hints != nil {
		if len(stale) > 0 {
			q.movePods(stale, &Event{ClusterEvent: framework.EventUnschedulableTimeout})
		}
	} else {
		q.MoveToActiveOrBackoff(stale, tick)
	}
	// The scan holds until the tick moves if no stale pod stayed behind;
	// push clears it when a pod already stale at this tick comes in.
	q.leftoverTick, q.leftoverChecked = leftTick, true
	for _, p := range stale {
		if p.Where == Unschedulable {
			q.leftoverChecked = false
			break
		}
	}
}

// MoveToActiveOrBackoff moves unschedulable pods (in queue-sequence order)
// to the backoff queue while they back off, else to the active queue; pods
// that failed with Pending skip the backoff.
func (q *Queue) MoveToActiveOrBackoff(ps []*QueuedPod, now time.Time) {
	sort.Slice(ps, func(i, j int) bool { return ps[i].Seq < ps[j].Seq })
	for _, p := range ps {
		q.touch(p.Key)
		q.Unlink(p)
		switch {
		case len(p.PendingPlugins) > 0:
			q.push(p, Active)
		case q.backingOff(p, now):
			q.push(p, Backoff)
		default:
			q.push(p, Active)
		}
	}
}

// MoveAll is kube-scheduler's MoveAllToActiveOrBackoffQueue without
// queueing hints: every event moves every unschedulable pod.
func (q *Queue) MoveAll() { q.MoveAllWhere(nil) }

// MoveAllWhere is moveAll for the pods that pass preCheck (nil: all).
func (q *Queue) MoveAllWhere(preCheck func(*QueuedPod) bool) {
	q.Moves++
	q.ungate()
	if len(q.UnschedulableQ) == 0 {
		return
	}
	ps := make([]*QueuedPod, 0, len(q.UnschedulableQ))
	for _, p := range q.UnschedulableQ {
		if preCheck == nil || preCheck(p) {
			ps = append(ps, p)
		}
	}
	q.MoveToActiveOrBackoff(ps, q.clock.Now())
}

// Pop returns the next pod to schedule, or nil: the head of the active
// queue after the due flushes, else (with PopFromBackoffQ) the head of the
// backoff queue. The pod's attempt count goes up and it is in flight until
// requeued or deleted.
func (q *Queue) Pop() *QueuedPod {
	now := q.clock.Now()
	q.Flush(now)
	if q.Reorder.Swap(false) {
		heap.Init(q.ActiveQ)
	}
	var p *QueuedPod
	switch {
	case q.ActiveQ.Len() > 0:
		p = q.ActiveQ.Items[0]
	case !q.opts.DisablePopFromBackoffQ && q.BackoffQ.Len() > 0:
		p = q.BackoffQ.Items[0]
	default:
		return nil
	}
	q.Take(p, now)
	return p
}

// Take moves a queued pod in flight for an attempt: out of its sub-queue,
// one attempt more, the first attempt's time recorded.
func (q *Queue) Take(p *QueuedPod, now time.Time) {
	q.touch(p.Key)
	q.Unlink(p)
	p.Where = InFlight
	p.Attempts++
	p.backoffExpiry = time.Time{}
	if p.InitialAttemptTimestamp == nil {
		t := now
		p.InitialAttemptTimestamp = &t
	}
	p.MoveSeen = q.Moves
	q.startFlight(p)
}

// RequeueFailed puts an in-flight pod back after a failed attempt:
// errors go to the error-backoff queue; rejections go to the unschedulable
// pool, unless a cluster event arrived while the pod was in flight, in
// which case it goes to the backoff or active queue at once.
func (q *Queue) RequeueFailed(p *QueuedPod, unschedulablePlugins, pendingPlugins []string, isError bool) {
	if _, ok := q.Pods[p.Key]; !ok || p.Where != InFlight {
		return
	}
	q.touch(p.Key)
	now := q.clock.Now()
	p.Timestamp = now
	p.backoffExpiry = time.Time{}
	p.UnschedulablePlugins = slices.Clone(unschedulablePlugins)
	p.PendingPlugins = slices.Clone(pendingPlugins)
	p.eventSeen = q.Events
	if q.Hints != nil && !isError {
		s := q.flightStrategy(p)
		q.endFlight(p)
		p.Where = Nowhere
		q.requeueWithStrategy(p, s, now)
		return
	}
	q.endFlight(p)
	switch {
	case isError:
		p.Where = Nowhere
		q.push(p, ErrorBackoff)
	case q.Moves != p.MoveSeen:
		p.Where = Unschedulable
		q.UnschedulableQ[p.Key] = p
		q.MoveToActiveOrBackoff([]*QueuedPod{p}, now)
	default:
		p.Where = Nowhere
		q.push(p, Unschedulable)
	}
}

// SetPodInfo replaces the pod object of a queued pod (its nomination
// changed).
func (q *Queue) SetPodInfo(p *QueuedPod, pi *framework.PodInfo) {
	q.touch(p.Key)
	p.PodInfo = pi
	p.Sig, p.Signed, p.Class = "", false, nil
}

// Done forgets an in-flight pod that was scheduled. A detached record
// (detached) is none of the queue's: nothing to look up.
func (q *Queue) Done(p *QueuedPod) {
	if p.Detached {
		return
	}
	if cur, ok := q.Pods[p.Key]; ok && cur == p && p.Where == InFlight {
		q.touch(p.Key)
		q.endFlight(p)
		delete(q.Pods, p.Key)
		p.Where = Nowhere
	}
}

// NextWakeup returns the earliest time at which a flush would make a pod
// active, when the active queue is empty and nothing else changes.
func (q *Queue) NextWakeup() (time.Time, bool) { return q.wakeup(nil) }

// wakeup is nextWakeup counting, of the error backoff queue and the
// unschedulable pool, only the pods count accepts (nil: all); the backoff
// queue always counts.
func (q *Queue) wakeup(count func(*QueuedPod) bool) (time.Time, bool) {
	var best time.Time
	found := false
	consider := func(t time.Time) {
		if !found || t.Before(best) {
			best, found = t, true
		}
	}
	aligned := !q.opts.DisablePopFromBackoffQ
	backoffDone := func(p *QueuedPod) {
		e := q.backoffExpiry(p)
		if aligned {
			// Done once align(t) > e, i.e. from e + 1 s on.
			consider(e.Add(backoffFlushPeriod))
		} else {
			consider(q.nextTickAtOrAfter(e, backoffFlushPeriod, false))
		}
	}
	if q.BackoffQ.Len() > 0 {
		backoffDone(q.BackoffQ.Items[0])
	}
	for _, p := range q.ErrorBackoffQ.Items {
		if count == nil || count(p) {
			backoffDone(p)
		}
	}
	for _, p := range q.UnschedulableQ {
		if count != nil && !count(p) {
			continue
		}
		// The first leftover tick strictly more than MaxInUnschedulablePods
		// after the pod's timestamp.
		threshold := p.Timestamp.Add(q.opts.MaxInUnschedulablePods)
		t := q.nextTickAtOrAfter(threshold, leftoverFlushPeriod, false)
		if !t.After(threshold) {
			t = t.Add(leftoverFlushPeriod)
		}
		consider(t)
	}
	return best, found
}

// StaleWakeup is nextWakeup counting, of the error backoff queue and the
// unschedulable pool, only the pods that failed before the latest cluster
// event: a retry of the others would meet the cluster they failed on.
func (q *Queue) StaleWakeup() (time.Time, bool) {
	return q.wakeup(func(p *QueuedPod) bool { return p.eventSeen != q.Events })
}

// Lens returns the sizes of the active queue, the backoff queues and the
// unschedulable pool (which counts gated pods, as kube-scheduler's does).
func (q *Queue) Lens() (active, backoff, unschedulable int) {
	return q.ActiveQ.Len(), q.BackoffQ.Len() + q.ErrorBackoffQ.Len(), len(q.UnschedulableQ) + len(q.gated)
}

// touch saves the record of the pod key as it is now, before a change,
// when a fork is open and the record is not saved for it yet. Every change
// of a record or of its place in the queue calls it first.
func (q *Queue) touch(key string) {
	if !q.saved.Needs(key) {
		return
	}
	s := saved{p: q.Pods[key]}
	if s.p != nil {
		v := *s.p
		s.v = &v
	}
	q.saved.Put(key, s)
}

// Fork, commit and revert follow the Scheduler's: revert puts back every
// record changed since the matching fork (O(changes · log pods)) and the
// counters, so pops, backoffs and flushes go on as if the fork never
// happened.
func (q *Queue) Fork() {
	q.marks = append(q.marks, mark{seq: q.Seq, moves: q.Moves, events: q.Events})
	q.saved.Open()
	q.flightSaved = append(q.flightSaved, nil)
}

func (q *Queue) Commit() {
	q.marks = q.marks[:len(q.marks)-1]
	q.saved.Commit()
	k := len(q.flightSaved)
	top := q.flightSaved[k-1]
	q.flightSaved = q.flightSaved[:k-1]
	if k > 1 && q.flightSaved[k-2] == nil {
		q.flightSaved[k-2] = top
	}
}

func (q *Queue) Revert() {
	m := q.marks[len(q.marks)-1]
	q.marks = q.marks[:len(q.marks)-1]
	q.Seq, q.Moves, q.Events = m.seq, m.moves, m.events
	q.leftoverChecked = false
	if fs := q.flightSaved[len(q.flightSaved)-1]; fs != nil {
		q.FlightEvents, q.flightBase, q.Flight = fs.events, fs.base, fs.flight
	}
	q.flightSaved = q.flightSaved[:len(q.flightSaved)-1]
	saved := q.saved.Revert()
	for key := range saved {
		if cur, ok := q.Pods[key]; ok {
			q.Unlink(cur)
			delete(q.Pods, key)
		}
	}
	for key, s := range saved {
		if s.p == nil {
			continue
		}
		*s.p = *s.v
		s.p.index = -1
		q.Pods[key] = s.p
		q.push(s.p, s.v.Where)
	}
}

// Heap is a binary heap of queued pods that tracks each pod's index.
type Heap struct {
	Items  []*QueuedPod
	LessFn func(a, b *QueuedPod) bool
}

func (h *Heap) Len() int           { return len(h.Items) }
func (h *Heap) Less(i, j int) bool { return h.LessFn(h.Items[i], h.Items[j]) }
func (h *Heap) Swap(i, j int) {
	h.Items[i], h.Items[j] = h.Items[j], h.Items[i]
	h.Items[i].index = i
	h.Items[j].index = j
}
func (h *Heap) Push(x any) {
	p := x.(*QueuedPod)
	p.index = len(h.Items)
	h.Items = append(h.Items, p)
}
func (h *Heap) Pop() any {
	n := len(h.Items)
	p := h.Items[n-1]
	h.Items[n-1] = nil
	h.Items = h.Items[:n-1]
	p.index = -1
	return p
}

// Nominator tracks pods nominated to nodes by preemption, in nomination
// order per node (kube-scheduler's nominator).
type Nominator struct {
	ByNode map[string][]*framework.PodInfo
	NodeOf map[string]string
	// saved holds, per open fork, the nominations at Fork (copied on the
	// first change; nil while unchanged).
	saved []*Nominator
}

func NewNominator() *Nominator {
	return &Nominator{ByNode: map[string][]*framework.PodInfo{}, NodeOf: map[string]string{}}
}

// Add nominates pi (keyed by its pod) to node, replacing an earlier
// nomination; an empty node deletes it.
func (n *Nominator) Add(key string, pi *framework.PodInfo, node string) {
	n.changing()
	n.Remove(key)
	if node == "" {
		return
	}
	n.NodeOf[key] = node
	n.ByNode[node] = append(n.ByNode[node], pi)
}

func (n *Nominator) Remove(key string) {
	node, ok := n.NodeOf[key]
	if !ok {
		return
	}
	n.changing()
	delete(n.NodeOf, key)
	list := n.ByNode[node]
	for i, pi := range list {
		if pi.Pod.Key() == key {
			list = slices.Delete(list, i, i+1)
			break
		}
	}
	if len(list) == 0 {
		delete(n.ByNode, node)
	} else {
		n.ByNode[node] = list
	}
}

// ForNode returns the pods nominated to node (shared; do not modify).
func (n *Nominator) ForNode(node string) []*framework.PodInfo { return n.ByNode[node] }

func (n *Nominator) Empty() bool { return len(n.NodeOf) == 0 }

// changing copies the nominations before the first change in an open fork.
func (n *Nominator) changing() {
	k := len(n.saved)
	if k == 0 || n.saved[k-1] != nil {
		return
	}
	c := &Nominator{ByNode: make(map[string][]*framework.PodInfo, len(n.ByNode)), NodeOf: maps.Clone(n.NodeOf)}
	for node, list := range n.ByNode {
		c.ByNode[node] = slices.Clone(list)
	}
	n.saved[k-1] = c
}

func (n *Nominator) Fork() { n.saved = append(n.saved, nil) }

// Commit hands the fork's saved nominations to the enclosing fork when
// that one has none (nothing changed between the two Forks).
func (n *Nominator) Commit() {
	k := len(n.saved)
	top := n.saved[k-1]
	n.saved = n.saved[:k-1]
	if k > 1 && n.saved[k-2] == nil {
		n.saved[k-2] = top
	}
}

func (n *Nominator) Revert() {
	k := len(n.saved)
	top := n.saved[k-1]
	n.saved = n.saved[:k-1]
	if top != nil {
		n.ByNode, n.NodeOf = top.ByNode, top.NodeOf
	}
}

// forkSaves keeps, per open fork, the first saved value of every key
// changed since that fork, so that a revert restores exactly the keys that
// changed: O(1) to open, O(changes) to revert or commit.
type forkSaves[V any] = journal.Saves[string, V]
