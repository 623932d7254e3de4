package runtime

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/schedkit/schedkit/framework"
	"pgregory.net/rapid"
)

// TestStepTimes: each step of a timed cycle holds exactly the time its
// plugins spent on the framework's clock (fake plugins move a fake clock
// by a known amount per call), a step the cycle did not reach is zero,
// and an untimed cycle leaves every step zero.
func TestStepTimes(t *testing.T) {
	const (
		preFilterCost = time.Millisecond
		filterCost    = 10 * time.Microsecond // per node
		preScoreCost  = 3 * time.Millisecond
		scoreCost     = 100 * time.Microsecond // per node
		normalizeCost = 5 * time.Millisecond
	)
	cases := []struct {
		name      string
		nodes     int
		feasible  int // the first nodes pass the filter
		rejectPre bool
		untimed   bool
		want      StepTimes
	}{
		{name: "every step", nodes: 4, feasible: 4, want: StepTimes{
			PreFilter: preFilterCost, Filter: 4 * filterCost, PreScore: preScoreCost,
			Score: 4 * scoreCost, NormalizeScore: normalizeCost}},
		{name: "some nodes filtered", nodes: 6, feasible: 2, want: StepTimes{
			PreFilter: preFilterCost, Filter: 6 * filterCost, PreScore: preScoreCost,
			Score: 2 * scoreCost, NormalizeScore: normalizeCost}},
		{name: "one feasible node is not scored", nodes: 5, feasible: 1, want: StepTimes{
			PreFilter: preFilterCost, Filter: 5 * filterCost}},
		{name: "no feasible node", nodes: 3, feasible: 0, want: StepTimes{
			PreFilter: preFilterCost, Filter: 3 * filterCost}},
		{name: "PreFilter rejects", nodes: 3, feasible: 3, rejectPre: true, want: StepTimes{
			PreFilter: preFilterCost}},
		{name: "untimed", nodes: 4, feasible: 4, untimed: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			clock := framework.NewFakeClock(time.Unix(1000, 0))
			advance := func(d time.Duration) {
				if err := clock.Advance(d); err != nil {
					t.Fatal(err)
				}
			}
			pl := &fake{name: "P",
				preFilter: func([]*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
					advance(preFilterCost)
					if tc.rejectPre {
						return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, "no")
					}
					return nil, nil
				},
				filter: func(ni *framework.NodeInfo) *framework.Status {
					advance(filterCost)
					if nodeNum(ni) >= tc.feasible {
						return framework.NewStatus(framework.Unschedulable, "no")
					}
					return nil
				},
				preScore: func([]*framework.NodeInfo) *framework.Status {
					advance(preScoreCost)
					return nil
				},
				score: func(ni *framework.NodeInfo) (int64, *framework.Status) {
					advance(scoreCost)
					return int64(nodeNum(ni)), nil
				},
				normalize: func(framework.NodeScoreList) *framework.Status {
					advance(normalizeCost)
					return nil
				},
			}
			f, err := NewFramework(registryOf(pl), framework.Profile{PreFilter: []string{"P"}, Filter: []string{"P"},
				PreScore: []string{"P"}, Score: []string{"P"}, Weights: map[string]int64{"P": 1}}, WithClock(clock))
			if err != nil {
				t.Fatal(err)
			}
			start := clock.Now()
			res, _ := f.Schedule(context.Background(), nil, framework.MustSnapshot(testNodes(tc.nodes), nil), testPod("p"),
				CycleOptions{Rand: rand.New(rand.NewPCG(1, 2)), TimeSteps: !tc.untimed})
			if res.Steps != tc.want {
				t.Fatalf("Steps = %+v, want %+v", res.Steps, tc.want)
			}
			if elapsed := clock.Now().Sub(start); !tc.untimed && res.Steps.Total() != elapsed {
				t.Fatalf("Steps.Total() = %v, the cycle took %v", res.Steps.Total(), elapsed)
			}
		})
	}
}

// TestStepTimesAdd: Add sums step by step, and Total sums the steps.
func TestStepTimesAdd(t *testing.T) {
	a := StepTimes{PreFilter: 1, Filter: 2, PreScore: 3, Score: 4, NormalizeScore: 5, SelectHost: 6}
	b := StepTimes{PreFilter: 10, Filter: 20, PreScore: 30, Score: 40, NormalizeScore: 50, SelectHost: 60}
	a.Add(b)
	want := StepTimes{PreFilter: 11, Filter: 22, PreScore: 33, Score: 44, NormalizeScore: 55, SelectHost: 66}
	if a != want {
		t.Fatalf("Add: %+v, want %+v", a, want)
	}
	if got := want.Total(); got != 231 {
		t.Fatalf("Total() = %v, want 231", got)
	}
}

// TestPropTimedCycleDecides: timing the steps changes no decision, on one
// worker or several, reusing a Result or not, and a timed cycle's steps
// are never negative on the real clock.
func TestPropTimedCycleDecides(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 40).Draw(t, "nodes")
		seed := rapid.Uint64().Draw(t, "seed")
		workers := rapid.IntRange(1, 3).Draw(t, "workers")
		rejectPct := rapid.Int64Range(0, 90).Draw(t, "rejectPct")
		flt, sc := hashedFilterScore(seed, rejectPct)
		f, err := NewFramework(registryOf(flt, sc), framework.Profile{Filter: []string{"F"}, Score: []string{"S"},
			Weights: map[string]int64{"S": 1}}, WithParallelism(workers))
		if err != nil {
			t.Fatal(err)
		}
		snap := framework.MustSnapshot(testNodes(n), nil)
		opts := CycleOptions{
			StartIndex:        rapid.IntRange(0, 50).Draw(t, "start"),
			NumFeasibleToFind: rapid.IntRange(0, 45).Draw(t, "toFind"),
			TotalsOnly:        rapid.Bool().Draw(t, "totalsOnly"),
		}
		var reuse *Result
		if rapid.Bool().Draw(t, "reuse") {
			reuse = &Result{}
		}
		run := func(timed bool) (string, []int64, StepTimes) {
			o := opts
			o.Rand, o.TimeSteps, o.Reuse = rand.New(rand.NewPCG(seed, 7)), timed, reuse
			res, _ := f.Schedule(context.Background(), nil, snap, testPod("p"), o)
			return res.SelectedNode(), slices.Clone(res.Totals), res.Steps
		}
		node, totals, _ := run(false)
		tnode, ttotals, steps := run(true)
		if tnode != node || !slices.Equal(ttotals, totals) {
			t.Fatalf("timed cycle chose %q with totals %v; untimed %q with %v", tnode, ttotals, node, totals)
		}
		for _, d := range []time.Duration{steps.PreFilter, steps.Filter, steps.PreScore, steps.Score, steps.NormalizeScore, steps.SelectHost} {
			if d < 0 {
				t.Fatalf("negative step in %+v", steps)
			}
		}
		if _, _, s := run(false); s != (StepTimes{}) {
			t.Fatalf("untimed cycle after a timed one: Steps = %+v, want zero", s)
		}
	})
}
