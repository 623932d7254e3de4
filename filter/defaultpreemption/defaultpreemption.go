// Package defaultpreemption is kube-scheduler's DefaultPreemption
// PostFilter plugin (pkg/scheduler/framework/plugins/defaultpreemption and
// framework/preemption) with its args, as of v1.37, the default release
// (and as of v1.36, whose differences it keeps): when no node fits a pod
// it dry-runs the removal of lower-priority pods and evicts the cheapest
// victims. It runs its profile's filters through its handle's
// PluginsRunner, reads nominations through its Nominator and pod groups
// through its PodGroupManager, and evicts through its Evictor (a
// scheduler's); it also chooses the victims of a pod group's preemption
// (SelectPodGroupVictims).
package defaultpreemption

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/parallel"
)

// DefaultPreemption is kube-scheduler's DefaultPreemption PostFilter
// plugin of the release its handle names (Handle.KubeVersion), run when no
// node fits a pod:
//
//  1. Eligibility: a pod with preemptionPolicy Never does not preempt, nor
//     one whose nominated node (unless now UnschedulableAndUnresolvable)
//     still has a lower-priority pod terminating by preemption.
//  2. Candidates: only nodes whose filter status is exactly Unschedulable;
//     from a random offset (drawn from the handle's random source: a
//     scheduler's seeded one), nodes
//     are dry-run (the handle's PluginsRunner) until at least one
//     candidate violates no
//     PodDisruptionBudget and there are numCandidates =
//     clamp(n × MinCandidateNodesPercentage / 100, MinCandidateNodesAbsolute,
//     n) of them.
//  3. Victims on a node: every lower-priority pod is removed; if the pod
//     then fits, victims are reprieved one by one (PDB-violating first, then
//     the others, each most important first) while the pod still fits. A
//     victim spends one disruption of each PodDisruptionBudget matching it;
//     from v1.37 it stops at the first budget it exhausts, so the budgets
//     listed after that one keep theirs.
//  4. The node: fewest PDB violations, then the lowest highest victim
//     priority, the lowest Σ(priority + 2³¹), the fewest victims, the latest
//     earliest start time among the highest-priority victims; a final tie
//     goes to the first candidate in dry-run order (kube: Go map order).
//  5. The victims are evicted through the handle's Evictor (a victim
//     waiting at Permit is rejected instead), lower-priority pods nominated
//     to the node lose their nomination, and the pod is nominated to the
//     node; it stays
//     Unschedulable for this cycle. From v1.37 the PostFilter status says so:
//     "preemption: found a potential placement for pod on node <node>,
//     preempting <k> victims", which ends the pod's FitError text.
//
// A pod of a kube PodGroup first passes the pod group gate (see
// PostFilter). Dry runs are parallel at the framework's parallelism, with
// the outcome of a sequential run. A node's dry-run answer is kept for
// the next preemptor of the same kind while nothing it depends on
// changes (victimMemo), when the handle's PluginsRunner implements
// framework.NodeLocalFilters and the hooks below are the defaults.
// Outside a scheduler the Evictor refuses and PostFilter returns an
// Error.
type DefaultPreemption struct {
	args  DefaultPreemptionArgs
	h     framework.Handle
	clock framework.Clock
	// wallClock is set when clock is the RealClock: successive reads
	// then advance, which lets comparisons of pods without a start time
	// skip the reads (see moreImportant).
	wallClock bool
	// v137 is the v1.37 behaviour: the message on a successful preemption
	// and the PDB accounting that stops at a victim's first exhausted budget.
	v137 bool

	// IsEligiblePod narrows the victims beyond "lower priority than the
	// preemptor" (default: every lower-priority pod), as kube's hook. A
	// hook other than the default turns off the keeping of dry-run
	// answers from one preemption to the next, as does one set on
	// MoreImportantPod: the plugin cannot tell what they read.
	IsEligiblePod func(node *framework.NodeInfo, victim *framework.PodInfo, preemptor *api.Pod) bool
	// MoreImportantPod orders victims, most important first (default: higher
	// priority, then the earlier start time; a pod without one started now).
	MoreImportantPod func(a, b *api.Pod) bool

	defaultHooks hooks
	memo         victimMemo
	// scratch backs one preemption's dry run at a time (TryLock): its
	// answers, candidates and statuses, dead once PostFilter returns.
	scratch dryRunScratch
}

