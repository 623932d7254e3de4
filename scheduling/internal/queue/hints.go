package queue

import (
	"slices"
	"sort"
	"time"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
)

// Queueing hints (kube-scheduler v1.36 and v1.37; SchedulerQueueingHints
// GA since v1.34, its gate removed in v1.37): each plugin that can reject a pod registers the cluster events
// that may undo its rejection, each with a hint function; an event moves an
// unschedulable pod only when one of the plugins that rejected it
// registered the event and its hint says Queue.

// HintFn is one plugin's hint for one registered event.
type HintFn struct {
	Event  framework.ClusterEvent
	Plugin string
	Fn     framework.QueueingHintFn // nil: always Queue
}

// Hints are the registered events of every profile, in
// registration order (kube keeps a map; the order does not change any
// verdict, and a slice keeps the evaluation deterministic).
type Hints struct {
	ByProfile map[string][]HintFn
}

// interested reports whether some plugin of some profile registered an
// event matching e (the wildcard always interests).
func (h *Hints) interested(e framework.ClusterEvent) bool {
	if e.IsWildCard() {
		return true
	}
	for _, list := range h.ByProfile {
		for i := range list {
			if list[i].Event.Match(e) {
				return true
			}
		}
	}
	return false
}

// Strategy is where an event sends an unschedulable pod.
type Strategy int

const (
	Skip Strategy = iota
	AfterBackoff
	Immediately
)

// Event is a cluster event with its objects.
type Event struct {
	ClusterEvent framework.ClusterEvent
	Old, New     any
}

// WorthRequeuing is kube's isPodWorthRequeuing: a pod without rejecting
// plugins, or any pod on the wildcard event, is retried after its backoff;
// otherwise the hints of the pod's rejecting (unschedulable and pending)
// plugins registered for the event decide: Queue from a pending plugin
// retries it at once, from an unschedulable one after its backoff; an
// error counts as Queue.
func (q *Queue) WorthRequeuing(p *QueuedPod, e *Event) Strategy {
	if len(p.UnschedulablePlugins) == 0 && len(p.PendingPlugins) == 0 {
		return AfterBackoff
	}
	if e.ClusterEvent.IsWildCard() {
		// A wildcard event with a pod in newObj is for that pod only.
		if pod, ok := e.New.(*framework.PodInfo); ok && pod.Pod.Key() != p.Key {
			return Skip
		}
		return AfterBackoff
	}
	list, ok := q.Hints.ByProfile[profileName(p.Pod)]
	if !ok {
		return AfterBackoff
	}
	strategy := Skip
	for i := range list {
		h := &list[i]
		pending := slices.Contains(p.PendingPlugins, h.Plugin)
		if !pending && !slices.Contains(p.UnschedulablePlugins, h.Plugin) {
			continue
		}
		if !h.Event.Match(e.ClusterEvent) {
			continue
		}
		hint := framework.Queue
		if h.Fn != nil {
			var err error
			if hint, err = h.Fn(q.Snapshot(), p.PodInfo, e.Old, e.New); err != nil {
				hint = framework.Queue
			}
		}
		if hint == framework.QueueSkip {
			continue
		}
		if pending {
			return Immediately
		}
		if len(p.PendingPlugins) == 0 {
			return AfterBackoff
		}
		strategy = AfterBackoff
	}
	return strategy
}

// defaultSchedulerName is scheduling.DefaultSchedulerName.
const defaultSchedulerName = "default-scheduler"

// profileName is the profile a pod names (defaultSchedulerName when none).
func profileName(pod *api.Pod) string {
	if pod.Spec.SchedulerName == "" {
		return defaultSchedulerName
	}
	return pod.Spec.SchedulerName
}

// OnEvent is kube's MoveAllToActiveOrBackoffQueue with queueing hints: the
// unschedulable pods that pass preCheck (nil: all) and that the event may
// make schedulable go to the active or backoff queue (in queue-sequence
// order), and the event is remembered for the pods in flight. An event no
// plugin registered does nothing.
func (q *Queue) OnEvent(ev framework.ClusterEvent, oldObj, newObj any, preCheck func(*QueuedPod) bool) {
	if !q.Hints.interested(ev) {
		return
	}
	e := &Event{ClusterEvent: ev, Old: oldObj, New: newObj}
	var ps []*QueuedPod
	for _, p := range q.gated {
		if (preCheck == nil || preCheck(p)) && q.gateWorth(p, e) {
			ps = append(ps, p)
		}
	}
	if len(ps) > 0 {
		q.regate(ps)
		ps = ps[:0]
	}
	for _, p := range q.UnschedulableQ {
		if preCheck == nil || preCheck(p) {
			ps = append(ps, p)
		}
	}
	q.movePods(ps, e)
}

