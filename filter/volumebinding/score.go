package volumebinding

import (
	"context"
	"math"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/fastpath"
	"github.com/schedkit/schedkit/scoring"
)

var (
	_ framework.PreScorePlugin         = (*VolumeBinding)(nil)
	_ framework.ScorePlugin            = (*VolumeBinding)(nil)
	_ fastpath.BoundedBatchScorePlugin = (*VolumeBinding)(nil)
	_ fastpath.ConstantScorePlugin     = (*VolumeBinding)(nil)
)

var _ fastpath.CycleScopedPreScorePlugin = (*VolumeBinding)(nil)

// PreScoreNodesInCycle marks the plugin as one that uses the nodes PreScore
// receives within the cycle only: it reads no node in PreScore.
func (pl *VolumeBinding) PreScoreNodesInCycle() {}

// PreScore returns Skip unless capacity scoring is on.
func (pl *VolumeBinding) PreScore(_ context.Context, _ *framework.CycleState, _ *framework.PodInfo, _ []*framework.NodeInfo) *framework.Status {
	if !pl.enabled {
		return pl.skip
	}
	return nil
}

// Score is the node's storage score (0 for a pod without claims).
func (pl *VolumeBinding) Score(_ context.Context, state *framework.CycleState, _ *framework.PodInfo, node *framework.NodeInfo) (int64, *framework.Status) {
	s := pl.state(state)
	if s == nil {
		return 0, nil
	}
	return pl.nodeScore(s, node), nil
}

// ConstantScore reports the 0 a pod without claims scores on every node
// (fastpath.ConstantScorePlugin); kube v1.37 runs Score for such a pod
// on every node.
func (pl *VolumeBinding) ConstantScore(_ context.Context, state *framework.CycleState, _ *framework.PodInfo) (int64, bool) {
	return 0, pl.state(state) == nil
}

// state returns PreFilter's cycle state, nil when the plugin does not
// score or the pod has no claims (PreFilter skipped).
func (pl *VolumeBinding) state(state *framework.CycleState) *stateData {
	if !pl.enabled {
		return nil
	}
	d, err := state.Read(stateKey)
	if err != nil {
		return nil
	}
	s, _ := d.(*stateData)
	return s
}

func (pl *VolumeBinding) nodeScore(s *stateData, node *framework.NodeInfo) int64 {
	var buf [4]classStorage
	classes, ok := s.classStorage(node, true, buf[:0])
	if !ok {
		return 0
	}
	return vbNodeScore(pl.shape, classes)
}

// ScoreBatch is Score over nodes, reading the cycle state once: a pod
// without claims, which v1.37 scores on every node, costs one store per
// node.
func (pl *VolumeBinding) ScoreBatch(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32, out []int64) *framework.Status {
	_, _, st := pl.ScoreBatchBounds(ctx, state, pod, nodes, idx, out)
	return st
}

// ScoreBatchBounds is ScoreBatch that also returns the least and greatest
// score of the batch.
func (pl *VolumeBinding) ScoreBatchBounds(_ context.Context, state *framework.CycleState, _ *framework.PodInfo, nodes []*framework.NodeInfo, _ []int32, out []int64) (lo, hi int64, _ *framework.Status) {
	if len(nodes) == 0 {
		return 1, 0, nil
	}
	s := pl.state(state)
	if s == nil || len(s.delayed) == 0 {
		// Without claims to bind or provision no node has a class to
		// score: each scores 0, without reading its results.
		clear(out[:len(nodes)])
		return 0, 0, nil
	}
	lo, hi = math.MaxInt64, math.MinInt64
	for i, n := range nodes {
		v := pl.nodeScore(s, n)
		out[i] = v
		lo, hi = min(lo, v), max(hi, v)
	}
	return lo, hi, nil
}

// vbNodeScore is kube's volumeCapacityScorer: the rounded mean over the
// classes of shape(utilization), a class's utilization being
// requested*100/capacity, or 100 when the capacity is 0 or exceeded; 0
// without classes.
func vbNodeScore(shape []scoring.ShapePoint, classes []classStorage) int64 {
	if len(classes) == 0 {
		return 0
	}
	var sum int64
	for _, c := range classes {
		u := int64(100)
		if c.Capacity != 0 && c.Requested <= c.Capacity {
			u = c.Requested * 100 / c.Capacity
		}
		sum += scoring.BrokenLinear(shape, u)
	}
	return int64(math.Round(float64(sum) / float64(len(classes))))
}

// ScoreExtensions returns nil.
func (pl *VolumeBinding) ScoreExtensions() framework.ScoreExtensions { return nil }
