package tainttoleration

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"sync/atomic"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/fastpath"
	"github.com/schedkit/schedkit/scoring"
)

// ttPreScoreKey is kube's "PreScore"+TaintToleration state key.
const ttPreScoreKey framework.StateKey = "PreScore" + config.TaintTolerationName

type ttPreScoreState struct {
	tolerations []api.Toleration
	// wide holds the intolerable counts of the snapshot's taint classes
	// when there are more than ttMaskClasses (classCounts): taken by the
	// first score chunk of a cycle, or kept across cycles by the state
	// the plugin shares between pods without such tolerations.
	wide atomic.Pointer[ttClassCounts]
}

// ttClassCounts are the intolerable PreferNoSchedule taints of each class
// of one snapshot's taint classes, for one pod's tolerations.
type ttClassCounts struct {
	classes *framework.TaintClasses
	counts  []int64
}

// classCounts returns the count of each of tc's classes, computing them
// on the first call for tc. Chunks on several workers may each compute
// them at once; the counts are equal.
func (s *ttPreScoreState) classCounts(tc *framework.TaintClasses) []int64 {
	if c := s.wide.Load(); c != nil && c.classes == tc {
		return c.counts
	}
	c := &ttClassCounts{classes: tc, counts: make([]int64, len(tc.Taints))}
	for k, taints := range tc.Taints {
		c.counts[k] = ttIntolerable(s.tolerations, taints)
	}
	s.wide.Store(c)
	return c.counts
}

// Clone returns the state itself; it is read-only.
func (s *ttPreScoreState) Clone() framework.StateData { return s }

var _ fastpath.CycleScopedPreScorePlugin = (*TaintToleration)(nil)

// PreScoreNodesInCycle marks the plugin as one that uses the nodes PreScore
// receives within the cycle only: it reads no node in PreScore.
func (pl *TaintToleration) PreScoreNodesInCycle() {}

// PreScore keeps the pod's tolerations whose effect is empty or
// PreferNoSchedule.
func (pl *TaintToleration) PreScore(_ context.Context, state *framework.CycleState, pod *framework.PodInfo, _ []*framework.NodeInfo) *framework.Status {
	var tols []api.Toleration
	for _, t := range pod.Pod.Spec.Tolerations {
		if t.Effect == "" || t.Effect == api.TaintEffectPreferNoSchedule {
			tols = append(tols, t)
		}
	}
	if len(tols) == 0 && pl.noTolerations != nil {
		state.Write(ttPreScoreKey, pl.noTolerations)
		return nil
	}
	state.Write(ttPreScoreKey, &ttPreScoreState{tolerations: tols})
	return nil
}

// Score counts the intolerable PreferNoSchedule taints of node. Without
// PreScore state it returns an Error, as kube does.
func (pl *TaintToleration) Score(_ context.Context, state *framework.CycleState, _ *framework.PodInfo, node *framework.NodeInfo) (int64, *framework.Status) {
	s, st := ttReadPreScoreState(state)
	if st != nil {
		return 0, st
	}
	return ttIntolerable(s.tolerations, node.Node().Spec.Taints), nil
}

func ttReadPreScoreState(state *framework.CycleState) (*ttPreScoreState, *framework.Status) {
	d, err := state.Read(ttPreScoreKey)
	if err != nil {
		return nil, framework.AsStatus(fmt.Errorf("failed to read %q from cycleState: %w", ttPreScoreKey, err))
	}
	s, ok := d.(*ttPreScoreState)
	if !ok {
		return nil, framework.AsStatus(fmt.Errorf("%+v convert to tainttoleration.preScoreState error", d))
	}
	return s, nil
}

// ttIntolerable counts the PreferNoSchedule taints that tols do not
// tolerate.
func ttIntolerable(tols []api.Toleration, taints []api.Taint) int64 {
	var n int64
	for i := range taints {
		if taints[i].Effect == api.TaintEffectPreferNoSchedule && !api.TolerationsTolerateTaint(tols, &taints[i]) {
			n++
		}
	}
	return n
}

// ScoreBatch is Score over nodes (fastpath.BatchScorePlugin), reading the
// PreScore state once; an untainted node costs one length check. With the
// runner's snapshot indices, the count is taken once per taint class
// (Snapshot.TaintClasses), when there are few, and read by each node of
// the class.
func (pl *TaintToleration) ScoreBatch(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32, out []int64) *framework.Status {
	_, _, st := pl.ScoreBatchBounds(ctx, state, pod, nodes, idx, out)
	return st
}

var _ fastpath.BoundedBatchScorePlugin = (*TaintToleration)(nil)