// dryRunScratch holds the buffers of a preemption's dry run, kept from one
// preemption to the next so that a stream of preemptors does not allocate
// them again for each.
type dryRunScratch struct {
	mu       sync.Mutex
	answers  []dryRunAnswer
	parts    [][]dryRunAnswer
	cands    []preemptCandidate
	statuses []*framework.Status
	idx      []int
}

// dryRunAnswer is one node's answer in a dry run: a candidate, or the
// status saying why it is none.
type dryRunAnswer struct {
	cand   preemptCandidate
	isCand bool
	status *framework.Status
}

// scratchFor returns pl's scratch, locked, or a fresh one when another
// preemption holds it. release gives it back.
func (pl *DefaultPreemption) scratchFor() (sc *dryRunScratch, release func()) {
	if pl.scratch.mu.TryLock() {
		return &pl.scratch, pl.scratch.mu.Unlock
	}
	return &dryRunScratch{}, func() {}
}

var _ framework.PostFilterPlugin = (*DefaultPreemption)(nil)

// New builds the plugin from args (nil: DefaultDefaultPreemptionArgs();
// a DefaultPreemptionArgs or a pointer to one is used as given),
// validated; it is a framework.Factory. A nil h is a framework that runs
// on no scheduler (framework.NewHandle).
func New(args any, h framework.Handle) (framework.Plugin, error) {
	return config.NewPlugin(config.DefaultPreemptionName, args, h, DefaultDefaultPreemptionArgs, newDefaultPreemption)
}

func newDefaultPreemption(args DefaultPreemptionArgs, h framework.Handle) (framework.Plugin, error) {
	if err := args.Validate(); err != nil {
		return nil, err
	}
	if h == nil {
		h = framework.NewHandle(framework.RealClock{}, 1, framework.DefaultKubeVersion)
	}
	pl := &DefaultPreemption{args: args, h: h, clock: framework.RealClock{}, v137: h.KubeVersion().AtLeast(framework.KubeV137)}
	if h.Clock() != nil {
		pl.clock = h.Clock()
	}
	switch pl.clock.(type) {
	case framework.RealClock, *framework.RealClock:
		pl.wallClock = true
	}
	pl.IsEligiblePod = func(*framework.NodeInfo, *framework.PodInfo, *api.Pod) bool { return true }
	pl.MoreImportantPod = pl.moreImportant
	pl.defaultHooks = hooksOf(pl)
	return pl, nil
}

// Name returns "DefaultPreemption".
func (pl *DefaultPreemption) Name() string { return config.DefaultPreemptionName }

func (pl *DefaultPreemption) startTime(p *api.Pod) time.Time {
	return pl.startOf(p.Status.StartTime)
}

// startOf is a pod's start time from its Status.StartTime, the clock's
// now when it has none.
func (pl *DefaultPreemption) startOf(t *time.Time) time.Time {
	if t != nil {
		return *t
	}
	return pl.clock.Now()
}

// importanceOrder orders a before b when MoreImportantPod(a, b), with one
// call: the stable sort only asks whether an order is below 0, so it
// sorts as a sort by MoreImportantPod does, without allocating.
func (pl *DefaultPreemption) importanceOrder(a, b *framework.PodInfo) int {
	if pl.MoreImportantPod(a.Pod, b.Pod) {
		return -1
	}
	return 0
}

// defaultImportanceOrder is importanceOrder for the default
// MoreImportantPod: the same order, from the priorities and start times
// the PodInfos keep, without reading the pods.
func (pl *DefaultPreemption) defaultImportanceOrder(a, b *framework.PodInfo) int {
	if pl.moreImportantInfo(a, b) {
		return -1
	}
	return 0
}

// sortVictims sorts victims, most important first: by
// defaultImportanceOrder with byInfos (MoreImportantPod is the default),
// else by importanceOrder.
func (pl *DefaultPreemption) sortVictims(victims []*framework.PodInfo, byInfos bool) {
	if byInfos {
		slices.SortStableFunc(victims, pl.defaultImportanceOrder)
		return
	}
	slices.SortStableFunc(victims, pl.importanceOrder)
}

// moreImportant is kube's util.MoreImportantPod. Of two pods with the
// same priority and no start time, kube reads the clock for a first and
// then for b, and a is more important when the clock advanced between
// the reads. The wall clock advances between two reads (its monotonic
// reading has nanosecond resolution on the platforms kube-scheduler runs
// on), so with the RealClock a is more important and the clock is not
// read; an injected clock is read twice, as kube reads its own.
func (pl *DefaultPreemption) moreImportant(a, b *api.Pod) bool {
	return pl.moreImportantBy(a.PriorityValue(), b.PriorityValue(), a.Status.StartTime, b.Status.StartTime)
}

