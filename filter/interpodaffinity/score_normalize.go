package interpodaffinity

import (
	"context"
	"math/bits"
	"slices"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/fastpath"
)

var _ fastpath.RangeNormalizer = (*InterPodAffinity)(nil)

// NormalizeRange is NormalizeScore's table (fastpath.RangeNormalizer):
// the scores as they are when PreScore found no affinity terms, else
// int64(100 × (float64(s − lo) / float64(hi − lo))), 0 when hi == lo, with
// the float arithmetic of NormalizeScore. It reports false when the cycle
// state holds no PreScore state (NormalizeScore then fails). The table
// depends on the span alone: a state that PreScoreAfterAdd updates keeps
// the last one.
func (pl *InterPodAffinity) NormalizeRange(_ context.Context, state *framework.CycleState, _ *framework.PodInfo, lo int64, out []int64) bool {
	s, err := ipaReadScoreState(state)
	if err != nil {
		return false
	}
	if len(s.scores.keys) == 0 && (s.fast == nil || len(s.fast.keys) == 0) {
		for i := range out {
			out[i] = lo + int64(i)
		}
		return true
	}
	if s.walk == nil || s.fast == nil || s.fast.pool == nil {
		ipaNormalizeTable(out)
		return true
	}
	// A state PreScoreAfterAdd updates in place, cycle after cycle (its
	// own: Clone copies a state with recycled buffers): the table of the
	// last span is kept.
	if len(s.table) != len(out) {
		s.table = slices.Grow(s.table[:0], len(out))[:len(out)]
		ipaNormalizeTable(s.table)
	}
	copy(out, s.table)
	return true
}

// ipaNormalizeTable sets out[i] to ipaNormalizeOne(i, len(out)−1), the
// float arithmetic of NormalizeScore, without a division per entry
// (ipaDivider).
func ipaNormalizeTable(out []int64) {
	d := int64(len(out)) - 1
	if x, ok := ipaDividerFor(d); ok {
		for i := range out {
			out[i] = x.of(int64(i))
		}
		return
	}
	for i := range out {
		out[i] = ipaNormalizeOne(int64(i), d)
	}
}

// ipaDivMax bounds the spans ipaDivider serves: 100·d must stay below 2³².
const ipaDivMax = 1 << 25

// ipaDivider computes ipaNormalizeOne(v, d) for 0 ≤ v ≤ d, a span
// 2 ≤ d ≤ ipaDivMax, with a multiplication instead of NormalizeScore's
// float division. For 32-bit n = 100·v and c = ⌈2⁶⁴/d⌉, the high word of
// c·n is ⌊n/d⌋ and d divides n exactly when the low word is below c
// (Lemire, Kaser and Kurz, "Faster remainder by direct computation",
// 2019). Where d does not divide n, the exact quotient lies at least 1/d
// from an integer while the float's two roundings move it by under
// 100·2⁻⁵² ≈ 2.2·10⁻¹⁴, so the float truncates to ⌊n/d⌋ too. Where it
// does, v/d is q/100 exactly, whose correctly rounded quotient is the
// float of q/100, so the float gives ipaNormalizeOne(q, 100): q, or q − 1
// where it falls short (29/100 gives 28), from ipaWholeShort.
type ipaDivider struct{ c uint64 }

// ipaDividerFor returns the divider for span d, false when d is outside
// [2, ipaDivMax].
func ipaDividerFor(d int64) (ipaDivider, bool) {
	if d < 2 || d > ipaDivMax {
		return ipaDivider{}, false
	}
	return ipaDivider{c: ^uint64(0)/uint64(d) + 1}, true
}

// of returns ipaNormalizeOne(v, d) for 0 ≤ v ≤ d.
func (x ipaDivider) of(v int64) int64 {
	hi, lo := bits.Mul64(x.c, uint64(v)*uint64(framework.MaxNodeScore))
	short := ipaWholeShort[hi&127]
	if lo >= x.c {
		short = 0
	}
	return int64(hi) - short
}

// ipaWholeShort[q], q ≤ 100, is q − ipaNormalizeOne(q, 100): 1 where
// NormalizeScore's float arithmetic gives q − 1 for a node whose exact
// normalized score is the integer q.
var ipaWholeShort = func() (t [128]int64) {
	for q := range int64(framework.MaxNodeScore) + 1 {
		t[q] = q - ipaNormalizeOne(q, framework.MaxNodeScore)
	}
	return t
}()

// ipaNormalizeOne is NormalizeScore's score of a node v above the row's
// least, d the row's span: int64(100 × (float64(v) / float64(d))), 0
// when d == 0.
func ipaNormalizeOne(v, d int64) int64 {
	f := float64(0)
	if d > 0 {
		f = float64(framework.MaxNodeScore) * (float64(v) / float64(d))
	}
	return int64(f)
}
