package runtime

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/schedkit/schedkit/framework"
	"pgregory.net/rapid"
)

// hashScore is a deterministic per-(seed, plugin, node) value in [lo, hi].
func hashScore(seed uint64, plugin, node int, lo, hi int64) int64 {
	x := seed*0x9E3779B97F4A7C15 ^ uint64(plugin)*0xBF58476D1CE4E5B9 ^ uint64(node)*0x94D049BB133111EB
	x ^= x >> 31
	x *= 0xD6E8FEB86CD8B5AD
	x ^= x >> 29
	return lo + int64(x%uint64(hi-lo+1))
}

type propCase struct {
	nodes     int
	seed      uint64
	plugins   int
	weights   []int64
	normalize []bool
	lo, hi    int64
	rejectPct int64
	start     int
	toFind    int
	// totalsOnly runs the cycle as the scheduler does when it keeps no
	// explanation (TotalsOnly, SkipExplanation).
	totalsOnly bool
}

func drawCase(t *rapid.T, lo, hi int64) propCase {
	c := propCase{
		nodes:     rapid.IntRange(0, 60).Draw(t, "nodes"),
		seed:      rapid.Uint64().Draw(t, "seed"),
		plugins:   rapid.IntRange(0, 4).Draw(t, "plugins"),
		lo:        lo,
		hi:        hi,
		rejectPct: rapid.Int64Range(0, 90).Draw(t, "rejectPct"),
		start:     rapid.IntRange(0, 100).Draw(t, "start"),
		toFind:    rapid.IntRange(0, 70).Draw(t, "toFind"),
	}
	for range c.plugins {
		c.weights = append(c.weights, rapid.Int64Range(0, 10).Draw(t, "weight"))
		c.normalize = append(c.normalize, rapid.Bool().Draw(t, "normalize"))
	}
	return c
}

func (c propCase) run(t *rapid.T, parallelism int, rngSeed uint64) (*Result, error) {
	var fakes []*fake
	p := framework.Profile{Filter: []string{"F"}, Weights: map[string]int64{}}
	fakes = append(fakes, &fake{name: "F", filter: func(n *framework.NodeInfo) *framework.Status {
		if hashScore(c.seed, 99, nodeNum(n), 0, 99) < c.rejectPct {
			return framework.NewStatus(framework.Unschedulable, fmt.Sprintf("r%d", nodeNum(n)%3))
		}
		return nil
	}})
	for i := range c.plugins {
		name := fmt.Sprintf("S%d", i)
		fk := &fake{name: name, score: func(n *framework.NodeInfo) (int64, *framework.Status) {
			return hashScore(c.seed, i, nodeNum(n), c.lo, c.hi), nil
		}}
		if c.normalize[i] {
			fk.normalize = func(s framework.NodeScoreList) *framework.Status {
				for _, x := range s {
					if x.Score < 0 {
						return nil // leave out-of-range raw scores alone
					}
				}
				return framework.DefaultNormalizeScore(framework.MaxNodeScore, false, s)
			}
		}
		fakes = append(fakes, fk)
		p.Score = append(p.Score, name)
		p.Weights[name] = c.weights[i]
	}
	// The workers' chunks are of 64 nodes, so that the loops of a few
	// hundred nodes run in parallel.
	w, err := newTestWorkers(parallelism)
	if err != nil {
		t.Fatalf("NewWorkers: %v", err)
	}
	defer w.Close()
	f, err := NewFramework(registryOf(fakes...), p, WithWorkers(w))
	if err != nil {
		t.Fatalf("NewFramework: %v", err)
	}
	snap := framework.MustSnapshot(testNodes(c.nodes), nil)
	return f.Schedule(context.Background(), nil, snap, testPod("p"), CycleOptions{
		Rand: rand.New(rand.NewPCG(rngSeed, 7)), StartIndex: c.start, NumFeasibleToFind: c.toFind, AlwaysScore: true,
		TotalsOnly: c.totalsOnly, SkipExplanation: c.totalsOnly,
	})
}