// moreImportantInfo is moreImportant of a's and b's pods.
func (pl *DefaultPreemption) moreImportantInfo(a, b *framework.PodInfo) bool {
	return pl.moreImportantBy(a.PriorityValue(), b.PriorityValue(), a.StartTime(), b.StartTime())
}

func (pl *DefaultPreemption) moreImportantBy(pa, pb int32, sa, sb *time.Time) bool {
	if pa != pb {
		return pa > pb
	}
	if pl.wallClock && sa == nil && sb == nil {
		return true
	}
	return pl.startOf(sa).Before(pl.startOf(sb))
}

// preemptCandidate is a node where evicting victims makes the pod fit.
type preemptCandidate struct {
	node          string
	victims       []*framework.PodInfo // most important first
	pdbViolations int
	// sum is what pickOne reads of the victims; the dry run sets it
	// where it has the victims at hand (or kept them in its memo), and
	// pickOne computes it where it is unset.
	sum victimSum
}

// victimSum is what choosing among candidates (pickOne) reads of a
// candidate's victims, read once: the first victim's priority, the sum
// of the victims' priorities each offset by 2^31, and whether a victim
// of the highest priority has a start time.
type victimSum struct {
	known      bool
	first      int32
	sum        int64
	topStarted bool
}

// sumVictims reads victims, most important first, into a victimSum.
func sumVictims(victims []*framework.PodInfo) victimSum {
	if len(victims) == 0 {
		return victimSum{known: true}
	}
	s := victimSum{known: true, first: victims[0].PriorityValue()}
	top := s.first
	for _, v := range victims {
		p := v.PriorityValue()
		s.sum += int64(p) + int64(math.MaxInt32) + 1
		top = max(top, p)
	}
	for _, v := range victims {
		if v.PriorityValue() == top && v.StartTime() != nil {
			s.topStarted = true
			break
		}
	}
	return s
}

// PostFilter tries to make room for pod by preempting lower-priority pods.
func (pl *DefaultPreemption) PostFilter(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, m *framework.NodeToStatus) (*framework.PostFilterResult, *framework.Status) {
	if st := pl.podGroupGate(pod.Pod); st != nil {
		return nil, st
	}
	res, st := pl.preempt(ctx, state, pod, m)
	if msg := st.Message(); msg != "" {
		return res, framework.NewStatus(st.Code(), "preemption: "+msg)
	}
	return res, st
}

func (pl *DefaultPreemption) preempt(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, m *framework.NodeToStatus) (*framework.PostFilterResult, *framework.Status) {
	snap := state.Snapshot()
	if ok, msg := pl.eligible(snap, pod.Pod, m); !ok {
		return nil, framework.NewStatus(framework.Unschedulable, msg)
	}
	all := snap.Nodes()
	if len(all) == 0 {
		return nil, framework.AsStatus(fmt.Errorf("no nodes available"))
	}
	potential := m.NodesWithCodeReadOnly(snap, framework.Unschedulable)
	var candidates []preemptCandidate
	var statuses []*framework.Status
	sc, release := pl.scratchFor()
	defer release()
	if len(potential) > 0 {
		offset := int(pl.h.PluginsRunner().RandInt32N(int32(len(potential))))
		num := pl.numCandidates(len(potential))
		var err error
		candidates, statuses, err = pl.dryRun(ctx, state, pod, m, potential, offset, num, sc)
		if err != nil && len(candidates) == 0 {
			return nil, framework.AsStatus(err)
		}
	}
	clear := &framework.PostFilterResult{NominatingInfo: &framework.NominatingInfo{Mode: framework.ModeOverride}}
	if len(candidates) == 0 {
		return clear, framework.NewStatus(framework.Unschedulable, preemptFitMessage(len(all), statuses, "Preemption is not helpful for scheduling"))
	}
	candidates, st := pl.callExtenders(pl.h.Extenders(), pod, candidates, snap)
	if !st.IsSuccess() {
		return nil, st
	}
	if len(candidates) == 0 {
		return nil, framework.NewStatus(framework.Unschedulable, "no candidate node for preemption")
	}
	best := pl.pickOne(candidates, sc)
	if err := pl.h.Evictor().Evict(state, pod.Pod, best.node, best.victims, pl.Name()); err != nil {
		return nil, framework.AsStatus(err)
	}
	res := &framework.PostFilterResult{NominatingInfo: &framework.NominatingInfo{NominatedNodeName: best.node, Mode: framework.ModeOverride}}
	if pl.v137 {
		// kube v1.37 preemption.go:(*Evaluator).Preempt; the count is the
		// candidate's victims, already-terminating ones included.
		return res, framework.NewStatus(framework.Success, fmt.Sprintf("found a potential placement for pod on node %v, preempting %d victims", best.node, len(best.victims)))
	}
	return res, nil
}

