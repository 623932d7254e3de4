package frameworktest_test

import (
	"context"
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/fastpath"
	"github.com/schedkit/schedkit/framework/frameworktest"
)

// HasZone is a user's plugin: its filter rejects nodes without a zone
// label, its score prefers nodes with fewer pods. Beside Filter and Score
// it offers a batch filter, a batch score, a node-local promise and a pod
// signature, each of which must decide as the plain form does.
type HasZone struct{}

var (
	_ fastpath.BatchFilterPlugin = HasZone{}
	_ fastpath.BatchScorePlugin  = HasZone{}
	_ fastpath.NodeLocalPlugin   = HasZone{}
	_ framework.SignPlugin       = HasZone{}
)

// Name returns the plugin's name.
func (HasZone) Name() string { return "HasZone" }

// Filter rejects a node without a zone label.
func (HasZone) Filter(_ context.Context, _ *framework.CycleState, _ *framework.PodInfo, n *framework.NodeInfo) *framework.Status {
	if _, ok := n.Node().Labels["topology.kubernetes.io/zone"]; !ok {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, "node has no zone")
	}
	return nil
}

// FilterBatch is Filter over many nodes.
func (pl HasZone) FilterBatch(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, _ []int32, out []*framework.Status) {
	for i, n := range nodes {
		out[i] = pl.Filter(ctx, state, pod, n)
	}
}

// Score is 100 less ten per pod on the node, at least 0.
func (HasZone) Score(_ context.Context, _ *framework.CycleState, _ *framework.PodInfo, n *framework.NodeInfo) (int64, *framework.Status) {
	return max(0, 100-10*int64(len(n.Pods))), nil
}

// ScoreBatch is Score over many nodes.
func (pl HasZone) ScoreBatch(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, _ []int32, out []int64) *framework.Status {
	for i, n := range nodes {
		out[i], _ = pl.Score(ctx, state, pod, n)
	}
	return nil
}

// ScoreExtensions is nil: the scores need no normalization.
func (HasZone) ScoreExtensions() framework.ScoreExtensions { return nil }

// NodeLocal is true: verdicts and scores read the node alone.
func (HasZone) NodeLocal(*framework.PodInfo) bool { return true }

// SignPod signs nothing of the pod: no verdict depends on it.
func (HasZone) SignPod(context.Context, *framework.PodInfo) ([]framework.SignFragment, *framework.Status) {
	return nil, nil
}

// A plugin's own test runs the harness with the plugin's constructor; it
// checks every fast form the plugin implements against Filter and Score on
// random clusters, and shrinks a failure to a minimal cluster.
func Example() {
	testHasZone := func(t *testing.T) {
		frameworktest.Run(t, func() (framework.Plugin, error) { return HasZone{}, nil })
	}
	_ = testHasZone // func TestHasZone(t *testing.T) in the plugin's package
}
