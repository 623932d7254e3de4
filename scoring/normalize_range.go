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
	diff := int64(len(out)) - 1
	for i := range out {
		f := float64(0)
		if diff > 0 {
			f = float64(framework.MaxNodeScore) * (float64(int64(i)) / float64(diff))
		}
		out[i] = int64(f)
	}
	return true
}
