package runtime

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/fastpath"
	"github.com/schedkit/schedkit/internal/parallel"
)

// CycleOptions tune one run of Schedule.
type CycleOptions struct {
	// Rand breaks ties among the top-scoring nodes uniformly at random. It
	// is required: the same seed and inputs give the same choice.
	Rand *rand.Rand
	// StartIndex is the round-robin offset: node i of the cycle is
	// candidates[(StartIndex+i) % len(candidates)].
	StartIndex int
	// NumFeasibleToFind is how many feasible nodes the cycle keeps, the
	// first ones in evaluation order (0 means all); NumFeasibleNodesToFind
	// derives it from percentageOfNodesToScore. As in kube-scheduler's
	// findNodesThatPassFilters, filtering stops only when one more feasible
	// node is found (that node is dropped and not counted), so the nodes
	// rejected before it count as evaluated.
	NumFeasibleToFind int
	// NominatedPods returns the pods nominated to a node, for the two-pass
	// filter. Nil means none.
	NominatedPods func(nodeName string) []*framework.PodInfo
	// TopN is how many ranked nodes the result keeps (default 3).
	TopN int
	// AlwaysScore scores even when only one node is feasible (kube-scheduler
	// skips scoring then; turn this on for explanations).
	AlwaysScore bool
	// SkipExplanation drops the per-plugin raw score table (normalized
	// scores, totals and filter verdicts are kept).
	SkipExplanation bool
	// TimeSteps times the cycle's steps on the framework's clock into
	// Result.Steps (zero otherwise). The decision is unchanged; the cost
	// is a reading of the clock per step.
	TimeSteps bool
	// TotalsOnly drops the per-plugin score tables too, raw and normalized
	// (Result.Scores is then nil), keeping each feasible node's total: a
	// plugin that normalizes through a table (fastpath.RangeNormalizer)
	// then has its weighted table entries added to the totals without
	// normalizing its row, and one without a normalizer that adds its
	// weighted scores itself (fastpath.AddingBatchScorePlugin) writes no
	// row. The decision is unchanged.
	TotalsOnly bool
	// ExplainFilters runs every Filter plugin on every candidate node
	// (past the first rejection, and on the nodes sampling left
	// unevaluated) and reports each plugin's verdict in
	// NodeVerdict.Filters. The decision is unchanged; the cost is one more
	// Filter pass over all candidates.
	ExplainFilters bool
	// ExplainRejections asks each Filter plugin that rejected a node and
	// implements framework.FilterExplainer for the details of its
	// rejection, kept in NodeVerdict.Details. Statuses and the decision are
	// unchanged; the cost is one ExplainRejection call per such node.
	ExplainRejections bool
	// RejectionsOnFailure keeps the filters' rejections (Result's
	// NodeVerdicts and NodeToStatus, Diagnosis, FitError) only when no
	// node passes the filters: a cycle that finds a feasible node then
	// reports no rejected node and an empty Diagnosis, which a caller that
	// reads them only when a pod does not fit never misses. It is ignored
	// with extenders (which filter after the plugins) and with
	// ExplainFilters or ExplainRejections. The decision and the counts of
	// evaluated and feasible nodes are unchanged.
	RejectionsOnFailure bool
	// Nodes, when non-nil, restricts the nodes filtered and scored to these,
	// in this order (resolved by name in the snapshot; names it lacks are
	// left out): kube-scheduler v1.36's placement in the pod group cycle
	// (AssumePlacement). PreFilter still sees every node of the snapshot,
	// and NumAllNodes counts the placement's nodes.
	Nodes []*framework.NodeInfo
	// Reuse, when set, is overwritten with this cycle's Result and its
	// buffers are reused, so a caller that does not keep explanations
	// allocates almost nothing per cycle. The returned Result is Reuse.
	Reuse *Result
	// PreFiltered, when set, is what RunPreFilterPlugins returned for this
	// pod on this cycle's state and snapshot, run before (scheduling's
	// pod-signature reuse runs PreFilter to decide whether a full cycle is
	// needed): Schedule takes it instead of running PreFilter again.
	PreFiltered *PreFilterOutcome

	noExtenders bool // ScoreNodes: the profile's plugins only
}

// PreFilterOutcome is what RunPreFilterPlugins returned: the merged
// result, the status and the plugins that narrowed the nodes.
type PreFilterOutcome struct {
	Result  *framework.PreFilterResult
	Status  *framework.Status
	Plugins []string
}

// Schedule runs one scheduling cycle's plugins for pod over snap: PreFilter
// (merging PreFilterResults), Filter per node, extender filters, PreScore,
// Score, NormalizeScore, the [0,100] check, weights and extender scores,
// then host selection. The Result explains every step. On more than two
// workers the PreScore plugins that read neither the nodes nor another
// plugin's state (fastpath.NodeBlindPreScorePlugin) run beside PreFilter,
// and their statuses are read in the PreScore step; the PreFilter
// plugins that read no other plugin's state
// (fastpath.IsolatedPreFilterPlugin) run beside the others, and the
// outcomes are merged in profile order.
//
// It returns a *FitError when no node fits (the Result still explains why)
// and another error when a plugin fails unexpectedly. Results are
// identical at any parallelism. A nil ctx is an error; a ctx already done
// is an error wrapping ctx.Err() before any plugin runs, and one done
// during the cycle stops the filter loop and fails the cycle with it.
func (f *Framework) Schedule(ctx context.Context, state *framework.CycleState, snap *framework.Snapshot, pod *framework.PodInfo, opts CycleOptions) (*Result, error) {
	if err := checkCycle(ctx, state, snap, pod, &opts); err != nil {
		return nil, err
	}
	// One deferred call ends the cycle, so that the compiler inlines it
	// at each return instead of queueing a call per resource.
	var end cycleEnd
	defer end.run(f)
	if state == nil {
		// Nobody else sees this state: its plugins' buffers go back to
		// them when the cycle ends, and the state to the framework's
		// pool, or to the reused Result it came from.
		if r := opts.Reuse; r != nil && r.spare != nil {
			state, r.spare = r.spare, nil
		} else {
			state = f.states.get()
		}
		end.state, end.keep = state, opts.Reuse
	}
	state.SetSnapshot(snap)
	all := snap.Nodes()
	res := opts.Reuse
	if res == nil {
		res = &Result{}
	}
	res.reset()
	end.out = res
	cands := all
	if opts.Nodes != nil {
		cands = inPlacement(snap, opts.Nodes)
		res.candidates = cands
	}
	// The nodes the filters may see: a PreFilterResult known before
	// PreFilter runs, or bounded by its plugin, leaves too few to share.
	// One worker shares nothing, so it does not bound them.
	shared := len(cands)
	if f.workers != nil {
		if p := opts.PreFiltered; p != nil && !p.Result.AllNodes() {
			shared = min(shared, len(p.Result.NodeNames))
		} else if p == nil {
			shared = f.boundCandidates(pod, shared)
		}
		if f.expectsShared(shared, opts.NumFeasibleToFind) {
			if t, ok := f.workers.begin(shared); ok {
				// Weighed per node evaluated: a cycle that ends before
				// its filters (PreFilter rejects the pod) is not measured.
				end.started, end.res = t, res
			}
		}
	}
	res.Pod, res.Profile, res.NumAllNodes, res.fw, res.snap = pod, f.profile.SchedulerName, len(cands), f, snap
	if opts.TopN <= 0 {
		opts.TopN = 3
	}
	if opts.TimeSteps {
		res.steps.start(f.clock)
	}

	var preRes *framework.PreFilterResult
	var s *framework.Status
	var withNodes []string
	var front *frontRun // the PreScore plugins run beside PreFilter
	switch {
	case opts.PreFiltered != nil:
		p := opts.PreFiltered
		preRes, s, withNodes = p.Result, p.Status, p.Plugins
	case len(f.front) > 1 && f.workers != nil && f.frontsPreFilter(shared, opts.NumFeasibleToFind):
		bs := f.getBatchScratch()
		end.bs = bs
		front = &bs.front
		*front = frontRun{f: f, ctx: ctx, state: state, pod: pod, nodes: all,
			out: grow(front.out, len(f.preScore)), pre: grow(front.pre, len(f.preFilter))}
		end.front = front
		front.run()
		preRes, s, withNodes = front.result, front.status, front.withNodes
	default:
		preRes, s, withNodes = f.RunPreFilterPlugins(ctx, state, pod)
	}
	res.steps.mark(&res.Steps.PreFilter)
	res.PreFilterResult = preRes
	res.SkippedFilter = f.skipFilter.sortedOf(state.SkipFilterPlugins())
	if !s.IsSuccess() {
		res.PreFilterStatus = s
		if !s.IsRejected() {
			res.Err = s.AsError()
			return res, res.Err
		}
		res.Diagnosis.PreFilterMsg = s.Message()
		res.Diagnosis.absent = s
		res.Diagnosis.addPlugin(s)
		if len(withNodes) > 0 && s.Plugin() == "" {
			res.Diagnosis.UnschedulablePlugins = mergeNames(res.Diagnosis.UnschedulablePlugins, withNodes)
		}
		fe := &FitError{Pod: pod.Pod, NumAllNodes: len(cands), Diagnosis: res.Diagnosis}
		res.Err = fe
		return res, fe
	}
	candidates := cands
	if !preRes.AllNodes() {
		candidates = narrowTo(res.candBuf[:0], snap, cands, opts.Nodes == nil, preRes)
		res.candidates, res.candBuf = candidates, candidates
		d := &res.Diagnosis
		if len(withNodes) == 1 {
			// One name is sorted; the step's list is this cycle's or a
			// read-only view of the framework's names, clipped so that
			// an append copies.
			d.absentFrom = slices.Clip(withNodes)
		} else {
			d.absentFrom = slices.Clip(mergeNames(nil, withNodes))
		}
		if len(d.UnschedulablePlugins) == 0 {
			d.UnschedulablePlugins = d.absentFrom // mergeNames copies before it adds
		} else {
			d.UnschedulablePlugins = mergeNames(d.UnschedulablePlugins, d.absentFrom)
		}
	}
	res.StartIndex = opts.StartIndex

	if err := f.filterNodes(ctx, state, pod, candidates, opts, res); err != nil {
		res.Err = err
		return res, err
	}
	if err := ctx.Err(); err != nil {
		res.Err = fmt.Errorf("framework: Schedule: %w", err)
		return res, res.Err
	}
	if opts.ExplainFilters {
		f.explainFilters(ctx, state, pod, candidates, opts.NominatedPods, res)
	}
	if opts.ExplainRejections {
		f.explainRejections(ctx, state, pod, res)
	}
	if err := f.runExtenderFilters(pod, res); err != nil {
		res.Err = err
		return res, err
	}
	res.steps.mark(&res.Steps.Filter)
	if len(res.feasible) == 0 {
		fe := &FitError{Pod: pod.Pod, NumAllNodes: len(cands), Diagnosis: res.Diagnosis}
		res.Err = fe
		return res, fe
	}
	if len(res.feasible) == 1 && !opts.AlwaysScore {
		res.selected = 0
		res.rankGeneric(opts.TopN)
		res.steps.mark(&res.Steps.SelectHost)
		return res, nil
	}
	if err := f.scoreNodes(ctx, state, pod, opts, res, front); err != nil {
		res.Totals = res.Totals[:0] // no scores to explain
		res.Err = err
		return res, err
	}
	res.steps.mark(&res.Steps.NormalizeScore)
	if err := ctx.Err(); err != nil {
		res.Totals = res.Totals[:0]
		res.Err = fmt.Errorf("framework: Schedule: %w", err)
		return res, res.Err
	}
	res.selectHost(opts.Rand, opts.TopN)
	res.steps.mark(&res.Steps.SelectHost)
	return res, nil
}