// eligible is kube's PodEligibleToPreemptOthers.
func (pl *DefaultPreemption) eligible(snap *framework.Snapshot, pod *api.Pod, m *framework.NodeToStatus) (bool, string) {
	if p := pod.Spec.PreemptionPolicy; p != nil && *p == api.PreemptNever {
		return false, "not eligible due to preemptionPolicy=Never."
	}
	nnn := pod.Status.NominatedNodeName
	if nnn == "" {
		return true, ""
	}
	if m.Get(nnn).Code() == framework.UnschedulableAndUnresolvable {
		return true, ""
	}
	if ni, ok := snap.Get(nnn); ok {
		for _, pi := range ni.Pods {
			if pl.allowed(ni, pi, pod) && preemptTerminatingByPreemption(pi.Pod) {
				return false, "not eligible due to a terminating pod on the nominated node."
			}
		}
	}
	return true, ""
}

// preemptTerminatingByPreemption reports a pod being deleted with a
// DisruptionTarget condition of reason PreemptionByScheduler.
func preemptTerminatingByPreemption(p *api.Pod) bool {
	if p.DeletionTimestamp == nil {
		return false
	}
	c := p.Condition(api.DisruptionTarget)
	return c != nil && c.Status == api.ConditionTrue && c.Reason == "PreemptionByScheduler"
}

// preemptNoVictims is the status of a node without a pod the preemptor may
// evict (shared: statuses are never mutated).
var preemptNoVictims = framework.NewStatus(framework.UnschedulableAndUnresolvable, "No preemption victims found for incoming pod")

// anyAllowed reports whether some pod on the node may be a victim. A node
// whose lowest pod priority is not below the preemptor's has none, whatever
// IsEligiblePod says, and is answered without visiting its pods; with
// everyLower (IsEligiblePod is the default, which takes every
// lower-priority pod) a node whose lowest is below has one.
func (pl *DefaultPreemption) anyAllowed(ni *framework.NodeInfo, preemptor *api.Pod, everyLower bool) bool {
	if low, ok := ni.LowestPodPriority(); !ok || low >= preemptor.PriorityValue() {
		return false
	}
	if everyLower {
		return true
	}
	for _, pi := range ni.Pods {
		if pl.allowed(ni, pi, preemptor) {
			return true
		}
	}
	return false
}

func (pl *DefaultPreemption) allowed(ni *framework.NodeInfo, victim *framework.PodInfo, preemptor *api.Pod) bool {
	return victim.PriorityValue() < preemptor.PriorityValue() && pl.IsEligiblePod(ni, victim, preemptor)
}

// numCandidates is kube's calculateNumCandidates.
func (pl *DefaultPreemption) numCandidates(n int) int {
	k := int(int64(n) * int64(pl.args.MinCandidateNodesPercentage) / 100)
	k = max(k, int(pl.args.MinCandidateNodesAbsolute))
	return min(k, n)
}

// preemptPDB is a PodDisruptionBudget with its compiled selector.
type preemptPDB struct {
	namespace string
	sel       api.Selector
	allowed   int32
	disrupted map[string]time.Time
}

func preemptCompilePDBs(pdbs []api.PodDisruptionBudget) []preemptPDB {
	out := make([]preemptPDB, 0, len(pdbs))
	for _, p := range pdbs {
		sel, err := p.Selector.Compile()
		if err != nil || sel.IsEverything() || sel.IsNothing() {
			continue // invalid, nil or empty selectors match nothing
		}
		out = append(out, preemptPDB{namespace: p.Namespace, sel: sel, allowed: p.DisruptionsAllowed, disrupted: p.DisruptedPods})
	}
	return out
}

