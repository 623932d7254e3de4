package runtime

import (
	"cmp"
	"math/bits"
	"slices"

	"github.com/schedkit/schedkit/framework"
)

// The passes over the feasible nodes after scoring — weighing the rows
// and tables into the totals (weighTables) and ranking the totals
// (selectHost) — run in chunks on the framework's workers when there are
// enough nodes, each chunk writing its own range of the totals and its
// own slot of the partial results, merged in chunk order afterwards, so
// that the outcome is the sequential one.

// weighRun is weighTables' pass over the nodes: totals[j] = c + Σ
// w·row[j] over adds (added to totals[j] when accumulated) + Σ the looks'
// table entries, reporting the or of the weighed scores' scoreBits and
// whether a row's score was missing from its table.
type weighRun struct {
	totals      []int64
	adds, looks []lookup
	c           int64
	accumulated bool
	// out[w] is worker w's or of scoreBits and misses.
	out []weighOut
}

// weighOut is one worker's part of a weighRun's outcome, on a cache line
// of its own.
type weighOut struct {
	bad  uint64
	miss bool
	_    [55]byte
}

// weighRange is the pass over totals[lo:hi].
func weighRange(totals []int64, adds, looks []lookup, c int64, accumulated bool, lo, hi int) (bad uint64, miss bool) {
	t := totals[lo:hi:hi]
	for i := 0; i < len(adds); {
		first := i == 0 && !accumulated
		switch len(adds) - i {
		case 1:
			bad |= weighRows1(t, adds[i].row[lo:hi], adds[i].w, first, c)
			i++
		case 2, 4:
			bad |= weighRows2(t, adds[i].row[lo:hi], adds[i+1].row[lo:hi], adds[i].w, adds[i+1].w, first, c)
			i += 2
		default:
			bad |= weighRows3(t, adds[i].row[lo:hi], adds[i+1].row[lo:hi], adds[i+2].row[lo:hi], adds[i].w, adds[i+1].w, adds[i+2].w, first, c)
			i += 3
		}
		c = 0 // added by the first pass
	}
	switch {
	case len(adds) > 0:
	case !accumulated:
		for j := range t {
			t[j] = c
		}
	case c != 0:
		addConstant(t, c)
	}
	for i := 0; i < len(looks) && !miss; i += 2 {
		a := lookup{row: looks[i].row[lo:hi], wt: looks[i].wt, lo: looks[i].lo}
		if i+1 < len(looks) {
			b := lookup{row: looks[i+1].row[lo:hi], wt: looks[i+1].wt, lo: looks[i+1].lo}
			miss = addLooked2(t, &a, &b)
		} else {
			miss = addLooked(t, &a)
		}
	}
	return bad, miss
}

// addConstant adds c to every entry of t, four entries a loop step, so
// that the loop's own count, compare and branch, most of a pass that only
// adds, run once for four entries.
func addConstant(t []int64, c int64) {
	j := 0
	for ; j+4 <= len(t); j += 4 {
		q := t[j : j+4 : j+4]
		q[0] += c
		q[1] += c
		q[2] += c
		q[3] += c
	}
	for ; j < len(t); j++ {
		t[j] += c
	}
}

// Chunk weighs totals[lo:hi] on worker w.
func (r *weighRun) Chunk(w, lo, hi int) bool {
	bad, miss := weighRange(r.totals, r.adds, r.looks, r.c, r.accumulated, lo, hi)
	o := &r.out[w]
	o.bad |= bad
	o.miss = o.miss || miss
	return false
}