// checkCycle reports what makes Schedule's arguments unusable.
func checkCycle(ctx context.Context, state *framework.CycleState, snap *framework.Snapshot, pod *framework.PodInfo, opts *CycleOptions) error {
	if ctx == nil {
		return errors.New("framework: Schedule: nil context")
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("framework: Schedule: %w", err)
	}
	if pod == nil || pod.Pod == nil {
		return errors.New("framework: Schedule: nil pod")
	}
	if snap == nil {
		return errors.New("framework: Schedule: nil snapshot")
	}
	if opts.Rand == nil {
		return errors.New("framework: Schedule: CycleOptions.Rand is nil: inject a *rand.Rand for tie-breaks")
	}
	if state == nil && opts.PreFiltered != nil {
		return errors.New("framework: Schedule: CycleOptions.PreFiltered without the cycle state PreFilter ran on")
	}
	return nil
}

// cycleEnd is what Schedule gives back when the cycle ends, in the reverse
// of the order it took them: the PreScore run beside PreFilter and its
// scratch, the workers' timing (res set when the cycle is timed), and a
// state Schedule created.
type cycleEnd struct {
	front   *frontRun
	bs      *batchScratch
	started turn
	res     *Result
	state   *framework.CycleState
	// keep, when set, keeps state for its next cycle (Result.spare).
	keep *Result
	// out is the cycle's Result, whose cycle-only views end with it.
	out *Result
}

func (e *cycleEnd) run(f *Framework) {
	if e.out != nil {
		e.out.endCycle()
	}
	if e.front != nil {
		e.front.release()
	}
	if e.bs != nil {
		f.batch.Put(e.bs)
	}
	if e.res != nil {
		f.workers.end(e.started, e.res.evaluated)
	}
	if e.state != nil {
		if e.keep != nil {
			e.state.Release()
			e.keep.spare = e.state
		} else {
			f.putState(e.state)
		}
	}
}

// fillPositions sets dst[p] = p for every p: a copy of the snapshot's
// index runs (0, 1, …, NumNodes−1 first) when they are long enough, a
// loop otherwise (and for a few positions, which the loop writes sooner
// than the runs are found).
func fillPositions(dst []int32, snap *framework.Snapshot) {
	if snap != nil && len(dst) > 16 {
		if runs := snap.IndexRuns(); len(dst) <= len(runs)/2 {
			copy(dst, runs)
			return
		}
	}
	for p := range dst {
		dst[p] = int32(p)
	}
}

