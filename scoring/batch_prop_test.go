package scoring

import (
	"context"
	"fmt"
	"testing"

	"github.com/schedkit/schedkit/config"
	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/internal/st"
	"pgregory.net/rapid"
)

// batchScorePlugins builds every score half, with default args and with
// drawn strategies and modes.
func batchScorePlugins(t *rapid.T) []fw.ScorePlugin {
	var out []fw.ScorePlugin
	add := func(p fw.Plugin, err error) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p.(fw.ScorePlugin))
	}
	add(NewTaintToleration(nil))
	add(NewNodeAffinity(config.DefaultNodeAffinityArgs(), nil))
	nrf := config.DefaultNodeResourcesFitArgs()
	strat := rapid.SampledFrom([]config.ScoringStrategyType{config.LeastAllocated, config.MostAllocated, config.RequestedToCapacityRatio}).Draw(t, "strategy")
	res := rapid.SampledFrom([][]config.ResourceSpec{
		{{Name: "cpu", Weight: 1}, {Name: "memory", Weight: 1}},
		{{Name: "cpu", Weight: 3}, {Name: "memory", Weight: 1}},
		{{Name: "memory", Weight: 1}, {Name: "cpu", Weight: 2}},
		{{Name: "cpu", Weight: 1}, {Name: "memory", Weight: 1}, {Name: "example.com/gpu", Weight: 2}},
		{{Name: "cpu", Weight: 1}, {Name: "ephemeral-storage", Weight: 1}},
	}).Draw(t, "resources")
	nrf.ScoringStrategy = &config.ScoringStrategy{Type: strat, Resources: res,
		RequestedToCapacityRatio: &config.RequestedToCapacityRatioParam{Shape: []config.UtilizationShapePoint{{Utilization: 0, Score: 0}, {Utilization: 100, Score: 10}}}}
	add(NewNodeResourcesFit(nrf, nil))
	add(NewNodeResourcesFit(config.DefaultNodeResourcesFitArgs(), nil))
	add(NewPodTopologySpread(config.DefaultPodTopologySpreadArgs(), nil))
	add(NewInterPodAffinity(config.DefaultInterPodAffinityArgs(), nil))
	ba := config.DefaultNodeResourcesBalancedAllocationArgs()
	ba.Mode = rapid.SampledFrom([]config.BalancedAllocationMode{config.BalancedAllocationDelta, config.BalancedAllocationStdDev, config.BalancedAllocationClassic}).Draw(t, "baMode")
	if ba.Mode != config.BalancedAllocationClassic { // Classic takes cpu and memory only
		ba.Resources = nil
		for _, r := range res {
			ba.Resources = append(ba.Resources, config.ResourceSpec{Name: r.Name, Weight: 1})
		}
	}
	add(NewNodeResourcesBalancedAllocation(ba, nil))
	add(NewNodeResourcesBalancedAllocation(config.DefaultNodeResourcesBalancedAllocationArgs(), nil))
	add(NewImageLocality(nil))
	return out
}

// batchCheckScore compares ScoreBatch over nodes, in chunks, with Score
// node by node: the same scores when Score succeeds everywhere, a failure
// when it fails somewhere.
func batchCheckScore(t *rapid.T, what string, pl fw.ScorePlugin, state *fw.CycleState, pod *fw.PodInfo, nodes []*fw.NodeInfo, chunk int) {
	b, ok := pl.(fw.BatchScorePlugin)
	if !ok {
		return
	}
	for lo := 0; lo < len(nodes); lo += chunk {
		hi := min(lo+chunk, len(nodes))
		out := make([]int64, hi-lo)
		bs := b.ScoreBatch(context.Background(), state, pod, nodes[lo:hi], out)
		var failed *fw.Status
		want := make([]int64, hi-lo)
		for i, n := range nodes[lo:hi] {
			v, s := pl.Score(context.Background(), state, pod, n)
			if !s.IsSuccess() && failed == nil {
				failed = s
			}
			want[i] = v
		}
		if bs.IsSuccess() != failed.IsSuccess() {
			t.Fatalf("%s %s nodes [%d,%d): ScoreBatch status %v, Score status %v", pl.Name(), what, lo, hi, bs, failed)
		}
		if !failed.IsSuccess() {
			continue
		}
		if fmt.Sprint(out) != fmt.Sprint(want) {
			t.Fatalf("%s %s nodes [%d,%d): ScoreBatch %v, Score %v", pl.Name(), what, lo, hi, out, want)
		}
	}
}

// TestPropScoreBatchEqualsScore: every score half that implements
// framework.BatchScorePlugin scores each node as Score does, over the
// snapshot's nodes, a subsequence of them (PreScore over the same list),
// copies of them, in chunks of any size, and without PreScore state.
func TestPropScoreBatchEqualsScore(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nodes, pods, incoming := st.BatchCluster(t)
		snap, err := fw.NewSnapshot(nodes, pods)
		if err != nil {
			t.Fatal(err)
		}
		pod := fw.MustPodInfo(incoming)
		all := snap.Nodes()
		var sub, copies []*fw.NodeInfo
		for _, n := range all {
			if rapid.Bool().Draw(t, "inSubset") {
				sub = append(sub, n)
			}
			if rapid.Bool().Draw(t, "copy") {
				n = n.Clone()
			}
			copies = append(copies, n)
		}
		chunk := rapid.IntRange(1, 8).Draw(t, "chunk")
		for _, pl := range batchScorePlugins(t) {
			bare := fw.NewCycleState()
			bare.SetSnapshot(snap)
			batchCheckScore(t, "without PreScore", pl, bare, pod, all, chunk)
			for _, list := range []struct {
				what  string
				nodes []*fw.NodeInfo
			}{{"all nodes", all}, {"subset", sub}, {"copies", copies}} {
				state := fw.NewCycleState()
				state.SetSnapshot(snap)
				if ps, ok := pl.(fw.PreScorePlugin); ok {
					if s := ps.PreScore(context.Background(), state, pod, list.nodes); !s.IsSuccess() {
						continue
					}
				}
				batchCheckScore(t, list.what, pl, state, pod, list.nodes, chunk)
			}
		}
	})
}
