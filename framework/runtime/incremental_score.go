package runtime

import (
	"context"
	"math"
	"math/bits"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/fastpath"
)

// incScorer is Incremental's scoring of a cycle's feasible nodes: the
// totals scoreFeasible would give, computed from a cache per node and one
// table per normalizing plugin (RangeNormalizer) instead of per-plugin
// rows normalized in place.
//
// The node-local Score plugins (NodeLocalPlugin) are split in two: those
// that do not normalize (sum) contribute their weighted raw scores, which
// are their final scores, and those that normalize (norm) their raw
// scores, to be normalized over the cycle's nodes. Snapshot node k's
// record is sums[k], the weighted sum of the first, and rec[k*stride:],
// the or of their raw scores' scoreBits outside scoreMask (not 0: some
// score is out of range), then the raw score of each of the second; it
// is valid while bit k of Incremental.fresh is set (syncChanges clears
// the bits of the nodes the snapshot changed). The other Score plugins
// (others) run every cycle.
type incScorer struct {
	planned bool // the plugins are sorted (the first cycle that scored)
	sumRun  sumRankRun
	sum     []incScorePlugin
	norm    []incScorePlugin
	others  []incScorePlugin
	sums    []int64
	stride  int
	rec     []int64
	// off[s] counts the snapshot nodes whose record holds a raw score of
	// norm[s] other than 0 (valid records or not): while it is 0, every
	// cached node scores 0 and the row costs nothing per node.
	off []int
	// nBad counts the snapshot nodes whose record's or of scoreBits is
	// not 0.
	nBad int

	// The active others (as scoreRun wants them) and the names and
	// weights of the plugins that score, in profile order, while actValid
	// (until the skipped plugins change); per cycle: the rows of
	// norm then of the active others (nf scores each), a table, and the
	// list handed to a NormalizeScore without a batch form.
	act      []scorePlugin
	calls    []framework.ScorePlugin
	batches  []fastpath.BatchScorePlugin
	actIx    []int
	names    []string
	weights  []int64
	actValid bool
	rows     []int64
	lo, hi   []int64 // the bounds of the rows, where known
	known    []bool  // known[s]: lo[s] and hi[s] are row s's bounds
	tables   []int64 // the rows' RangeNormalizer tables
	weighted []int64 // looks' tables, weighted
	looks    []lookup
	adds     []lookup // the rows added after the looked-up ones
	rk       ranker   // the totals' ranking (sumsRanked)
	top      []rankedPos
	list     framework.NodeScoreList
	one      [1]*framework.NodeInfo
	oneIdx   [1]int32
	out      [1]int64
}

// lookup is a row of scores added to the totals: w·row[j], or, when wt
// is not nil, a lookup in the table wt of normalized scores: wt[row[j]−lo]
// (in looks once weighted, their tables holding weighted scores) or
// w·wt[row[j]−lo] (in adds).
type lookup struct {
	row []int64
	wt  []int64
	lo  int64
	w   int64
}

// incScorePlugin is a Score plugin as incScorer runs it.
type incScorePlugin struct {
	sp      scorePlugin                      // the profile's entry (name, weight, ScoreExtensions)
	at      int                              // its index in the profile's Score plugins
	call    framework.ScorePlugin            // the plugin to call
	batch   fastpath.BatchScorePlugin        // call's batch form, if any
	bounded fastpath.BoundedBatchScorePlugin // call's batch form with bounds, if any
	ext     framework.ScoreExtensions        // sp's, nil when it does not normalize
	bext    fastpath.BatchScoreExtensions
	ranged  fastpath.RangeNormalizer
}

func newIncScorePlugin(sp scorePlugin, at int) incScorePlugin {
	call := sp.ScorePlugin
	e := incScorePlugin{sp: sp, at: at, call: call, ext: sp.ScoreExtensions()}
	e.batch, _ = call.(fastpath.BatchScorePlugin)
	e.bounded, _ = call.(fastpath.BoundedBatchScorePlugin)
	e.bext, _ = e.ext.(fastpath.BatchScoreExtensions)
	e.ranged, _ = e.ext.(fastpath.RangeNormalizer)
	return e
}