// dryRun is kube's DryRunPreemption with a sequential outcome: positions
// from offset are examined in order (in parallel chunks) and the run stops
// at the first position where a non-violating candidate exists and the
// candidates number num; non-violating candidates come first. The
// statuses are those of the examined nodes that are not candidates, one per
// node, in examination order.
func (pl *DefaultPreemption) dryRun(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo,
	m *framework.NodeToStatus, potential []*framework.NodeInfo, offset, num int, sc *dryRunScratch) ([]preemptCandidate, []*framework.Status, error) {
	runner := pl.h.PluginsRunner()
	par := pl.h.Parallelism()
	pdbs := preemptCompilePDBs(state.Snapshot().DisruptionBudgets)
	n := len(potential)
	// Each chunk of the search keeps its answers in its own part of sc's
	// answers, cleared when the chunk runs: the search stops once it has
	// enough candidates, usually a few chunks in, and the parts it
	// reached are a prefix of them.
	chunk := parallel.ChunkSize(n, par)
	parts := sc.parts[:0]
	parts = slices.Grow(parts, (n+chunk-1)/chunk)[:(n+chunk-1)/chunk]
	clear(parts)
	sc.parts = parts
	if cap(sc.answers) < n {
		sc.answers = make([]dryRunAnswer, n)
	}
	answers := sc.answers[:n]
	// Nodes without victims, and nodes whose victims would leave them
	// rejected as the cycle found them (runtime.VictimRemovalFilter, when
	// m gives the cycle's statuses), are answered in the search without
	// copying the node and the cycle state, and only as far as the search
	// goes.
	var kept []string
	if m != nil {
		kept = runner.RejectionsKeptByRemoval(state, pod)
	}
	snap := state.Snapshot()
	var nonViolating, total atomic.Int64
	nominated := pl.h.Nominator().NominatedPodsForNode
	search := func(n, size int, chunk func(lo, hi int) bool) { parallel.Ordered(par, n, size, chunk) }
	if s, ok := pl.h.Parallelizer().(framework.Searcher); ok {
		search = s.Search
	}
	h := hooksOf(pl)
	everyLower, byInfos := h.eligible == pl.defaultHooks.eligible, h.important == pl.defaultHooks.important
	memo, warm := pl.acquire(ctx, state, pod, pdbs, h)
	if memo != nil {
		defer memo.mu.Unlock()
	}
	// examine answers the nodes at positions [lo, hi), one chunk, and
	// reports whether the search has enough candidates and how many of
	// the nodes it dry-ran (the others it answered without copying them).
	examine := func(lo, hi int) (stop bool, dryRuns int) {
		part := answers[lo:hi:hi]
		clear(part)
		parts[lo/chunk] = part
		// A chunk's nodes are copied, with the cycle state, into the
		// same scratch node and state one after the other: what the
		// search keeps of a node (its name and victims) is not in them.
		var scratchNode *framework.NodeInfo
		var scratchState *framework.CycleState
		scratch := victimScratch{byInfos: byInfos}
		var chunkNonViolating, chunkTotal int64
		for i := lo; i < hi; i++ {
			r := &part[i-lo]
			ni := potential[(offset+i)%n]
			if !pl.anyAllowed(ni, pod.Pod, everyLower) {
				r.status = preemptNoVictims
				continue
			}
			// A node's answer kept from an earlier search is the dry run's,
			// so it is also the cycle's status where that stands (kept).
			e := memo.get(ni)
			if e == nil && len(kept) > 0 {
				if st := m.GetNode(snap, ni); slices.Contains(kept, st.Plugin()) {
					r.status = st
					continue
				}
			}
			// The nominated pods, looked up once: the dry run changes no
			// nomination. An answer holds only while none of them counts.
			nominatedHere := nominated(ni.Name())
			counted := nominatedCounted(nominatedHere, pod)
			var victims []*framework.PodInfo
			var violations int
			var st *framework.Status
			var sum victimSum
			if e != nil && !counted {
				victims, violations, st, sum = e.victims, e.violations, e.status, e.sum
			} else {
				if scratchNode == nil {
					scratchNode, scratchState = &framework.NodeInfo{}, &framework.CycleState{}
				}
				var clockFree bool
				dryRuns++
				victims, violations, st, clockFree = pl.selectVictims(ctx, runner, state.CloneInto(scratchState), pod, ni.CloneInto(scratchNode), pdbs, nominatedHere, &scratch)
				if st.IsSuccess() && len(victims) > 0 {
					sum = sumVictims(victims)
				}
				if memo != nil && clockFree && !counted && st.Code() != framework.Error {
					memo.put(ni, victims, violations, st, sum)
				}
			}
			switch {
			case st.IsSuccess() && len(victims) > 0:
				r.cand, r.isCand = preemptCandidate{node: ni.Name(), victims: victims, pdbViolations: violations, sum: sum}, true
				if violations == 0 {
					chunkNonViolating++
				}
				chunkTotal++
			case st.IsSuccess():
				r.status = framework.AsStatus(fmt.Errorf("expected at least one victim pod on node %q", ni.Name()))
			default:
				r.status = st
			}
		}
		// The chunk's candidates are counted into the search's once, at
		// its end, where the search asks whether it has enough.
		nv, t := nonViolating.Add(chunkNonViolating), total.Add(chunkTotal)
		return nv > 0 && t >= int64(num), dryRuns
	}
	// The outcome does not depend on how the search is shared. When the
	// memo kept answers from the last preemption, the caller examines
	// the first chunk alone: if it looked up most of its nodes rather
	// than dry-running them, the next chunks are likely the same, and a
	// worker woken for a chunk would cost more than the chunk, so the
	// caller goes on alone; otherwise (a search from another offset, or
	// many nodes changed) the rest is shared.
	from := 0
	if warm && n > 0 {
		hi := min(chunk, n)
		stop, dryRuns := examine(0, hi)
		from = hi
		if stop {
			from = n
		} else if 2*dryRuns <= hi {
			for ; from < n; from += chunk {
				if stop, _ := examine(from, min(from+chunk, n)); stop {
					break
				}
			}
			from = n
		}
	}
	if from < n {
		search(n-from, chunk, func(lo, hi int) bool {
			stop, _ := examine(lo+from, hi+from)
			return stop
		})
	}
	// The search stops once it has num candidates, mostly non-violating
	// ones: room for them is made at once.
	nonViol, viol := slices.Grow(sc.cands[:0], min(num, int(nonViolating.Load()))), []preemptCandidate(nil)
	statuses := sc.statuses[:0]
	var errs []string
merge:
	for _, part := range parts {
		if part == nil {
			break // the search stopped before
		}
		for i := range part {
			r := &part[i]
			if r.isCand {
				if r.cand.pdbViolations == 0 {
					if len(nonViol) < num {
						nonViol = append(nonViol, r.cand)
					}
				} else if len(viol) < num {
					viol = append(viol, r.cand)
				}
				if len(nonViol) > 0 && len(nonViol)+len(viol) >= num {
					break merge
				}
				continue
			}
			statuses = append(statuses, r.status)
			if r.status.Code() == framework.Error {
				errs = append(errs, r.status.Message())
			}
		}
	}
	var err error
	if len(errs) > 0 {
		err = errors.New(aggregateMessage(errs))
	}
	nonViol = append(nonViol, viol...)
	sc.cands, sc.statuses = nonViol, statuses
	return nonViol, statuses, err
}

