package replay

import (
	"cmp"
	"container/heap"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

// Options configure Replay.
type Options struct {
	// Registry and Profiles build the scheduler (defaults:
	// NewDefaultRegistry() and DefaultProfile(), the newest release's: with
	// SchedulerOptions naming another release, scheduling.WithKubeVersion,
	// give its scheduling.DefaultProfileFor).
	Registry *framework.Registry
	Profiles []framework.Profile
	// Seed drives every random choice; Parallelism the per-node loops
	// (0 means 1; negative is an error). The decision log depends on the
	// seed only.
	Seed        uint64
	Parallelism int
	// Start is the virtual time the replay starts at (default the Unix
	// epoch, UTC).
	Start time.Time
	// SchedulerOptions are passed to New after the replay's own (queue
	// options, percentageOfNodesToScore, extenders...).
	SchedulerOptions []scheduling.Option
	// Reference is the pod shape of the fragmentation metric (default: the
	// mean request of the arrivals, cpu and memory).
	Reference resource.Vector
	// Resubmit re-creates pods evicted by a node removal or preempted, at
	// once and under the same name, as their controller would; otherwise
	// they end Evicted or Preempted.
	Resubmit bool
	// Until stops the replay at Start+Until (0: run until nothing more can
	// happen).
	Until time.Duration
	// Progress, when set, is called after each batch of arrivals with the
	// number of arrivals processed and the total. BuildProgress, when set,
	// is called while the initial cluster is built, about every 1% of its
	// nodes and pods, with the number added and the total.
	Progress      func(done, total int)
	BuildProgress func(done, total int)
	// KeepResults keeps every cycle's full runtime.Result in its
	// Decision. ResultsFailedOnly keeps it only for the cycles that failed
	// (Unschedulable, Error); ResultsLast, when positive, keeps it only in
	// the last ResultsLast decisions that have one, dropping older ones as
	// the replay goes, so that memory stays bounded at any length. Either
	// turns explanations on without KeepResults.
	KeepResults       bool
	ResultsFailedOnly bool
	ResultsLast       int
	// OnDecision, when set, is called with every decision as it is made,
	// in the order of Result.Decisions, with its runtime.Result when the
	// replay keeps explanations (whatever ResultsLast later drops).
	// DiscardDecisions leaves Result.Decisions empty, so that the replay's
	// memory does not grow with its decisions: with OnDecision and
	// scheduling.FormatDecision a caller writes the decision log (the
	// bytes of WriteLog) as the replay goes instead of holding it.
	OnDecision       func(d scheduling.Decision)
	DiscardDecisions bool
	// Stopwatch times the replay for Result.Wall (default framework.RealClock;
	// inject a clock for a reproducible Wall). The replay's own events run
	// on virtual time either way.
	Stopwatch framework.Clock
	// MaxCycles bounds the scheduling cycles the replay runs: past it the
	// replay stops with an error naming the bound. Pending pods are
	// retried at every cluster event that may help them, so the cycles
	// (and the decisions kept) can grow with the pods times the events.
	// 0 means DefaultCyclesPerPod per pod of the scenario (initial and
	// arriving), and at least DefaultMaxCycles; negative is an error.
	MaxCycles int
}

// DefaultMaxCycles and DefaultCyclesPerPod make the default of
// Options.MaxCycles: DefaultCyclesPerPod cycles per pod of the
// scenario, and at least DefaultMaxCycles.
const (
	DefaultMaxCycles    = 1_000_000
	DefaultCyclesPerPod = 5
)

// maxCycles is the replay's bound on scheduling cycles for w.
func (o Options) maxCycles(w *Scenario) int {
	if o.MaxCycles > 0 {
		return o.MaxCycles
	}
	return max(DefaultMaxCycles, DefaultCyclesPerPod*(len(w.Pods)+len(w.Arrivals)))
}

// PodFate is where a pod of the scenario ended.
type PodFate string

// Pod fates.
const (
	FateRunning   PodFate = "Running"   // bound at the end
	FateCompleted PodFate = "Completed" // ran its duration
	FatePending   PodFate = "Pending"   // never placed (Reason says why)
	FateRejected  PodFate = "Rejected"  // refused on arrival (Reason is the error)
	FatePreempted PodFate = "Preempted" // evicted by preemption
	FateEvicted   PodFate = "Evicted"   // its node was removed
)

// PodOutcome is the fate of one pod of the scenario.
type PodOutcome struct {
	Pod    string
	Fate   PodFate
	Node   string
	Reason string
}

// Result is what a replay did: every decision in order, every pod's
// fate, and packing metrics.
type Result struct {
	Start, End time.Time
	Decisions  []scheduling.Decision
	// Pods has one outcome per pod of the scenario (initial and arriving), sorted
	// by namespace/name.
	Pods []PodOutcome
	// Metrics are taken when the last arrival has been scheduled (the
	// loaded cluster); Final at the end of the replay.
	Metrics, Final PackingMetrics
	// PendingAtLastArrival counts pods not placed at that moment.
	PendingAtLastArrival int
	// Cycles is the number of scheduling cycles; Wall the real time the
	// replay took, as Options.Stopwatch measured it, and SetupWall
	// the time building the initial cluster and the scheduler took before.
	Cycles    int
	Wall      time.Duration
	SetupWall time.Duration
	// EventErrors lists the node events the cluster refused, with their
	// virtual time (e.g. an update of a node that was not there then).
	EventErrors []string
	// Gangs has one outcome per gang of the scenario, sorted by group.
	Gangs []GangOutcome
	// Displaced lists the pods preemptions displaced, in order, and whether
	// each was placed again.
	Displaced []Displacement
}

// DecisionsPerSecond is scheduling cycles per second of real time.
func (r *Result) DecisionsPerSecond() float64 {
	if r.Wall <= 0 {
		return 0
	}
	return float64(r.Cycles) / r.Wall.Seconds()
}

// Count returns how many pods met each fate.
func (r *Result) Count() map[PodFate]int {
	out := map[PodFate]int{}
	for _, p := range r.Pods {
		out[p.Fate]++
	}
	return out
}

// WriteLog writes the decision log, one line per decision: the virtual
// time since the start, the cycle, the pod, the outcome and its
// explanation. Same scenario and seed give the same bytes, at any
// parallelism.
func (r *Result) WriteLog(w io.Writer) error {
	var b []byte
	for i := range r.Decisions {
		b = append(scheduling.AppendDecision(b[:0], &r.Decisions[i], r.Start), '\n')
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// event is one timed event of a replay.
type event struct {
	at    time.Time
	class int // 0 node event, 1 completion, 2 arrival: the order at one instant
	seq   int
	node  *NodeEvent
	gang  *GangArrival          // class 0: a PodGroup created
	kube  *WorkloadGroupArrival // class 0: a kube PodGroup created
	pod   *pod
	inc   int // the pod incarnation a completion belongs to
}

type eventHeap []*event

func (h eventHeap) Len() int { return len(h) }
func (h eventHeap) Less(i, j int) bool {
	a, b := h[i], h[j]
	if !a.at.Equal(b.at) {
		return a.at.Before(b.at)
	}
	if a.class != b.class {
		return a.class < b.class
	}
	return a.seq < b.seq
}
func (h eventHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *eventHeap) Push(x any)   { *h = append(*h, x.(*event)) }
func (h *eventHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

// timeline is a replay's timed events in order: the heap of node events,
// gang creations and completions merged with the arrivals, which are
// sorted already and need no heap. At one instant arrivals come after the
// heap's events (their class is the last) and in scenario order, as if they
// were in the heap: a million arrivals cost no heap operations.
type timeline struct {
	events   eventHeap
	arrivals []arrival // by time, stable
	next     int       // the first arrival not yet popped
	// arrived is the event pop returns for an arrival, reused.
	arrived event
}

// arrival is one pod of the scenario arriving.
type arrival struct {
	at  time.Time
	pod *pod
}

// len is the number of events left.
func (t *timeline) len() int { return t.events.Len() + len(t.arrivals) - t.next }

// first is the time of the next event; t must not be empty.
func (t *timeline) first() time.Time {
	if t.next < len(t.arrivals) && (t.events.Len() == 0 || t.arrivals[t.next].at.Before(t.events[0].at)) {
		return t.arrivals[t.next].at
	}
	return t.events[0].at
}

// pop removes and returns the next event; t must not be empty. An
// arrival's event is valid until the next pop.
func (t *timeline) pop() *event {
	if t.next < len(t.arrivals) && (t.events.Len() == 0 || t.arrivals[t.next].at.Before(t.events[0].at)) {
		a := t.arrivals[t.next]
		t.next++
		t.arrived = event{at: a.at, class: 2, pod: a.pod}
		return &t.arrived
	}
	return heap.Pop(&t.events).(*event)
}

// pod tracks one pod of the scenario through the replay.
type pod struct {
	pod      *api.Pod
	duration time.Duration
	inc      int // bumped at every (re)submission and binding
	outcome  PodOutcome
	gang     *gang // the gang it belongs to, if any
}

// Replay runs a scenario on a virtual clock through a Scheduler with
// synchronous binding: at each instant node events apply first, then pods
// that finished their duration are deleted, then arrivals join the queue,
// and the scheduler runs every pod that is ready; the clock then jumps to
// the next event, backoff expiry or Permit timeout. Every decision is
// recorded, and every pod ends Running, Completed, Pending (with its last
// failure), Rejected (with the error that refused it), Preempted or
// Evicted. Gangs (Scenario.Gangs, and kube's PodGroups in
// Scenario.WorkloadGroups) are created at their time, before the pods
// arriving then; a gang's pods start their durations only once minMember
// (kube: a gang's minCount, one pod for a basic group) of them are bound
// (until then they hold their nodes idle), and Result.Gangs says
// whether each ran whole, how long it waited and the pod-seconds its pods
// held while it could not run. The same scenario and seed give the same
// decisions whatever opts.Parallelism is. Invalid input is an error
// naming the pod or node, before anything runs.
func Replay(ctx context.Context, w *Scenario, opts Options) (*Result, error) {
	if w == nil {
		return nil, fmt.Errorf("replay: Replay: nil scenario")
	}
	if err := w.Validate(); err != nil {
		return nil, err
	}
	switch {
	case opts.Parallelism < 0:
		return nil, fmt.Errorf("replay: Replay: Options.Parallelism=%d: must not be negative", opts.Parallelism)
	case opts.Parallelism == 0:
		opts.Parallelism = 1
	}
	if opts.Until < 0 {
		return nil, fmt.Errorf("replay: Replay: Options.Until=%v: must not be negative", opts.Until)
	}
	if opts.ResultsLast < 0 {
		return nil, fmt.Errorf("replay: Replay: Options.ResultsLast=%d: must not be negative", opts.ResultsLast)
	}
	if opts.MaxCycles < 0 {
		return nil, fmt.Errorf("replay: Replay: Options.MaxCycles=%d: must not be negative", opts.MaxCycles)
	}
	maxCycles := opts.maxCycles(w)
	// A cycle past maxCycles stops the replay with this cause.
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	if opts.Registry == nil {
		opts.Registry = scheduling.NewDefaultRegistry()
	}
	if len(opts.Profiles) == 0 {
		opts.Profiles = []framework.Profile{scheduling.DefaultProfile()}
	}
	if opts.Start.IsZero() {
		opts.Start = time.Unix(0, 0).UTC()
	}
	if opts.Reference.MilliCPU == 0 && opts.Reference.Memory == 0 {
		opts.Reference = meanRequest(w.Arrivals)
	}
	stopwatch := opts.Stopwatch
	if stopwatch == nil {
		stopwatch = framework.RealClock{}
	}
	setupStart := stopwatch.Now()
	cluster, err := newScenarioCluster(w, opts.BuildProgress)
	if err != nil {
		return nil, err
	}
	cluster.SetDisruptionBudgets(w.DisruptionBudgets)
	for _, m := range w.NodeMetrics {
		if err := cluster.UpdateNodeMetric(m); err != nil {
			return nil, err
		}
	}
	for _, l := range w.NodeLoads {
		if err := cluster.UpdateNodeLoad(l); err != nil {
			return nil, err
		}
	}
	clock := framework.NewFakeClock(opts.Start)
	res := &Result{Start: opts.Start}
	if !opts.DiscardDecisions {
		res.Decisions = make([]scheduling.Decision, 0, len(w.Arrivals)+len(w.Pods))
	}
	pods := make(map[string]*pod, len(w.Pods)+len(w.Arrivals))
	var tl timeline
	seq := 0
	push := func(e *event) {
		seq++
		e.seq = seq
		heap.Push(&tl.events, e)
	}
	gangs := newGangs(w, opts.Start)
	var displaced displaced
	for _, p := range w.Pods {
		key := p.Key()
		rp := &pod{pod: p, outcome: PodOutcome{Pod: key, Fate: FateRunning, Node: p.Spec.NodeName}}
		pods[key] = rp
		gangs.join(rp)
		gangs.bound(rp, opts.Start)
	}
	arrivals := slices.Clone(w.Arrivals)
	slices.SortStableFunc(arrivals, func(a, b PodArrival) int { return cmp.Compare(a.At, b.At) })
	tl.arrivals = make([]arrival, len(arrivals))
	rps := make([]pod, len(arrivals)) // one allocation for every arriving pod
	for i := range arrivals {
		a := &arrivals[i]
		key := a.Pod.Key()
		rp := &rps[i]
		*rp = pod{pod: a.Pod, duration: a.Duration, outcome: PodOutcome{Pod: key, Fate: FatePending}}
		pods[key] = rp
		gangs.join(rp)
		tl.arrivals[i] = arrival{at: opts.Start.Add(a.At), pod: rp}
	}
	for i := range w.NodeEvents {
		e := &w.NodeEvents[i]
		push(&event{at: opts.Start.Add(e.At), class: 0, node: e})
	}
	for i := range w.Gangs {
		g := &w.Gangs[i]
		push(&event{at: opts.Start.Add(g.At), class: 0, gang: g})
	}
	for i := range w.WorkloadGroups {
		g := &w.WorkloadGroups[i]
		push(&event{at: opts.Start.Add(g.At), class: 0, kube: g})
	}
	// started pushes the completions of pods whose run starts at t.
	started := func(ps []*pod, t time.Time) {
		for _, rp := range ps {
			if rp.duration > 0 {
				push(&event{at: t.Add(rp.duration), class: 1, pod: rp, inc: rp.inc})
			}
		}
	}

	var s *scheduling.Scheduler
	// resubmit ends (or, with Resubmit, restarts) a pod the cluster no
	// longer holds; locked says whether the scheduler's lock is held.
	resubmit := func(rp *pod, fate PodFate, reason string, locked bool) {
		gangs.unbound(rp, clock.Now())
		rp.inc++
		if !opts.Resubmit {
			rp.outcome = PodOutcome{Pod: rp.pod.Key(), Fate: fate, Node: rp.outcome.Node, Reason: reason}
			return
		}
		rp.outcome = PodOutcome{Pod: rp.pod.Key(), Fate: FatePending}
		p := *rp.pod
		p.Spec.NodeName, p.Status.NominatedNodeName = "", ""
		add := s.AddPod
		if locked {
			add = s.AddPodFromHandler
		}
		if err := add(&p); err != nil {
			rp.outcome = PodOutcome{Pod: p.Key(), Fate: FateRejected, Reason: err.Error()}
		}
	}
	var kept kept
	progress := 0 // decisions that placed or preempted
	handler := func(d scheduling.Decision) {
		if d.Cycle > int64(maxCycles) {
			what := "Options.MaxCycles"
			if opts.MaxCycles == 0 {
				what = fmt.Sprintf("Options.MaxCycles: by default %d per pod of the scenario, at least %d", DefaultCyclesPerPod, DefaultMaxCycles)
			}
			stop(fmt.Errorf("replay: Replay: the replay ran past %d scheduling cycles (%s)", maxCycles, what))
		}
		if !opts.DiscardDecisions {
			res.Decisions = append(res.Decisions, d)
		}
		if opts.OnDecision != nil {
			opts.OnDecision(d)
		}
		if d.Outcome == scheduling.OutcomeScheduled || d.Outcome == scheduling.OutcomeBound || len(d.Victims) > 0 {
			progress++
		}
		if d.Result != nil && opts.ResultsLast > 0 && !opts.DiscardDecisions {
			kept.add(res.Decisions, len(res.Decisions)-1, opts.ResultsLast)
		}
		rp := pods[d.Pod]
		if rp == nil {
			return
		}
		switch d.Outcome {
		case scheduling.OutcomeScheduled, scheduling.OutcomeBound:
			rp.inc++
			rp.outcome = PodOutcome{Pod: d.Pod, Fate: FateRunning, Node: d.Node}
			started(gangs.bound(rp, d.Time), d.Time)
			displaced.placed(d.Pod, d.Node, d.Time)
		case scheduling.OutcomeUnschedulable, scheduling.OutcomeError, scheduling.OutcomeSkipped:
			rp.outcome = PodOutcome{Pod: d.Pod, Fate: FatePending, Reason: d.Message}
		}
		for _, v := range d.Victims {
			displaced.add(v, &d)
			vp := pods[v]
			if vp == nil {
				continue
			}
			if ns, name, _ := strings.Cut(v, "/"); holds(cluster, ns, name) {
				continue // a victim held at Permit is rejected and requeued, not deleted
			}
			resubmit(vp, FatePreempted, fmt.Sprintf("preempted by %s on node %s", d.Pod, d.NominatedNode), true)
		}
	}
	sopts := []scheduling.Option{scheduling.WithClock(clock), scheduling.WithSeed(opts.Seed), scheduling.WithParallelism(opts.Parallelism), scheduling.WithDecisionHandler(handler)}
	switch {
	case opts.ResultsFailedOnly:
		sopts = append(sopts, scheduling.WithFailureExplanations())
	case opts.KeepResults || opts.ResultsLast > 0:
		sopts = append(sopts, scheduling.WithExplanations())
	}
	s, err = scheduling.New(cluster, opts.Registry, opts.Profiles, append(sopts, opts.SchedulerOptions...)...)
	if err != nil {
		return nil, err
	}
	defer s.Close()

	total, done := len(tl.arrivals), 0
	lastArrival := time.Time{}
	if total > 0 {
		lastArrival = tl.arrivals[total-1].at
	}
	measuredLoaded := false
	wallStart := stopwatch.Now()
	res.SetupWall = wallStart.Sub(setupStart)
	idle := 0
	drained, progressAtDrain := false, 0
	for ctx.Err() == nil {
		cycles := s.RunUntilIdle(ctx)
		res.Cycles += cycles
		now := clock.Now()
		if !measuredLoaded && (total == 0 || !now.Before(lastArrival)) && done == total {
			res.Metrics = MeasurePacking(cluster.Snapshot(), opts.Reference)
			p, _, _ := cluster.NumPods()
			res.PendingAtLastArrival = p
			measuredLoaded = true
		}
		next, ok, drain := replayNextTime(s, &tl, clock)
		if !ok || (opts.Until > 0 && next.After(opts.Start.Add(opts.Until))) {
			break
		}
		// With no scenario event left, the queue's retries of pods that
		// failed before the latest cluster event go on while they place
		// (or preempt) something; a retry after one that placed nothing
		// ends the replay: the cluster no longer changes.
		if tl.len() > 0 {
			drained = false
		} else if drain {
			if drained && progress == progressAtDrain {
				break
			}
			drained, progressAtDrain = true, progress
		}
		// A guard, not a rule: time must move or work must happen.
		if next.Equal(now) && cycles == 0 && (tl.len() == 0 || tl.first().After(now)) {
			if idle++; idle > 2 {
				break
			}
		} else {
			idle = 0
		}
		if err := clock.AdvanceTo(next); err != nil {
			return nil, err
		}
		batch := false
		for tl.len() > 0 && !tl.first().After(next) {
			e := tl.pop()
			switch e.class {
			case 0:
				if e.gang != nil {
					if err := s.AddPodGroup(e.gang.Group); err != nil {
						res.EventErrors = append(res.EventErrors, fmt.Sprintf("%v: gang %s: %v", e.at.Sub(res.Start), e.gang.Group.Key(), err))
					}
					continue
				}
				if e.kube != nil {
					if err := s.AddWorkloadPodGroup(e.kube.Group); err != nil {
						res.EventErrors = append(res.EventErrors, fmt.Sprintf("%v: PodGroup %s: %v", e.at.Sub(res.Start), e.kube.Group.Key(), err))
					}
					continue
				}
				if err := replayNodeEvent(s, e.node, pods, resubmit); err != nil {
					res.EventErrors = append(res.EventErrors, fmt.Sprintf("%v: %s %s: %v", e.at.Sub(res.Start), e.node.Action, e.node.target(), err))
				}
			case 1:
				if e.inc == e.pod.inc {
					if err := s.DeletePod(e.pod.pod.Namespace, e.pod.pod.Name); err == nil {
						e.pod.outcome = PodOutcome{Pod: e.pod.pod.Key(), Fate: FateCompleted, Node: e.pod.outcome.Node}
						gangs.unbound(e.pod, next)
					}
					e.pod.inc++
				}
			case 2:
				done++
				batch = true
				if err := s.AddPod(e.pod.pod); err != nil {
					e.pod.outcome = PodOutcome{Pod: e.pod.pod.Key(), Fate: FateRejected, Reason: err.Error()}
				} else if e.pod.pod.Spec.NodeName != "" {
					e.pod.inc++
					e.pod.outcome = PodOutcome{Pod: e.pod.pod.Key(), Fate: FateRunning, Node: e.pod.pod.Spec.NodeName}
					started(gangs.bound(e.pod, next), next)
				}
			}
		}
		if batch && opts.Progress != nil {
			opts.Progress(done, total)
		}
	}
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	res.Wall = stopwatch.Now().Sub(wallStart)
	res.End = clock.Now()
	if !measuredLoaded {
		res.Metrics = MeasurePacking(cluster.Snapshot(), opts.Reference)
		res.PendingAtLastArrival, _, _ = cluster.NumPods()
	}
	res.Final = MeasurePacking(cluster.Snapshot(), opts.Reference)
	res.Gangs = gangs.outcomes(res.End)
	res.Displaced = displaced.list
	if len(pods) > 0 {
		res.Pods = make([]PodOutcome, 0, len(pods))
	}
	for _, rp := range pods {
		if rp.outcome.Fate == FatePending {
			if r := s.PendingReason(rp.pod.Namespace, rp.pod.Name); r != "" {
				rp.outcome.Reason = r
			} else if rp.outcome.Reason == "" {
				rp.outcome.Reason = "not scheduled before the end of the replay"
			}
		}
		res.Pods = append(res.Pods, rp.outcome)
	}
	// Pod keys are unique: any sort gives the one order.
	slices.SortFunc(res.Pods, func(a, b PodOutcome) int { return strings.Compare(a.Pod, b.Pod) })
	return res, nil
}

// kept is a ring of the indices of the decisions that keep their
// runtime.Result, oldest first.
type kept struct {
	idx  []int
	head int
}

// add records that decision i keeps its runtime.Result and, past last of them,
// drops the oldest one's.
func (k *kept) add(ds []scheduling.Decision, i, last int) {
	if len(k.idx) < last {
		k.idx = append(k.idx, i)
		return
	}
	ds[k.idx[k.head]].Result = nil
	k.idx[k.head] = i
	k.head = (k.head + 1) % last
}

// meanRequest is the mean cpu and memory request of the arrivals.
func meanRequest(as []PodArrival) resource.Vector {
	var v resource.Vector
	if len(as) == 0 {
		return v
	}
	for _, a := range as {
		r := api.PodRequestVector(a.Pod)
		v.MilliCPU += r.MilliCPU
		v.Memory += r.Memory
	}
	v.MilliCPU /= int64(len(as))
	v.Memory /= int64(len(as))
	return v
}

// replayNextTime is the next instant something happens: a scenario event,
// a completion, a Permit timeout, a backoff expiry, or — while other
// events remain — the unschedulable pool's leftover flush. ok is false
// when nothing more can change.
//
// drain reports that no scenario event remains and the next instant is the
// queue's own retry of pods that failed before the latest cluster event.
func replayNextTime(s *scheduling.Scheduler, tl *timeline, clock *framework.FakeClock) (next time.Time, ok, drain bool) {
	var best time.Time
	found := false
	consider := func(t time.Time) {
		if !found || t.Before(best) {
			best, found = t, true
		}
	}
	if tl.len() > 0 {
		consider(tl.first())
	}
	if t, ok := clock.NextDeadline(); ok {
		consider(t)
	}
	// The queue's wakeup includes the unschedulable pool's leftover flush
	// and the error backoff (pods no plugin rejected: errors, no nodes),
	// which can only help while something else may still change, or for a
	// pod that failed before the latest cluster event (queueing hints may
	// have judged that event no help: the flush retries it anyway); the
	// backoff of pods that an event moved always counts.
	if found {
		if t, ok := s.NextWakeup(); ok {
			consider(t)
		}
	} else if t, ok := s.StaleWakeup(); ok {
		consider(t)
		drain = tl.len() == 0
	}
	if found && best.Before(clock.Now()) {
		best = clock.Now()
	}
	return best, found, drain
}

// replayNodeEvent applies one node event; pods of a removed node are
// evicted (or resubmitted). An event the cluster refuses (for instance an
// update of a node that is not there at that time) is returned, and the
// replay records it in Result.EventErrors.
func replayNodeEvent(s *scheduling.Scheduler, e *NodeEvent, pods map[string]*pod, resubmit func(*pod, PodFate, string, bool)) error {
	switch e.Action {
	case NodeAdd:
		return s.AddNode(e.Node)
	case NodeUpdate:
		return s.UpdateNode(e.Node)
	case NodeRemove:
		evicted, err := s.RemoveNode(e.Name)
		if err != nil {
			return err
		}
		for _, p := range evicted {
			if rp := pods[p.Key()]; rp != nil {
				resubmit(rp, FateEvicted, fmt.Sprintf("node %s removed", e.Name), false)
			}
		}
	case NodeMetricUpdate:
		return s.UpdateNodeMetric(e.Metric)
	case NodeLoadUpdate:
		return s.UpdateNodeLoad(e.Load)
	}
	return nil
}

// target names the node an event is about.
func (e *NodeEvent) target() string {
	switch {
	case e.Node != nil:
		return e.Node.Name
	case e.Metric != nil:
		return e.Metric.Name
	case e.Load != nil:
		return e.Load.Name
	}
	return e.Name
}

// holds reports whether the cluster still holds the pod namespace/name.
func holds(c *cluster.Cluster, namespace, name string) bool {
	_, ok := c.Pod(namespace, name)
	return ok
}