func sortedKeys(m map[string]bool) []string {
	if len(m) == 0 {
		return nil
	}
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func mergeNames(a, b []string) []string {
	if len(a)+len(b) == 0 {
		return nil
	}
	out := make([]string, 0, len(a)+len(b))
	out = append(append(out, a...), b...)
	slices.Sort(out)
	return slices.Compact(out)
}

// boundCandidates returns n, or fewer when a PreFilter plugin bounds the
// nodes its result will name for pod (fastpath.BoundedPreFilterPlugin).
func (f *Framework) boundCandidates(pod *framework.PodInfo, n int) int {
	for _, b := range f.preFilterBounds {
		if k, ok := b.PreFilterBound(pod); ok {
			n = min(n, k)
		}
	}
	return n
}

// allFit reports whether every node of nodes passes every Filter plugin
// the cycle's PreFilter skips left on, calling them node by node; it
// stops at the first status that is not Success (a rejection or an
// error, which the caller's loop then records). It reads the plugins
// left on from the skip-set memo, as the loop (activeFilters) and
// RunFilterPlugins do, and names no plugin on a status, which
// RunFilterPlugins does at a rejection.
func (f *Framework) allFit(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo) bool {
	on := f.skipFilter.onIn(state.SkipFilterPlugins())
	for _, ni := range nodes {
		for _, i := range on {
			if !f.filter[i].Filter(ctx, state, pod, ni).IsSuccess() {
				return false
			}
		}
	}
	return true
}

// perNodeFilterMax is the most candidates the filters see node by node:
// for so few, a plugin's call per chunk, which reads its cycle state and
// sets up its pass, costs more than its calls per node.
const perNodeFilterMax = 2

// filterNodes runs the filter plugins over candidates in round-robin order
// from opts.StartIndex and keeps the first NumFeasibleToFind (k) feasible
// nodes. Like kube-scheduler v1.36's findNodesThatPassFilters
// (schedule_one.go) at parallelism 1, it stops at the (k+1)-th feasible
// node, which is neither kept nor counted, so the nodes evaluated (the
// round-robin advance) are the k feasible ones plus every node rejected
// before the stop; a Filter error stops at the failing node, which is not
// counted either. The outcome is the one a sequential run produces,
// whatever the parallelism.
func (f *Framework) filterNodes(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, candidates []*framework.NodeInfo, opts CycleOptions, res *Result) error {
	n := len(candidates)
	if n == 0 {
		return nil
	}
	start := opts.StartIndex % n
	if start < 0 {
		start += n
	}
	res.StartIndex = start
	want := opts.NumFeasibleToFind
	if want <= 0 || want > n {
		want = n
	}
	stop := int64(want) + 1 // kube cancels on the (k+1)-th feasible node
	if !f.HasFilterPlugins() {
		res.feasible = grow(res.feasible, want)
		fillPositions(res.feasible, res.snap)
		res.evaluated = want
		res.order = candidates
		return nil
	}
	if n <= perNodeFilterMax && want == n && opts.NominatedPods == nil && f.allFit(ctx, state, pod, candidates) {
		// Every candidate fits: the outcome of the loop below when it
		// rejects none, without its buffers. A rejection takes the loop,
		// which filters the nodes again and records it.
		res.feasible = grow(res.feasible, n)
		fillPositions(res.feasible, res.snap)
		res.evaluated, res.order, res.filterWidth = n, candidates, 1
		return nil
	}
	bs := f.getBatchScratch()
	rel := filterRelease{bs: bs}
	defer rel.run(f)
	active, idx := f.activeFilters(state, bs.activeFilters, bs.activeIdx)
	bs.activeFilters, bs.activeIdx = active, idx
	batch, rejecters, trusted := bs.filterPlugins(len(active))
	// lean: the rejections are kept only when no node fits, so a filter
	// that can leaves their statuses for later (deferring).
	lean := opts.RejectionsOnFailure && len(f.extenders) == 0 && !opts.ExplainFilters && !opts.ExplainRejections
	bs.deferring = grow(bs.deferring, len(active))
	deferring := bs.deferring
	for j, i := range idx {
		ff := &f.filterFast[i]
		batch[j], rejecters[j], trusted[j], deferring[j] = ff.batch, ff.rejecter, ff.trusted, nil
		if lean {
			deferring[j] = ff.deferring
		}
	}
	sc := f.getScratch()
	rel.sc = sc
	rec := sc.filterBuffers(n, f.filter)
	r := &bs.filter
	*r = filterRun{f: f, ctx: ctx, done: ctx.Done(), state: state, pod: pod, candidates: candidates, n: n, start: start,
		active: active, idx: idx, batch: batch, rejecters: rejecters, trusted: trusted, deferring: deferring,
		rec: rec, nominated: opts.NominatedPods, candIdx: res.candidateIndices(), stop: stop, counts: grow(r.counts, f.pool.Size()),
		perNode: opts.NominatedPods != nil || n <= perNodeFilterMax}
	rel.r = r
	if opts.NominatedPods == nil {
		r.live, r.livePos, r.liveIdx, r.out, r.rejBuf = bs.filterBuffers(n)
		if r.candIdx == nil {
			r.runs = res.snap.IndexRuns()
		}
	}
	var end int
	costly := f.costly(state, pod, idx)
	if want < n {
		// Chunks sized to the feasible nodes still needed, on the
		// workers only when the loop is expected to be long enough to
		// share (sampledPool), or costly enough.
		pool, least := f.sampledPool(n, stop), f.minChunk
		if costly {
			pool, least = f.pool, costlyChunk
		}
		r.stopping, r.width = true, pool.Width(n, least)
		end = pool.Ordered(n, least, sizedFilterRun{r})
		// Noted whatever the width a cycle chose (Widest): a cycle
		// that is not expected to share leaves the width as it was
		// (expectsShared), and the estimate must still follow the
		// stream to tell when its loops grow long enough to.
		if f.pool.Widest(n, f.minChunk) > 1 {
			f.noteSampled(end, stop)
		}
	} else {
		pool, chunk := f.loop(n)
		if costly {
			pool, chunk = f.loopOf(n, costlyChunk, costlyChunk)
		}
		r.width = pool.Width(n, chunk)
		end = pool.Ordered(n, chunk, r)
	}
	res.filterWidth = r.width
	bs.dirty = false
	sc.written = end // positions past end were never filtered
	if end < n && want >= n {
		// A stop (a failed filter, a cancelled cycle) in a loop of
		// fixed chunks may leave chunks above end filtered.
		sc.written = n
	}
	rejected, candIdx := r.rejected(), r.candIdx

	res.order = candidates
	if rejected == 0 {
		// Every evaluated node fits: positions 0.. up to want.
		m := min(end, want)
		res.feasible = grow(res.feasible, m)
		fillPositions(res.feasible, res.snap)
		res.evaluated = m
		return nil
	}
	statuses, plugins := rec.statuses, rec.plugins
	cut, failure, rejPos := res.splitEvaluated(rec.rejected, statuses, end, want, rec.failed.Load(), candidates, candIdx, start, !lean, sc.rejPos)
	res.evaluated = cut
	if lean {
		if failure == nil && len(res.feasible) > 0 {
			return nil // a feasible node: the rejections are not kept
		}
		rejPos = grow(sc.rejPos, cut-len(res.feasible))
		rejectedPositions(rec.rejected[:(cut+63)>>6], cut, rejPos)
		ix := candIdx
		if ix == nil { // candidate k is node k
			ix = res.snap.IndexRuns()[:len(candidates)]
		}
		if d := soleDeferring(deferring); d >= 0 && len(rejPos) == cut {
			// Every evaluated position is rejected, and the nil
			// statuses among them are the one deferring filter's.
			f.deferredWindow(ctx, state, pod, idx[d], statuses[:cut], candidates, ix, start)
		} else {
			f.deferredStatuses(ctx, state, pod, statuses, plugins, rejPos, candidates, ix, start, &bs.deferred)
		}
	}
	sc.rejPos = rejPos
	// The diagnosis names each rejecting plugin once: collect the distinct
	// names (the status's own, else its filter's), then merge.
	var names diagnosisNames
	n0 := len(res.rejections)
	res.rejections = slices.Grow(res.rejections, len(rejPos))[:n0+len(rejPos)]
	res.Diagnosis.rejected += len(rejPos)
	rejections := res.rejections[n0:]
	// A failed cycle's rejections are read by PostFilter as runs
	// (NodeToStatus): the loop that records them keeps the runs too.
	keepRuns := n0 == 0 && (failure != nil || len(res.feasible) == 0)
	f.recordRejections(rejections, rejPos, statuses, plugins, &names, res, keepRuns)
	names.mergeInto(&res.Diagnosis)
	if failure != nil {
		res.feasible, res.feasibleList, res.cycleNodes = nil, nil, nil
		return failure.AsError()
	}
	return nil
}

// recordRejections writes the rejection at each position of rejPos (in
// increasing order) into rejections, with its status and filter from
// statuses and plugins, and adds each distinct one to names. With
// keepRuns it also records them as runs of consecutive positions
// rejected alike in res.rejRuns, covering all of res.rejections when the
// positions climb (rejections must then be all of res.rejections).
func (f *Framework) recordRejections(rejections []rejection, rejPos []int32, statuses []*framework.Status, plugins []int16, names *diagnosisNames, res *Result, keepRuns bool) {
	var runs []rejectionRun
	if keepRuns {
		runs = res.rejRuns[:0]
	}
	var last *framework.Status
	lastPI := int16(-1)
	sorted, end := true, int32(-1) // end: the position after the last run's
	for i := 0; i < len(rejPos); {
		p := rejPos[i]
		st, pi := statuses[p], plugins[p]
		// Runs of a shared status add it once; an unnamed status whose
		// filter is already named is skipped, as names.add would.
		if st != last || pi != lastPI {
			last, lastPI = st, pi
			if st.Plugin() != "" || uint16(pi) >= 64 || names.seen&(1<<pi) == 0 || st.Code() == framework.Pending {
				names.add(st, pi, f.filter)
			}
		}
		sorted = sorted && p >= end
		n := runLength(rejPos[i+1:], statuses[p+1:], plugins[p+1:], p+1, st, pi) + 1
		fillRejections(rejections[i:i+n], p, pi, st)
		if keepRuns {
			runs = append(runs, rejectionRun{pos: p, n: int32(n), by: pi, status: st})
		}
		i, end = i+n, p+int32(n)
	}
	if keepRuns {
		res.rejRuns = runs
		if sorted {
			res.rejRunsOf = len(rejections)
		}
	}
}

// runLength is how many of the positions in rp climb one by one from
// next on with the status st and filter pi (statuses and plugins indexed
// from next on).
func runLength(rp []int32, statuses []*framework.Status, plugins []int16, next int32, st *framework.Status, pi int16) int {
	m := min(len(rp), len(statuses), len(plugins))
	rp, statuses, plugins = rp[:m], statuses[:m], plugins[:m]
	for k, q := range rp {
		if q != next+int32(k) || statuses[k] != st || plugins[k] != pi {
			return k
		}
	}
	return m
}

// fillRejections sets out to the rejections of the consecutive positions
// from p on, all by filter pi with status st.
func fillRejections(out []rejection, p int32, pi int16, st *framework.Status) {
	for j := range out {
		out[j] = rejection{pos: p + int32(j), by: pi, status: st}
	}
}

// filterRelease is what filterNodes gives back when it returns, in the
// reverse of the order it took them, in one deferred call (which the
// compiler inlines at each return).
type filterRelease struct {
	bs *batchScratch
	sc *scratch
	r  *filterRun
}

func (rel *filterRelease) run(f *Framework) {
	if rel.r != nil {
		rel.r.release()
	}
	if rel.sc != nil {
		f.scratch.Put(rel.sc)
	}
	clear(rel.bs.deferring)
	clear(rel.bs.activeFilters)
	f.batch.Put(rel.bs)
}

// deferredStatuses sets the statuses a DeferringRejectingFilterPlugin
// left nil at the rejected positions rejPos (statuses and plugins by
// position, as filterRecorder keeps them), gathering them in buf and
// asking each plugin for up to deferredBlock at a time, until another
// plugin's come. Position p is candidates[k], k = (start+p) mod n, whose
// snapshot index is candIdx[k]. A cycle with one deferring filter and no
// feasible position takes deferredWindow instead.
func (f *Framework) deferredStatuses(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, statuses []*framework.Status, plugins []int16, rejPos []int32, candidates []*framework.NodeInfo, candIdx []int32, start int, buf *deferredBuffers) {
	n := len(candidates)
	nodes, idx := grow(buf.nodes, deferredBlock), grow(buf.idx, deferredBlock)
	pos, out := grow(buf.pos, deferredBlock), grow(buf.out, deferredBlock)
	buf.nodes, buf.idx, buf.pos, buf.out = nodes, idx, pos, out
	defer clear(nodes)
	defer clear(out)
	m, by := 0, int16(-1)
	flush := func() {
		if m == 0 {
			return
		}
		f.filterFast[by].deferring.RejectionStatuses(ctx, state, pod, nodes[:m], idx[:m], out[:m])
		for i, p := range pos[:m] {
			statuses[p] = out[i]
		}
		clear(out[:m]) // RejectionStatuses fills the nil entries
		m = 0
	}
	for _, p := range rejPos {
		if statuses[p] != nil {
			continue
		}
		if pi := plugins[p]; pi != by || m == deferredBlock {
			flush()
			by = pi
		}
		k := start + int(p)
		if k >= n {
			k -= n // start < n and p < n
		}
		nodes[m], idx[m], pos[m] = candidates[k], candIdx[k], p
		m++
	}
	flush()
}

// soleDeferring returns j when deferring[j] is the only filter of the
// cycle that defers its statuses, −1 when none or several do.
func soleDeferring(deferring []fastpath.DeferringRejectingFilterPlugin) int {
	j := -1
	for i, d := range deferring {
		if d != nil {
			if j >= 0 {
				return -1
			}
			j = i
		}
	}
	return j
}

// deferredWindow is deferredStatuses for a cycle whose evaluated
// positions are all rejected (statuses holds their statuses) and whose
// only deferring filter is the profile's filter pi: that filter fills
// the nil statuses itself, over the positions' candidates from start up
// to the last one, then from the first on (one call each), leaving the
// statuses other filters gave.
func (f *Framework) deferredWindow(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, pi int16, statuses []*framework.Status, candidates []*framework.NodeInfo, candIdx []int32, start int) {
	d := f.filterFast[pi].deferring
	n, cut := len(candidates), len(statuses)
	head := min(cut, n-start)
	d.RejectionStatuses(ctx, state, pod, candidates[start:start+head], candIdx[start:start+head], statuses[:head])
	if rest := cut - head; rest > 0 {
		d.RejectionStatuses(ctx, state, pod, candidates[:rest], candIdx[:rest], statuses[head:])
	}
}

// deferredBlock is how many gathered positions deferredStatuses asks a
// plugin for in one call: enough to spread the plugin's reading of its
// cycle state over many nodes.
const deferredBlock = 128

// deferredBuffers back deferredStatuses' calls: the nodes, their
// snapshot indices, their positions and the statuses given.
type deferredBuffers struct {
	nodes []*framework.NodeInfo
	idx   []int32
	pos   []int32
	out   []*framework.Status
}

// diagnosisNames collects the plugins a cycle's rejections name, as
// Diagnosis.addPlugin would for each of them, without copying statuses.
type diagnosisNames struct {
	seen          uint64 // filter indices (< 64) whose unnamed statuses were added, by code class
	seenPending   uint64
	unsched, pend []string
}

// add records st, a rejection by filter pi: it names st.Plugin(), or the
// filter when st names no plugin.
func (d *diagnosisNames) add(st *framework.Status, pi int16, filters []framework.FilterPlugin) {
	pending := st.Code() == framework.Pending
	name := st.Plugin()
	if name == "" {
		if pi < 0 {
			return
		}
		if pi < 64 {
			bit := uint64(1) << pi
			if pending {
				if d.seenPending&bit != 0 {
					return
				}
				d.seenPending |= bit
			} else {
				if d.seen&bit != 0 {
					return
				}
				d.seen |= bit
			}
		}
		name = filters[pi].Name()
	}
	if st.IsRejected() && !slices.Contains(d.unsched, name) {
		d.unsched = append(d.unsched, name)
	}
	if pending && !slices.Contains(d.pend, name) {
		d.pend = append(d.pend, name)
	}
}

func (d *diagnosisNames) mergeInto(diag *Diagnosis) {
	if len(d.unsched) > 0 {
		diag.UnschedulablePlugins = mergeNames(diag.UnschedulablePlugins, d.unsched)
	}
	if len(d.pend) > 0 {
		diag.PendingPlugins = mergeNames(diag.PendingPlugins, d.pend)
	}
}

// seqChunk is the chunk of a sequential loop over every node: large enough
// that per-call costs (reading plugin state, hoisting; a few hundred
// nanoseconds a chunk over the default plugins) vanish, small enough that
// a chunk's nodes stay in cache from one plugin to the next.
const seqChunk = 1024

// loop returns where and in what chunks a loop that goes through all n
// nodes runs: on the workers' pool in the pool's chunks (a multiple of
// parallel.Align) when there are at least two chunks of the workers'
// MinChunk, else on the caller's goroutine (a nil pool) in chunks of
// seqChunk — a few microseconds of work are worth less than the fork and
// join. On more than two workers the chunks may hold fewer nodes than
// MinChunk (wide). Results do not depend on it.
func (f *Framework) loop(n int) (*parallel.Pool, int) {
	return f.loopOf(n, f.minChunk, f.wide(f.minChunk))
}

// smallLoop is loop for a loop over n nodes too few for loop (a score
// loop over the few hundred feasible nodes kube's sampling keeps) in a
// cycle whose filter loop ran on the workers, so that they are awake: on
// a pool of more than two workers, it is shared from two chunks of
// smallChunk nodes, in chunks of at least that many. Such a loop over
// 500 nodes takes 10–17 µs on one worker over the varied and mixed
// streams, 20–34 ns a node; in chunks of 64 nodes it spreads over eight
// workers for a join (a microsecond at sixteen workers, the pool row of
// docs/performance.md's fork and join table) and a few hundred
// nanoseconds of per-chunk calls a chunk. On two workers it stays on the
// caller's goroutine, where a second worker did not pay for sampled
// cycles (sampledShare).
func (f *Framework) smallLoop(n int) (*parallel.Pool, int) {
	if f.pool.Widest(math.MaxInt32, 1) <= 2 {
		return nil, max(min(n, seqChunk), 1)
	}
	return f.loopOf(n, smallChunk, smallChunk)
}

// costly reports whether an active filter of the cycle (idx: the
// indices of the filters that run) says its Filter costs microseconds a
// node for pod (fastpath.CostlyFilterPlugin).
func (f *Framework) costly(state *framework.CycleState, pod *framework.PodInfo, idx []int16) bool {
	for _, i := range idx {
		if c := f.filterFast[i].costly; c != nil && c.FilterCostly(state, pod) {
			return true
		}
	}
	return false
}

// costlyChunk is the fewest nodes in a worker's chunk of a filter loop
// an active filter says is costly (fastpath.CostlyFilterPlugin): at
// microseconds a node, 64 nodes are a hundred times a fork and join. A
// pod's device claims searched for on every node of scheduler_perf's
// 500-node DRA case took 0.85–0.88 ms a cycle on one worker, every loop
// under the 1,024 nodes from which cheap filters are shared.
const costlyChunk = parallel.Align

// smallChunk is the fewest nodes in a chunk of a smallLoop: a worker's
// chunk of the pool (parallel.Align), a microsecond or two of the
// built-in plugins' scoring.
const smallChunk = parallel.Align

// fineChunk is the fewest nodes wide gives a worker's chunk of a loop
// over the nodes: a couple of microseconds of the built-in plugins' work,
// several times the per-call costs a chunk pays (a few hundred
// nanoseconds over the default plugins).
const fineChunk = 256

// wide returns least, the fewest nodes in a chunk of a loop on up to two
// workers, for a loop on the workers' full width k: on more than two,
// least·2/k, down to fineChunk (a pass's, down to MinChunk). A loop over
// every node of a few thousand then reaches every worker, in about four
// chunks each, where chunks of least would leave most of sixteen workers
// out (5,000 nodes are ten chunks of 512) and hand some two chunks.
func (f *Framework) wide(least int) int {
	k := f.pool.Width(math.MaxInt32, 1)
	if k <= 2 {
		return least
	}
	floor := fineChunk
	if least > f.minChunk {
		floor = f.minChunk // a pass
	}
	return max(least*2/k/parallel.Align*parallel.Align, min(least, floor))
}

// sampledPool returns the pool for a filter loop over n positions that
// stops at the stop-th feasible node, or nil to run it on the caller's
// goroutine: when the positions it is expected to evaluate (stop times
// the positions per feasible node of recent such loops, noteSampled;
// stop itself for the first) are fewer than sampledShare MinChunks.
// Kube's sampling keeps a few hundred feasible nodes of a large cluster:
// when most nodes fit, that loop is as short as a cluster of a few
// hundred nodes, which a second worker slows down rather than shortens;
// when few fit, it runs over thousands of positions and is shared.
func (f *Framework) sampledPool(n int, stop int64) *parallel.Pool {
	if f.pool.Width(n, f.minChunk) <= 1 || !f.longSampled(n, stop) {
		return nil
	}
	return f.pool
}

// longSampled reports whether a filter loop over n positions that stops
// at the stop-th feasible node is expected to evaluate enough positions
// to share among the workers: stop times the positions per feasible node
// of recent such loops (noteSampled), stop itself for the first, against
// sampledShare MinChunks on a pool of two workers, and against twice
// MinChunk (the terms of a loop over every node) on a wider one.
func (f *Framework) longSampled(n int, stop int64) bool {
	span := f.sampledSpan.Load()
	if span == 0 {
		span = 16
	}
	least := uint64(sampledShare)
	if f.pool.Widest(math.MaxInt32, 1) > 2 { // the pool's, whatever width the governor chose
		least = wideSampledShare
	}
	return min(uint64(stop)*span/16, uint64(n)) >= least*uint64(f.minChunk)
}

// expectsShared reports whether a cycle over n candidate nodes that keeps
// want feasible ones (0: every one) may share a loop among the workers
// at their full width: one over every node, or a filter loop that stops
// early expected to run over sampledShare MinChunks of positions. A
// cycle that may not leaves the helpers alone: it does not keep them
// spinning (Workers.begin wakes them), which on two vCPUs lengthened
// the caller's cycles by up to a tenth though the helpers ran none of
// their work, and the governor does not weigh it.
func (f *Framework) expectsShared(n, want int) bool {
	if want <= 0 || want >= n {
		return true // begin weighs the width
	}
	return f.longSampled(n, int64(want)+1)
}

// sampledShare is how many MinChunks of positions a filter loop that
// stops early must be expected to evaluate to be shared on two workers:
// four times a loop over every node's two. Such a loop claims its chunks
// in order, and the caller goes on to read what the helpers filtered, to
// score it; over the 1,200–1,500 positions of kube's sampling on 5,000
// nodes where most fit, two workers measured a sixth slower than one on
// the mixed workload (its loop no shorter, its PreFilter longer beside a
// spinning helper) and up to a tenth faster on the varied stream: the
// least favourable workload decides.
const sampledShare = 8

// wideSampledShare is sampledShare on more than two workers: a loop that
// stops early is shared on the terms of a loop over every node. Split
// among up to sixteen workers in chunks of 64 positions or more
// (sizedFilterRun), its 1,200–1,500 positions take a fraction of the
// time one worker takes, where two workers halve it at best; this is
// the cost model's choice, which two vCPUs cannot measure, and the width
// governor still measures the cycles that share such a loop
// (docs/framework.md#workers).
const wideSampledShare = 2

// frontsPreFilter reports whether a cycle over n candidate nodes that
// keeps want feasible ones (0: every one) runs its PreFilter step on
// several workers (frontRun): when it is expected to share its filter
// loop (loop, sampledPool), on more than two workers. A cycle too short
// to share its loop is not worth the step either. On two workers the
// PreScore step already runs InterPodAffinity's PreScore beside the
// others, so the step only moves work between the two: in one process,
// 20-pod blocks taking turns between the ways in every order over every
// node of 5,000, 2-worker cycles with it took 0.980–1.004 of those
// without it (six runs, the varied, mixed and requests-and-images
// streams, the vCPUs' handoff 105–147 ns); with the vCPUs far apart
// (handoff 457–489 ns) it lost, by up to 6 % (docs/performance.md).
// Nor does a sampled cycle on two workers, whose filter loop runs on the
// caller: there the step took 2.7 µs off PreFilter and PreScore together
// over the varied stream (seed 29, 41 against 43 µs a cycle), but made
// the mixed workload's cycles (sampled, each placed pod assumed) 1.13
// times as long (nine interleaved pairs, eight of them above 1.06).
func (f *Framework) frontsPreFilter(n, want int) bool {
	if want <= 0 || want >= n {
		return f.pool.Width(n, f.minChunk) > 2
	}
	return f.sampledPool(n, int64(want)+1) != nil && f.pool.Width(n, f.minChunk) > 2
}

// noteSampled folds the span of a filter loop that evaluated end
// positions to find stop feasible nodes into the running estimate
// (sampledPool): a moving average, a quarter from this loop, so that a
// stream of pods that fit unevenly is judged by its typical loop.
func (f *Framework) noteSampled(end int, stop int64) {
	span := max(uint64(end)*16/uint64(max(stop, 1)), 1)
	if old := f.sampledSpan.Load(); old != 0 {
		span = (3*old + span) / 4
	}
	f.sampledSpan.Store(max(span, 1))
}

// cheapPass is how many times the workers' MinChunk a pass over the
// totals or the feasible positions needs per worker to be shared (its
// work is about a nanosecond a node where the plugins' loops take ten or
// more): on two workers such a pass runs on the caller's goroutine below
// 2·4·MinChunk nodes (4,096 by default); on more, below a part of that
// (wide). Shared, it runs in the chunks of a loop over as many nodes
// (pass), so that each worker's range of the pass holds the nodes whose
// rows it scored or whose filters it ran, in its own core's cache. The
// passes of a cycle over 5,000 nodes (weighing the rows, ranking the
// totals, placing the feasible positions) take a few microseconds each.
// On two workers, in one process, 20-pod blocks taking turns between the
// ways in every order (variedbench workers), over every node of the
// varied, mixed and requests-and-images streams, a cutoff of 16·2
// MinChunks took the cycle to 1.007–1.027 of this one (six runs, the
// vCPUs' handoff 79–160 ns); the passes in chunks of 2,048 nodes of
// their own instead of the loop's measured the same (0.963–1.008).
const cheapPass = 4

// fusedPass is cheapPass for the pass of an incremental evaluator's
// cycle over its cached sums (Incremental.score), which sums and ranks
// the totals in one pass (sumsRanked; shared, each chunk ranks its own,
// merged in chunk order): it is shared from four times as many nodes, in
// chunks of that size. Its work is about 1.4 ns a node, the cached sums
// read in snapshot order: over the 5,000 nodes a cycle samples of
// 100,000 (examples/simulate), sharing it from cheapPass made the pass
// 1.22–1.26 times as long, whether the vCPUs were near (a core-to-core
// handoff of 111–126 ns) or far apart (440–530 ns).
const fusedPass = 4 * cheapPass

// pass is loop for a pass over the totals or the feasible positions
// (cheapPass): shared from two workers' cheapPass MinChunks, in the
// chunks of a loop over n nodes.
func (f *Framework) pass(n int) (*parallel.Pool, int) {
	if f.pool.Width(n, f.wide(f.passLeast)) <= 1 {
		return nil, max(min(n, seqChunk), 1)
	}
	return f.pool, f.pool.Chunk(n, f.wide(f.minChunk))
}

// fused is pass for an incremental evaluator's pass over its cached
// sums (fusedPass).
func (f *Framework) fused(n int) (*parallel.Pool, int) {
	least := f.wide(f.fusedLeast)
	return f.loopOf(n, least, least)
}

// loopOf is loop for a loop shared from two chunks of share nodes on, in
// chunks of at least least nodes.
func (f *Framework) loopOf(n, share, least int) (*parallel.Pool, int) {
	if f.pool.Width(n, share) <= 1 {
		return nil, max(min(n, seqChunk), 1)
	}
	return f.pool, f.pool.Chunk(n, least)
}

// grow returns s resized to n, reusing its array when it is large enough.
// The contents are not cleared. A new array has an eighth more room, so
// that a reused buffer (a Result's, the scratch's) whose size creeps up
// from cycle to cycle (feasible nodes × score plugins) is not reallocated
// at each new high.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n, n+n/8)
	}
	return s[:n]
}