// TestPropScoresInRangeOrError: every normalized score is in [0,100], or
// the runner returns an error; totals are Σ weight × normalized exactly;
// the chosen node has the maximum total.
func TestPropScoresInRangeOrError(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := drawCase(t, -20, 150)
		res, err := c.run(t, 1, 1)
		if _, isFit := err.(*FitError); isFit {
			if len(res.FeasibleNodes()) != 0 {
				t.Fatalf("FitError with feasible nodes")
			}
			return
		}
		// Recompute what the plugins produce to know whether an error is due.
		feasible := res.FeasibleNodes()
		wantErr := false
		for i := range c.plugins {
			anyNeg := false
			for _, n := range feasible {
				if hashScore(c.seed, i, nodeNum(n), c.lo, c.hi) < 0 {
					anyNeg = true
				}
			}
			for _, n := range feasible {
				s := hashScore(c.seed, i, nodeNum(n), c.lo, c.hi)
				if (!c.normalize[i] || anyNeg) && (s < 0 || s > 100) {
					wantErr = true
				}
			}
		}
		if wantErr != (err != nil) {
			t.Fatalf("error = %v, want error: %v", err, wantErr)
		}
		if err != nil {
			return
		}
		best := int64(-1)
		for _, ns := range res.Scores() {
			var sum int64
			for _, ps := range ns.Scores {
				if ps.Normalized < 0 || ps.Normalized > 100 {
					t.Fatalf("normalized score %d out of range", ps.Normalized)
				}
				if ps.Weighted != ps.Normalized*ps.Weight {
					t.Fatalf("weighted %d != %d × %d", ps.Weighted, ps.Normalized, ps.Weight)
				}
				sum += ps.Weighted
			}
			if len(c.weights) > 0 && sum != ns.Total {
				t.Fatalf("total %d != Σ weighted %d", ns.Total, sum)
			}
			best = max(best, ns.Total)
		}
		if len(feasible) > 0 && res.Top[0].Total != best {
			t.Fatalf("chosen total %d, max %d", res.Top[0].Total, best)
		}
	})
}

// TestPropParallelEqualsSequential: verdicts, scores and the choice do not
// depend on the number of workers (up to 8, GOMAXPROCS raised to let
// them all run), on clusters of up to 700 nodes, every node evaluated or
// sampled, keeping every explanation or the totals only.
func TestPropParallelEqualsSequential(t *testing.T) {
	defer atLeastProcs(8)()
	rapid.Check(t, func(t *rapid.T) {
		c := drawCase(t, 0, 100)
		c.nodes = rapid.IntRange(0, 700).Draw(t, "manyNodes")
		c.start = rapid.IntRange(0, 1000).Draw(t, "manyStart")
		c.toFind = rapid.IntRange(0, 800).Draw(t, "manyToFind")
		c.totalsOnly = rapid.Bool().Draw(t, "totalsOnly")
		workers := rapid.IntRange(2, 8).Draw(t, "workers")
		seq, errSeq := c.run(t, 1, 3)
		par, errPar := c.run(t, workers, 3)
		if fmt.Sprint(errSeq) != fmt.Sprint(errPar) {
			t.Fatalf("errors differ: %v vs %v", errSeq, errPar)
		}
		if d := cmp.Diff(seq.NodeVerdicts(), par.NodeVerdicts()); d != "" {
			t.Fatalf("verdicts differ:\n%s", d)
		}
		if d := cmp.Diff(seq.Scores(), par.Scores()); d != "" {
			t.Fatalf("scores differ:\n%s", d)
		}
		if seq.SelectedNode() != par.SelectedNode() || seq.EvaluatedNodes() != par.EvaluatedNodes() {
			t.Fatalf("choice %s/%s evaluated %d/%d", seq.SelectedNode(), par.SelectedNode(), seq.EvaluatedNodes(), par.EvaluatedNodes())
		}
		if d := cmp.Diff([]any{seq.Totals, seq.Top, seq.Ties, seq.Margin}, []any{par.Totals, par.Top, par.Ties, par.Margin}); d != "" {
			t.Fatalf("totals, top, ties and margin differ:\n%s", d)
		}
	})
}

// atLeastProcs raises GOMAXPROCS to n, if below, and returns what
// restores it.
func atLeastProcs(n int) func() {
	prev := runtime.GOMAXPROCS(max(n, runtime.GOMAXPROCS(0)))
	return func() { runtime.GOMAXPROCS(prev) }
}

// chiSquare001 holds the chi-square critical values at p = 0.001 for 1..9
// degrees of freedom.
var chiSquare001 = []float64{0, 10.828, 13.816, 16.266, 18.467, 20.515, 22.458, 24.322, 26.124, 27.877}

