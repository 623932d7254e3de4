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

// lyingBounds scores a node by its name (the sum of its bytes mod 7) but
// reports each batch's scores as lying in [0, 3], so that the weighing's
// table misses the scores above 3 and the cycle falls back to weighing
// every row as it is. Its normalization leaves the scores as they are.
type lyingBounds struct{}

func (lyingBounds) Name() string { return "Lying" }

func (lyingBounds) score(n *fw.NodeInfo) int64 {
	var v int64
	for _, b := range []byte(n.Name()) {
		v += int64(b)
	}
	return v % 7
}

func (p lyingBounds) Score(_ context.Context, _ *fw.CycleState, _ *fw.PodInfo, n *fw.NodeInfo) (int64, *fw.Status) {
	return p.score(n), nil
}

func (p lyingBounds) ScoreBatch(ctx context.Context, st *fw.CycleState, pod *fw.PodInfo, nodes []*fw.NodeInfo, idx []int32, out []int64) *fw.Status {
	_, _, s := p.ScoreBatchBounds(ctx, st, pod, nodes, idx, out)
	return s
}

func (p lyingBounds) ScoreBatchBounds(_ context.Context, _ *fw.CycleState, _ *fw.PodInfo, nodes []*fw.NodeInfo, _ []int32, out []int64) (int64, int64, *fw.Status) {
	for i, n := range nodes {
		out[i] = p.score(n)
	}
	return 0, 3, nil
}

func (p lyingBounds) ScoreExtensions() fw.ScoreExtensions { return p }

func (lyingBounds) NormalizeScore(context.Context, *fw.CycleState, *fw.PodInfo, fw.NodeScoreList) *fw.Status {
	return nil
}

func (lyingBounds) NormalizeRange(_ context.Context, _ *fw.CycleState, _ *fw.PodInfo, lo int64, out []int64) bool {
	for i := range out {
		out[i] = lo + int64(i)
	}
	return true
}

var (
	_ fastpath.BoundedBatchScorePlugin = lyingBounds{}
	_ fastpath.RangeNormalizer         = lyingBounds{}
)

// mirrored is a plugin's normalization to MaxNodeScore minus the score
// (fastpath.RangeNormalizer).
type mirrored struct{}

func (mirrored) NormalizeScore(_ context.Context, _ *fw.CycleState, _ *fw.PodInfo, scores fw.NodeScoreList) *fw.Status {
	for i := range scores {
		scores[i].Score = fw.MaxNodeScore - scores[i].Score
	}
	return nil
}

func (mirrored) NormalizeRange(_ context.Context, _ *fw.CycleState, _ *fw.PodInfo, lo int64, out []int64) bool {
	for i := range out {
		out[i] = fw.MaxNodeScore - lo - int64(i)
	}
	return true
}

// flatMirrored is flatScorer normalized by mirrored; constantMirrored is
// constantScorer normalized by mirrored.
type (
	flatMirrored     struct{ flatScorer }
	constantMirrored struct{ constantScorer }
)

func (*flatMirrored) ScoreExtensions() fw.ScoreExtensions     { return mirrored{} }
func (*constantMirrored) ScoreExtensions() fw.ScoreExtensions { return mirrored{} }

// In a cycle that keeps only the totals, a constant score's row is not
// written unless a path reads it: when the weighing falls back to
// weighing every row as it is (a table missed a score), the row is
// written first (and normalized, for a plugin that normalizes), and the
// totals and the node chosen are those of the plugin scoring each node,
// at one worker and several, the fallback taken or not.
func TestConstantScoreRowOnFallback(t *testing.T) {
	snap, pod := sharedStepCluster(t)
	run := func(pl fw.Plugin, workers int, lying bool) *runtime.Result {
		t.Helper()
		plugins := map[string]fw.Plugin{"Flat": pl, "PreScoreProbe": preScoreProbe{}}
		prof := fw.Profile{PreScore: []string{"PreScoreProbe"}, Score: []string{"Flat", "PreScoreProbe"},
			Weights: map[string]int64{"Flat": 3, "PreScoreProbe": 1}}
		if lying {
			plugins["Lying"] = lyingBounds{}
			prof.Score = append(prof.Score, "Lying")
			prof.Weights["Lying"] = 2
		}
		f := frameworkOf(t, plugins, prof, workers)
		res, err := f.Schedule(context.Background(), fw.NewCycleState(), snap, pod, runtime.CycleOptions{Rand: rand.New(rand.NewPCG(1, 2)), TotalsOnly: true, SkipExplanation: true})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	for _, workers := range []int{1, 3} {
		for _, lying := range []bool{false, true} {
			for _, normalized := range []bool{false, true} {
				plain, c := fw.Plugin(&flatScorer{score: 42}), &constantScorer{flatScorer: flatScorer{score: 42}, ok: true}
				var cp fw.Plugin = c
				if normalized {
					plain = &flatMirrored{flatScorer{score: 42}}
					cm := &constantMirrored{constantScorer{flatScorer: flatScorer{score: 42}, ok: true}}
					c, cp = &cm.constantScorer, cm
				}
				want, got := run(plain, workers, lying), run(cp, workers, lying)
				if c.batched.Load() != 0 {
					t.Fatalf("%d workers, fallback %v, normalized %v: the constant plugin scored %d nodes in batches, want none", workers, lying, normalized, c.batched.Load())
				}
				if !slices.Equal(got.Totals, want.Totals) || got.SelectedNode() != want.SelectedNode() {
					t.Errorf("%d workers, fallback %v, normalized %v: totals or node chosen differ from the plain plugin's", workers, lying, normalized)
				}
			}
		}
	}
}
