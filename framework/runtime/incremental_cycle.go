package runtime

import (
	"context"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/fastpath"
)

// Incremental runs the scheduling cycles of a run of pods that share one
// PodInfo (the replicas of a capacity question), or, with Refresh before
// each cycle, that the node-local plugins treat alike (a scheduler's
// class of pods), faster than Schedule,
// deciding exactly as Schedule would on the same snapshot and options: the
// same nodes evaluated, the same feasible nodes, totals, selected node,
// Top, Margin and Ties, and the same use of CycleOptions.Rand (at most
// one tie draw).
//
// It keeps one CycleState of its own across the cycles. PreFilter and
// PreScore run in full once; afterwards a plugin whose state is
// node-local (NodeLocalPlugin) is not run again, a plugin implementing
// IncrementalPreFilterPlugin or IncrementalPreScorePlugin is brought up to
// date with the pods added since (see Added), and any other runs again.
// The verdict of the node-local Filter plugins is cached per node, as
// bitmaps, and computed again only for a node the snapshot changed since
// (its journal of changed nodes says which); the other Filter plugins run
// on every node the cycle evaluates that no node-local plugin before them
// rejected, in profile order (in their batch forms, a chunk of 64 nodes at
// a time, when they all come after the node-local ones), so that each
// node meets its first rejecting plugin as in Schedule. When they all come
// after, a cycle reads the node-local verdicts 64 nodes at a time: its
// cost follows the words of the bitmaps, not the nodes walked. The
// node-local Score plugins' scores are cached per node until the node
// changes (found by bitmap over the span of nodes a cycle covers, and
// scored again there, the nodes the filters rejected too): the weighted
// sum of those that do not normalize, the raw scores of the others.
// Scoring is fused (incremental_score.go): the other plugins score the
// cycle's nodes, and each normalizing plugin whose ScoreExtensions
// implement RangeNormalizer normalizes its row through a table over the
// row's least to greatest score (when that is no wider than the row;
// else, and for the others, NormalizeScore runs as in Schedule), so a
// node's total is its cached sum plus a lookup or a score per other
// plugin, ranked as selectHost would rank them by the pass that adds the
// last lookup (sumsRanked). The node sampling cut and the draw among the
// ties are the runner's own code.
//
// Between two cycles the snapshot may change only by pods added to it,
// each reported with Added, unless Refresh is called before the cycle:
// otherwise the non-local plugins' state follows nothing else.
// (Node-local verdicts also follow any change to their own node made
// through the snapshot's methods; a change to the nodes themselves, which
// NodeLocalPlugin allows them to read of other nodes, such as
// ImageLocality's image spread, makes the evaluator start over:
// Snapshot.NodeChangeSeq.)
//
// Schedule hands a cycle back (handled false) whenever it cannot
// guarantee Schedule's outcome, before touching the random source: the
// caller then runs Framework.Schedule. An Incremental is not safe for
// concurrent use; Close releases its state.
type Incremental struct {
	f     *Framework
	init  func(*framework.CycleState) // NewIncremental's init, or nil
	state *framework.CycleState
	snap  *framework.Snapshot
	n     int
	ready bool // PreFilter ran on state for the current snapshot
	// picked is the snapshot index of the node the evaluator's last
	// handled cycle chose (-1: none), so that Added finds the node a
	// replica was placed on without looking its name up.
	picked int
	// seq is the snapshot's ChangeSeq when the caches below were last
	// brought up to date with its changes (syncChanges); nodeSeq its
	// NodeChangeSeq when the evaluator started over.
	seq, nodeSeq uint64
	// rerunF and rerunS: the non-node-local PreFilter (rerunF) and
	// PreScore (rerunS) plugins run in full at the next cycle (Refresh).
	rerunF, rerunS bool
	dirty          []int32 // syncChanges' buffer

	filters  []incFilter // the Filter plugins not skipped, in profile order
	nonLocal []int16     // indices into filters of those not node-local
	// nonLocalLast: every non-local filter comes after every node-local
	// one, so walkWords may run them on a chunk's survivors at once.
	nonLocalLast bool
	cNodes       [incChunk]*framework.NodeInfo
	cIdx         [incChunk]int32
	cOut         [incChunk]*framework.Status
	cRej         [incChunk]fastpath.NodeRejection
	pre          []incPreFilter
	skippedF     []string // Result.SkippedFilter
	preScore     []incPreScore
	scored       bool // every PreScore plugin ran on state
	skipScore    map[string]bool
	skippedS     []string // Result.SkippedScore

	// The node-local filters' verdicts by snapshot index (see
	// incremental_walk.go): bitmaps of the nodes whose verdict is cached
	// (known), that pass (pass) and whose plugin failed (vErr); nErr
	// counts vErr's bits. cacheRej[k], for a known node k, is incPass, the
	// index into filters of the first rejecting plugin, or incErr−index
	// when that plugin failed (not a rejection).
	known, pass, vErr []uint64
	nErr              int
	cacheRej          []int16
	// The node-local Score plugins' cached scores (incScorer), valid for
	// snapshot node k while bit k of fresh is set: scoreNode sets it, and
	// syncChanges clears it when the node changes (the only way a snapshot
	// node's NodeInfo changes: Snapshot.ChangeSeq).
	fresh    []uint64
	sc       incScorer
	rejected []uint64 // the cycle's rejected positions (splitEvaluated)

	// added are the pods added since PreFilter (from pfFrom) and PreScore
	// (from psFrom) last saw the snapshot; addedBuf their AddedPods.
	added          []addedRef
	pfFrom, psFrom int
	addedBuf       []fastpath.AddedPod
}