// weighAll runs weighRange over all of totals, in chunks on the workers
// when they are enough, and returns the or of the scoreBits and whether a
// score missed its table. With res not nil and the pass on the workers,
// each chunk also ranks its totals, for a Top of keep, merged into
// res.pre (valid when nothing is out of range or missed), so that
// selectHost needs no pass of its own.
func (f *Framework) weighAll(wr *weighRankRun, totals []int64, adds, looks []lookup, c int64, accumulated bool, res *Result, keep int) (bad uint64, miss bool) {
	n := len(totals)
	pool, chunk := f.pass(n)
	if pool == nil {
		return weighRange(totals, adds, looks, c, accumulated, 0, n)
	}
	out := grow(wr.weigh.out, pool.Size())
	clear(out)
	wr.weigh = weighRun{totals: totals, adds: adds, looks: looks, c: c, accumulated: accumulated, out: out}
	wr.ranks = res != nil
	if wr.ranks {
		res.ties = grow(res.ties, n)
		wr.rank.begin(totals, res.ties, keep, chunk)
	}
	pool.Ordered(n, chunk, wr)
	for i := range out {
		bad |= out[i].bad
		miss = miss || out[i].miss
	}
	wr.weigh = weighRun{out: out}
	if wr.ranks {
		if !miss && bad&^scoreMask == 0 {
			res.pre.keep = keep
			res.pre.best, res.pre.cnt, res.pre.top = wr.rank.merge(res.pre.top[:0])
		}
		wr.rank.totals, wr.rank.ties = nil, nil
	}
	return bad, miss
}

// weighRankRun is weighRun with, when ranks is set, each chunk's totals
// ranked as soon as they are weighed (rank), while they are in the
// worker's cache.
type weighRankRun struct {
	weigh weighRun
	rank  rankRun
	ranks bool
}

// Chunk weighs, and ranks, totals[lo:hi] on worker w.
func (r *weighRankRun) Chunk(w, lo, hi int) bool {
	r.weigh.Chunk(w, lo, hi)
	if r.ranks {
		return r.rank.Chunk(w, lo, hi)
	}
	return false
}

// rankRun ranks the totals chunk by chunk: chunk c's best total, the
// count of its totals equal to it (their positions written to
// ties[lo:lo+cnt], lo its start) and its keep best entries.
type rankRun struct {
	totals []int64
	ties   []int32
	keep   int
	chunk  int
	best   []int64
	cnt    []int
	top    []rankedPos // chunk c's at [c·keep, c·keep+tops[c])
	tops   []int
}

// Chunk ranks totals[lo:hi].
func (r *rankRun) Chunk(_, lo, hi int) bool {
	c := lo / r.chunk
	top := r.top[c*r.keep : c*r.keep : (c+1)*r.keep]
	best, cnt, top := rankTotals(r.totals[lo:hi], top, r.keep, r.ties[lo:hi])
	for i := range top {
		top[i].pos += lo
	}
	for i := range cnt {
		r.ties[lo+i] += int32(lo)
	}
	r.best[c], r.cnt[c], r.tops[c] = best, cnt, len(top)
	return false
}

// rankParallel is rankTotals over totals in chunks on the workers, when
// they are enough (false otherwise): the best total, its count (the tied
// positions in ties[:cnt], in position order) and the keep best entries,
// merged from the chunks' in chunk order.
func (r *Result) rankParallel(top []rankedPos, keep int) (best int64, cnt int, _ []rankedPos, ok bool) {
	f, totals := r.fw, r.Totals
	if f == nil {
		return 0, 0, top, false
	}
	n := len(totals)
	pool, chunk := f.pass(n)
	if pool == nil {
		return 0, 0, top, false
	}
	rr := &r.rank
	rr.begin(totals, r.ties, keep, chunk)
	pool.Ordered(n, chunk, rr)
	best, cnt, top = rr.merge(top)
	return best, cnt, top, true
}

// begin readies r to rank totals (ties covering them) for keep best
// entries, in chunks of chunk, keeping its buffers.
func (r *rankRun) begin(totals []int64, ties []int32, keep, chunk int) {
	chunks := (len(totals) + chunk - 1) / chunk
	*r = rankRun{totals: totals, ties: ties, keep: keep, chunk: chunk,
		best: grow(r.best, chunks), cnt: grow(r.cnt, chunks), top: grow(r.top, chunks*keep), tops: grow(r.tops, chunks)}
}

