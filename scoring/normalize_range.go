package scoring

import (
	"context"

	"github.com/schedkit/schedkit/framework"
)

// The normalizations of TaintToleration, NodeAffinity and InterPodAffinity
// depend on a row's least and greatest score alone: each gives its table
// of normalized scores (framework.RangeNormalizer), so that an evaluator
// that knows a row's bounds normalizes it with one lookup per node.

var (
	_ framework.RangeNormalizer = (*TaintToleration)(nil)
	_ framework.RangeNormalizer = (*NodeAffinity)(nil)
	_ framework.RangeNormalizer = (*InterPodAffinity)(nil)
)

// NormalizeRange is NormalizeScore's table (framework.RangeNormalizer):
// DefaultNormalizeScore(100, reverse=true).
func (pl *TaintToleration) NormalizeRange(_ context.Context, _ *framework.CycleState, _ *framework.PodInfo, lo int64, out []int64) bool {
	framework.DefaultNormalizeRange(framework.MaxNodeScore, true, lo, out)
	return true
}

// NormalizeRange is NormalizeScore's table (framework.RangeNormalizer):
// DefaultNormalizeScore(100, reverse=false).
func (pl *NodeAffinity) NormalizeRange(_ context.Context, _ *framework.CycleState, _ *framework.PodInfo, lo int64, out []int64) bool {
	framework.DefaultNormalizeRange(framework.MaxNodeScore, false, lo, out)
	return true
}

// NormalizeRange is NormalizeScore's table (framework.RangeNormalizer):
// the scores as they are when PreScore found no affinity terms, else
// int64(100 × (float64(s − lo) / float64(hi − lo))), 0 when hi == lo, with
// the float arithmetic of NormalizeScore. It reports false when the cycle
// state holds no PreScore state (NormalizeScore then fails).
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
	ipaNormalizeTable(out)
	return true
}

// ipaNormalizeTable sets out[i] to ipaNormalizeOne(i, len(out)−1), the
// float arithmetic of NormalizeScore, without a division per entry: for
// a span d below 2³², 100·i/d is stepped in integers (quotient q,
// remainder r). Where r ≠ 0 the exact quotient lies at least 1/d from an
// integer while the two float roundings move it by under
// 100·2⁻⁵² ≈ 2.2·10⁻¹⁴, so it truncates to q. Where r == 0, i/d is q/100
// exactly, whose correctly rounded quotient is the same float as
// float64(q)/100, so the entry is ipaNormalizeOne(q, 100): q, or q − 1
// where the float falls short (29/100 gives 28), from ipaWholeShort.
func ipaNormalizeTable(out []int64) {
	d := int64(len(out)) - 1
	if d <= 0 || d >= 1<<32 {
		for i := range out {
			out[i] = ipaNormalizeOne(int64(i), d)
		}
		return
	}
	stepQ, stepR := framework.MaxNodeScore/d, framework.MaxNodeScore%d
	var q, r int64
	out[0] = 0
	for i := 1; i < len(out); i++ {
		q, r = q+stepQ, r+stepR
		if r >= d {
			q, r = q+1, r-d
		}
		short := ipaWholeShort[q&127]
		if r != 0 {
			short = 0
		}
		out[i] = q - short
	}
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