const (
	incPass int16 = -1
	incErr  int16 = -2
)

type incFilter struct {
	pl      framework.FilterPlugin // the plugin to call
	batch   fastpath.BatchFilterPlugin
	rejects fastpath.RejectingFilterPlugin
	trusted bool // rejects is a TrustedRejectingFilterPlugin
	local   bool
}

// incChunk is walkWords' chunk of positions: one word of the bitmap.
const incChunk = 64

type incPreFilter struct {
	pl      framework.PreFilterPlugin
	inc     fastpath.IncrementalPreFilterPlugin // nil: PreFilter runs again
	skipped bool
}

type incPreScore struct {
	pl    framework.PreScorePlugin
	name  string
	local bool
	inc   fastpath.IncrementalPreScorePlugin // nil: PreScore runs again
	ran   bool                               // the last call succeeded: state holds its result
}

type addedRef struct {
	pod  *framework.PodInfo
	node int
}

// NewIncremental returns an evaluator of f's cycles for pods sharing one
// PodInfo (see Incremental). init, when not nil, is called on each cycle
// state the evaluator starts (its first, and each after it starts over),
// before any plugin sees it: a caller whose plugins read something the
// caller writes into every cycle's state (a scheduler's handle, say)
// writes it there.
func (f *Framework) NewIncremental(init func(*framework.CycleState)) *Incremental {
	inc := &Incremental{f: f, init: init, skipScore: map[string]bool{}}
	inc.state = inc.newState()
	return inc
}

// newState is a fresh cycle state, initialized.
func (inc *Incremental) newState() *framework.CycleState {
	st := framework.NewCycleState()
	if inc.init != nil {
		inc.init(st)
	}
	return st
}

// Close releases the evaluator's cycle state; the evaluator can be used
// again afterwards (it starts over).
func (inc *Incremental) Close() { inc.reset() }

// Added tells the evaluator that pod was added to the snapshot on the node
// named node since its last cycle (in the order of the additions).
func (inc *Incremental) Added(pod *framework.PodInfo, node string) {
	if !inc.ready {
		return // the next cycle starts over and sees every pod
	}
	k := inc.picked
	if all := inc.snap.Nodes(); k < 0 || k >= len(all) || all[k].Name() != node {
		k = inc.snap.Index(node)
	}
	if k < 0 || pod == nil {
		inc.reset()
		return
	}
	inc.added = append(inc.added, addedRef{pod: pod, node: k})
}

// Refresh tells the evaluator that the snapshot may have changed since its
// last cycle in ways Added does not report (pods added without Added,
// pods removed): the next cycle runs the PreFilter and PreScore plugins
// that are not node-local in full, as Schedule does, instead of bringing
// them up to date with the added pods. The node-local plugins' cached
// verdicts and scores follow such changes by themselves (the snapshot's
// journal of changed nodes), and a change to the nodes themselves
// (Snapshot.NodeChangeSeq) makes the evaluator start over. With Refresh
// before each cycle, pods whose PodInfos differ but that the node-local
// plugins treat alike (the same Framework.NodeLocalFragments) may share
// an evaluator: those plugins' state and verdicts depend only on what
// the fragments cover, and the other plugins see each cycle's own pod.
func (inc *Incremental) Refresh() {
	inc.added, inc.pfFrom, inc.psFrom = inc.added[:0], 0, 0
	inc.rerunF, inc.rerunS = true, true
}

