package scheduling

import (
	"context"
	"slices"
	"sort"
	"time"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
)

// Queueing hints (kube-scheduler v1.36, SchedulerQueueingHints GA since
// v1.34): each plugin that can reject a pod registers the cluster events
// that may undo its rejection, each with a hint function; an event moves an
// unschedulable pod only when one of the plugins that rejected it
// registered the event and its hint says Queue.

// hintFn is one plugin's hint for one registered event.
type hintFn struct {
	event  framework.ClusterEvent
	plugin string
	fn     framework.QueueingHintFn // nil: always Queue
}

// queueingHints are the registered events of every profile, in
// registration order (kube keeps a map; the order does not change any
// verdict, and a slice keeps the evaluation deterministic).
type queueingHints struct {
	byProfile map[string][]hintFn
}

// buildQueueingHints collects the profiles' EnqueueExtensions as kube's
// buildQueueingHintMap (scheduler.go): a nil hint function means Queue; a
// plugin without EnqueueExtensions registers every event; a plugin that
// registers Node/Add without UpdateNodeTaint also gets UpdateNodeTaint with
// Queue (kube's fix for kubernetes/kubernetes#109437, kept with hints on).
func buildQueueingHints(ctx context.Context, profiles map[string]*schedProfile, order []string) (*queueingHints, error) {
	h := &queueingHints{byProfile: map[string][]hintFn{}}
	for _, name := range order {
		exts, err := profiles[name].fw.EnqueueExtensions(ctx)
		if err != nil {
			return nil, err
		}
		var list []hintFn
		for _, pe := range exts {
			nodeAdd, nodeTaint := false, false
			for _, e := range pe.Events {
				if e.Event.Resource == framework.ResourceNode {
					nodeAdd = nodeAdd || e.Event.ActionType&framework.Add != 0
					nodeTaint = nodeTaint || e.Event.ActionType&framework.UpdateNodeTaint != 0
				}
				list = append(list, hintFn{event: e.Event, plugin: pe.Plugin, fn: e.QueueingHintFn})
			}
			if nodeAdd && !nodeTaint {
				list = append(list, hintFn{event: framework.ClusterEvent{Resource: framework.ResourceNode, ActionType: framework.UpdateNodeTaint}, plugin: pe.Plugin})
			}
		}
		h.byProfile[name] = list
	}
	return h, nil
}

// interested reports whether some plugin of some profile registered an
// event matching e (the wildcard always interests).
func (h *queueingHints) interested(e framework.ClusterEvent) bool {
	if e.IsWildCard() {
		return true
	}
	for _, list := range h.byProfile {
		for i := range list {
			if list[i].event.Match(e) {
				return true
			}
		}
	}
	return false
}

// queueingStrategy is where an event sends an unschedulable pod.
type queueingStrategy int

const (
	queueSkip queueingStrategy = iota
	queueAfterBackoff
	queueImmediately
)

// qEvent is a cluster event with its objects.
type qEvent struct {
	ev       framework.ClusterEvent
	old, new any
}

// worthRequeuing is kube's isPodWorthRequeuing: a pod without rejecting
// plugins, or any pod on the wildcard event, is retried after its backoff;
// otherwise the hints of the pod's rejecting (unschedulable and pending)
// plugins registered for the event decide: Queue from a pending plugin
// retries it at once, from an unschedulable one after its backoff; an
// error counts as Queue.
func (q *schedulingQueue) worthRequeuing(p *queuedPod, e *qEvent) queueingStrategy {
	if len(p.unschedulablePlugins) == 0 && len(p.pendingPlugins) == 0 {
		return queueAfterBackoff
	}
	if e.ev.IsWildCard() {
		// A wildcard event with a pod in newObj is for that pod only.
		if pod, ok := e.new.(*framework.PodInfo); ok && pod.Pod.Key() != p.key {
			return queueSkip
		}
		return queueAfterBackoff
	}
	list, ok := q.hints.byProfile[profileName(p.Pod)]
	if !ok {
		return queueAfterBackoff
	}
	strategy := queueSkip
	for i := range list {
		h := &list[i]
		pending := slices.Contains(p.pendingPlugins, h.plugin)
		if !pending && !slices.Contains(p.unschedulablePlugins, h.plugin) {
			continue
		}
		if !h.event.Match(e.ev) {
			continue
		}
		hint := framework.Queue
		if h.fn != nil {
			var err error
			if hint, err = h.fn(q.snapshot(), p.PodInfo, e.old, e.new); err != nil {
				hint = framework.Queue
			}
		}
		if hint == framework.QueueSkip {
			continue
		}
		if pending {
			return queueImmediately
		}
		if len(p.pendingPlugins) == 0 {
			return queueAfterBackoff
		}
		strategy = queueAfterBackoff
	}
	return strategy
}