// plan sorts the Score plugins for the cycles to come, at the first cycle
// that scores: a node-local plugin's PreScore, and so whether it skips,
// does not run again, so those that score now score every cycle.
func (sc *incScorer) plan(f *Framework, pod *framework.PodInfo, skip map[string]bool, nodes int) {
	sc.sum, sc.norm, sc.others = sc.sum[:0], sc.norm[:0], sc.others[:0]
	for i, sp := range f.score {
		e := newIncScorePlugin(sp, i)
		switch {
		case !isNodeLocal(e.call, pod):
			sc.others = append(sc.others, e)
		case skip[sp.Name()]:
		case e.ext == nil:
			sc.sum = append(sc.sum, e)
		default:
			sc.norm = append(sc.norm, e)
		}
	}
	sc.stride = 1 + len(sc.norm)
	sc.sums = grow(sc.sums, nodes)
	sc.rec = grow(sc.rec, sc.stride*nodes)
	clear(sc.rec) // every norm score 0: off counts none
	sc.off = grow(sc.off, len(sc.norm))
	clear(sc.off)
	sc.nBad, sc.actValid = 0, false
	sc.planned = true
}

// score sets res.Totals (grown to the feasible nodes) to the totals
// scoreFeasible would give over res's feasible nodes, and
// res.ScorePlugins and Weights to the plugins that scored, leaving
// Normalized and Raw empty; ok false, before res's ranking, when it
// cannot vouch for them: a plugin failed (Score or NormalizeScore), a
// score is out of range or outside the bounds its plugin reported
// (BoundedBatchScorePlugin), the nodes are not the snapshot's own, or ctx
// is done.
// Schedule then reports the failure. With ranked true, sc.rk holds the
// totals ranked for a Top of topN (res.ties its ties), as selectHost
// would rank them.
func (inc *Incremental) score(ctx context.Context, pod *framework.PodInfo, res *Result, topN int) (ok, ranked bool) {
	sc, state := &inc.sc, inc.state
	nodes, idx := res.feasibleNodes(), res.feasibleIndices()
	nf := len(nodes)
	if idx == nil || len(idx) != nf || !sc.planned {
		return false, false
	}
	if !sc.actValid {
		sc.activate(inc.f, inc.skipScore)
	}
	res.ScorePlugins, res.Weights = append(res.ScorePlugins[:0], sc.names...), append(res.Weights[:0], sc.weights...)
	nn, na := len(sc.norm), len(sc.act)
	nr := nn + na
	sc.rows = grow(sc.rows, nr*nf)
	totals := res.Totals[:nf]

	// The cached part: the nodes whose record is stale are scored again;
	// the non-normalizing node-local plugins' weighted sum is added in
	// the totals pass below, their out-of-range flags read here while
	// some record has one.
	var bad uint64
	var constant int64 // the part every node gets (rows of one score)
	if !inc.rescoreStale(ctx, pod, idx) {
		return false, false
	}
	rec, stride := sc.rec, sc.stride
	if sc.nBad != 0 {
		for _, k := range idx {
			bad |= uint64(rec[int(k)*stride])
		}
	}
	// A norm row whose scores are all 0 (off) is gathered only if its
	// plugin cannot normalize it through a table.
	sc.lo, sc.hi, sc.known = grow(sc.lo, nr), grow(sc.hi, nr), grow(sc.known, nr)
	clear(sc.known)
	for s := range nn {
		if sc.off[s] == 0 && sc.norm[s].ranged != nil {
			sc.lo[s], sc.hi[s] = 0, 0
		} else {
			sc.lo[s], sc.hi[s] = sc.gather(s, idx, nf)
		}
		sc.known[s] = true
	}
	// The other plugins score the cycle's nodes, as scoreFeasible runs them.
	if na > 0 && !inc.scoreOthers(ctx, pod, nodes, idx) {
		return false, false
	}
	// Each row is a constant, a table lookup, or added as it is (after
	// its plugin normalizes it, when it does).
	sc.looks, sc.adds = sc.looks[:0], sc.adds[:0]
	sc.tables = grow(sc.tables, nr*nf)
	tables := sc.tables
	for s := range nr {
		e := sc.rowPlugin(s)
		row := sc.rows[s*nf : (s+1)*nf : (s+1)*nf]
		w := e.sp.weight
		if e.ext == nil {
			sc.adds = append(sc.adds, lookup{row: row, w: w})
			continue
		}
		if e.ranged == nil {
			if !sc.normalize(ctx, state, pod, e, nodes, row) {
				return false, false
			}
			sc.adds = append(sc.adds, lookup{row: row, w: w})
			continue
		}
		lo, hi := sc.lo[s], sc.hi[s]
		if !sc.known[s] {
			lo, hi = bounds(row)
		}
		if span := uint64(hi) - uint64(lo); span < uint64(nf) {
			t := tables[: span+1 : span+1]
			if e.ranged.NormalizeRange(ctx, state, pod, lo, t) {
				tables = tables[span+1:]
				if span == 0 {
					c := t[0]
					bad |= scoreBits(c)
					constant += w * c
					continue
				}
				sc.looks = append(sc.looks, lookup{row: row, wt: t, lo: lo, w: w})
				continue
			}
		}
		if s < nn && sc.off[s] == 0 {
			sc.gather(s, idx, nf) // skipped above
		}
		if !sc.normalize(ctx, state, pod, e, nodes, row) {
			return false, false
		}
		sc.adds = append(sc.adds, lookup{row: row, w: w})
	}
	res.ties = grow(res.ties, nf)
	sc.rk.start(topN, sc.top, res.ties)
	miss, b, ranked := sc.sumTotals(inc.f, totals, idx, constant)
	sc.top = sc.rk.top
	return !miss && (bad|b)&^scoreMask == 0 && ctx.Err() == nil, ranked
}