// merge merges the ranked chunks in chunk order: the best total, its
// count (the tied positions moved to ties[:cnt], in position order) and
// the keep best entries (appended to top), as rankTotals ranks them all
// at once.
func (r *rankRun) merge(top []rankedPos) (best int64, cnt int, _ []rankedPos) {
	best = r.best[0]
	for _, b := range r.best {
		best = max(best, b)
	}
	all := r.top[:0]
	for c := range r.best {
		if r.best[c] == best {
			lo := c * r.chunk
			cnt += copy(r.ties[cnt:], r.ties[lo:lo+r.cnt[c]])
		}
		all = append(all, r.top[c*r.keep:c*r.keep+r.tops[c]]...) // in place: all never passes chunk c's entries
	}
	slices.SortFunc(all, func(a, b rankedPos) int {
		if c := cmp.Compare(b.total, a.total); c != 0 {
			return c
		}
		return cmp.Compare(a.pos, b.pos)
	})
	top = append(top, all[:min(r.keep, len(all))]...)
	r.totals, r.ties = nil, nil
	return best, cnt, top
}

// sumRun is sumsRanked's pass without the ranking, in chunks on the
// workers: totals[j] = sums[idx[j]] + c plus the looks' table entries,
// reporting whether a score was missing from its table.
type sumRun struct {
	totals, sums []int64
	idx          []int32
	c            int64
	looks        []lookup
	out          []weighOut
}

// Chunk sums totals[lo:hi] on worker w.
func (r *sumRun) Chunk(w, lo, hi int) bool {
	t, ix := r.totals[lo:hi:hi], r.idx[lo:hi:hi]
	miss := false
	if len(r.looks) == 0 {
		sums, c := r.sums, r.c
		for j, k := range ix {
			t[j] = sums[k] + c
		}
	} else {
		a := lookup{row: r.looks[0].row[lo:hi], wt: r.looks[0].wt, lo: r.looks[0].lo}
		miss = sumsLooked1(t, r.sums, ix, r.c, &a)
		for i := 1; i < len(r.looks) && !miss; i++ {
			a = lookup{row: r.looks[i].row[lo:hi], wt: r.looks[i].wt, lo: r.looks[i].lo}
			miss = addLooked(t, &a)
		}
	}
	if miss {
		r.out[w].miss = true
	}
	return false
}

// sumsAll runs sumRun over all of totals on the workers, in chunks of
// chunk, and reports whether a score missed its table.
func (f *Framework) sumsAll(sr *sumRun, totals, sums []int64, idx []int32, c int64, looks []lookup, chunk int) (miss bool) {
	out := sr.begin(f, totals, sums, idx, c, looks)
	f.pool.Ordered(len(totals), chunk, sr)
	return sr.end(out)
}

// begin readies r for a pass on f's workers, keeping its buffers, and
// returns its outcomes' slots.
func (r *sumRun) begin(f *Framework, totals, sums []int64, idx []int32, c int64, looks []lookup) []weighOut {
	out := grow(r.out, f.pool.Size())
	clear(out)
	*r = sumRun{totals: totals, sums: sums, idx: idx, c: c, looks: looks, out: out}
	return out
}

// end reports whether some chunk missed a table, and lets go of the
// pass's slices.
func (r *sumRun) end(out []weighOut) (miss bool) {
	for i := range out {
		miss = miss || out[i].miss
	}
	*r = sumRun{out: out}
	return miss
}

// sumRankRun is sumsRanked's pass in chunks on the workers: each chunk
// sums its totals (sum) and ranks them (rank), and the chunks' rankings
// merge in chunk order afterwards, as one pass and one join.
type sumRankRun struct {
	sum  sumRun
	rank rankRun
}

// Chunk sums and ranks totals[lo:hi] on worker w.
func (r *sumRankRun) Chunk(w, lo, hi int) bool {
	r.sum.Chunk(w, lo, hi)
	return r.rank.Chunk(w, lo, hi)
}