// reset makes the next cycle start over.
func (inc *Incremental) reset() {
	inc.ready, inc.scored = false, false
	inc.added, inc.pfFrom, inc.psFrom = inc.added[:0], 0, 0
	inc.state.Release()
	inc.state = inc.newState()
	inc.dropVerdicts()
	clear(inc.fresh)
	inc.sc.planned = false
	clear(inc.skipScore)
	inc.snap = nil
}

// Schedule runs the cycle Framework.Schedule(ctx, state, snap, pod, opts)
// would run for pod, a pod sharing the PodInfo of the evaluator's earlier
// cycles, and returns its Result (Err nil) with handled true; or handled false,
// having drawn nothing from opts.Rand, when the caller must run
// Framework.Schedule instead: options it does not cover (explanations:
// SkipExplanation unset, ExplainFilters or ExplainRejections; nominated pods; a placement's
// Nodes), extenders, a PreFilter that narrows the nodes or fails, a cycle
// in which no node fits (the FitError comes from Schedule), a plugin that
// fails, or a done ctx.
//
// The Result (opts.Reuse when set) answers like Schedule's, but lists no
// rejected nodes: its NodeVerdicts and NodeToStatus know only the
// feasible ones. Nor does it keep each plugin's scores: its Normalized
// and Raw are empty and Scores reports none; Totals, Top, Margin, Ties,
// the selected node, ScorePlugins, Weights and SkippedScore are
// Schedule's. A score out of range hands the cycle back (Schedule
// reports it).
func (inc *Incremental) Schedule(ctx context.Context, snap *framework.Snapshot, pod *framework.PodInfo, opts CycleOptions) (res *Result, handled bool) {
	f := inc.f
	inc.picked = -1
	if ctx == nil || ctx.Err() != nil || pod == nil || pod.Pod == nil || snap == nil || snap.NumNodes() == 0 || opts.Rand == nil ||
		!opts.SkipExplanation || opts.ExplainFilters || opts.ExplainRejections || opts.NominatedPods != nil || opts.Nodes != nil ||
		len(f.extenders) > 0 || !f.HasScorePlugins() {
		return nil, false
	}
	if snap != inc.snap || snap.NumNodes() != inc.n || snap.NodeChangeSeq() != inc.nodeSeq {
		inc.reset()
		inc.snap, inc.n, inc.nodeSeq = snap, snap.NumNodes(), snap.NodeChangeSeq()
	}
	state := inc.state
	state.SetSnapshot(snap)
	all := snap.Nodes()
	if !inc.ready {
		if !inc.prepare(ctx, pod, all) {
			inc.reset()
			return nil, false
		}
	} else {
		inc.syncChanges(snap)
		if !inc.preFilterAgain(ctx, pod, all) {
			inc.reset()
			return nil, false
		}
	}

	n := len(all)
	start := opts.StartIndex % n
	if start < 0 {
		start += n
	}
	want := opts.NumFeasibleToFind
	if want <= 0 || want > n {
		want = n
	}
	walk := inc.walk
	if inc.nonLocalLast {
		walk = inc.walkWords
	}
	m, ok := walk(ctx, pod, all, start, want)
	if !ok {
		return nil, false // a Filter plugin failed: Schedule reports it
	}
	if opts.TopN <= 0 {
		opts.TopN = 3
	}
	res = opts.Reuse
	if res == nil {
		res = &Result{}
	}
	res.reset()
	defer res.endCycle()
	res.Pod, res.Profile, res.NumAllNodes, res.fw, res.snap = pod, f.profile.SchedulerName, n, f, snap
	res.SkippedFilter, res.StartIndex, res.order = inc.skippedF, start, all
	res.evaluated, _, _ = res.splitEvaluated(inc.rejected, nil, m, want, false, all, nil, start, false, nil)
	switch {
	case len(res.feasible) == 0:
		return nil, false
	case len(res.feasible) == 1 && !opts.AlwaysScore:
		res.selected = 0
		res.rankGeneric(opts.TopN)
		inc.picked = res.SelectedIndex()
		return res, true
	}
	nodes := res.feasibleNodes()
	if !inc.preScoreAgain(ctx, pod, nodes) {
		inc.reset()
		return nil, false
	}
	res.SkippedScore = inc.skippedS
	res.Totals = grow(res.Totals, len(nodes))
	ok, ranked := inc.score(ctx, pod, res, opts.TopN)
	if !ok {
		inc.reset()
		return nil, false
	}
	if rk := &inc.sc.rk; ranked {
		res.pickRanked(opts.Rand, opts.TopN, rk.best, rk.cnt, rk.top)
	} else {
		res.selectHost(opts.Rand, opts.TopN)
	}
	inc.picked = res.SelectedIndex()
	return res, true
}

