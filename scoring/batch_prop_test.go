package scoring

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/schedkit/schedkit/config"
	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
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
	add(NewTaintToleration(nil, nil))
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
	nrf.ScoringStrategy = nrfStrategyArgs(strat, res, []config.UtilizationShapePoint{{Utilization: 0, Score: 0}, {Utilization: 100, Score: 10}})
	add(NewNodeResourcesFit(nrf, nil))
	add(NewNodeResourcesFit(config.DefaultNodeResourcesFitArgs(), nil))
	add(NewPodTopologySpread(config.DefaultPodTopologySpreadArgs(), nil))
	add(NewInterPodAffinity(config.DefaultInterPodAffinityArgs(), nil))
	add(newTargetLoadPacking(nil, trimaranNameLoads{}))
	add(newLoadVariationRiskBalancing(nil, trimaranNameLoads{}))
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
	add(NewImageLocality(nil, nil))
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
	idx := st.SnapshotIndices(state, nodes)
	for lo := 0; lo < len(nodes); lo += chunk {
		hi := min(lo+chunk, len(nodes))
		out := make([]int64, hi-lo)
		bs := b.ScoreBatch(context.Background(), state, pod, nodes[lo:hi], nil, out)
		batchCheckBounds(t, what, pl, state, pod, nodes[lo:hi], nil)
		if idx != nil {
			batchCheckBounds(t, what, pl, state, pod, nodes[lo:hi], idx[lo:hi])
			// The indexed call must agree with the unindexed one.
			outIdx := make([]int64, hi-lo)
			bsIdx := b.ScoreBatch(context.Background(), state, pod, nodes[lo:hi], idx[lo:hi], outIdx)
			if bsIdx.IsSuccess() != bs.IsSuccess() || bs.IsSuccess() && fmt.Sprint(outIdx) != fmt.Sprint(out) {
				t.Fatalf("%s %s nodes [%d,%d): indexed %v %v, unindexed %v %v", pl.Name(), what, lo, hi, outIdx, bsIdx, out, bs)
			}
		}
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
	batchCheckNormalize(t, what, pl, state, pod, nodes)
}

// batchCheckNormalize compares NormalizeScoreBatch with NormalizeScore on
// the plugin's scores of nodes (when Score succeeds on all of them).
func batchCheckNormalize(t *rapid.T, what string, pl fw.ScorePlugin, state *fw.CycleState, pod *fw.PodInfo, nodes []*fw.NodeInfo) {
	ext := pl.ScoreExtensions()
	b, ok := ext.(fw.BatchScoreExtensions)
	if !ok {
		return
	}
	list := make(fw.NodeScoreList, len(nodes))
	row := make([]int64, len(nodes))
	for j, n := range nodes {
		v, s := pl.Score(context.Background(), state, pod, n)
		if !s.IsSuccess() {
			return
		}
		list[j], row[j] = fw.NodeScore{Name: n.Name(), Score: v}, v
	}
	s1 := ext.NormalizeScore(context.Background(), state, pod, list)
	s2 := b.NormalizeScoreBatch(context.Background(), state, pod, nodes, row)
	if s1.IsSuccess() != s2.IsSuccess() {
		t.Fatalf("%s %s: NormalizeScore %v, NormalizeScoreBatch %v", pl.Name(), what, s1, s2)
	}
	for j := range list {
		if list[j].Score != row[j] {
			t.Fatalf("%s %s node %s: NormalizeScore %d, NormalizeScoreBatch %d", pl.Name(), what, nodes[j].Name(), list[j].Score, row[j])
		}
	}
}

// TestPropScoreBatchEqualsScore: every score half that implements
// framework.BatchScorePlugin scores each node as Score does, over the
// snapshot's nodes, a subsequence of them (PreScore over the same list),
// copies of them, in chunks of any size, and without PreScore state.
func TestPropScoreBatchEqualsScore(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		snap, pod, all := st.BatchSnapshot(t)
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

// TestPropPodTopologySpreadSnapshotWalk: the pointer walk finds every
// snapshot node's position whatever the order (round-robin subsequences,
// shuffles, repeats), and reports −1 for a copy.
func TestPropPodTopologySpreadSnapshotWalk(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nodes, pods, _ := st.BatchCluster(t)
		snap, err := fw.NewSnapshot(nodes, pods)
		if err != nil {
			t.Fatal(err)
		}
		all := snap.Nodes()
		var list []*fw.NodeInfo
		if rapid.Bool().Draw(t, "roundRobin") {
			start := rapid.IntRange(0, len(all)-1).Draw(t, "start")
			for k := range all {
				if rapid.Bool().Draw(t, "keep") {
					list = append(list, all[(start+k)%len(all)])
				}
			}
		} else {
			for range rapid.IntRange(0, 3*len(all)).Draw(t, "len") {
				list = append(list, all[rapid.IntRange(0, len(all)-1).Draw(t, "pick")])
			}
		}
		copyAt := -1
		if len(list) > 0 && rapid.IntRange(0, 3).Draw(t, "withCopy") == 0 {
			copyAt = rapid.IntRange(0, len(list)-1).Draw(t, "copyAt")
			list[copyAt] = list[copyAt].Clone()
		}
		w := ptsNewSnapshotWalk(snap, len(list))
		for j, ni := range list {
			got := w.next(ni)
			want := ni.Index()
			if j == copyAt {
				want = -1
			}
			if got != want {
				t.Fatalf("node %d (%s): walk %d, want %d", j, ni.Name(), got, want)
			}
			if got < 0 {
				return
			}
		}
	})
}