// positionedError keeps the error of the lowest position, so a parallel
// loop reports the error a sequential one would.
type positionedError struct {
	mu  sync.Mutex
	pos int
	err error
}

func (e *positionedError) record(pos int, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.err == nil || pos < e.pos {
		e.pos, e.err = pos, err
	}
}

// runExtenderFilters is kube-scheduler v1.36's findNodesThatPassExtenders:
// the interested filtering extenders run in order, each on the nodes the
// previous ones kept. A non-ignorable extender's error fails the cycle with
// the extender's own error (an ignorable one is skipped). A node the
// extender returns stays (as the NodeInfo it returned); one it lists as
// failed or failed-and-unresolvable gets that status; one it leaves out
// without a reason is dropped with no status (dropped: kube records none).
// Only the nodes sent count: names the extender adds are ignored.
func (f *Framework) runExtenderFilters(pod *framework.PodInfo, res *Result) error {
	if len(f.extenders) == 0 || len(res.feasible) == 0 {
		return nil
	}
	before := len(res.feasible)
	for e, ext := range f.extenders {
		if len(res.feasible) == 0 {
			break
		}
		if !ext.IsFilter() || !ext.IsInterested(pod) {
			continue
		}
		passed, failed, unresolvable, err := ext.Filter(pod, res.FeasibleNodes()) // a copy: an extender may filter it in place
		if err != nil {
			if ext.IsIgnorable() {
				continue
			}
			return err
		}
		keep := make(map[string]*framework.NodeInfo, len(passed))
		for _, ni := range passed {
			if ni == nil || ni.Node() == nil {
				continue
			}
			if _, dup := keep[ni.Name()]; !dup {
				keep[ni.Name()] = ni
			}
		}
		kept := res.feasible[:0:0]
		nodes := make([]*framework.NodeInfo, 0, len(passed))
		copies := false
		for _, p := range res.feasible {
			own := res.nodeAt(p)
			name := own.Name()
			if ni, ok := keep[name]; ok {
				kept = append(kept, p)
				nodes = append(nodes, ni)
				copies = copies || ni != own
				continue
			}
			rej := rejection{pos: p, by: int16(-2 - e)}
			if msg, ok := unresolvable[name]; ok {
				rej.status = framework.NewStatus(framework.UnschedulableAndUnresolvable, msg)
			} else if msg, ok := failed[name]; ok {
				rej.status = framework.NewStatus(framework.Unschedulable, msg)
			} else {
				rej.status = framework.NewStatus(framework.UnschedulableAndUnresolvable, fmt.Sprintf("dropped by extender %s without a reason", ext.Name()))
				rej.dropped = true
			}
			res.rejections = append(res.rejections, rej)
			res.Diagnosis.rejected++
		}
		res.feasible = kept
		res.feasibleList, res.cycleNodes = nil, nil
		res.feasibleIdx = nil
		res.spans = nil
		res.extNodes = nil
		if copies {
			res.extNodes = nodes
		}
	}
	if len(res.feasible) != before {
		res.Diagnosis.UnschedulablePlugins = mergeNames(res.Diagnosis.UnschedulablePlugins, []string{ExtenderName})
	}
	return nil
}