// gateWorth reports whether e may let a gated pod through: the wildcard
// does; otherwise the hints its gating plugin registered for e decide
// (kube re-runs PreEnqueue only on events of the gating plugin).
func (q *Queue) gateWorth(p *QueuedPod, e *Event) bool {
	if e.ClusterEvent.IsWildCard() {
		return true
	}
	for _, h := range q.Hints.ByProfile[profileName(p.Pod)] {
		if h.Plugin != p.gatePlugin || !h.Event.Match(e.ClusterEvent) {
			continue
		}
		if h.Fn == nil {
			return true
		}
		if hint, err := h.Fn(q.Snapshot(), p.PodInfo, e.Old, e.New); err != nil || hint == framework.Queue {
			return true
		}
	}
	return false
}

// movePods is kube's movePodsToActiveOrBackoffQueue: each of ps (pods of
// the unschedulable pool) that e may make schedulable goes to the active
// or backoff queue, in queue-sequence order; e is remembered for the pods
// in flight.
func (q *Queue) movePods(ps []*QueuedPod, e *Event) {
	type move struct {
		p *QueuedPod
		s Strategy
	}
	var moves []move
	for _, p := range ps {
		if s := q.WorthRequeuing(p, e); s != Skip {
			moves = append(moves, move{p, s})
		}
	}
	sort.Slice(moves, func(i, j int) bool { return moves[i].p.Seq < moves[j].p.Seq })
	now := q.clock.Now()
	for _, m := range moves {
		q.requeueWithStrategy(m.p, m.s, now)
	}
	q.recordFlight(e)
}

// recordFlight keeps e for the pods in flight, if any.
func (q *Queue) recordFlight(e *Event) {
	if len(q.Flight) > 0 {
		q.flightChanging()
		q.FlightEvents = append(q.FlightEvents, *e)
	}
}

// requeueWithStrategy moves a pod out of the unschedulable pool (or puts
// an in-flight pod back) as strategy says: the pool for queueSkip, the
// backoff queue while it backs off after queueAfterBackoff, else the
// active queue (kube's requeuePodWithQueueingStrategy).
func (q *Queue) requeueWithStrategy(p *QueuedPod, s Strategy, now time.Time) {
	q.touch(p.Key)
	q.Unlink(p)
	switch {
	case s == Skip:
		q.push(p, Unschedulable)
	case s == AfterBackoff && q.backingOff(p, now):
		// A pod no plugin rejected (an error, no nodes) backs off in the
		// error queue, which PopFromBackoffQ does not pop early.
		if len(p.UnschedulablePlugins) == 0 && len(p.PendingPlugins) == 0 {
			q.push(p, ErrorBackoff)
		} else {
			q.push(p, Backoff)
		}
	default:
		q.push(p, Active)
	}
}

// startFlight records that p was popped: the events that arrive until it
// is requeued or done are kept for it.
func (q *Queue) startFlight(p *QueuedPod) {
	if q.Hints == nil {
		return
	}
	q.flightChanging()
	p.flightAt = q.flightBase + len(q.FlightEvents)
	q.Flight[p.Key] = p
}

// endFlight forgets p's flight and drops the events no pod in flight
// needs any more.
func (q *Queue) endFlight(p *QueuedPod) {
	if q.Hints == nil {
		return
	}
	if _, ok := q.Flight[p.Key]; !ok {
		return
	}
	q.flightChanging()
	delete(q.Flight, p.Key)
	low := q.flightBase + len(q.FlightEvents)
	for _, o := range q.Flight {
		low = min(low, o.flightAt)
	}
	if drop := low - q.flightBase; drop > 0 {
		clear(q.FlightEvents[:drop])
		q.FlightEvents = q.FlightEvents[drop:]
		q.flightBase = low
	}
}

// flightStrategy is kube's determineSchedulingHintForInFlightPod: where a
// pod that failed goes, given the events that arrived while it was in
// flight.
func (q *Queue) flightStrategy(p *QueuedPod) Strategy {
	if len(p.UnschedulablePlugins) == 0 && len(p.PendingPlugins) == 0 {
		return AfterBackoff
	}
	strategy := Skip
	from := max(p.flightAt-q.flightBase, 0)
	for i := from; i < len(q.FlightEvents); i++ {
		switch q.WorthRequeuing(p, &q.FlightEvents[i]) {
		case Immediately:
			return Immediately
		case AfterBackoff:
			strategy = AfterBackoff
			if len(p.PendingPlugins) == 0 {
				return strategy
			}
		}
	}
	return strategy
}

// flightSaved is the in-flight bookkeeping at a Fork.
type flightSaved struct {
	events []Event
	base   int
	flight map[string]*QueuedPod
}

// flightChanging saves the in-flight bookkeeping before its first change
// in an open fork.
func (q *Queue) flightChanging() {
	k := len(q.flightSaved)
	if k == 0 || q.flightSaved[k-1] != nil {
		return
	}
	fl := make(map[string]*QueuedPod, len(q.Flight))
	for key, p := range q.Flight {
		fl[key] = p
	}
	q.flightSaved[k-1] = &flightSaved{events: slices.Clone(q.FlightEvents), base: q.flightBase, flight: fl}
}

// LowerOrEqualPriority selects the pods of priority at most prio (kube's
// getLEPriorityPreCheck).
func LowerOrEqualPriority(prio int32) func(*QueuedPod) bool {
	return func(p *QueuedPod) bool { return p.Pod.PriorityValue() <= prio }
}
