package scoring

import (
	"context"
	"fmt"
	"slices"

	"github.com/google/go-cmp/cmp"
	fw "github.com/schedkit/schedkit/framework"
	"pgregory.net/rapid"
)

// Helpers of the plugins' own property tests of their incremental paths:
// windows of scored nodes, every score of a window, rounds of added pods.
// Every plugin's fast forms are held to Score by the conformance harness
// (conformance_test.go).

// incrScorePlugin is what the incremental checks need of a score plugin.
type incrScorePlugin interface {
	fw.IncrementalPreScorePlugin
	fw.BatchScorePlugin
	ScoreExtensions() fw.ScoreExtensions
}

// incrWindow draws the nodes of a cycle as the runner passes them: a
// subsequence of the snapshot's nodes from a random start, wrapping.
func incrWindow(t *rapid.T, snap *fw.Snapshot) []*fw.NodeInfo {
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

// incrScores returns the scores of window under state: ScoreBatch with
// and without indices, Score, and both normalizations.
func incrScores(t *rapid.T, pl incrScorePlugin, state *fw.CycleState, pi *fw.PodInfo, window []*fw.NodeInfo) []string {
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
	batchCheckBounds(t, "window", pl, state, pi, window, idx)
	batchCheckBounds(t, "window", pl, state, pi, window, nil)
	list := make(fw.NodeScoreList, len(window))
	out := make([]string, len(window))
	for i, ni := range window {
		v, s := pl.Score(ctx, state, pi, ni)
		if s != nil {
			t.Fatalf("Score: %v", s)
		}
		if batch[i] != v || noIdx[i] != v {
			// framework.BatchScorePlugin: ScoreBatch is Score's.
			t.Fatalf("node %s: Score %d, ScoreBatch %d (with indices) and %d (without)", ni.Name(), v, batch[i], noIdx[i])
		}
		list[i] = fw.NodeScore{Name: ni.Name(), Score: v}
		out[i] = fmt.Sprintf("%s: %d / batch %d / %d", ni.Name(), v, batch[i], noIdx[i])
	}
	if ext := pl.ScoreExtensions(); ext != nil {
		norm := slices.Clone(batch)
		if b, ok := ext.(fw.BatchScoreExtensions); ok {
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

// incrAfterAddRound holds PreScoreAfterAdd on carried (pi the next
// replica, added the pods added since) to PreScore on a fresh state: the
// same status and, when it succeeds, the same scores over window. It
// returns the fresh state and whether PreScore succeeded.
func incrAfterAddRound(t *rapid.T, pl incrScorePlugin, snap *fw.Snapshot, carried *fw.CycleState, pi *fw.PodInfo, window []*fw.NodeInfo, added []fw.AddedPod, round int) (*fw.CycleState, bool) {
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
	if diff := cmp.Diff(incrScores(t, pl, fresh, pi, window), incrScores(t, pl, carried, pi, window)); diff != "" {
		t.Fatalf("round %d: scores differ (-PreScore +PreScoreAfterAdd):\n%s", round, diff)
	}
	return fresh, true
}