// scoreNodes runs PreScore, Score, NormalizeScore, the bounds check, the
// weights and the extenders' scores into res.
func (f *Framework) scoreNodes(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, opts CycleOptions, res *Result, front *frontRun) error {
	nodes := res.feasibleNodes()
	res.Totals = grow(res.Totals, len(nodes)) // set by weighTotals
	extenders := f.extenders
	if opts.noExtenders {
		extenders = nil
	}
	if len(extenders) == 0 && !f.HasScorePlugins() {
		for i := range res.Totals {
			res.Totals[i] = 1
		}
		return nil
	}
	state.SetScoredIndices(res.feasibleIndices())
	awake := res.filterWidth > 1 && f.pool.Widest(math.MaxInt32, 1) > 2
	s, prepared := f.runPreScore(ctx, state, pod, nodes, front, awake)
	state.SetScoredIndices(nil)
	res.steps.mark(&res.Steps.PreScore)
	if !s.IsSuccess() {
		return s.AsError()
	}
	res.SkippedScore = f.skipScore.sortedOf(state.SkipScorePlugins())
	return f.scoreFeasible(ctx, state, pod, opts, res, extenders, prepared)
}

// scoreFeasible is scoreNodes after PreScore: Score (the plugins state's
// skip set leaves out), NormalizeScore, the bounds check, the weights and
// the extenders' scores into res, whose Totals cover the feasible nodes.
// prepared reports that the PreScore step ran the score preparers.
func (f *Framework) scoreFeasible(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, opts CycleOptions, res *Result, extenders []framework.Extender, prepared bool) error {
	nodes, idx := res.feasibleNodes(), res.feasibleIndices()
	nf := len(nodes)
	bs := f.getBatchScratch()
	rel := scoreRelease{bs: bs}
	defer rel.run(f)
	active, calls, batches := bs.scorePlugins(len(f.score))
	off := f.skipScore.offIn(state.SkipScorePlugins())
	for i, sp := range f.score {
		if off != nil && off[i] {
			continue
		}
		active, calls, batches = append(active, sp), append(calls, sp.ScorePlugin), append(batches, sp.batch)
	}
	np := len(active)
	res.ScorePlugins = grow(res.ScorePlugins, np)
	res.Weights = grow(res.Weights, np)
	for i, sp := range active {
		res.ScorePlugins[i], res.Weights[i] = sp.Name(), sp.weight
	}
	// Scores go straight into Normalized (plugin p's row is
	// [p*nf, (p+1)*nf)); Raw is copied from it before normalization.
	vals := grow(res.Normalized, np*nf)
	res.Normalized = vals
	// Plugin by plugin over each chunk's nodes (scoreRun.chunk).
	r := &bs.run
	*r = scoreRun{ctx: ctx, state: state, pod: pod, nodes: nodes, idx: idx, vals: vals, nf: nf,
		active: active, calls: calls, batches: batches, bounds: r.bounds}
	pool, chunk := f.loop(nf)
	if pool == nil && res.filterWidth > 1 {
		if pool, chunk = f.smallLoop(nf); pool != nil && !prepared && len(f.preparers) > 0 {
			// The PreScore step ran on the caller (a single task): the
			// plugins that prepare their cycle state do it now, so
			// that the workers do not wait for the first score call to
			// compute it, for the scored nodes (ScoredIndices), as in
			// that step.
			state.SetScoredIndices(idx)
			for _, p := range f.preparers {
				p.PrepareScore(ctx, state, pod)
			}
			state.SetScoredIndices(nil)
		}
	}
	rel.r = r
	if opts.TotalsOnly {
		bs.bounded, bs.adders = grow(bs.bounded, np), grow(bs.adders, np)
		adding := false
		for p := range batches {
			bs.bounded[p], bs.adders[p] = active[p].bounded, nil
			if active[p].ScoreExtensions() == nil {
				bs.adders[p] = active[p].adder
				adding = adding || bs.adders[p] != nil
			}
		}
		r.bounded = bs.bounded
		if adding {
			// The adders add their weighted scores to the totals as
			// they score (weighTables adds the other rows).
			r.adders, r.totals = bs.adders, res.Totals[:nf]
			clear(r.totals)
			bs.fused = grow(bs.fused, np)
			bs.fusedWith, bs.fusedWeights = grow(bs.fusedWith, np), grow(bs.fusedWeights, np)
			r.fused, r.fusedWith, r.fusedWeights = fuseAdders(bs.adders, active, bs.fused, bs.fusedWith, bs.fusedWeights)
		}
		r.startBounds(chunk)
	}
	r.constant = f.constantScores(bs, r)
	if opts.TotalsOnly && r.collected && r.constant != nil && len(r.constant) <= 64 {
		for p, c := range r.constant {
			if c.ok {
				r.unwritten |= 1 << p
			}
		}
	}
	pool.Ordered(nf, chunk, r)
	rel.scored = true
	res.steps.mark(&res.Steps.Score)
	if r.failed.Load() {
		return r.firstErr.err
	}
	if opts.TotalsOnly {
		res.Normalized = vals[:0] // the rows are the cycle's scratch (keptScores is false)
		if !r.addRefused.Load() {
			// selectHost follows the weighing when no extender adds to
			// the totals and a Top is asked for (Schedule's cycles).
			rankIn := res
			if len(extenders) > 0 || opts.TopN <= 0 {
				rankIn = nil
			}
			done, err := f.weighTables(bs, res.Totals[:nf], rankIn, max(opts.TopN, 2))
			if err != nil {
				return err
			}
			if done {
				runExtenderScores(extenders, pod, nodes, res)
				return nil
			}
		} else if err := f.normalizeRows(r); err != nil {
			return err
		}
		// An adder declined a chunk, a table missed a score or some
		// score is out of range: every row is normalized now; with the
		// adders' rows scored and the constant rows written too, weigh
		// them as the plain path does, which reports the score out of
		// range.
		r.materializeAll()
		if r.scoreAdderRows(nf) {
			return r.firstErr.err
		}
		return f.weighRowsChecked(res.Totals[:nf], vals, active, nodes, extenders, pod, res)
	}
	if !opts.SkipExplanation {
		normalizes := false
		for _, sp := range active {
			normalizes = normalizes || sp.ScoreExtensions() != nil
		}
		if normalizes {
			res.rawBuf = grow(res.rawBuf, np*nf)
			copy(res.rawBuf, vals)
			res.Raw = res.rawBuf
		} else {
			// Nothing is normalized, so the raw scores are the normalized
			// ones: share the array instead of copying it.
			res.Raw = vals
		}
	}
	if err := f.normalizeRows(r); err != nil {
		return err
	}
	return f.weighRowsChecked(res.Totals[:nf], vals, active, nodes, extenders, pod, res)
}