// prepare runs every PreFilter plugin on the evaluator's state, as
// Schedule does, and sorts the plugins for the cycles to come; false when
// PreFilter fails or narrows the nodes.
func (inc *Incremental) prepare(ctx context.Context, pod *framework.PodInfo, all []*framework.NodeInfo) bool {
	f, state := inc.f, inc.state
	preRes, s, _ := f.RunPreFilterPlugins(ctx, state, pod)
	if !s.IsSuccess() || !preRes.AllNodes() {
		return false
	}
	inc.filters, inc.nonLocal = inc.filters[:0], inc.nonLocal[:0]
	for _, pl := range f.filter {
		if state.SkipFilter(pl.Name()) {
			continue
		}
		call := pl
		local := isNodeLocal(call, pod)
		if !local {
			inc.nonLocal = append(inc.nonLocal, int16(len(inc.filters)))
		}
		e := incFilter{pl: call, local: local}
		e.batch, _ = call.(fastpath.BatchFilterPlugin)
		e.rejects, _ = call.(fastpath.RejectingFilterPlugin)
		_, e.trusted = call.(fastpath.TrustedRejectingFilterPlugin)
		inc.filters = append(inc.filters, e)
	}
	inc.nonLocalLast = true
	for j, e := range inc.filters {
		if e.local && len(inc.nonLocal) > 0 && int(inc.nonLocal[0]) < j {
			inc.nonLocalLast = false
		}
	}
	inc.pre = inc.pre[:0]
	for _, pl := range f.preFilter {
		var target framework.Plugin = pl
		if isNodeLocal(target, pod) {
			continue
		}
		e := incPreFilter{pl: pl, skipped: state.SkipFilter(pl.Name())}
		e.inc, _ = target.(fastpath.IncrementalPreFilterPlugin)
		inc.pre = append(inc.pre, e)
	}
	inc.preScore = inc.preScore[:0]
	for _, pl := range f.preScore {
		var target framework.Plugin = pl
		e := incPreScore{pl: pl, name: pl.Name(), local: isNodeLocal(target, pod)}
		e.inc, _ = target.(fastpath.IncrementalPreScorePlugin)
		inc.preScore = append(inc.preScore, e)
	}
	inc.skippedF = f.skipFilter.sortedOf(state.SkipFilterPlugins())
	n := len(all)
	inc.initVerdicts(n)
	inc.fresh = grow(inc.fresh, (n+63)>>6)
	clear(inc.fresh)
	inc.sc.planned = false
	inc.rejected = grow(inc.rejected, (n+63)>>6)
	inc.added, inc.pfFrom, inc.psFrom = inc.added[:0], 0, 0
	inc.rerunF, inc.rerunS = false, false
	inc.ready, inc.scored = true, false
	inc.seq = inc.snap.ChangeSeq()
	return true
}

// syncChanges drops the cached verdicts and raw scores of the nodes snap
// changed since the last cycle (all of them when its journal cannot
// tell which).
func (inc *Incremental) syncChanges(snap *framework.Snapshot) {
	if seq := snap.ChangeSeq(); seq != inc.seq {
		var ok bool
		inc.dirty, ok = snap.ChangedSince(inc.seq, inc.dirty[:0])
		if !ok {
			inc.dropVerdicts()
			clear(inc.fresh)
		}
		for _, k := range inc.dirty {
			inc.dropVerdict(int(k))
			inc.fresh[k>>6] &^= 1 << (k & 63)
		}
		inc.seq = seq
	}
}