// aggregateMessage prints messages as k8s.io/apimachinery's
// utilerrors.NewAggregate(errs).Error() does, the form kube-scheduler's
// DryRunPreemption returns its nodes' errors in: one message as it is;
// several as "[a, b]" in their order, each distinct message once (and
// without brackets when only one distinct message remains).
func aggregateMessage(msgs []string) string {
	if len(msgs) == 1 {
		return msgs[0]
	}
	seen := make(map[string]bool, len(msgs))
	distinct := make([]string, 0, len(msgs))
	for _, m := range msgs {
		if !seen[m] {
			seen[m] = true
			distinct = append(distinct, m)
		}
	}
	if len(distinct) == 1 {
		return distinct[0]
	}
	return "[" + strings.Join(distinct, ", ") + "]"
}

// victimScratch is the memory one chunk of the dry run reuses from node
// to node: the node's potential victims, and an arena the victims of the
// chunk's candidates are cut from one after the other.
type victimScratch struct {
	potential []*framework.PodInfo
	arena     []*framework.PodInfo
	// byInfos: the victims are ordered from their PodInfos
	// (DefaultPreemption.sortVictims).
	byInfos bool
}

// victims returns an empty slice with room for n victims, cut from the
// arena: its elements are not shared with any other node's victims.
func (sc *victimScratch) victims(n int) []*framework.PodInfo {
	if cap(sc.arena)-len(sc.arena) < n {
		sc.arena = make([]*framework.PodInfo, 0, max(4*n, 64))
	}
	k := len(sc.arena)
	return sc.arena[k : k : k+n]
}

// keep marks victims, cut by victims, as used.
func (sc *victimScratch) keep(victims []*framework.PodInfo) {
	sc.arena = sc.arena[:len(sc.arena)+len(victims)]
}