// sumsRankedAll is sumsRanked on f's workers, in chunks of chunk: it
// sets totals, ranks them for rk (started: its keep, its ties and its
// top's buffer) and reports whether a score missed its table (the
// ranking is then meaningless).
func (f *Framework) sumsRankedAll(sr *sumRankRun, totals, sums []int64, idx []int32, c int64, looks []lookup, rk *ranker, chunk int) (miss bool) {
	out := sr.sum.begin(f, totals, sums, idx, c, looks)
	sr.rank.begin(totals, rk.ties, rk.keep, chunk)
	f.pool.Ordered(len(totals), chunk, sr)
	if miss = sr.sum.end(out); !miss {
		rk.best, rk.cnt, rk.top = sr.rank.merge(rk.top[:0])
	}
	sr.rank.totals, sr.rank.ties = nil, nil
	return miss
}

// placeRun is placeFeasible in chunks of words on the workers: chunk c,
// the words [c·words, (c+1)·words) of rejected, writes its feasible
// positions from off[c] on (off[c] counts the feasible positions of the
// words before), then their snapshot indices when the candidates are
// narrowed (candIdx).
type placeRun struct {
	rejected   []uint64
	cut, start int
	candidates []*framework.NodeInfo
	runs       []int32
	candIdx    []int32
	feasible   []int32
	idx        []int32
	list       nodeWords
	words      int
	off        []int
}

// Chunk places the words [lo, hi).
func (p *placeRun) Chunk(_, lo, hi int) bool {
	c := lo / p.words
	o, e := p.off[c], p.off[c+1]
	placeWords(p.rejected, lo, hi, p.cut, p.start, p.candidates, p.runs, p.feasible[o:e:e], p.idx[o:e:e], p.list[o:e:e])
	if p.candIdx != nil {
		idx := p.idx[o:e:e]
		for i, k := range idx {
			idx[i] = p.candIdx[k]
		}
	}
	return false
}

// place is placeFeasible followed by the mapping of idx through candIdx
// (when not nil), in chunks of words on the workers when the positions up
// to cut are enough for them and the filter loop that wrote rejected ran
// on the workers too. After a filter loop on the caller's goroutine alone
// (a sampled loop expected too short to share, an incremental
// evaluator's walk of its cache), the bitmap is in the caller's cache and
// the helpers asleep or idle: waking one for a pass of a few microseconds
// would keep it spinning beside the cycles that follow.
func (r *Result) place(rejected []uint64, cut, start int, candidates []*framework.NodeInfo, runs, candIdx, feasible, idx []int32, list nodeWords) {
	if f := r.fw; f != nil && r.filterWidth > 1 {
		if pool, chunk := f.pass(cut); pool != nil {
			words := chunk / 64 // chunk is a multiple of 64 on more than one worker
			nw := len(rejected)
			chunks := (nw + words - 1) / words
			off := grow(r.placeOff, chunks+1)
			off[0] = 0
			for c := range chunks {
				cnt := 0
				for i := c * words; i < min((c+1)*words, nw); i++ {
					f := ^rejected[i]
					if rest := cut - i<<6; rest < 64 {
						f &= 1<<rest - 1
					}
					cnt += bits.OnesCount64(f)
				}
				off[c+1] = off[c] + cnt
			}
			pr := &r.placing
			*pr = placeRun{rejected: rejected, cut: cut, start: start, candidates: candidates, runs: runs, candIdx: candIdx,
				feasible: feasible, idx: idx, list: list, words: words, off: off}
			pool.Ordered(nw, words, pr)
			*pr = placeRun{}
			r.placeOff = off
			return
		}
	}
	placeFeasible(rejected, cut, start, candidates, runs, feasible, idx, list)
	if candIdx != nil {
		for i, k := range idx {
			idx[i] = candIdx[k]
		}
	}
}