// profileName is the profile a pod names (DefaultSchedulerName when none).
func profileName(pod *api.Pod) string {
	if pod.Spec.SchedulerName == "" {
		return DefaultSchedulerName
	}
	return pod.Spec.SchedulerName
}

// onEvent is kube's MoveAllToActiveOrBackoffQueue with queueing hints: the
// unschedulable pods that pass preCheck (nil: all) and that the event may
// make schedulable go to the active or backoff queue (in queue-sequence
// order), and the event is remembered for the pods in flight. An event no
// plugin registered does nothing.
func (q *schedulingQueue) onEvent(ev framework.ClusterEvent, oldObj, newObj any, preCheck func(*queuedPod) bool) {
	if !q.hints.interested(ev) {
		return
	}
	e := &qEvent{ev: ev, old: oldObj, new: newObj}
	var ps []*queuedPod
	for _, p := range q.gated {
		if (preCheck == nil || preCheck(p)) && q.gateWorth(p, e) {
			ps = append(ps, p)
		}
	}
	if len(ps) > 0 {
		q.regate(ps)
		ps = ps[:0]
	}
	for _, p := range q.unschedulable {
		if preCheck == nil || preCheck(p) {
			ps = append(ps, p)
		}
	}
	q.movePods(ps, e)
}

// gateWorth reports whether e may let a gated pod through: the wildcard
// does; otherwise the hints its gating plugin registered for e decide
// (kube re-runs PreEnqueue only on events of the gating plugin).
func (q *schedulingQueue) gateWorth(p *queuedPod, e *qEvent) bool {
	if e.ev.IsWildCard() {
		return true
	}
	for _, h := range q.hints.byProfile[profileName(p.Pod)] {
		if h.plugin != p.gatePlugin || !h.event.Match(e.ev) {
			continue
		}
		if h.fn == nil {
			return true
		}
		if hint, err := h.fn(q.snapshot(), p.PodInfo, e.old, e.new); err != nil || hint == framework.Queue {
			return true
		}
	}
	return false
}

// movePods is kube's movePodsToActiveOrBackoffQueue: each of ps (pods of
// the unschedulable pool) that e may make schedulable goes to the active
// or backoff queue, in queue-sequence order; e is remembered for the pods
// in flight.
func (q *schedulingQueue) movePods(ps []*queuedPod, e *qEvent) {
	type move struct {
		p *queuedPod
		s queueingStrategy
	}
	var moves []move
	for _, p := range ps {
		if s := q.worthRequeuing(p, e); s != queueSkip {
			moves = append(moves, move{p, s})
		}
	}
	sort.Slice(moves, func(i, j int) bool { return moves[i].p.seq < moves[j].p.seq })
	now := q.clock.Now()
	for _, m := range moves {
		q.requeueWithStrategy(m.p, m.s, now)
	}
	q.recordFlight(e)
}

// recordFlight keeps e for the pods in flight, if any.
func (q *schedulingQueue) recordFlight(e *qEvent) {
	if len(q.flight) > 0 {
		q.flightChanging()
		q.flightEvents = append(q.flightEvents, *e)
	}
}

// requeueWithStrategy moves a pod out of the unschedulable pool (or puts
// an in-flight pod back) as strategy says: the pool for queueSkip, the
// backoff queue while it backs off after queueAfterBackoff, else the
// active queue (kube's requeuePodWithQueueingStrategy).
func (q *schedulingQueue) requeueWithStrategy(p *queuedPod, s queueingStrategy, now time.Time) {
	q.touch(p.key)
	q.unlink(p)
	switch {
	case s == queueSkip:
		q.push(p, qUnschedulable)
	case s == queueAfterBackoff && q.backingOff(p, now):
		// A pod no plugin rejected (an error, no nodes) backs off in the
		// error queue, which PopFromBackoffQ does not pop early.
		if len(p.unschedulablePlugins) == 0 && len(p.pendingPlugins) == 0 {
			q.push(p, qErrorBackoff)
		} else {
			q.push(p, qBackoff)
		}
	default:
		q.push(p, qActive)
	}
}