// sumTotals sets totals[j] to the cached weighted sum of snapshot node
// idx[j] plus c, the part every node gets, plus its scores in looks and
// adds, and returns whether some score lies outside its table (miss) and
// the or of the scoreBits of the scores added from the adds (those of a
// table: the looked-up ones). The looked-up rows are added in
// sumsRanked's passes, which rank the totals with sc.rk (started; ranked
// reports it); with enough nodes for f's workers (fusedPass), in one
// pass of chunks on them, which ranks too when no row is added after it.
// When some row is (adds, which weighLooks may lengthen), selectHost must
// rank them again.
func (sc *incScorer) sumTotals(f *Framework, totals []int64, idx []int32, c int64) (miss bool, bad uint64, ranked bool) {
	sc.weighLooks()
	switch pool, chunk := f.fused(len(totals)); {
	case pool == nil:
		miss = sumsRanked(totals, sc.sums, idx, c, sc.looks, &sc.rk)
		ranked = true
	case len(sc.adds) == 0:
		return f.sumsRankedAll(&sc.sumRun, totals, sc.sums, idx, c, sc.looks, &sc.rk, chunk), 0, true
	default:
		miss = f.sumsAll(&sc.sumRun.sum, totals, sc.sums, idx, c, sc.looks, chunk)
	}
	for i := range sc.adds {
		a := &sc.adds[i]
		if a.wt == nil {
			bad |= addWeighted(totals, a.row, a.w)
			continue
		}
		b, m := addLookedUp(totals, a.row, a.wt, a.lo, a.w)
		bad, miss = bad|b, miss || m
	}
	return miss, bad, ranked && len(sc.adds) == 0
}

// weighLooks weighs the tables of the looked-up rows (into sc.weighted).
// A table with a score out of range moves to the adds, unweighted, to be
// looked up score by score (only the nodes' own scores count).
func (sc *incScorer) weighLooks() {
	n := 0
	for _, l := range sc.looks {
		n += len(l.wt)
	}
	sc.weighted = grow(sc.weighted, n)
	buf := sc.weighted
	looks := sc.looks[:0]
	for _, l := range sc.looks {
		wt := buf[:len(l.wt):len(l.wt)]
		if weigh(wt, l.wt, l.w)&^scoreMask != 0 {
			sc.adds = append(sc.adds, l)
			continue
		}
		buf = buf[len(wt):]
		looks = append(looks, lookup{row: l.row, wt: wt, lo: l.lo})
	}
	sc.looks = looks
}

