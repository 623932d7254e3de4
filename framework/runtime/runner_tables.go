package runtime

import "github.com/schedkit/schedkit/framework/fastpath"

// weighTables is scoreFeasible's NormalizeScore and weights step for a
// TotalsOnly cycle, into totals: the row of a plugin whose normalizer is
// a fastpath.RangeNormalizer is not normalized; its weighted table over
// the row's span (the bounds the plugin reported as it scored, else the
// row's) is looked up for each node and added to the node's total. A row
// of one score throughout (by its reported bounds), normalized through a
// table or not normalized, adds that score, weighted, to every total in
// the first pass over the nodes instead of a pass of its own. Every other
// row is normalized in place, as scoreFeasible does, and weighed as it
// is. A table entry outside [MinNodeScore, MaxNodeScore] or a span of nf
// or more sends the row to the in-place normalization. It reports false
// when a score was missing from its table (wrong bounds) or a weighed
// score is out of range, after normalizing every row in place: the caller
// then weighs them all as the plain path does. With res not nil, a
// weighing on the workers also ranks the totals for a Top of keep
// (res.pre), so that selectHost needs no pass of its own.
func (f *Framework) weighTables(bs *batchScratch, totals []int64, res *Result, keep int) (done bool, err error) {
	r := &bs.run
	nf := r.nf
	var nl normalizeList
	defer nl.release(f)
	bs.tables = grow(bs.tables, len(r.active)*nf)
	free := bs.tables
	adds, looks, lookedUp := bs.adds[:0], bs.looks[:0], bs.lookedUp[:0]
	var c int64 // the constant rows' weighted scores, every node's
	for p, sp := range r.active {
		if r.adders != nil && r.adders[p] != nil {
			continue // added to the totals as it scored
		}
		row := r.vals[p*nf : (p+1)*nf : (p+1)*nf]
		ext := sp.ScoreExtensions()
		if ext == nil {
			if lo, hi, ok := r.reportedBounds(p); ok && lo == hi && scoreBits(lo)&^scoreMask == 0 {
				c += sp.weight * lo
				continue
			}
			r.materialize(p)
			adds = append(adds, lookup{row: row, w: sp.weight})
			continue
		}
		if rn, ok := ext.(fastpath.RangeNormalizer); ok {
			lo, hi := r.rowBounds(p)
			if span := uint64(hi) - uint64(lo); hi >= lo && span < uint64(nf) {
				t := free[: span+1 : span+1]
				if rn.NormalizeRange(r.ctx, r.state, r.pod, lo, t) && weigh(t, t, sp.weight)&^scoreMask == 0 {
					lookedUp = append(lookedUp, p)
					if span == 0 {
						c += t[0]
						continue
					}
					free = free[span+1:]
					looks = append(looks, lookup{row: row, wt: t, lo: lo})
					continue
				}
			}
		}
		if err := f.normalizeRow(r, &nl, p); err != nil {
			return false, err
		}
		adds = append(adds, lookup{row: row, w: sp.weight})
	}
	bs.adds, bs.looks, bs.lookedUp = adds, looks, lookedUp
	bad, miss := f.weighAll(&bs.weigh, totals, adds, looks, c, r.adders != nil, res, keep)
	if !miss && bad&^scoreMask == 0 {
		return true, nil
	}
	for _, p := range lookedUp {
		if err := f.normalizeRow(r, &nl, p); err != nil {
			return false, err
		}
	}
	return false, nil
}

// weighLookups sets totals[j] to c + Σ w·row[j] over adds (adds that to
// totals[j] when accumulated), up to three rows per pass, and returns the
// or of the scores' scoreBits.
func weighLookups(totals []int64, adds []lookup, c int64, accumulated bool) (bad uint64) {
	bad, _ = weighRange(totals, adds, nil, c, accumulated, 0, len(totals))
	return bad
}

// addLooked2 is addLooked of a and b in one pass.
//
//go:noinline
func addLooked2(totals []int64, a, b *lookup) (miss bool) {
	ra, wa, la := a.row[:len(totals)], a.wt, a.lo
	rb, wb, lb := b.row[:len(totals)], b.wt, b.lo
	na, nb := uint64(len(wa)), uint64(len(wb))
	for j, v := range ra {
		i, k := uint64(v-la), uint64(rb[j]-lb)
		if i >= na || k >= nb {
			return true
		}
		totals[j] += wa[i] + wb[k]
	}
	return false
}