// TestPropTieBreakUniform: each of k tied top nodes wins with frequency
// ≈ 1/k (chi-square at p = 0.001). The tie-break RNG is seeded from k so
// each drawn case is deterministic (no flakes); rapid explores k and where
// the tied nodes sit among lower-scoring ones.
func TestPropTieBreakUniform(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		k := rapid.IntRange(2, 10).Draw(t, "k")
		others := rapid.IntRange(0, 10).Draw(t, "others")
		totals := make([]int64, 0, k+others)
		for range k {
			totals = append(totals, 500)
		}
		for range others {
			totals = append(totals, rapid.Int64Range(0, 499).Draw(t, "low"))
		}
		perm := rapid.Permutation(totals).Draw(t, "order")
		rng := rand.New(rand.NewPCG(uint64(k), uint64(others)))
		trials := 2000 * k
		counts := map[int]int{}
		res := &Result{Totals: perm, feasible: make([]int32, len(perm)), order: make([]*framework.NodeInfo, len(perm))}
		for i := range res.order {
			res.feasible[i] = int32(i)
			res.order[i], _ = framework.NewNodeInfo(testNode(fmt.Sprintf("n%d", i), 1000))
		}
		for range trials {
			res.selectHost(rng, 1)
			sel := res.selected
			if perm[sel] != 500 {
				t.Fatalf("picked a non-maximal node")
			}
			counts[sel]++
		}
		if len(counts) != k {
			t.Fatalf("%d of %d tied nodes ever chosen", len(counts), k)
		}
		exp := float64(trials) / float64(k)
		var chi float64
		for _, c := range counts {
			d := float64(c) - exp
			chi += d * d / exp
		}
		if chi > chiSquare001[k-1] {
			t.Fatalf("chi-square %.2f > %.3f for k=%d: %v", chi, chiSquare001[k-1], k, counts)
		}
	})
}

// TestPropSelectHostUsesTieBreak checks the runner's own selection (not a
// copy of it) against itself: same seed ⇒ same choice.
func TestPropSelectHostUsesTieBreak(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 30).Draw(t, "n")
		totals := rapid.SliceOfN(rapid.Int64Range(0, 3), n, n).Draw(t, "totals")
		seed := rapid.Uint64().Draw(t, "seed")
		mk := func() *Result {
			r := &Result{Totals: append([]int64(nil), totals...), feasible: make([]int32, n), selected: -1}
			r.order = make([]*framework.NodeInfo, n)
			for i := range r.order {
				r.feasible[i] = int32(i)
				r.order[i], _ = framework.NewNodeInfo(testNode(fmt.Sprintf("n%d", i), 1000))
			}
			r.selectHost(rand.New(rand.NewPCG(seed, 1)), 3)
			return r
		}
		a, b := mk(), mk()
		if a.SelectedNode() != b.SelectedNode() {
			t.Fatalf("same seed, different choice")
		}
		best := int64(0)
		for _, x := range totals {
			best = max(best, x)
		}
		if a.Top[0].Total != best || a.Margin < 0 {
			t.Fatalf("top %v best %d margin %d", a.Top, best, a.Margin)
		}
	})
}

// TestPropReserveFailureUnreservesAll: when reserve plugin i fails, Unreserve
// runs on every reserve plugin in reverse order.
func TestPropReserveFailureUnreservesAll(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 8).Draw(t, "plugins")
		failAt := rapid.IntRange(-1, n-1).Draw(t, "failAt")
		log := &eventLog{}
		var fakes []*fake
		var names []string
		for i := range n {
			fk := &fake{name: fmt.Sprintf("R%d", i), log: log}
			if i == failAt {
				fk.reserve = func() *framework.Status { return framework.NewStatus(framework.Unschedulable, "no room") }
			}
			fakes = append(fakes, fk)
			names = append(names, fk.name)
		}
		f, err := NewFramework(registryOf(fakes...), framework.Profile{Reserve: names})
		if err != nil {
			t.Fatal(err)
		}
		s := f.Reserve(context.Background(), framework.NewCycleState(), testPod("p"), "n0")
		var want []string
		if failAt < 0 {
			for i := range n {
				want = append(want, fmt.Sprintf("Reserve R%d", i))
			}
			if !s.IsSuccess() {
				t.Fatalf("status %v", s)
			}
		} else {
			for i := 0; i <= failAt; i++ {
				want = append(want, fmt.Sprintf("Reserve R%d", i))
			}
			for i := n - 1; i >= 0; i-- {
				want = append(want, fmt.Sprintf("Unreserve R%d", i))
			}
			if s.Plugin() != fmt.Sprintf("R%d", failAt) {
				t.Fatalf("failure names %q", s.Plugin())
			}
		}
		if d := cmp.Diff(want, log.ev); d != "" {
			t.Fatalf("events (-want +got):\n%s", d)
		}
	})
}