// isNodeLocal reports whether pl promises node-local state and verdicts
// for pod (NodeLocalPlugin).
func isNodeLocal(pl framework.Plugin, pod *framework.PodInfo) bool {
	nl, ok := pl.(fastpath.NodeLocalPlugin)
	return ok && nl.NodeLocal(pod)
}

// addedSince returns the pods added from added[from] on, with the NodeInfo
// the snapshot holds for their node now.
func (inc *Incremental) addedSince(from int) []fastpath.AddedPod {
	out := inc.addedBuf[:0]
	all := inc.snap.Nodes()
	for _, a := range inc.added[from:] {
		out = append(out, fastpath.AddedPod{Pod: a.pod, Node: all[a.node]})
	}
	inc.addedBuf = out
	return out
}

// consumed drops the added pods both PreFilter and PreScore have seen.
func (inc *Incremental) consumed() {
	if d := min(inc.pfFrom, inc.psFrom); d > 0 {
		inc.added = inc.added[:copy(inc.added, inc.added[d:])]
		inc.pfFrom -= d
		inc.psFrom -= d
	}
}

// preFilterAgain brings the non-node-local PreFilter plugins' state up to
// date with the pods added since the last cycle; false when one of them
// now decides otherwise than it did in prepare (skips, fails or narrows
// the nodes), which the full cycle must handle.
func (inc *Incremental) preFilterAgain(ctx context.Context, pod *framework.PodInfo, all []*framework.NodeInfo) bool {
	if inc.pfFrom == len(inc.added) && !inc.rerunF {
		return true // nothing changed since PreFilter last ran
	}
	added := inc.addedSince(inc.pfFrom)
	for i := range inc.pre {
		e := &inc.pre[i]
		var r *framework.PreFilterResult
		var s *framework.Status
		if e.inc != nil && !inc.rerunF {
			s = e.inc.PreFilterAfterAdd(ctx, inc.state, pod, added)
		} else {
			inc.state.SetAllNodes(true)
			inc.state.ReleaseReplacedBy(func() { r, s = e.pl.PreFilter(ctx, inc.state, pod, all) })
			inc.state.SetAllNodes(false)
		}
		if e.skipped {
			if !s.IsSkip() {
				return false
			}
			continue
		}
		if !s.IsSuccess() || !r.AllNodes() {
			return false
		}
	}
	inc.pfFrom, inc.rerunF = len(inc.added), false
	inc.consumed()
	return true
}

// preScoreAgain runs PreScore over the cycle's feasible nodes as
// RunPreScorePlugins does, except that after the first time a node-local
// plugin is not run again and an incremental one only takes the pods added
// since; false when a plugin fails.
func (inc *Incremental) preScoreAgain(ctx context.Context, pod *framework.PodInfo, nodes []*framework.NodeInfo) bool {
	state := inc.state
	state.SetScoredNodes(len(nodes))
	added := inc.addedSince(inc.psFrom)
	changed := !inc.scored
	for i := range inc.preScore {
		e := &inc.preScore[i]
		if inc.scored && e.local {
			continue
		}
		var s *framework.Status
		if inc.scored && e.inc != nil && e.ran && !inc.rerunS {
			s = e.inc.PreScoreAfterAdd(ctx, state, pod, nodes, added)
		} else {
			state.ReleaseReplacedBy(func() { s = e.pl.PreScore(ctx, state, pod, nodes) })
		}
		e.ran = s.IsSuccess()
		skip := s.IsSkip()
		if !skip && !e.ran {
			return false
		}
		if inc.skipScore[e.name] != skip {
			changed, inc.sc.actValid = true, false
			if skip {
				inc.skipScore[e.name] = true
			} else {
				delete(inc.skipScore, e.name)
			}
		}
	}
	if changed {
		inc.skippedS = sortedKeys(inc.skipScore)
	}
	if !inc.scored {
		// The node-local plugins that score this cycle score every
		// cycle: cache their scores.
		inc.sc.plan(inc.f, pod, inc.skipScore, inc.n)
		clear(inc.fresh)
	}
	state.SetSkipScorePlugins(inc.skipScore)
	inc.scored, inc.rerunS = true, false
	inc.psFrom = len(inc.added)
	inc.consumed()
	return true
}