// startFlight records that p was popped: the events that arrive until it
// is requeued or done are kept for it.
func (q *schedulingQueue) startFlight(p *queuedPod) {
	if q.hints == nil {
		return
	}
	q.flightChanging()
	p.flightAt = q.flightBase + len(q.flightEvents)
	q.flight[p.key] = p
}

// endFlight forgets p's flight and drops the events no pod in flight
// needs any more.
func (q *schedulingQueue) endFlight(p *queuedPod) {
	if q.hints == nil {
		return
	}
	if _, ok := q.flight[p.key]; !ok {
		return
	}
	q.flightChanging()
	delete(q.flight, p.key)
	low := q.flightBase + len(q.flightEvents)
	for _, o := range q.flight {
		low = min(low, o.flightAt)
	}
	if drop := low - q.flightBase; drop > 0 {
		clear(q.flightEvents[:drop])
		q.flightEvents = q.flightEvents[drop:]
		q.flightBase = low
	}
}

// flightStrategy is kube's determineSchedulingHintForInFlightPod: where a
// pod that failed goes, given the events that arrived while it was in
// flight.
func (q *schedulingQueue) flightStrategy(p *queuedPod) queueingStrategy {
	if len(p.unschedulablePlugins) == 0 && len(p.pendingPlugins) == 0 {
		return queueAfterBackoff
	}
	strategy := queueSkip
	from := max(p.flightAt-q.flightBase, 0)
	for i := from; i < len(q.flightEvents); i++ {
		switch q.worthRequeuing(p, &q.flightEvents[i]) {
		case queueImmediately:
			return queueImmediately
		case queueAfterBackoff:
			strategy = queueAfterBackoff
			if len(p.pendingPlugins) == 0 {
				return strategy
			}
		}
	}
	return strategy
}

// qFlightSaved is the in-flight bookkeeping at a Fork.
type qFlightSaved struct {
	events []qEvent
	base   int
	flight map[string]*queuedPod
}

// flightChanging saves the in-flight bookkeeping before its first change
// in an open fork.
func (q *schedulingQueue) flightChanging() {
	k := len(q.flightSaved)
	if k == 0 || q.flightSaved[k-1] != nil {
		return
	}
	fl := make(map[string]*queuedPod, len(q.flight))
	for key, p := range q.flight {
		fl[key] = p
	}
	q.flightSaved[k-1] = &qFlightSaved{events: slices.Clone(q.flightEvents), base: q.flightBase, flight: fl}
}

// reportEvent hands a cluster event to the queue. With queueing hints the
// queue moves the unschedulable pods (those passing preCheck, nil: all)
// that the event may make schedulable; without them, legacyMove says
// whether schedkit's behaviour before hints moved every pod (passing
// preCheck) on this event. Every change of the cluster that may let a pod
// in reports here: node, pod and NodeMetric events, and — as their objects
// join the Cluster — storage objects (PersistentVolume,
// PersistentVolumeClaim, StorageClass, CSINode... with
// framework.ResourcePersistentVolume and its siblings).
func (s *Scheduler) reportEvent(ev framework.ClusterEvent, oldObj, newObj any, preCheck func(*queuedPod) bool, legacyMove bool) {
	s.reportEvents([]framework.ClusterEvent{ev}, oldObj, newObj, preCheck, legacyMove)
}

// reportEvents is reportEvent for one change that reports several events
// (a node update that changed labels and taints), or none; without hints
// it moves the pods once, whatever the events.
func (s *Scheduler) reportEvents(evs []framework.ClusterEvent, oldObj, newObj any, preCheck func(*queuedPod) bool, legacyMove bool) {
	s.queue.events++
	if s.queue.hints == nil {
		if legacyMove {
			s.queue.moveAllWhere(preCheck)
		}
		return
	}
	for _, ev := range evs {
		s.queue.onEvent(ev, oldObj, newObj, preCheck)
	}
}

// lowerOrEqualPriority selects the pods of priority at most prio (kube's
// getLEPriorityPreCheck).
func lowerOrEqualPriority(prio int32) func(*queuedPod) bool {
	return func(p *queuedPod) bool { return p.Pod.PriorityValue() <= prio }
}