// selectVictims is kube's SelectVictimsOnNode on a copy of the node and of
// the cycle state.
// clockFree reports that the victims' order read no clock: they all have
// a start time, or none has one and the clock is the RealClock.
func (pl *DefaultPreemption) selectVictims(ctx context.Context, fw framework.PluginsRunner, state *framework.CycleState, pod *framework.PodInfo,
	ni *framework.NodeInfo, pdbs []preemptPDB, nominatedHere []*framework.PodInfo, sc *victimScratch) (_ []*framework.PodInfo, _ int, _ *framework.Status, clockFree bool) {
	remove := func(pi *framework.PodInfo) *framework.Status {
		if err := ni.RemovePodInfo(pi); err != nil {
			return framework.AsStatus(err)
		}
		return fw.RunPreFilterExtensionRemovePod(ctx, state, pod, pi, ni)
	}
	add := func(pi *framework.PodInfo) *framework.Status {
		ni.AddPodInfo(pi)
		return fw.RunPreFilterExtensionAddPod(ctx, state, pod, pi, ni)
	}
	potential := sc.potential[:0]
	started := 0
	for _, pi := range ni.Pods {
		if pl.allowed(ni, pi, pod.Pod) {
			potential = append(potential, pi)
			if pi.StartTime() != nil {
				started++
			}
		}
	}
	sc.potential = potential
	clockFree = started == len(potential) || started == 0 && pl.wallClock
	for _, pi := range potential {
		if st := remove(pi); !st.IsSuccess() {
			return nil, 0, framework.AsStatus(st.AsError()), false
		}
	}
	if len(potential) == 0 {
		return nil, 0, preemptNoVictims, clockFree
	}
	if st := fw.RunFilterPluginsWithNominatedPods(ctx, state, pod, ni, nominatedHere); !st.IsSuccess() {
		return nil, 0, st, clockFree
	}
	// Stable: pods of equal importance keep the node's order (kube's
	// sort.Slice leaves them in an unspecified order).
	pl.sortVictims(potential, sc.byInfos)
	violating, nonViolating := preemptSplitByPDB(potential, pdbs, pl.v137)
	victims := sc.victims(len(potential))
	violations := 0
	reprieve := func(pi *framework.PodInfo) (bool, *framework.Status) {
		if st := add(pi); !st.IsSuccess() {
			return false, framework.AsStatus(st.AsError())
		}
		if st := fw.RunFilterPluginsWithNominatedPods(ctx, state, pod, ni, nominatedHere); st.IsSuccess() {
			return true, nil
		}
		if st := remove(pi); !st.IsSuccess() {
			return false, framework.AsStatus(st.AsError())
		}
		victims = append(victims, pi)
		return false, nil
	}
	for _, pi := range violating {
		fits, st := reprieve(pi)
		if !st.IsSuccess() {
			return nil, 0, st, false
		}
		if !fits {
			violations++
		}
	}
	for _, pi := range nonViolating {
		if _, st := reprieve(pi); !st.IsSuccess() {
			return nil, 0, st, false
		}
	}
	if len(violating) != 0 && len(nonViolating) != 0 {
		pl.sortVictims(victims, sc.byInfos)
	}
	sc.keep(victims)
	return victims, violations, nil, clockFree
}

// preemptSplitByPDB splits pods, in order, into those whose eviction
// violates a PodDisruptionBudget and the others. Each PDB of the pod's
// namespace whose selector matches it spends one disruption (unless the pod
// is already in disruptedPods); a budget below zero means the pod violates
// it. With firstOnly (v1.37, preemption/util.go:FilterVictimsWithPDBViolation)
// a pod stops at the first budget it takes below zero; without it (v1.36,
// default_preemption.go:filterPodsWithPDBViolation) it spends one
// disruption of every matching budget.
func preemptSplitByPDB(pods []*framework.PodInfo, pdbs []preemptPDB, firstOnly bool) (violating, nonViolating []*framework.PodInfo) {
	if len(pdbs) == 0 {
		return nil, pods
	}
	allowed := make([]int32, len(pdbs))
	for i, p := range pdbs {
		allowed[i] = p.allowed
	}
	for _, pi := range pods {
		p := pi.Pod
		violated := false
		if len(p.Labels) != 0 {
			for i, pdb := range pdbs {
				if pdb.namespace != p.Namespace || !pdb.sel.Matches(p.Labels) {
					continue
				}
				if _, done := pdb.disrupted[p.Name]; done {
					continue
				}
				allowed[i]--
				if allowed[i] < 0 {
					violated = true
					if firstOnly {
						break
					}
				}
			}
		}
		if violated {
			violating = append(violating, pi)
		} else {
			nonViolating = append(nonViolating, pi)
		}
	}
	return violating, nonViolating
}

