package framework

import (
	"context"
	"math"
)

// incScorer is Incremental's scoring of a cycle's feasible nodes: the
// totals scoreFeasible would give, computed from a cache per node and one
// table per normalizing plugin (RangeNormalizer) instead of per-plugin
// rows normalized in place.
//
// The node-local Score plugins (NodeLocalPlugin) are split in two: those
// that do not normalize (sum) contribute their weighted raw scores, which
// are their final scores, and those that normalize (norm) their raw
// scores, to be normalized over the cycle's nodes. Per snapshot node k,
// rec[k*stride:] holds the weighted sum of the first, the or of their
// raw scores' scoreBits outside scoreMask (not 0: some score is out of
// range), then the raw score of each of the second; it is valid while
// Incremental.rawNode[k] is the node's NodeInfo (syncChanges drops the
// entries of the nodes the snapshot changed). The other Score plugins
// (others) run every cycle.
type incScorer struct {
	planned bool // the plugins are sorted (the first cycle that scored)
	sum     []incScorePlugin
	norm    []incScorePlugin
	others  []incScorePlugin
	stride  int
	rec     []int64
	// off[s] counts the snapshot nodes whose record holds a raw score of
	// norm[s] other than 0 (valid records or not): while it is 0, every
	// cached node scores 0 and the row costs nothing per node.
	off []int
	// nBad counts the snapshot nodes whose record's second entry is not 0.
	nBad int

	// The active others (as scoreRun wants them) and the names and
	// weights of the plugins that score, in profile order, while actValid
	// (until the skipped plugins change); per cycle: the rows of
	// norm then of the active others (nf scores each), a table, and the
	// list handed to a NormalizeScore without a batch form.
	act      []scorePlugin
	calls    []ScorePlugin
	batches  []BatchScorePlugin
	actIx    []int
	names    []string
	weights  []int64
	actValid bool
	rows     []int64
	lo, hi   []int64 // the bounds of the rows, where known
	known    []bool  // known[s]: lo[s] and hi[s] are row s's bounds
	tables   []int64 // the rows' RangeNormalizer tables (weighted in looks)
	looks    []lookup
	adds     []lookup // the rows added after the looked-up ones
	list     NodeScoreList
	one      [1]*NodeInfo
	oneIdx   [1]int32
	out      [1]int64
}

// lookup is a row of scores added to the totals: w·row[j], or, when wt
// is not nil, a lookup in the table wt of normalized scores: wt[row[j]−lo]
// (in looks, whose tables hold weighted scores) or w·wt[row[j]−lo] (in
// adds).
type lookup struct {
	row []int64
	wt  []int64
	lo  int64
	w   int64
}

// incScorePlugin is a Score plugin as incScorer runs it.
type incScorePlugin struct {
	sp      scorePlugin             // the profile's entry (name, weight, ScoreExtensions)
	at      int                     // its index in the profile's Score plugins
	call    ScorePlugin             // a ScoreForwarder's target
	batch   BatchScorePlugin        // call's batch form, if any
	bounded BoundedBatchScorePlugin // call's batch form with bounds, if any
	ext     ScoreExtensions         // sp's, nil when it does not normalize
	bext    BatchScoreExtensions
	ranged  RangeNormalizer
}

func newIncScorePlugin(sp scorePlugin, at int) incScorePlugin {
	call := sp.ScorePlugin
	if fw, ok := call.(ScoreForwarder); ok {
		call = fw.ScoreTarget()
	}
	e := incScorePlugin{sp: sp, at: at, call: call, ext: sp.ScoreExtensions()}
	e.batch, _ = call.(BatchScorePlugin)
	e.bounded, _ = call.(BoundedBatchScorePlugin)
	e.bext, _ = e.ext.(BatchScoreExtensions)
	e.ranged, _ = e.ext.(RangeNormalizer)
	return e
}

