package st

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/google/go-cmp/cmp"
	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/fastpath"
	"pgregory.net/rapid"
)

// Helpers of the topology plugins' property tests of their incremental
// paths (PodTopologySpread, InterPodAffinity): verdicts and scores of a
// window of nodes, rounds of added pods carried by PreFilterAfterAdd and
// PreScoreAfterAdd and held to a fresh PreFilter and PreScore. Every
// plugin's fast forms are held to its plain points by the conformance
// harness (framework/frameworktest).

// IncrPlugin is what the incremental checks need of a filter plugin.
type IncrPlugin interface {
	fastpath.IncrementalPreFilterPlugin
	fastpath.BatchFilterPlugin
	PreFilterExtensions() fw.PreFilterExtensions
}

// IncrVerdicts returns every snapshot node's Filter and FilterBatch
// verdicts under state.
func IncrVerdicts(pl IncrPlugin, state *fw.CycleState, pi *fw.PodInfo, snap *fw.Snapshot) []string {
	ctx := context.Background()
	nodes := snap.Nodes()
	idx := make([]int32, len(nodes))
	for i := range idx {
		idx[i] = int32(i)
	}
	batch := make([]*fw.Status, len(nodes))
	pl.FilterBatch(ctx, state, pi, nodes, idx, batch)
	noIdx := make([]*fw.Status, len(nodes))
	pl.FilterBatch(ctx, state, pi, nodes, nil, noIdx)
	out := make([]string, len(nodes))
	for i, ni := range nodes {
		out[i] = fmt.Sprintf("%s: %v / batch %v / %v", ni.Name(), pl.Filter(ctx, state, pi, ni), batch[i], noIdx[i])
	}
	return out
}

// IncrRound adds replicas of tmpl and other pods to snap, brings carried
// up to date with PreFilterAfterAdd for the next replica, pi, and checks
// it against PreFilter on a fresh state, fresh: the status, then every
// node's verdicts. fresh is nil when PreFilter did not succeed.
func IncrRound(t *rapid.T, pl IncrPlugin, snap *fw.Snapshot, carried *fw.CycleState, tmpl *fw.PodInfo, other func(name, node string) *api.Pod, seq *int, round int) (pi *fw.PodInfo, fresh *fw.CycleState) {
	ctx := context.Background()
	added := DrawAdded(t, snap, tmpl, other, seq)
	*seq++
	pi = Replica(tmpl, fmt.Sprintf("r%d", *seq), "")
	got := pl.PreFilterAfterAdd(ctx, carried, pi, added)
	fresh = fw.NewCycleState()
	fresh.SetSnapshot(snap)
	fresh.SetAllNodes(true)
	_, want := pl.PreFilter(ctx, fresh, pi, snap.Nodes())
	if !got.Equal(want) {
		t.Fatalf("round %d: PreFilterAfterAdd = %v, PreFilter = %v", round, got, want)
	}
	if !want.IsSuccess() {
		return pi, nil
	}
	if diff := cmp.Diff(IncrVerdicts(pl, fresh, pi, snap), IncrVerdicts(pl, carried, pi, snap)); diff != "" {
		t.Fatalf("round %d: verdicts differ (-PreFilter +PreFilterAfterAdd):\n%s", round, diff)
	}
	return pi, fresh
}

// IncrCheckAddPod adds a nominated pod the kube way to clones of fresh and
// carried (both written for pi) and compares every node's verdicts.
func IncrCheckAddPod(t *rapid.T, pl IncrPlugin, snap *fw.Snapshot, tmpl, pi *fw.PodInfo, fresh, carried *fw.CycleState, other func(name, node string) *api.Pod, round int) {
	ctx := context.Background()
	nodes := snap.Nodes()
	ni := nodes[rapid.IntRange(0, len(nodes)-1).Draw(t, "nominatedOn")]
	var nominated *fw.PodInfo
	if other != nil && rapid.Bool().Draw(t, "nominatedOther") {
		nominated = fw.MustPodInfo(other("nominated", ni.Name()))
	} else {
		nominated = Replica(tmpl, "nominated", ni.Name())
	}
	fc, cc := fresh.Clone(), carried.Clone()
	ext := pl.PreFilterExtensions()
	if s := ext.AddPod(ctx, fc, pi, nominated, ni); !s.IsSuccess() {
		t.Fatalf("AddPod: %v", s)
	}
	if s := ext.AddPod(ctx, cc, pi, nominated, ni); !s.IsSuccess() {
		t.Fatalf("AddPod: %v", s)
	}
	if diff := cmp.Diff(IncrVerdicts(pl, fc, pi, snap), IncrVerdicts(pl, cc, pi, snap)); diff != "" {
		t.Fatalf("round %d: verdicts after AddPod differ (-PreFilter +PreFilterAfterAdd):\n%s", round, diff)
	}
}

// IncrScorePlugin is what the incremental checks need of a score plugin.
type IncrScorePlugin interface {
	fastpath.IncrementalPreScorePlugin
	fastpath.BatchScorePlugin
	ScoreExtensions() fw.ScoreExtensions
}

// IncrWindow draws the nodes of a cycle as the runner passes them: a
// subsequence of the snapshot's nodes from a random start, wrapping.
func IncrWindow(t *rapid.T, snap *fw.Snapshot) []*fw.NodeInfo {
	nodes := snap.Nodes()
	start := rapid.IntRange(0, len(nodes)-1).Draw(t, "start")
	var w []*fw.NodeInfo
	for i := range nodes {
		if rapid.IntRange(0, 3).Draw(t, "inWindow") > 0 {
			w = append(w, nodes[(start+i)%len(nodes)])
		}
	}
	return w
}

