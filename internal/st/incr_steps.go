package st

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/fastpath"
)

// Hand-checked replica runs and capacity benchmarks of the topology
// plugins' incremental paths (fastpath.IncrementalPreFilterPlugin,
// fastpath.IncrementalPreScorePlugin).

// AfterAddFilterStep is one placement of a replica run of
// RunAfterAddFilterSteps: the pod placed (nil: a replica of the
// template), its node, PreFilterAfterAdd's status for the next replica
// and, when it succeeds, every rejected node's reason.
type AfterAddFilterStep struct {
	Pod    *api.Pod
	Node   string
	Status fw.Code
	Reject map[string]string
}

// RunAfterAddFilterSteps runs PreFilter for tmpl over nodes, then places
// each step's pod and checks PreFilterAfterAdd for the next replica: its
// status and, when it succeeds, Filter's rejections on every node.
func RunAfterAddFilterSteps(t *testing.T, pl IncrPlugin, nodes []*api.Node, tmpl *api.Pod, steps []AfterAddFilterStep) {
	t.Helper()
	ctx := context.Background()
	snap := fw.MustSnapshot(nodes, nil)
	ti := fw.MustPodInfo(tmpl)
	state := fw.NewCycleState()
	state.SetSnapshot(snap)
	state.SetAllNodes(true)
	if _, s := pl.PreFilter(ctx, state, ti, snap.Nodes()); !s.IsSuccess() && !s.IsSkip() {
		t.Fatalf("PreFilter: %v", s)
	}
	for i, step := range steps {
		var pi *fw.PodInfo
		if step.Pod != nil {
			p := *step.Pod
			p.Spec.NodeName = step.Node
			pi = fw.MustPodInfo(&p)
		} else {
			pi = Replica(ti, "web-"+string(rune('a'+i)), step.Node)
		}
		added, err := AddedPods(snap, []*fw.PodInfo{pi})
		if err != nil {
			t.Fatal(err)
		}
		incoming := Replica(ti, "next", "")
		s := pl.PreFilterAfterAdd(ctx, state, incoming, added)
		if s.Code() != step.Status {
			t.Fatalf("step %d: PreFilterAfterAdd = %v, want %v", i, s, step.Status)
		}
		if !s.IsSuccess() {
			continue
		}
		got := map[string]string{}
		for _, ni := range snap.Nodes() {
			if v := pl.Filter(ctx, state, incoming, ni); !v.IsSuccess() {
				got[ni.Name()] = v.Message()
			}
		}
		if diff := cmp.Diff(step.Reject, got); diff != "" {
			t.Fatalf("step %d: rejections (-want +got):\n%s", i, diff)
		}
	}
}

// AfterAddScoreStep is one placement of a replica run of
// RunAfterAddScoreSteps: the node of the replica placed, the window of
// the next cycle (snapshot indices) and its raw and normalized scores.
type AfterAddScoreStep struct {
	Node      string
	Window    []int
	Raw, Norm []int64
}