// scoreRelease is what scoreFeasible gives back when it returns, in the
// reverse of the order it took them, in one deferred call (which the
// compiler inlines at each return).
type scoreRelease struct {
	bs     *batchScratch
	r      *scoreRun
	scored bool
}

func (rel *scoreRelease) run(f *Framework) {
	if rel.scored {
		// The plugins are not kept past the Score step.
		clear(rel.bs.bounded)
		clear(rel.bs.adders)
		clear(rel.bs.fusedWith)
	}
	if rel.r != nil {
		rel.r.release()
	}
	f.batch.Put(rel.bs)
}

// normalizeRows runs every plugin's NormalizeScore on its row of r's
// scores, in place, stopping at the first error.
func (f *Framework) normalizeRows(r *scoreRun) error {
	var nl normalizeList
	defer nl.release(f)
	for p := range r.active {
		if err := f.normalizeRow(r, &nl, p); err != nil {
			return err
		}
	}
	return nil
}

// normalizeList is the NodeScoreList a cycle hands to the NormalizeScore
// of plugins without a batch form, built on first use.
type normalizeList struct {
	sc   *scratch
	list framework.NodeScoreList
}

func (nl *normalizeList) release(f *Framework) {
	if nl.sc != nil {
		f.scratch.Put(nl.sc)
	}
}

// normalizeRow runs plugin p's NormalizeScore, if it has one, on its row
// of r's scores, in place.
func (f *Framework) normalizeRow(r *scoreRun, nl *normalizeList, p int) error {
	ext := r.active[p].ScoreExtensions()
	if ext == nil {
		return nil
	}
	r.materialize(p)
	nf := r.nf
	row := r.vals[p*nf : (p+1)*nf : (p+1)*nf]
	if b, ok := ext.(fastpath.BatchScoreExtensions); ok {
		if s := b.NormalizeScoreBatch(r.ctx, r.state, r.pod, r.nodes, row); !s.IsSuccess() {
			return fmt.Errorf("running Normalize on Score plugins: plugin %q failed with: %w", r.active[p].Name(), s.ErrOrCode())
		}
		return nil
	}
	if nl.list == nil {
		nl.sc = f.getScratch()
		nl.list = nl.sc.scoreBuffer(nf)
		for j, ni := range r.nodes {
			nl.list[j].Name = ni.Name()
		}
	}
	list := nl.list
	for j := range row {
		list[j].Score = row[j]
	}
	if s := ext.NormalizeScore(r.ctx, r.state, r.pod, list); !s.IsSuccess() {
		return fmt.Errorf("running Normalize on Score plugins: plugin %q failed with: %w", r.active[p].Name(), s.ErrOrCode())
	}
	for j := range row {
		row[j] = list[j].Score
	}
	return nil
}

// weighRowsChecked sets totals from the normalized rows in vals
// (weighTotals) and adds the extenders' scores, or reports the first
// score outside [MinNodeScore, MaxNodeScore] as kube-scheduler does.
func (f *Framework) weighRowsChecked(totals, vals []int64, active []scorePlugin, nodes []*framework.NodeInfo, extenders []framework.Extender, pod *framework.PodInfo, res *Result) error {
	nf := len(totals)
	if weighTotals(totals, vals, active) {
		runExtenderScores(extenders, pod, nodes, res)
		return nil
	}
	for j := 0; j < nf; j++ {
		for p := range active {
			if s := vals[p*nf+j]; s > framework.MaxNodeScore || s < framework.MinNodeScore {
				return fmt.Errorf("applying score weights: plugin %q returns an invalid score %d for node %q, it should be in the range of [%d, %d] after normalizing",
					active[p].Name(), s, nodes[j].Name(), framework.MinNodeScore, framework.MaxNodeScore)
			}
		}
	}
	return nil // unreachable: some score was out of range
}

// weighTotals sets totals[j] to Σ_p weight_p · vals[p*nf+j] (nf =
// len(totals)), up to three plugins per pass over the nodes
// (weighLookups), and reports whether every score is in [MinNodeScore,
// MaxNodeScore].
func weighTotals(totals, vals []int64, active []scorePlugin) bool {
	nf := len(totals)
	var buf [8]lookup
	adds := buf[:0]
	for p := range active {
		adds = append(adds, lookup{row: vals[p*nf : (p+1)*nf : (p+1)*nf], w: active[p].weight})
	}
	return weighLookups(totals, adds, 0, false)&^scoreMask == 0
}

// weighRows1 adds c + w0·r0[j] to totals[j] (sets it to that, when
// first) and returns the or of the scores' scoreBits; weighRows2 and
// weighRows3 do the same for two and three rows in one pass.
func weighRows1(totals, r0 []int64, w0 int64, first bool, c int64) (bad uint64) {
	r0 = r0[:len(totals)]
	if first {
		for j, a := range r0 {
			bad |= scoreBits(a)
			totals[j] = c + a*w0
		}
		return bad
	}
	for j, a := range r0 {
		bad |= scoreBits(a)
		totals[j] += c + a*w0
	}
	return bad
}

func weighRows2(totals, r0, r1 []int64, w0, w1 int64, first bool, c int64) (bad uint64) {
	r0, r1 = r0[:len(totals)], r1[:len(totals)]
	if first {
		for j, a := range r0 {
			b := r1[j]
			bad |= scoreBits(a) | scoreBits(b)
			totals[j] = c + a*w0 + b*w1
		}
		return bad
	}
	for j, a := range r0 {
		b := r1[j]
		bad |= scoreBits(a) | scoreBits(b)
		totals[j] += c + a*w0 + b*w1
	}
	return bad
}

func weighRows3(totals, r0, r1, r2 []int64, w0, w1, w2 int64, first bool, c int64) (bad uint64) {
	r0, r1, r2 = r0[:len(totals)], r1[:len(totals)], r2[:len(totals)]
	if first {
		for j, a := range r0 {
			b, d := r1[j], r2[j]
			bad |= scoreBits(a) | scoreBits(b) | scoreBits(d)
			totals[j] = c + a*w0 + b*w1 + d*w2
		}
		return bad
	}
	for j, a := range r0 {
		b, d := r1[j], r2[j]
		bad |= scoreBits(a) | scoreBits(b) | scoreBits(d)
		totals[j] += c + a*w0 + b*w1 + d*w2
	}
	return bad
}

// scoreMask and scoreBits test many scores against [MinNodeScore,
// MaxNodeScore] = [0, 100] with one branch: scoreBits(s) has no bit outside
// scoreMask exactly when 0 ≤ s ≤ 100 (s+27 ≤ 127 and s < 128; a negative s
// sets the high bits), so the or of many scoreBits does too only when all
// of them are in range.
const scoreMask = 127