// scoreOthers has the active others score nodes (snapshot indices idx)
// into their rows, as scoreFeasible runs them; false when one fails. A
// sequential run calls each plugin once over all the nodes, and keeps
// the bounds a BoundedBatchScorePlugin reports.
func (inc *Incremental) scoreOthers(ctx context.Context, pod *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32) bool {
	sc, f, nf := &inc.sc, inc.f, len(nodes)
	nn := len(sc.norm)
	if pool, chunk := f.loop(nf); pool != nil {
		bs := f.getBatchScratch()
		r := &bs.run
		*r = scoreRun{ctx: ctx, state: inc.state, pod: pod, nodes: nodes, idx: idx, vals: sc.rows[nn*nf:], nf: nf,
			active: sc.act, calls: sc.calls, batches: sc.batches}
		pool.Ordered(nf, chunk, r)
		failed := r.failed.Load()
		r.release()
		f.batch.Put(bs)
		return !failed
	}
	for p, o := range sc.actIx {
		e, s := &sc.others[o], nn+p
		row := sc.rows[s*nf : (s+1)*nf : (s+1)*nf]
		var st *framework.Status
		switch {
		case e.bounded != nil:
			sc.lo[s], sc.hi[s], st = e.bounded.ScoreBatchBounds(ctx, inc.state, pod, nodes, idx, row)
			sc.known[s] = true
		case e.batch != nil:
			st = e.batch.ScoreBatch(ctx, inc.state, pod, nodes, idx, row)
		default:
			for j, ni := range nodes {
				if row[j], st = e.call.Score(ctx, inc.state, pod, ni); st != nil && st.Code() != framework.Success {
					break
				}
			}
		}
		if st != nil && st.Code() != framework.Success {
			return false
		}
	}
	return true
}

// rescoreStale scores again the nodes whose record is stale in the span
// of the snapshot the cycle's nodes (snapshot indices idx, in evaluation
// order) cover: from idx[0] to idx[nf−1], wrapping round the end at most
// once. It finds them in Incremental.fresh a word at a time, and scores
// the nodes of the span the cycle's filters rejected too: each node is
// scored once after it changes, and the next span over it finds nothing
// to do. A plugin failing on a node of idx fails the cycle (false); on
// another node, it leaves the record stale.
func (inc *Incremental) rescoreStale(ctx context.Context, pod *framework.PodInfo, idx []int32) bool {
	n, first := inc.n, int(idx[0])
	end := int(idx[len(idx)-1]) + 1
	if end <= first {
		end += n
	}
	return inc.rescoreIn(ctx, pod, idx, first, min(end, n)) &&
		(end <= n || inc.rescoreIn(ctx, pod, idx, 0, end-n))
}

// rescoreIn is rescoreStale for the snapshot indices a to b−1.
func (inc *Incremental) rescoreIn(ctx context.Context, pod *framework.PodInfo, idx []int32, a, b int) bool {
	all := inc.snap.Nodes()
	for k := nextStale(inc.fresh, a, b); k < b; k = nextStale(inc.fresh, k+1, b) {
		if !inc.scoreNode(ctx, pod, all[k], int32(k)) && positionIn(idx, k, inc.n) >= 0 {
			return false
		}
	}
	return true
}

// nextStale returns the first index from k on, below b, whose bit is
// clear in fresh, or b; fresh covers b bits.
func nextStale(fresh []uint64, k, b int) int {
	for k < b {
		if w := ^fresh[k>>6] >> (k & 63); w != 0 {
			return min(k+bits.TrailingZeros64(w), b)
		}
		k = (k | 63) + 1
	}
	return b
}