// plan sorts the Score plugins for the cycles to come, at the first cycle
// that scores: a node-local plugin's PreScore, and so whether it skips,
// does not run again, so those that score now score every cycle.
func (sc *incScorer) plan(f *Framework, pod *PodInfo, skip map[string]bool, nodes int) {
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
	sc.stride = 2 + len(sc.norm)
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
// Normalized and Raw empty; false, before res's ranking, when it cannot
// vouch for them: a plugin failed (Score or NormalizeScore), a score is
// out of range or outside the bounds its plugin reported
// (BoundedBatchScorePlugin), the nodes are not the snapshot's own, or ctx
// is done.
// Schedule then reports the failure.
func (inc *Incremental) score(ctx context.Context, pod *PodInfo, res *Result) bool {
	sc, state := &inc.sc, inc.state
	nodes, idx := res.feasibleNodes(), res.feasibleIndices()
	nf := len(nodes)
	if idx == nil || len(idx) != nf || !sc.planned {
		return false
	}
	if !sc.actValid {
		sc.activate(inc.f, inc.skipScore)
	}
	res.ScorePlugins, res.Weights = append(res.ScorePlugins[:0], sc.names...), append(res.Weights[:0], sc.weights...)
	nn, na := len(sc.norm), len(sc.act)
	nr := nn + na
	sc.rows = grow(sc.rows, nr*nf)
	totals := res.Totals[:nf]

	// The cached part: the nodes whose record is stale are scored again
	// (the loop that finds them makes no call); the non-normalizing
	// node-local plugins' weighted sum is added in the totals pass below,
	// their out-of-range flags read here while some record has one.
	var bad uint64
	var constant int64 // the part every node gets (rows of one score)
	rec, stride, rawNode := sc.rec, sc.stride, inc.rawNode
	for j := staleFrom(rawNode, idx, 0); j < nf; j = staleFrom(rawNode, idx, j+1) {
		if !inc.scoreNode(ctx, pod, nodes[j], idx[j]) {
			return false
		}
	}
	if sc.nBad != 0 {
		for _, k := range idx {
			bad |= uint64(rec[int(k)*stride+1])
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
		return false
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
				return false
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
				// A table with a score out of range is looked up
				// score by score (only the nodes' own scores count).
				if tableBits(t)&^scoreMask == 0 {
					for i, c := range t {
						t[i] = w * c
					}
					sc.looks = append(sc.looks, lookup{row: row, wt: t, lo: lo})
				} else {
					sc.adds = append(sc.adds, lookup{row: row, wt: t, lo: lo, w: w})
				}
				continue
			}
		}
		if s < nn && sc.off[s] == 0 {
			sc.gather(s, idx, nf) // skipped above
		}
		if !sc.normalize(ctx, state, pod, e, nodes, row) {
			return false
		}
		sc.adds = append(sc.adds, lookup{row: row, w: w})
	}
	// The totals: the cached sums, the part every node gets (constant)
	// and the first looked-up row in one pass, then the other rows.
	looks := sc.looks
	var miss bool
	if len(looks) == 0 {
		cachedSums(totals, rec, stride, idx, constant)
	} else {
		miss = cachedSumsLooked1(totals, rec, stride, idx, constant, &looks[0])
		for i := 1; i < len(looks) && !miss; i++ {
			miss = addLooked(totals, &looks[i])
		}
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
	return !miss && bad&^scoreMask == 0 && ctx.Err() == nil
}

// scoreOthers has the active others score nodes (snapshot indices idx)
// into their rows, as scoreFeasible runs them; false when one fails. A
// sequential run calls each plugin once over all the nodes, and keeps
// the bounds a BoundedBatchScorePlugin reports.
func (inc *Incremental) scoreOthers(ctx context.Context, pod *PodInfo, nodes []*NodeInfo, idx []int32) bool {
	sc, f, nf := &inc.sc, inc.f, len(nodes)
	nn := len(sc.norm)
	if chunk := f.chunkSize(nf, nf); f.parallelism > 1 && nf > chunk {
		bs := f.getBatchScratch()
		r := &bs.run
		*r = scoreRun{ctx: ctx, state: inc.state, pod: pod, nodes: nodes, idx: idx, vals: sc.rows[nn*nf:], nf: nf,
			active: sc.act, calls: sc.calls, batches: sc.batches}
		f.runScoreChunks(r, nf)
		failed := r.failed.Load()
		r.release()
		f.batch.Put(bs)
		return !failed
	}
	for p, o := range sc.actIx {
		e, s := &sc.others[o], nn+p
		row := sc.rows[s*nf : (s+1)*nf : (s+1)*nf]
		var st *Status
		switch {
		case e.bounded != nil:
			sc.lo[s], sc.hi[s], st = e.bounded.ScoreBatchBounds(ctx, inc.state, pod, nodes, idx, row)
			sc.known[s] = true
		case e.batch != nil:
			st = e.batch.ScoreBatch(ctx, inc.state, pod, nodes, idx, row)
		default:
			for j, ni := range nodes {
				if row[j], st = e.call.Score(ctx, inc.state, pod, ni); st != nil && st.code != Success {
					break
				}
			}
		}
		if st != nil && st.code != Success {
			return false
		}
	}
	return true
}

// staleFrom returns the first position j ≥ from whose node's record is
// stale (rawNode[idx[j]] is nil), or len(idx). A record that is not nil
// is the snapshot node's own: rawNode[k] is set to snapshot node k when
// its record is written, and dropped (syncChanges, from the snapshot's
// journal) whenever that node changes, which is the only way a snapshot
// node's NodeInfo pointer changes (Snapshot.changeSeq).
//
//go:noinline
func staleFrom(rawNode []*NodeInfo, idx []int32, from int) int {
	for j := from; j < len(idx); j++ {
		if rawNode[idx[j]] == nil {
			return j
		}
	}
	return len(idx)
}

// gather copies norm[s]'s cached raw scores of the snapshot nodes idx
// (nf of them) to its row and returns their bounds.
func (sc *incScorer) gather(s int, idx []int32, nf int) (lo, hi int64) {
	row := sc.rows[s*nf : (s+1)*nf : (s+1)*nf]
	rec, stride := sc.rec, sc.stride
	lo, hi = math.MaxInt64, math.MinInt64
	for j, k := range idx[:nf] {
		v := rec[int(k)*stride+2+s]
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
func (sc *incScorer) normalize(ctx context.Context, state *CycleState, pod *PodInfo, e *incScorePlugin, nodes []*NodeInfo, row []int64) bool {
	if e.bext != nil {
		return e.bext.NormalizeScoreBatch(ctx, state, pod, nodes, row).IsSuccess()
	}
	sc.list = grow(sc.list, len(row))
	for j, ni := range nodes {
		sc.list[j] = NodeScore{Name: ni.Name(), Score: row[j]}
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

// tableBits returns the or of table's scores' scoreBits.
func tableBits(table []int64) (bad uint64) {
	for _, s := range table {
		bad |= scoreBits(s)
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

// cachedSums sets totals[j] to the cached weighted sum of snapshot node
// idx[j] plus c. This loop, cachedSumsLooked1's, staleFrom's and
// addLooked's are not inlined: in score's body they would keep fewer of
// their slices in registers.
//
//go:noinline
func cachedSums(totals, rec []int64, stride int, idx []int32, c int64) {
	idx = idx[:len(totals)]
	for j, k := range idx {
		totals[j] = rec[int(k)*stride] + c
	}
}

// cachedSumsLooked1 is cachedSums that also adds the looked-up row a in
// the same pass; true when some score of a lies outside its table.
//
//go:noinline
func cachedSumsLooked1(totals, rec []int64, stride int, idx []int32, c int64, a *lookup) (miss bool) {
	idx, ra := idx[:len(totals)], a.row[:len(totals)]
	ta, la := a.wt, a.lo
	na := uint64(len(ta))
	for j, k := range idx {
		ia := uint64(ra[j] - la)
		if ia >= na {
			return true
		}
		totals[j] = rec[int(k)*stride] + c + ta[ia]
	}
	return false
}

// scoreNode computes the cached part of snapshot node k (ni): the
// node-local plugins' scores; false when one fails.
func (inc *Incremental) scoreNode(ctx context.Context, pod *PodInfo, ni *NodeInfo, k int32) bool {
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
		sc.off[i] += b2i(v != 0) - b2i(r[2+i] != 0)
		r[2+i] = v
	}
	bad &^= scoreMask
	sc.nBad += b2i(bad != 0) - b2i(r[1] != 0)
	r[0], r[1] = sum, int64(bad)
	inc.rawNode[k] = ni
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
func (inc *Incremental) score1(ctx context.Context, pod *PodInfo, e *incScorePlugin, ni *NodeInfo, k int32) (int64, bool) {
	if e.batch != nil {
		sc := &inc.sc
		sc.one[0], sc.oneIdx[0] = ni, k
		st := e.batch.ScoreBatch(ctx, inc.state, pod, sc.one[:], sc.oneIdx[:], sc.out[:])
		sc.one[0] = nil
		return sc.out[0], st == nil || st.code == Success
	}
	v, st := e.call.Score(ctx, inc.state, pod, ni)
	return v, st == nil || st.code == Success
}