func scoreBits(s int64) uint64 {
	return uint64(s) | uint64(s+(scoreMask-framework.MaxNodeScore))
}

// The bit trick above relies on the score range.
var _ = [1]struct{}{}[framework.MinNodeScore]
var _ = [1]struct{}{}[framework.MaxNodeScore-100]

// batchScratch holds the runner's per-cycle buffers for plugin-by-plugin
// filtering and scoring, pooled per Framework.
type batchScratch struct {
	filterBatch []fastpath.BatchFilterPlugin
	rejecters   []fastpath.RejectingFilterPlugin
	trusted     []bool // the rejecters that are TrustedRejectingFilterPlugins
	live        nodeWords
	livePos     []int32
	liveIdx     []int32 // snapshot index of each live node
	out         []*framework.Status
	rejections  []fastpath.NodeRejection
	dirty       bool // out may hold statuses (see filterBuffers)

	active  []scorePlugin
	calls   []framework.ScorePlugin
	batches []fastpath.BatchScorePlugin
	bounded []fastpath.BoundedBatchScorePlugin
	adders  []fastpath.AddingBatchScorePlugin
	// fused, fusedWith and fusedWeights back scoreRun's.
	fused        []fusedAdder
	fusedWith    []fastpath.AddingBatchScorePlugin
	fusedWeights []int64
	// deferring are the active filters that leave their rejections'
	// statuses for later in a lean cycle (nil entries do not).
	deferring []fastpath.DeferringRejectingFilterPlugin
	deferred  deferredBuffers
	filter    filterRun
	// activeFilters and activeIdx back filterNodes' active filters.
	activeFilters []framework.FilterPlugin
	activeIdx     []int16
	preScore      preScoreRun
	front         frontRun
	run           scoreRun
	weigh         weighRankRun

	// constant backs scoreRun's.
	constant []constantScore
	// weighTables' rows weighed as they are (adds) and through tables
	// (looks, of the plugins lookedUp), and the tables.
	adds, looks []lookup
	lookedUp    []int
	tables      []int64
}

// scoreRun is one scoreFeasible's Score step: the inputs its chunks read
// and the first failure they met. It lives in the pooled batchScratch, so
// that a cycle's Score step allocates nothing.
type scoreRun struct {
	ctx     context.Context
	state   *framework.CycleState
	pod     *framework.PodInfo
	nodes   []*framework.NodeInfo
	idx     []int32 // the nodes' snapshot indices (nil when not the snapshot's own)
	vals    []int64 // plugin p's row is [p*nf, (p+1)*nf)
	nf      int
	active  []scorePlugin
	calls   []framework.ScorePlugin
	batches []fastpath.BatchScorePlugin
	bounded []fastpath.BoundedBatchScorePlugin // with bounds collected, batches' bounded forms (or nil)
	// adders, when not nil, are the plugins that add their weighted
	// scores to totals (zeroed first) instead of writing rows (nil
	// entries write rows); addRefused is set when one declined a chunk,
	// which it then scored into its row.
	adders     []fastpath.AddingBatchScorePlugin
	totals     []int64
	addRefused atomic.Bool
	// fused[p] tells, for an adder p, which other adders add their
	// scores in its pass, fusedWith[from:from+with] with weights
	// fusedWeights[from:from+with] (fastpath.FusingBatchScorePlugin),
	// or that another adder adds p's (with < 0).
	fused        []fusedAdder
	fusedWith    []fastpath.AddingBatchScorePlugin
	fusedWeights []int64

	// bounds, when collected (startBounds), holds the least and greatest
	// score of each chunk of each plugin that reports them
	// (fastpath.BoundedBatchScorePlugin): plugin p's chunk c at
	// [2(p·chunks+c)], [2(p·chunks+c)+1]; an unknown chunk has lo > hi
	// with hi = boundsUnknown.
	bounds    []int64
	chunkLen  int
	chunks    int
	collected bool
	// constant, when not nil, holds for each plugin the score it gives
	// every node, when it reported one (fastpath.ConstantScorePlugin):
	// the chunks write it into the row (unless unwritten) instead of
	// calling the plugin.
	constant []constantScore
	// unwritten has bit p set for a constant row the chunks leave
	// unwritten: in a cycle that keeps only the totals with the bounds
	// collected, the weighing adds a constant row's score without reading
	// it, and a row is written only when a path reads it (materialize).
	unwritten uint64

	firstErr positionedError
	failed   atomic.Bool
	// failedAt is one more than the lowest node position of a failure
	// (0: none).
	failedAt atomic.Int64
}

// boundsUnknown marks a chunk whose bounds its plugin did not report.
const boundsUnknown = math.MinInt64

// release drops the run's references (the scratch is pooled).
func (r *scoreRun) release() {
	r.ctx, r.state, r.pod, r.nodes, r.idx, r.vals = nil, nil, nil, nil, nil, nil
	r.active, r.calls, r.batches, r.bounded, r.constant = nil, nil, nil, nil, nil
	r.adders, r.totals, r.fused, r.fusedWith, r.fusedWeights = nil, nil, nil, nil, nil
	r.addRefused.Store(false)
	r.firstErr.err = nil
	r.collected = false
	r.unwritten = 0
}

// startBounds makes the run collect the bounds of its plugins' chunks of
// chunkLen nodes.
func (r *scoreRun) startBounds(chunkLen int) {
	r.chunkLen = chunkLen
	r.chunks = (r.nf + chunkLen - 1) / chunkLen
	r.bounds = grow(r.bounds, 2*len(r.calls)*r.chunks)
	for i := 0; i < len(r.bounds); i += 2 {
		r.bounds[i], r.bounds[i+1] = math.MaxInt64, boundsUnknown
	}
	r.collected = true
}

// rowBounds returns the least and greatest score of plugin p's row, from
// its chunks' bounds when it reported them all, else from the row.
func (r *scoreRun) rowBounds(p int) (lo, hi int64) {
	if lo, hi, ok := r.reportedBounds(p); ok {
		return lo, hi
	}
	return bounds(r.vals[p*r.nf : (p+1)*r.nf])
}

// reportedBounds returns the least and greatest score of plugin p's row
// from its chunks' bounds, ok when it reported them all.
func (r *scoreRun) reportedBounds(p int) (lo, hi int64, ok bool) {
	if !r.collected {
		return 0, 0, false
	}
	lo, hi = math.MaxInt64, math.MinInt64
	b := r.bounds[2*p*r.chunks : 2*(p+1)*r.chunks]
	for c := 0; c < len(b); c += 2 {
		if b[c+1] == boundsUnknown {
			return 0, 0, false
		}
		lo, hi = min(lo, b[c]), max(hi, b[c+1])
	}
	return lo, hi, true
}

// materialize writes plugin p's constant row when the chunks left it
// unwritten, before a path reads it.
func (r *scoreRun) materialize(p int) {
	if r.unwritten>>p&1 == 0 {
		return
	}
	r.unwritten &^= 1 << p
	row, v := r.vals[p*r.nf:(p+1)*r.nf], r.constant[p].score
	for i := range row {
		row[i] = v
	}
}

// materializeAll writes every constant row the chunks left unwritten.
func (r *scoreRun) materializeAll() {
	for u := r.unwritten; u != 0; u &= u - 1 {
		r.materialize(bits.TrailingZeros64(u))
	}
}

// constantScore is the score a plugin gives every node of a cycle, when
// ok (fastpath.ConstantScorePlugin).
type constantScore struct {
	score int64
	ok    bool
}

// constantScores returns the scores r's plugins give every node, in bs's
// buffer, or nil when none reports one. Only nodes that are the
// snapshot's own (r.idx) are asked about, and only for plugins that write
// a row (not an adder).
func (f *Framework) constantScores(bs *batchScratch, r *scoreRun) []constantScore {
	if r.idx == nil || !f.constantScorers {
		return nil
	}
	var cs []constantScore
	for p, sp := range r.active {
		if sp.constant == nil || r.adders != nil && r.adders[p] != nil {
			continue
		}
		v, ok := sp.constant.ConstantScore(r.ctx, r.state, r.pod)
		if !ok {
			continue
		}
		if cs == nil {
			cs = grow(bs.constant, len(r.active))
			clear(cs)
			bs.constant = cs
		}
		cs[p] = constantScore{v, true}
	}
	return cs
}

// fail records plugin p's failure on node position j.
func (r *scoreRun) fail(p, j int, s *framework.Status) {
	r.firstErr.record(j, fmt.Errorf("running Score plugins: plugin %q failed on node %q with: %w", r.active[p].Name(), r.nodes[j].Name(), s.ErrOrCode()))
	r.failed.Store(true)
	for at := r.failedAt.Load(); (at == 0 || int64(j) < at-1) && !r.failedAt.CompareAndSwap(at, int64(j)+1); at = r.failedAt.Load() {
	}
}

// scoreEach scores nodes [lo, hi) with plugin p node by node, stopping at
// its first failure; it reports whether one failed.
func (r *scoreRun) scoreEach(p, lo, hi int) bool {
	pl, row := r.calls[p], r.vals[p*r.nf:(p+1)*r.nf]
	for j := lo; j < hi; j++ {
		v, s := pl.Score(r.ctx, r.state, r.pod, r.nodes[j])
		if s != nil && s.Code() != framework.Success {
			r.fail(p, j, s)
			return true
		}
		row[j] = v
	}
	return false
}

// fusedAdder is scoreRun.fused's entry for one adder.
type fusedAdder struct{ from, with int }