// pickOne is kube's pickOneNodeForPreemption over candidates in dry-run
// order. kube keeps, criterion after criterion, the candidates best on it
// among those left: the fewest PDB violations, the lowest highest victim
// priority, the lowest Σ(priority + 2³¹), the fewest victims, then the
// latest earliest start of the highest-priority victims; the first left
// wins. The first four are one lexicographic order, compared in one pass.
func (pl *DefaultPreemption) pickOne(cands []preemptCandidate, sc *dryRunScratch) preemptCandidate {
	// key is a candidate's first four criteria, each higher when better.
	type key [4]int64
	for i := range cands {
		if c := &cands[i]; !c.sum.known {
			c.sum = sumVictims(c.victims)
		}
	}
	keyOf := func(c *preemptCandidate) key {
		return key{-int64(c.pdbViolations), -int64(c.sum.first), -c.sum.sum, -int64(len(c.victims))}
	}
	idx := append(sc.idx[:0], 0)
	defer func() { sc.idx = idx }()
	best := keyOf(&cands[0])
	for i := 1; i < len(cands); i++ {
		switch k := keyOf(&cands[i]); {
		case k == best:
			idx = append(idx, i)
		case slices.Compare(k[:], best[:]) > 0:
			best, idx = k, append(idx[:0], i)
		}
	}
	if len(idx) == 1 {
		return cands[idx[0]]
	}
	if pl.wallClock && pl.noneStarted(cands, idx) {
		// Every candidate's latest start is a reading of the wall
		// clock, taken in turn, each later than the one before: the
		// last candidate's is the latest.
		return cands[idx[len(idx)-1]]
	}
	latest, pick := int64(math.MinInt64), idx[0]
	for _, i := range idx {
		if s := pl.earliestStartOfHighest(cands[i].victims).UnixNano(); s > latest {
			latest, pick = s, i
		}
	}
	return cands[pick]
}

// noneStarted reports whether no victim of the highest priority of any
// of the candidates at idx has a start time.
func (pl *DefaultPreemption) noneStarted(cands []preemptCandidate, idx []int) bool {
	for _, i := range idx {
		if cands[i].sum.topStarted {
			return false
		}
	}
	return true
}

// earliestStartOfHighest is kube's GetEarliestPodStartTime: the earliest
// start time among the victims of the highest priority, a victim without
// one taken as started now. kube reads the clock for each such victim.
// With the RealClock every read after the first is later than it, so one
// read stands for all of them: the earliest is the same unless a victim's
// start time falls inside the call itself. An injected clock is read for
// each such victim, as kube reads its own.
func (pl *DefaultPreemption) earliestStartOfHighest(victims []*framework.PodInfo) time.Time {
	var now time.Time
	read := false
	start := func(v *framework.PodInfo) time.Time {
		if t := v.StartTime(); t != nil || !pl.wallClock {
			return pl.startOf(t)
		}
		if !read {
			now, read = pl.clock.Now(), true
		}
		return now
	}
	earliest := start(victims[0])
	top := victims[0].PriorityValue()
	for _, v := range victims {
		switch p := v.PriorityValue(); {
		case p == top:
			if t := start(v); t.Before(earliest) {
				earliest = t
			}
		case p > top:
			top, earliest = p, start(v)
		}
	}
	return earliest
}

// preemptFitMessage renders kube's FitError message for preemption's own
// node statuses: "0/N nodes are available: " and the sorted "count reason"
// histogram, nodes without a status counting under absent. statuses hold
// one status per node (a shared status, such as preemptNoVictims, once per
// node it answers).
func preemptFitMessage(numAll int, statuses []*framework.Status, absent string) string {
	counts := map[string]int{}
	for i := 0; i < len(statuses); {
		// Runs of one shared status are counted at once.
		st, j := statuses[i], i+1
		for j < len(statuses) && statuses[j] == st {
			j++
		}
		for _, r := range st.Reasons() {
			counts[r] += j - i
		}
		i = j
	}
	if rest := numAll - len(statuses); rest > 0 {
		counts[absent] += rest
	}
	hist := make([]string, 0, len(counts))
	for r, c := range counts {
		hist = append(hist, fmt.Sprintf("%d %s", c, r))
	}
	sort.Strings(hist)
	msg := fmt.Sprintf("0/%d nodes are available:", numAll)
	if len(hist) > 0 {
		msg += " " + strings.Join(hist, ", ") + "."
	}
	return msg
}
