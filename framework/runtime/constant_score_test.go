package runtime_test

import (
	"context"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/fastpath"
	"github.com/schedkit/schedkit/framework/runtime"
)

// flatScorer scores every node score; its batch form counts the nodes it
// was called for.
type flatScorer struct {
	score   int64
	batched atomic.Int64
}

func (p *flatScorer) Name() string { return "Flat" }

func (p *flatScorer) Score(context.Context, *fw.CycleState, *fw.PodInfo, *fw.NodeInfo) (int64, *fw.Status) {
	return p.score, nil
}

func (p *flatScorer) ScoreBatch(_ context.Context, _ *fw.CycleState, _ *fw.PodInfo, nodes []*fw.NodeInfo, _ []int32, out []int64) *fw.Status {
	p.batched.Add(int64(len(nodes)))
	for i := range nodes {
		out[i] = p.score
	}
	return nil
}

func (p *flatScorer) ScoreExtensions() fw.ScoreExtensions { return nil }

// constantScorer is a flatScorer that reports its score for every node
// (fastpath.ConstantScorePlugin) when ok.
type constantScorer struct {
	flatScorer
	ok bool
}

func (p *constantScorer) ConstantScore(context.Context, *fw.CycleState, *fw.PodInfo) (int64, bool) {
	return p.score, p.ok
}

var _ fastpath.ConstantScorePlugin = (*constantScorer)(nil)

// A score plugin that reports one score for every node is not called for
// the nodes: the runner writes the score into its row, and the totals,
// the explanation's rows and the node chosen are those of the plugin
// scoring each node, at one worker and several, explained or not; one
// that reports none is called as usual.
func TestConstantScore(t *testing.T) {
	snap, pod := sharedStepCluster(t)
	run := func(pl fw.Plugin, workers int, totalsOnly bool) *runtime.Result {
		t.Helper()
		f := frameworkOf(t, map[string]fw.Plugin{"Flat": pl, "PreScoreProbe": preScoreProbe{}},
			fw.Profile{PreScore: []string{"PreScoreProbe"}, Score: []string{"Flat", "PreScoreProbe"},
				Weights: map[string]int64{"Flat": 3, "PreScoreProbe": 1}}, workers)
		res, err := f.Schedule(context.Background(), fw.NewCycleState(), snap, pod, runtime.CycleOptions{Rand: rand.New(rand.NewPCG(1, 2)), TotalsOnly: totalsOnly, SkipExplanation: totalsOnly})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	for _, workers := range []int{1, 3} {
		for _, totalsOnly := range []bool{true, false} {
			plain := &flatScorer{score: 42}
			want := run(plain, workers, totalsOnly)
			if plain.batched.Load() != 300 {
				t.Fatalf("%d workers, totals only %v: the plain plugin scored %d nodes in batches, want 300", workers, totalsOnly, plain.batched.Load())
			}
			for _, ok := range []bool{true, false} {
				c := &constantScorer{flatScorer: flatScorer{score: 42}, ok: ok}
				got := run(c, workers, totalsOnly)
				if wantBatched := map[bool]int64{true: 0, false: 300}[ok]; c.batched.Load() != wantBatched {
					t.Errorf("%d workers, totals only %v, constant %v: scored %d nodes in batches, want %d", workers, totalsOnly, ok, c.batched.Load(), wantBatched)
				}
				if !slices.Equal(got.Totals, want.Totals) || got.SelectedNode() != want.SelectedNode() || !slices.Equal(got.Normalized, want.Normalized) || !slices.Equal(got.Raw, want.Raw) {
					t.Errorf("%d workers, totals only %v, constant %v: totals, rows or node chosen differ from the plain plugin's", workers, totalsOnly, ok)
				}
			}
		}
	}
}