// fuseAdders sets fused (len(adders)), with and weights as scoreRun's
// fields describe, and returns them: in plugin order, each adder that
// adds other adders' scores in its pass (FusingBatchScorePlugin) takes
// every adder not yet taken that it accepts (AddsWith).
func fuseAdders(adders []fastpath.AddingBatchScorePlugin, active []scorePlugin, fused []fusedAdder, with []fastpath.AddingBatchScorePlugin, weights []int64) ([]fusedAdder, []fastpath.AddingBatchScorePlugin, []int64) {
	clear(fused)
	with, weights = with[:0], weights[:0]
	for p, a := range adders {
		fa := active[p].fusing
		if a == nil || fa == nil || fused[p].with != 0 {
			continue
		}
		from := len(with)
		for q, b := range adders {
			if q != p && b != nil && fused[q].with == 0 && fa.AddsWith(b) {
				fused[q].with = -1
				with, weights = append(with, b), append(weights, active[q].weight)
			}
		}
		fused[p] = fusedAdder{from: from, with: len(with) - from}
	}
	return fused, with, weights
}

// scoreAdderRows writes the rows of the plugins that added their scores
// to the totals instead (r.adders), with ScoreBatch over all r's nf
// nodes, for the plain path's weighing, and reports whether one failed
// (as chunk records it).
func (r *scoreRun) scoreAdderRows(nf int) bool {
	for p, a := range r.adders {
		if a == nil {
			continue
		}
		out := r.vals[p*nf : (p+1)*nf : (p+1)*nf]
		if s := a.ScoreBatch(r.ctx, r.state, r.pod, r.nodes, r.idx, out); s != nil && s.Code() != framework.Success {
			if !r.scoreEach(p, 0, nf) {
				r.fail(p, 0, s)
			}
		}
	}
	return r.failed.Load()
}

// Chunk is chunk, on any worker: the run writes only its nodes' scores
// and bounds.
func (r *scoreRun) Chunk(_, lo, hi int) bool { return r.chunk(lo, hi) }

// chunk scores nodes [lo, hi) plugin by plugin (each plugin's state stays
// hot) and reports whether a plugin failed on a node below hi. The error
// kept is the one of the lowest node position, and at that node of the
// first plugin in order, as a node-by-node loop gives.
func (r *scoreRun) chunk(lo, hi int) bool {
	nf := r.nf
	for p := range r.calls {
		out := r.vals[p*nf+lo : p*nf+hi : p*nf+hi]
		if cs := r.constant; cs != nil && cs[p].ok {
			v := cs[p].score
			if r.unwritten>>p&1 == 0 {
				for i := range out {
					out[i] = v
				}
			}
			if r.collected {
				k := 2 * (p*r.chunks + lo/r.chunkLen)
				r.bounds[k], r.bounds[k+1] = v, v
			}
			continue
		}
		b := r.batches[p]
		if b == nil {
			r.scoreEach(p, lo, hi)
			continue
		}
		var ix []int32 // nil when the nodes are not the snapshot's own
		if r.idx != nil {
			ix = r.idx[lo:hi:hi]
		}
		if a := r.adders; a != nil && a[p] != nil {
			switch g := r.fused[p]; {
			case g.with < 0:
				continue // added by the adder it is fused with, or scored by scoreAdderRows
			case g.with > 0:
				fa := r.active[p].fusing
				others, ws := r.fusedWith[g.from:g.from+g.with], r.fusedWeights[g.from:g.from+g.with]
				if fa.ScoreBatchAddWith(r.ctx, r.state, r.pod, r.nodes[lo:hi:hi], ix, out, r.active[p].weight, others, ws, r.totals[lo:hi:hi]) {
					continue
				}
			default:
				if a[p].ScoreBatchAdd(r.ctx, r.state, r.pod, r.nodes[lo:hi:hi], ix, out, r.active[p].weight, r.totals[lo:hi:hi]) {
					continue
				}
			}
			r.addRefused.Store(true) // scored below, as without it
		}
		var s *framework.Status
		if bb := r.bounded; bb != nil && bb[p] != nil {
			var blo, bhi int64
			blo, bhi, s = bb[p].ScoreBatchBounds(r.ctx, r.state, r.pod, r.nodes[lo:hi:hi], ix, out)
			if k := 2 * (p*r.chunks + lo/r.chunkLen); s == nil || s.Code() == framework.Success {
				r.bounds[k], r.bounds[k+1] = blo, bhi
			}
		} else {
			s = b.ScoreBatch(r.ctx, r.state, r.pod, r.nodes[lo:hi:hi], ix, out)
		}
		if s != nil && s.Code() != framework.Success {
			// Find and report the failure exactly, node by node.
			if !r.scoreEach(p, lo, hi) {
				r.fail(p, lo, s)
			}
		}
	}
	at := r.failedAt.Load()
	return at != 0 && at <= int64(hi)
}

func (f *Framework) getBatchScratch() *batchScratch { return f.batch.get() }

// filterPlugins returns three slices of n entries for the batch views of
// the active filters and whether each is trusted.
func (s *batchScratch) filterPlugins(n int) ([]fastpath.BatchFilterPlugin, []fastpath.RejectingFilterPlugin, []bool) {
	s.filterBatch, s.rejecters, s.trusted = grow(s.filterBatch, n), grow(s.rejecters, n), grow(s.trusted, n)
	return s.filterBatch, s.rejecters, s.trusted
}

// filterBuffers returns the surviving nodes, their positions, their
// snapshot indices, the statuses of one plugin call and the rejections of
// one plugin call, each with room for n nodes (a chunk uses its [lo, hi)
// range). The statuses are all nil: the filter loop sets entries back to
// nil as it reads them, and a cycle that did not finish (a panicking
// plugin) leaves dirty set, so the next one clears them.
func (s *batchScratch) filterBuffers(n int) (nodeWords, []int32, []int32, []*framework.Status, []fastpath.NodeRejection) {
	if s.dirty {
		clear(s.out[:cap(s.out)])
	}
	s.live, s.livePos, s.liveIdx, s.out = grow(s.live, n), grow(s.livePos, n), grow(s.liveIdx, n), grow(s.out, n)
	s.rejections = grow(s.rejections, n)
	s.dirty = true
	return s.live, s.livePos, s.liveIdx, s.out, s.rejections
}

// scorePlugins returns empty slices with room for n score plugins.
func (s *batchScratch) scorePlugins(n int) ([]scorePlugin, []framework.ScorePlugin, []fastpath.BatchScorePlugin) {
	if cap(s.active) < n {
		s.active, s.calls, s.batches = make([]scorePlugin, 0, n), make([]framework.ScorePlugin, 0, n), make([]fastpath.BatchScorePlugin, 0, n)
	}
	return s.active[:0], s.calls[:0], s.batches[:0]
}

// runExtenderScores is the extender half of kube-scheduler v1.36's
// prioritizeNodes: every interested prioritizing extender scores the nodes
// (concurrently, as kube's goroutines do); an error is ignored whatever
// IsIgnorable says; each score is added as score × weight ×
// (MaxNodeScore/MaxExtenderPriority), not clamped; hosts the extender was
// not asked about are ignored and a host listed twice counts twice.
func runExtenderScores(extenders []framework.Extender, pod *framework.PodInfo, nodes []*framework.NodeInfo, res *Result) {
	type answer struct {
		scores []framework.HostPriority
		weight int64
		err    error
	}
	var asked []framework.Extender
	for _, ext := range extenders {
		if ext.IsPrioritizer() && ext.IsInterested(pod) {
			asked = append(asked, ext)
		}
	}
	if len(asked) == 0 {
		return
	}
	answers := make([]answer, len(asked))
	// Each extender gets its own copy of the list: nodes may be a view of
	// the snapshot's own node order, which an extender could reorder or
	// overwrite in place.
	if len(asked) == 1 {
		a := &answers[0]
		a.scores, a.weight, a.err = asked[0].Prioritize(pod, slices.Clone(nodes))
	} else {
		var wg sync.WaitGroup
		for i, ext := range asked {
			list := slices.Clone(nodes)
			wg.Go(func() {
				a := &answers[i]
				a.scores, a.weight, a.err = ext.Prioritize(pod, list)
			})
		}
		wg.Wait()
	}
	pos := make(map[string]int, len(nodes))
	for j, ni := range nodes {
		pos[ni.Name()] = j
	}
	for i, a := range answers {
		if a.err != nil {
			continue // kube-scheduler ignores prioritize errors
		}
		row := make([]int64, len(nodes))
		for _, hp := range a.scores {
			j, ok := pos[hp.Host]
			if !ok {
				continue
			}
			v := hp.Score * a.weight * (framework.MaxNodeScore / framework.MaxExtenderPriority)
			row[j] += v
			res.Totals[j] += v
		}
		res.Extenders = append(res.Extenders, asked[i].Name())
		res.ExtenderScores = append(res.ExtenderScores, row)
	}
}

// ExtenderName is the name under which extender rejections are recorded
// in a Diagnosis' unschedulable plugins, as kube-scheduler does.
const ExtenderName = "Extender"

// narrowTo returns the nodes of cands a PreFilterResult names, in cands'
// order (the snapshot's, not the set's: deterministic). When cands are
// all of snap's nodes and the names fewer, each name is looked up once,
// or not at all when snap keeps the result's positions
// (Snapshot.PositionsOf); otherwise each candidate's name is looked up
// in the set. The nodes are
// written to out's array when it has room; the answer is never nil (a
// nil Result.candidates means not narrowed).
func narrowTo(out []*framework.NodeInfo, snap *framework.Snapshot, cands []*framework.NodeInfo, whole bool, res *framework.PreFilterResult) []*framework.NodeInfo {
	names := res.NodeNames
	out = slices.Grow(out[:0], min(len(names), len(cands)))
	if out == nil {
		out = []*framework.NodeInfo{}
	}
	if whole && len(names) < len(cands) {
		// Positions in this snapshot, sorted (a NodeInfo a clone shares
		// may record its position in another).
		var buf [8]int
		for _, i := range snap.PositionsOf(res, buf[:0]) {
			out = append(out, cands[i])
		}
		return out
	}
	for _, ni := range cands {
		if _, ok := names[ni.Name()]; ok {
			out = append(out, ni)
		}
	}
	return out
}