// TestPropInterPodAffinityRecycledScores: with enough topology values to
// recycle the per-value score slices (≥ 256 hostnames), scores computed on
// a slice a released state handed back equal the reference walk's, cycle
// after cycle while the snapshot changes; a clone keeps its scores after
// the original is released.
func TestPropInterPodAffinityRecycledScores(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(ipaPoolMin, ipaPoolMin+40).Draw(t, "nodes")
		var nodes []*api.Node
		for i := range n {
			name := fmt.Sprintf("n%03d", i)
			nodes = append(nodes, st.MakeNode().Name(name).Label(st.BatchHostKey, name).Obj())
		}
		sel := func(app string) api.PodAffinityTerm {
			return api.PodAffinityTerm{LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"app": app}}, TopologyKey: st.BatchHostKey}
		}
		var pods []*api.Pod
		for k := range rapid.IntRange(0, 2*n).Draw(t, "pods") {
			app := rapid.SampledFrom([]string{"web", "db"}).Draw(t, "app")
			w := st.MakePod().Name(fmt.Sprintf("p%d", k)).Label("app", app).Node(nodes[rapid.IntRange(0, n-1).Draw(t, "on")].Name)
			if rapid.Bool().Draw(t, "anti") {
				w = w.PodAffinityTerm(st.PodAntiAffinityWithPreferredReq, rapid.Int32Range(1, 50).Draw(t, "w"), sel("web"))
			}
			pods = append(pods, w.Obj())
		}
		snap := fw.MustSnapshot(nodes, pods)
		pi := fw.MustPodInfo(st.MakePod().Name("in").Label("app", "web").PodAffinityTerm(st.PodAntiAffinityWithPreferredReq, 30, sel("web")).Obj())
		p, err := NewInterPodAffinity(config.DefaultInterPodAffinityArgs(), nil)
		if err != nil {
			t.Fatal(err)
		}
		fast := p.(*InterPodAffinity)
		ref, err := NewInterPodAffinity(config.DefaultInterPodAffinityArgs(), nil)
		if err != nil {
			t.Fatal(err)
		}
		ref.(*InterPodAffinity).reference = true
		scores := func(pl fw.ScorePlugin, state *fw.CycleState) []int64 {
			out := make([]int64, snap.NumNodes())
			if s := pl.(fw.BatchScorePlugin).ScoreBatch(context.Background(), state, pi, snap.Nodes(), nil, out); !s.IsSuccess() {
				t.Fatalf("ScoreBatch: %v", s)
			}
			return out
		}
		for round := range 3 {
			fs, rs := fw.NewCycleState(), fw.NewCycleState()
			fs.SetSnapshot(snap)
			rs.SetSnapshot(snap)
			s1 := fast.PreScore(context.Background(), fs, pi, snap.Nodes())
			s2 := ref.(*InterPodAffinity).PreScore(context.Background(), rs, pi, snap.Nodes())
			if s1.Code() != s2.Code() {
				t.Fatalf("round %d: PreScore %v vs reference %v", round, s1, s2)
			}
			if !s1.IsSuccess() {
				return
			}
			want := scores(ref.(fw.ScorePlugin), rs)
			if diff := cmp.Diff(want, scores(fast, fs)); diff != "" {
				t.Fatalf("round %d: scores (-ref +fast):\n%s", round, diff)
			}
			clone := fs.Clone()
			fs.Release()
			if diff := cmp.Diff(want, scores(fast, clone)); diff != "" {
				t.Fatalf("round %d: clone after Release (-ref +clone):\n%s", round, diff)
			}
			if err := snap.AddPod(st.MakePod().Name(fmt.Sprintf("b%d", round)).Label("app", "web").Node(nodes[rapid.IntRange(0, n-1).Draw(t, "bind")].Name).Obj()); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// TestPropBatchMapValues: batchMapValues gives every score f of it, as a
// plain loop does, for narrow ranges (the table), wide ones (the memo,
// with values colliding in its slots, negative ones among them) and
// rows where hi < lo (nothing changes).
func TestPropBatchMapValues(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		spread := rapid.SampledFrom([]int64{1, 10, batchTableMax, 5000, 1 << 40}).Draw(t, "spread")
		base := rapid.Int64Range(-1<<20, 1<<20).Draw(t, "base")
		n := rapid.IntRange(0, 300).Draw(t, "n")
		scores := make([]int64, n)
		for i := range scores {
			// Values a multiple of batchMemoSlots apart share a slot.
			v := base + rapid.Int64Range(0, spread-1).Draw(t, "offset")
			if rapid.IntRange(0, 3).Draw(t, "collide") == 0 {
				v = base + batchMemoSlots*rapid.Int64Range(0, 3).Draw(t, "k")
			}
			scores[i] = v
		}
		lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
		for _, v := range scores {
			lo, hi = min(lo, v), max(hi, v)
		}
		f := func(v int64) int64 { return 7*v/3 - 1 }
		want := make([]int64, n)
		for i, v := range scores {
			want[i] = 7*v/3 - 1
		}
		got := slices.Clone(scores)
		ok := batchMapValues(got, lo, hi, f)
		if ok != (n > 0) {
			t.Fatalf("mapped = %v for %d scores", ok, n)
		}
		if !ok {
			want = scores
		}
		if !slices.Equal(got, want) {
			t.Fatalf("got %v, want %v", got, want)
		}
	})
}