// IncrScores returns the scores of window under state: ScoreBatch with
// and without indices, Score, and both normalizations.
func IncrScores(t *rapid.T, pl IncrScorePlugin, state *fw.CycleState, pi *fw.PodInfo, window []*fw.NodeInfo) []string {
	ctx := context.Background()
	idx := make([]int32, len(window))
	for i, ni := range window {
		idx[i] = int32(ni.Index())
	}
	batch := make([]int64, len(window))
	if s := pl.ScoreBatch(ctx, state, pi, window, idx, batch); s != nil {
		t.Fatalf("ScoreBatch: %v", s)
	}
	noIdx := make([]int64, len(window))
	if s := pl.ScoreBatch(ctx, state, pi, window, nil, noIdx); s != nil {
		t.Fatalf("ScoreBatch: %v", s)
	}
	CheckBounds(t, "window", pl, state, pi, window, idx)
	CheckBounds(t, "window", pl, state, pi, window, nil)
	list := make(fw.NodeScoreList, len(window))
	out := make([]string, len(window))
	for i, ni := range window {
		v, s := pl.Score(ctx, state, pi, ni)
		if s != nil {
			t.Fatalf("Score: %v", s)
		}
		if batch[i] != v || noIdx[i] != v {
			// fastpath.BatchScorePlugin: ScoreBatch is Score's.
			t.Fatalf("node %s: Score %d, ScoreBatch %d (with indices) and %d (without)", ni.Name(), v, batch[i], noIdx[i])
		}
		list[i] = fw.NodeScore{Name: ni.Name(), Score: v}
		out[i] = fmt.Sprintf("%s: %d / batch %d / %d", ni.Name(), v, batch[i], noIdx[i])
	}
	if ext := pl.ScoreExtensions(); ext != nil {
		norm := slices.Clone(batch)
		if b, ok := ext.(fastpath.BatchScoreExtensions); ok {
			if s := b.NormalizeScoreBatch(ctx, state, pi, window, norm); s != nil {
				t.Fatalf("NormalizeScoreBatch: %v", s)
			}
		}
		if s := ext.NormalizeScore(ctx, state, pi, list); s != nil {
			t.Fatalf("NormalizeScore: %v", s)
		}
		for i := range out {
			out[i] += fmt.Sprintf(" → %d / batch %d", list[i].Score, norm[i])
		}
	}
	return out
}

// IncrAfterAddRound holds PreScoreAfterAdd on carried (pi the next
// replica, added the pods added since) to PreScore on a fresh state: the
// same status and, when it succeeds, the same scores over window. It
// returns the fresh state and whether PreScore succeeded.
func IncrAfterAddRound(t *rapid.T, pl IncrScorePlugin, snap *fw.Snapshot, carried *fw.CycleState, pi *fw.PodInfo, window []*fw.NodeInfo, added []fastpath.AddedPod, round int) (*fw.CycleState, bool) {
	ctx := context.Background()
	got := pl.PreScoreAfterAdd(ctx, carried, pi, window, added)
	fresh := fw.NewCycleState()
	fresh.SetSnapshot(snap)
	want := pl.PreScore(ctx, fresh, pi, window)
	if !got.Equal(want) {
		t.Fatalf("round %d: PreScoreAfterAdd = %v, PreScore = %v", round, got, want)
	}
	if !want.IsSuccess() {
		return fresh, false
	}
	if diff := cmp.Diff(IncrScores(t, pl, fresh, pi, window), IncrScores(t, pl, carried, pi, window)); diff != "" {
		t.Fatalf("round %d: scores differ (-PreScore +PreScoreAfterAdd):\n%s", round, diff)
	}
	return fresh, true
}

// CheckBounds checks ScoreBatchBounds (fastpath.BoundedBatchScorePlugin)
// over nodes, with snapshot indices idx (nil: none): the status and scores
// of ScoreBatch, and, when it succeeds, the least and greatest of the
// scores found by a plain pass.
func CheckBounds(t interface{ Fatalf(string, ...any) }, what string, pl fw.ScorePlugin, state *fw.CycleState, pod *fw.PodInfo, nodes []*fw.NodeInfo, idx []int32) {
	b, ok := pl.(fastpath.BoundedBatchScorePlugin)
	if !ok {
		return
	}
	ctx := context.Background()
	want := make([]int64, len(nodes))
	ws := b.ScoreBatch(ctx, state, pod, nodes, idx, want)
	got := make([]int64, len(nodes))
	lo, hi, gs := b.ScoreBatchBounds(ctx, state, pod, nodes, idx, got)
	if ws.IsSuccess() != gs.IsSuccess() {
		t.Fatalf("%s %s: ScoreBatchBounds status %v, ScoreBatch %v", pl.Name(), what, gs, ws)
	}
	if !ws.IsSuccess() {
		return
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("%s %s: ScoreBatchBounds scores %v, ScoreBatch %v", pl.Name(), what, got, want)
	}
	wlo, whi := int64(math.MaxInt64), int64(math.MinInt64)
	for _, v := range want {
		if v < wlo {
			wlo = v
		}
		if v > whi {
			whi = v
		}
	}
	if lo != wlo || hi != whi {
		t.Fatalf("%s %s: ScoreBatchBounds bounds [%d, %d] of %v, want [%d, %d]", pl.Name(), what, lo, hi, want, wlo, whi)
	}
}