// positionIn returns j with idx[j] = k, or −1: idx holds snapshot
// indices (of n nodes) whose distances from idx[0], wrapping round the
// end, increase.
func positionIn(idx []int32, k, n int) int {
	first := int(idx[0])
	dist := func(x int) int {
		if x -= first; x < 0 {
			x += n
		}
		return x
	}
	d := dist(k)
	lo, hi := 0, len(idx)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if dist(int(idx[m])) < d {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(idx) && int(idx[lo]) == k {
		return lo
	}
	return -1
}

// sumsRanked sets totals[j] to the cached weighted sum of snapshot node
// idx[j] (sums) plus c and its scores looked up in looks (their tables
// weighted), and ranks the totals with rk; true when some score lies
// outside its table. The cached sums and the first row take one pass,
// each other row one more, the last of them ranking as it adds (a pass
// doing more keeps fewer of its values in registers).
func sumsRanked(totals, sums []int64, idx []int32, c int64, looks []lookup, rk *ranker) (miss bool) {
	if len(looks) == 0 {
		sumsRanked0(totals, sums, idx, c, rk)
		return false
	}
	if miss = sumsLooked1(totals, sums, idx, c, &looks[0]); miss {
		return true
	}
	for i := 1; i < len(looks)-1 && !miss; i++ {
		miss = addLooked(totals, &looks[i])
	}
	switch {
	case miss:
	case len(looks) == 1:
		rk.rank(totals)
	default:
		miss = addLookedRanked(totals, &looks[len(looks)-1], rk)
	}
	return miss
}

// sumsRanked0 sets totals[j] to sums[idx[j]] + c, ranking them with rk.
//
//go:noinline
func sumsRanked0(totals, sums []int64, idx []int32, c int64, rk *ranker) {
	idx, ties := idx[:len(totals)], rk.ties[:len(totals)]
	best, cnt, gate := rk.best, rk.cnt, rk.gate
	for j, k := range idx {
		t := sums[k] + c
		totals[j] = t
		ties[cnt] = int32(j)
		cnt += b2i(t == best)
		if t >= gate {
			best, cnt, gate = rk.see(j, t, cnt)
		}
	}
	rk.cnt = cnt
}

// sumsLooked1 sets totals[j] to sums[idx[j]] + c + a.wt[a.row[j]−a.lo];
// true when some a.row[j] lies outside the table.
//
//go:noinline
func sumsLooked1(totals, sums []int64, idx []int32, c int64, a *lookup) (miss bool) {
	idx, ra, ta, la := idx[:len(totals)], a.row[:len(totals)], a.wt, a.lo
	for j, k := range idx {
		ia := uint64(ra[j] - la)
		if ia >= uint64(len(ta)) {
			return true
		}
		totals[j] = sums[k] + c + ta[ia]
	}
	return false
}

// addLookedRanked is addLooked ranking the totals with rk as it goes.
//
//go:noinline
func addLookedRanked(totals []int64, l *lookup, rk *ranker) (miss bool) {
	row, wt, lo := l.row[:len(totals)], l.wt, l.lo
	ties := rk.ties[:len(totals)]
	best, cnt, gate := rk.best, rk.cnt, rk.gate
	for j, v := range row {
		i := uint64(v - lo)
		if i >= uint64(len(wt)) {
			return true
		}
		t := totals[j] + wt[i]
		totals[j] = t
		ties[cnt] = int32(j)
		cnt += b2i(t == best)
		if t >= gate {
			best, cnt, gate = rk.see(j, t, cnt)
		}
	}
	rk.cnt = cnt
	return false
}

// weigh sets wt[i] to w·t[i] and returns the or of t's scores'
// scoreBits.
func weigh(wt, t []int64, w int64) (bad uint64) {
	wt = wt[:len(t)]
	for i, v := range t {
		bad |= scoreBits(v)
		wt[i] = w * v
	}
	return bad
}

// gather copies norm[s]'s cached raw scores of the snapshot nodes idx
// (nf of them) to its row and returns their bounds.
func (sc *incScorer) gather(s int, idx []int32, nf int) (lo, hi int64) {
	row := sc.rows[s*nf : (s+1)*nf : (s+1)*nf]
	rec, stride := sc.rec, sc.stride
	lo, hi = math.MaxInt64, math.MinInt64
	for j, k := range idx[:nf] {
		v := rec[int(k)*stride+1+s]
		row[j] = v
		lo, hi = min(lo, v), max(hi, v)
	}
	return lo, hi
}

// activate lists the plugins that score while skip holds the skipped
// ones: the active others and the names and weights of all, in profile
// order.
func (sc *incScorer) activate(f *Framework, skip map[string]bool) {
	sc.act, sc.calls, sc.batches, sc.actIx = sc.act[:0], sc.calls[:0], sc.batches[:0], sc.actIx[:0]
	sc.names, sc.weights = sc.names[:0], sc.weights[:0]
	o := 0
	for i, sp := range f.score {
		name := sp.Name()
		if o < len(sc.others) && sc.others[o].at == i {
			if !skip[name] {
				e := &sc.others[o]
				sc.act, sc.calls, sc.batches, sc.actIx = append(sc.act, sp), append(sc.calls, e.call), append(sc.batches, e.batch), append(sc.actIx, o)
			}
			o++
		}
		if !skip[name] {
			sc.names, sc.weights = append(sc.names, name), append(sc.weights, sp.weight)
		}
	}
	sc.actValid = true
}

// rowPlugin is the plugin of row s: norm's, then the active others'.
func (sc *incScorer) rowPlugin(s int) *incScorePlugin {
	if s < len(sc.norm) {
		return &sc.norm[s]
	}
	return &sc.others[sc.actIx[s-len(sc.norm)]]
}

// normalize runs e's NormalizeScore (its batch form if it has one) on row,
// the scores of nodes, in place; false when it fails.
func (sc *incScorer) normalize(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, e *incScorePlugin, nodes []*framework.NodeInfo, row []int64) bool {
	if e.bext != nil {
		return e.bext.NormalizeScoreBatch(ctx, state, pod, nodes, row).IsSuccess()
	}
	sc.list = grow(sc.list, len(row))
	for j, ni := range nodes {
		sc.list[j] = framework.NodeScore{Name: ni.Name(), Score: row[j]}
	}
	if !e.ext.NormalizeScore(ctx, state, pod, sc.list).IsSuccess() {
		return false
	}
	for j := range row {
		row[j] = sc.list[j].Score
	}
	return true
}

// bounds returns row's least and greatest score (four at a time, in two
// independent pairs).
func bounds(row []int64) (lo, hi int64) {
	lo, hi = math.MaxInt64, math.MinInt64
	lo1, hi1 := lo, hi
	j := 0
	for ; j+4 <= len(row); j += 4 {
		r := row[j : j+4 : j+4]
		lo, hi = min(lo, r[0], r[1]), max(hi, r[0], r[1])
		lo1, hi1 = min(lo1, r[2], r[3]), max(hi1, r[2], r[3])
	}
	for _, v := range row[j:] {
		lo, hi = min(lo, v), max(hi, v)
	}
	return min(lo, lo1), max(hi, hi1)
}

// addWeighted adds w·row[j] to totals[j] and returns the or of the
// scores' scoreBits.
func addWeighted(totals, row []int64, w int64) (bad uint64) {
	row = row[:len(totals)]
	for j, v := range row {
		bad |= scoreBits(v)
		totals[j] += w * v
	}
	return bad
}

// addLookedUp adds w·table[row[j]−lo] to totals[j] and returns the or of
// the looked-up scores' scoreBits, and whether some row[j] lies outside
// the table.
func addLookedUp(totals, row, table []int64, lo, w int64) (bad uint64, miss bool) {
	row = row[:len(totals)]
	n := uint64(len(table))
	for j, v := range row {
		i := uint64(v - lo)
		if i >= n {
			return bad, true
		}
		s := table[i]
		bad |= scoreBits(s)
		totals[j] += w * s
	}
	return bad, false
}

// addLooked adds l.wt[l.row[j]−l.lo] to totals[j]; true when some
// row[j] lies outside the table.
//
//go:noinline
func addLooked(totals []int64, l *lookup) (miss bool) {
	row, wt, lo := l.row[:len(totals)], l.wt, l.lo
	n := uint64(len(wt))
	for j, v := range row {
		i := uint64(v - lo)
		if i >= n {
			return true
		}
		totals[j] += wt[i]
	}
	return false
}

// scoreNode computes the cached part of snapshot node k (ni): the
// node-local plugins' scores; false when one fails.
func (inc *Incremental) scoreNode(ctx context.Context, pod *framework.PodInfo, ni *framework.NodeInfo, k int32) bool {
	sc := &inc.sc
	r := sc.rec[int(k)*sc.stride : int(k)*sc.stride+sc.stride]
	var sum int64
	var bad uint64
	for i := range sc.sum {
		e := &sc.sum[i]
		v, ok := inc.score1(ctx, pod, e, ni, k)
		if !ok {
			return false
		}
		bad |= scoreBits(v)
		sum += e.sp.weight * v
	}
	for i := range sc.norm {
		v, ok := inc.score1(ctx, pod, &sc.norm[i], ni, k)
		if !ok {
			return false
		}
		sc.off[i] += b2i(v != 0) - b2i(r[1+i] != 0)
		r[1+i] = v
	}
	bad &^= scoreMask
	sc.nBad += b2i(bad != 0) - b2i(r[0] != 0)
	sc.sums[k], r[0] = sum, int64(bad)
	inc.fresh[k>>6] |= 1 << (k & 63)
	return true
}

// b2i is 1 for true, 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// score1 is e's raw score of ni, snapshot node k (its batch form on one
// node when it has one, as the runner calls it).
func (inc *Incremental) score1(ctx context.Context, pod *framework.PodInfo, e *incScorePlugin, ni *framework.NodeInfo, k int32) (int64, bool) {
	if e.batch != nil {
		sc := &inc.sc
		sc.one[0], sc.oneIdx[0] = ni, k
		st := e.batch.ScoreBatch(ctx, inc.state, pod, sc.one[:], sc.oneIdx[:], sc.out[:])
		sc.one[0] = nil
		return sc.out[0], st == nil || st.Code() == framework.Success
	}
	v, st := e.call.Score(ctx, inc.state, pod, ni)
	return v, st == nil || st.Code() == framework.Success
}