// RunAfterAddScoreSteps runs PreScore for tmpl over nodes (it may skip:
// the cluster holds no pod yet), then places a replica on each step's
// node and checks PreScoreAfterAdd for the next replica over the step's
// window: it succeeds, and ScoreBatch and NormalizeScoreBatch give the
// step's scores.
func RunAfterAddScoreSteps(t *testing.T, pl IncrScorePlugin, nodes []*api.Node, tmpl *api.Pod, steps []AfterAddScoreStep) {
	t.Helper()
	ctx := context.Background()
	ext, ok := pl.ScoreExtensions().(fastpath.BatchScoreExtensions)
	if !ok {
		t.Fatalf("%s has no batch normalizer", pl.Name())
	}
	snap := fw.MustSnapshot(nodes, nil)
	pi := fw.MustPodInfo(tmpl)
	state := fw.NewCycleState()
	state.SetSnapshot(snap)
	if s := pl.PreScore(ctx, state, pi, snap.Nodes()); !s.IsSuccess() && !s.IsSkip() {
		t.Fatalf("PreScore: %v", s)
	}
	for i, step := range steps {
		added, err := AddedPods(snap, []*fw.PodInfo{Replica(pi, "web-"+string(rune('a'+i)), step.Node)})
		if err != nil {
			t.Fatal(err)
		}
		window := make([]*fw.NodeInfo, len(step.Window))
		idx := make([]int32, len(step.Window))
		for j, k := range step.Window {
			window[j], idx[j] = snap.Nodes()[k], int32(k)
		}
		incoming := Replica(pi, "next", "")
		if s := pl.PreScoreAfterAdd(ctx, state, incoming, window, added); !s.IsSuccess() {
			t.Fatalf("step %d: PreScoreAfterAdd = %v, want success", i, s)
		}
		raw := make([]int64, len(window))
		if s := pl.ScoreBatch(ctx, state, incoming, window, idx, raw); s != nil {
			t.Fatal(s)
		}
		norm := append([]int64(nil), raw...)
		if s := ext.NormalizeScoreBatch(ctx, state, incoming, window, norm); s != nil {
			t.Fatal(s)
		}
		if diff := cmp.Diff([][]int64{step.Raw, step.Norm}, [][]int64{raw, norm}); diff != "" {
			t.Fatalf("step %d: raw and normalized scores (-want +got):\n%s", i, diff)
		}
	}
}

// CheckBoundsEmpty checks that pl's ScoreBatchBounds of no node, after
// PreScore for pod on snap, succeeds with lo > hi, with and without
// indices.
func CheckBoundsEmpty(t *testing.T, pl interface {
	fw.PreScorePlugin
	fastpath.BoundedBatchScorePlugin
}, snap *fw.Snapshot, pod *fw.PodInfo) {
	t.Helper()
	ctx := context.Background()
	state := fw.NewCycleState()
	state.SetSnapshot(snap)
	if s := pl.PreScore(ctx, state, pod, snap.Nodes()); !s.IsSuccess() {
		t.Fatalf("PreScore: %v", s)
	}
	for _, idx := range [][]int32{nil, {}} {
		lo, hi, s := pl.ScoreBatchBounds(ctx, state, pod, nil, idx, nil)
		if !s.IsSuccess() || lo <= hi {
			t.Errorf("idx %v: ScoreBatchBounds of no node: [%d, %d] %v, want lo > hi", idx, lo, hi, s)
		}
	}
}

// BenchPreFilterAfterAdd measures one replica's PreFilter of the plugin
// newPlugin builds in the midst of a capacity question (CapacityBench),
// from scratch (PreFilter over the snapshot's nodes on a new CycleState,
// as every cycle does) and carried over (PreFilterAfterAdd with the
// replica placed since). Every variant also places the replica and draws
// a window; AddOnly does just that, to subtract. For the plugin's own
// share, read callgrind's inclusive counts of incrCyclePreFilter and
// incrCycleFilterAfterAdd.
func BenchPreFilterAfterAdd(b *testing.B, plugin string, newPlugin func(testing.TB) IncrPlugin) {
	CapacityBench(b, []string{plugin}, []string{"PreFilter", "AfterAdd"}, func(b *testing.B, _ string, run *CapacityRun) CapacityStep {
		pl := newPlugin(b)
		carried := fw.NewCycleState()
		carried.SetSnapshot(run.Snap)
		carried.SetAllNodes(true)
		if _, s := pl.PreFilter(context.Background(), carried, run.Tmpl, run.Snap.Nodes()); !s.IsSuccess() && !s.IsSkip() {
			b.Fatal(s)
		}
		return func(mode string, pi *fw.PodInfo, _ []*fw.NodeInfo, _ []int32, added []fastpath.AddedPod) *fw.Status {
			if mode == "AfterAdd" {
				return incrCycleFilterAfterAdd(pl, carried, pi, added)
			}
			return incrCyclePreFilter(pl, run.Snap, pi)
		}
	})
}