// ScoreBatchBounds is ScoreBatch that also returns the least and greatest
// score it wrote (fastpath.BoundedBatchScorePlugin).
func (pl *TaintToleration) ScoreBatchBounds(_ context.Context, state *framework.CycleState, _ *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32, out []int64) (lo, hi int64, _ *framework.Status) {
	s, st := ttReadPreScoreState(state)
	if st != nil {
		return 0, 0, st
	}
	out = out[:len(nodes)]
	if idx != nil {
		tc := state.Snapshot().TaintClasses()
		if len(tc.Taints) > ttMaskClasses {
			lo, hi = ttClassScoresByTable(out, s.classCounts(tc), tc.Class, idx[:len(nodes)])
			return lo, hi, nil
		}
		var buf [ttMaskClasses]int64
		counts := buf[:len(tc.Taints)]
		for c, taints := range tc.Taints {
			counts[c] = ttIntolerable(s.tolerations, taints)
		}
		return ttClassScores(out, counts, tc.Class, idx[:len(nodes)])
	}
	for i, node := range nodes {
		var n int64
		if node.Tainted() {
			n = ttIntolerable(s.tolerations, node.Node().Spec.Taints)
		}
		out[i] = n
	}
	lo, hi = scoring.RowBounds(out)
	return lo, hi, nil
}

var _ fastpath.ConstantScorePlugin = (*TaintToleration)(nil)

// ConstantScore reports the count every node of the state's snapshot
// gives the pod (fastpath.ConstantScorePlugin): when each of the
// snapshot's taint lists holds as many PreferNoSchedule taints the pod
// does not tolerate (none, where no node has such a taint).
func (pl *TaintToleration) ConstantScore(_ context.Context, state *framework.CycleState, _ *framework.PodInfo) (int64, bool) {
	s, st := ttReadPreScoreState(state)
	snap := state.Snapshot()
	if st != nil || snap == nil {
		return 0, false
	}
	tc := snap.TaintClasses()
	if len(tc.Taints) > ttMaskClasses {
		counts := s.classCounts(tc)
		for _, n := range counts {
			if n != counts[0] {
				return 0, false
			}
		}
		return counts[0], len(counts) > 0
	}
	var v int64
	for c, taints := range tc.Taints {
		n := ttIntolerable(s.tolerations, taints)
		if c > 0 && n != v {
			return 0, false
		}
		v = n
	}
	return v, len(tc.Taints) > 0
}

// ttClassScores sets out[i] to the count of node idx[i]'s taint class and
// returns the least and greatest count written. The loop marks the
// classes met (len(counts) ≤ ttMaskClasses = 64) and the bounds are read
// from the marked classes' counts afterwards. It is not inlined, so that
// its loop keeps every value in a register.
//
//go:noinline
func ttClassScores(out, counts []int64, class, idx []int32) (lo, hi int64, _ *framework.Status) {
	out = out[:len(idx)]
	var met uint64
	for i, k := range idx {
		c := class[k]
		out[i] = counts[c]
		met |= 1 << (c & 63)
	}
	lo, hi = math.MaxInt64, math.MinInt64
	for ; met != 0; met &= met - 1 {
		v := counts[bits.TrailingZeros64(met)]
		lo, hi = min(lo, v), max(hi, v)
	}
	return lo, hi, nil
}

// ttClassScoresByTable is ttClassScores for more than ttMaskClasses
// classes: the bounds are kept as the loop goes.
//
//go:noinline
func ttClassScoresByTable(out, counts []int64, class, idx []int32) (lo, hi int64) {
	out = out[:len(idx)]
	lo, hi = math.MaxInt64, math.MinInt64
	for i, k := range idx {
		v := counts[class[k]]
		out[i] = v
		lo, hi = min(lo, v), max(hi, v)
	}
	return lo, hi
}

// ScoreExtensions returns the plugin itself (NormalizeScore).
func (pl *TaintToleration) ScoreExtensions() framework.ScoreExtensions { return pl }

// NormalizeScoreBatch is NormalizeScore over a row of scores
// (fastpath.BatchScoreExtensions).
func (pl *TaintToleration) NormalizeScoreBatch(_ context.Context, _ *framework.CycleState, _ *framework.PodInfo, _ []*framework.NodeInfo, scores []int64) *framework.Status {
	scoring.DefaultNormalizeRow(framework.MaxNodeScore, true, scores)
	return nil
}

// NormalizeScore applies DefaultNormalizeScore(100, reverse=true).
func (pl *TaintToleration) NormalizeScore(_ context.Context, _ *framework.CycleState, _ *framework.PodInfo, scores framework.NodeScoreList) *framework.Status {
	return framework.DefaultNormalizeScore(framework.MaxNodeScore, true, scores)
}

var _ fastpath.RangeNormalizer = (*TaintToleration)(nil)

// NormalizeRange is NormalizeScore's table (fastpath.RangeNormalizer):
// DefaultNormalizeScore(100, reverse=true).
func (pl *TaintToleration) NormalizeRange(_ context.Context, _ *framework.CycleState, _ *framework.PodInfo, lo int64, out []int64) bool {
	framework.DefaultNormalizeRange(framework.MaxNodeScore, true, lo, out)
	return true
}