// incrCyclePreFilter is one cycle's PreFilter on a new CycleState (a
// function of its own, for callgrind's inclusive counts).
//
//go:noinline
func incrCyclePreFilter(pl IncrPlugin, snap *fw.Snapshot, pi *fw.PodInfo) *fw.Status {
	state := fw.NewCycleState()
	state.SetSnapshot(snap)
	defer state.Release()
	state.SetAllNodes(true)
	_, s := pl.PreFilter(context.Background(), state, pi, snap.Nodes())
	return s
}

// incrCycleFilterAfterAdd is one cycle's PreFilterAfterAdd on the carried
// CycleState.
//
//go:noinline
func incrCycleFilterAfterAdd(pl IncrPlugin, state *fw.CycleState, pi *fw.PodInfo, added []fastpath.AddedPod) *fw.Status {
	return pl.PreFilterAfterAdd(context.Background(), state, pi, added)
}

// BenchPreScoreAfterAdd measures one replica's PreScore and ScoreBatch of
// the plugin newPlugin builds over a 500-node window in the midst of a
// capacity question (CapacityBench), from scratch (PreScore on a new
// CycleState, as every cycle does) and carried over (PreScoreAfterAdd
// with the replica placed since). Every variant also places the replica
// and draws the window (StopTimer's memory statistics would cost more
// than the work measured); AddOnly does just that, to subtract. For the
// plugin's own share, read callgrind's inclusive counts of
// incrCyclePreScore and incrCycleScoreAfterAdd.
func BenchPreScoreAfterAdd(b *testing.B, plugin string, newPlugin func(testing.TB) IncrScorePlugin) {
	ctx := context.Background()
	CapacityBench(b, []string{plugin}, []string{"PreScore", "AfterAdd"}, func(b *testing.B, _ string, run *CapacityRun) CapacityStep {
		pl := newPlugin(b)
		carried := fw.NewCycleState()
		carried.SetSnapshot(run.Snap)
		window, _ := run.Window(500, 822)
		if s := pl.PreScore(ctx, carried, run.Tmpl, window); !s.IsSuccess() && !s.IsSkip() {
			b.Fatal(s)
		}
		out := make([]int64, 500)
		return func(mode string, pi *fw.PodInfo, window []*fw.NodeInfo, idx []int32, added []fastpath.AddedPod) *fw.Status {
			if mode == "AfterAdd" {
				return incrCycleScoreAfterAdd(pl, carried, pi, window, idx, added, out)
			}
			return incrCyclePreScore(pl, run.Snap, pi, window, idx, out)
		}
	})
}

// incrCyclePreScore is one cycle's PreScore and ScoreBatch on a new
// CycleState (a function of its own, for callgrind's inclusive counts).
//
//go:noinline
func incrCyclePreScore(pl IncrScorePlugin, snap *fw.Snapshot, pi *fw.PodInfo, window []*fw.NodeInfo, idx []int32, out []int64) *fw.Status {
	ctx := context.Background()
	state := fw.NewCycleState()
	state.SetSnapshot(snap)
	defer state.Release()
	s := pl.PreScore(ctx, state, pi, window)
	if s.IsSuccess() {
		s = pl.ScoreBatch(ctx, state, pi, window, idx, out[:len(window)])
	}
	return s
}

// incrCycleScoreAfterAdd is one cycle's PreScoreAfterAdd and ScoreBatch on
// the carried CycleState.
//
//go:noinline
func incrCycleScoreAfterAdd(pl IncrScorePlugin, state *fw.CycleState, pi *fw.PodInfo, window []*fw.NodeInfo, idx []int32, added []fastpath.AddedPod, out []int64) *fw.Status {
	ctx := context.Background()
	s := pl.PreScoreAfterAdd(ctx, state, pi, window, added)
	if s.IsSuccess() {
		s = pl.ScoreBatch(ctx, state, pi, window, idx, out[:len(window)])
	}
	return s
}
