package runtime

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/schedkit/schedkit/framework"
)

func schedule(t *testing.T, p framework.Profile, fakes []*fake, nodes int, opts CycleOptions) (*Result, error) {
	t.Helper()
	f, err := NewFramework(registryOf(fakes...), p)
	if err != nil {
		t.Fatalf("NewFramework: %v", err)
	}
	snap := framework.MustSnapshot(testNodes(nodes), nil)
	if opts.Rand == nil {
		opts.Rand = rand.New(rand.NewPCG(1, 2))
	}
	return f.Schedule(context.Background(), nil, snap, testPod("p"), opts)
}

func names(nodes []*framework.NodeInfo) []string {
	out := make([]string, len(nodes))
	for i, n := range nodes {
		out[i] = n.Name()
	}
	return out
}

func TestPreFilterBranches(t *testing.T) {
	only := func(ns ...string) func([]*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
		return func([]*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
			set := map[string]struct{}{}
			for _, n := range ns {
				set[n] = struct{}{}
			}
			return &framework.PreFilterResult{NodeNames: set}, nil
		}
	}
	status := func(c framework.Code, r string) func([]*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
		return func([]*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
			return nil, framework.NewStatus(c, r)
		}
	}
	tests := []struct {
		name         string
		a, b         func([]*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status)
		wantErr      string // substring of the returned error
		wantFit      bool   // error is a *FitError
		wantFeasible []string
		wantRanB     bool
		wantUnsched  []string
	}{
		{name: "all pass", wantFeasible: []string{"n0", "n1", "n2", "n3"}, wantRanB: true},
		{name: "result intersection", a: only("n1", "n2", "n9"), b: only("n2", "n3"), wantFeasible: []string{"n2"}, wantRanB: true, wantUnsched: []string{"A", "B"}},
		{name: "one result, in snapshot order, an unknown name left out", a: only("n3", "n9", "n1"), wantFeasible: []string{"n1", "n3"}, wantRanB: true, wantUnsched: []string{"A"}},
		{name: "empty intersection, two plugins", a: only("n1"), b: only("n2"), wantErr: "0/4 nodes are available: node(s) didn't satisfy plugin(s) [A B] simultaneously.", wantFit: true, wantRanB: true, wantUnsched: []string{"A", "B"}},
		{name: "empty result, one plugin", a: only(), wantErr: "0/4 nodes are available: node(s) didn't satisfy plugin A.", wantFit: true, wantUnsched: []string{"A"}},
		{name: "U&U stops at once", a: status(framework.UnschedulableAndUnresolvable, "nope"), wantErr: "0/4 nodes are available: nope.", wantFit: true, wantUnsched: []string{"A"}},
		{name: "Unschedulable keeps running", a: status(framework.Unschedulable, "later"), wantErr: "0/4 nodes are available: later.", wantFit: true, wantRanB: true, wantUnsched: []string{"A"}},
		{name: "Error aborts", a: status(framework.Error, "boom"), wantErr: `running PreFilter plugin "A": boom`},
		{name: "Wait is an error", a: status(framework.Wait, "zzz"), wantErr: `running PreFilter plugin "A": zzz`},
		{name: "Skip disables the coupled filter", a: status(framework.Skip, ""), wantFeasible: []string{"n0", "n1", "n2", "n3"}, wantRanB: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			log := &eventLog{}
			a := &fake{name: "A", preFilter: tc.a, log: log}
			if tc.name == "Skip disables the coupled filter" {
				a.filter = func(*framework.NodeInfo) *framework.Status {
					return framework.NewStatus(framework.Unschedulable, "A filter ran")
				}
			}
			b := &fake{name: "B", preFilter: tc.b, log: log}
			res, err := schedule(t, framework.Profile{PreFilter: []string{"A", "B"}, Filter: []string{"A", "B"}}, []*fake{a, b}, 4, CycleOptions{})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				var fe *FitError
				if got := errors.As(err, &fe); got != tc.wantFit {
					t.Fatalf("FitError = %v, want %v", got, tc.wantFit)
				}
			} else if err != nil {
				t.Fatalf("unexpected error %v", err)
			} else if d := cmp.Diff(tc.wantFeasible, names(res.FeasibleNodes())); d != "" {
				t.Fatalf("feasible (-want +got):\n%s", d)
			}
			ranB := false
			for _, e := range log.ev {
				ranB = ranB || e == "PreFilter B"
			}
			if ranB != tc.wantRanB {
				t.Fatalf("PreFilter B ran = %v, want %v (%v)", ranB, tc.wantRanB, log.ev)
			}
			if res != nil {
				if d := cmp.Diff(tc.wantUnsched, res.Diagnosis.UnschedulablePlugins); d != "" {
					t.Fatalf("UnschedulablePlugins (-want +got):\n%s", d)
				}
			}
		})
	}
}

// TestPreFilterResultSetsLeftAsReturned: the framework passes a
// plugin's NodeNames on without copying it and never modifies it, so a
// plugin may return one set in every cycle; where two plugins narrow the
// nodes, the intersection is a set of its own.
func TestPreFilterResultSetsLeftAsReturned(t *testing.T) {
	shared := map[string]struct{}{"n1": {}, "n2": {}, "n3": {}}
	other := map[string]struct{}{"n2": {}, "n3": {}, "n0": {}}
	returns := func(set map[string]struct{}) func([]*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
		return func([]*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
			return &framework.PreFilterResult{NodeNames: set}, nil
		}
	}
	setOf := func(ns ...string) map[string]struct{} {
		out := map[string]struct{}{}
		for _, n := range ns {
			out[n] = struct{}{}
		}
		return out
	}
	for _, tc := range []struct {
		name         string
		b            map[string]struct{}
		wantFeasible []string
	}{
		{"alone", nil, []string{"n1", "n2", "n3"}},
		{"intersected", other, []string{"n2", "n3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := &fake{name: "A", preFilter: returns(shared)}
			b := &fake{name: "B"}
			if tc.b != nil {
				b.preFilter = returns(tc.b)
			}
			for range 2 {
				res, err := schedule(t, framework.Profile{PreFilter: []string{"A", "B"}, Filter: []string{"A"}}, []*fake{a, b}, 5, CycleOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(tc.wantFeasible, names(res.FeasibleNodes())); d != "" {
					t.Fatalf("feasible (-want +got):\n%s", d)
				}
				if d := cmp.Diff(setOf(tc.wantFeasible...), res.PreFilterResult.NodeNames); d != "" {
					t.Fatalf("PreFilterResult (-want +got):\n%s", d)
				}
			}
			if d := cmp.Diff(setOf("n1", "n2", "n3"), shared); d != "" {
				t.Errorf("A's set changed (-want +got):\n%s", d)
			}
			if d := cmp.Diff(setOf("n0", "n2", "n3"), other); d != "" {
				t.Errorf("B's set changed (-want +got):\n%s", d)
			}
		})
	}
}

// TestNarrowedResultsKeptApart: cycles narrowed by a PreFilterResult,
// each with a Result of its own to reuse, taking turns: a Result's
// candidates, feasible nodes and plugins stay its cycle's while another
// Result's cycle runs, and its next cycle answers as with a fresh Result.
func TestNarrowedResultsKeptApart(t *testing.T) {
	sets := [][]string{{"n1", "n2"}, {"n3", "n4", "n0"}, {"n4"}, {"n0", "n2", "n3"}}
	call := 0
	a := &fake{name: "A", preFilter: func([]*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
		set := map[string]struct{}{}
		for _, n := range sets[call%len(sets)] {
			set[n] = struct{}{}
		}
		call++
		return &framework.PreFilterResult{NodeNames: set}, nil
	}}
	f, err := NewFramework(registryOf(a), framework.Profile{PreFilter: []string{"A"}, Filter: []string{"A"}})
	if err != nil {
		t.Fatal(err)
	}
	snap := framework.MustSnapshot(testNodes(5), nil)
	run := func(reuse *Result) *Result {
		t.Helper()
		res, err := f.Schedule(context.Background(), nil, snap, testPod("p"), CycleOptions{Rand: rand.New(rand.NewPCG(1, 2)), Reuse: reuse})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	sorted := func(ns []string) []string { return slices.Sorted(slices.Values(ns)) }
	check := func(res *Result, set []string) {
		t.Helper()
		if d := cmp.Diff(sorted(set), names(res.FeasibleNodes())); d != "" {
			t.Errorf("feasible nodes (-want +got):\n%s", d)
		}
		if d := cmp.Diff([]string{"A"}, res.Diagnosis.UnschedulablePlugins); d != "" {
			t.Errorf("unschedulable plugins (-want +got):\n%s", d)
		}
	}
	results := []*Result{{}, {}}
	for i := range 2 * len(sets) {
		set := sets[i%len(sets)]
		res := run(results[i%2])
		check(res, set)
		if i > 0 {
			check(results[(i-1)%2], sets[(i-1)%len(sets)]) // the other Result, its cycle's still
		}
		call-- // the same set again, for a fresh Result
		fresh := run(nil)
		if d := cmp.Diff(names(fresh.FeasibleNodes()), names(res.FeasibleNodes())); d != "" {
			t.Errorf("cycle %d: a reused Result's feasible nodes differ from a fresh one's (-fresh +reused):\n%s", i, d)
		}
		if res.SelectedNode() != fresh.SelectedNode() {
			t.Errorf("cycle %d: selected %s, a fresh Result %s", i, res.SelectedNode(), fresh.SelectedNode())
		}
	}
}

func TestFilterStopsAtFirstRejection(t *testing.T) {
	calls := map[string]int{}
	var mu = make(chan struct{}, 1)
	count := func(name string) { mu <- struct{}{}; calls[name]++; <-mu }
	a := &fake{name: "A", filter: func(n *framework.NodeInfo) *framework.Status {
		count("A")
		if nodeNum(n)%2 == 1 {
			return framework.NewStatus(framework.Unschedulable, "odd")
		}
		return nil
	}}
	b := &fake{name: "B", filter: func(n *framework.NodeInfo) *framework.Status {
		count("B")
		if nodeNum(n) == 2 {
			return framework.NewStatus(framework.UnschedulableAndUnresolvable, "two")
		}
		return nil
	}}
	res, err := schedule(t, framework.Profile{Filter: []string{"A", "B"}}, []*fake{a, b}, 4, CycleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"n0"}, names(res.FeasibleNodes())); d != "" {
		t.Fatalf("feasible (-want +got):\n%s", d)
	}
	if calls["A"] != 4 || calls["B"] != 2 {
		t.Fatalf("calls = %v, want A 4, B 2 (B only on nodes A passed)", calls)
	}
	want := []NodeVerdict{
		{Node: "n0", Verdict: VerdictFeasible},
		{Node: "n1", Verdict: VerdictRejected, Plugin: "A", Code: framework.Unschedulable, Reasons: []string{"odd"}},
		{Node: "n2", Verdict: VerdictRejected, Plugin: "B", Code: framework.UnschedulableAndUnresolvable, Reasons: []string{"two"}},
		{Node: "n3", Verdict: VerdictRejected, Plugin: "A", Code: framework.Unschedulable, Reasons: []string{"odd"}},
	}
	if d := cmp.Diff(want, res.NodeVerdicts()); d != "" {
		t.Fatalf("verdicts (-want +got):\n%s", d)
	}
	if res.SelectedNode() != "n0" || len(res.Totals) != 0 {
		t.Fatalf("one feasible node must be chosen without scoring: selected %q totals %v", res.SelectedNode(), res.Totals)
	}
}

func TestFilterNonRejectionIsError(t *testing.T) {
	for _, c := range []framework.Code{framework.Error, framework.Skip, framework.Wait} {
		a := &fake{name: "A", filter: func(n *framework.NodeInfo) *framework.Status {
			if nodeNum(n) == 1 {
				return framework.NewStatus(c, "odd status")
			}
			return nil
		}}
		_, err := schedule(t, framework.Profile{Filter: []string{"A"}}, []*fake{a}, 3, CycleOptions{})
		if err == nil || !strings.Contains(err.Error(), `running "A" filter plugin: odd status`) {
			t.Fatalf("code %v: err = %v", c, err)
		}
	}
}

func TestFitErrorHistogram(t *testing.T) {
	// 12 nodes: n0..n9 and n11 rejected by "x", n10 and n11... reasons sorted as strings: "10 ..." before "2 ...".
	a := &fake{name: "A", filter: func(n *framework.NodeInfo) *framework.Status {
		if nodeNum(n) < 10 {
			return framework.NewStatus(framework.Unschedulable, "node(s) had x")
		}
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, "node(s) had y", "node(s) had z")
	}}
	_, err := schedule(t, framework.Profile{Filter: []string{"A"}}, []*fake{a}, 12, CycleOptions{})
	want := "0/12 nodes are available: 10 node(s) had x, 2 node(s) had y, 2 node(s) had z."
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant  %s", err, want)
	}
}

func TestFitErrorAbsentNodes(t *testing.T) {
	// PreFilter narrows to n1; n1 is rejected by the filter; 3 absent nodes get the absent status.
	a := &fake{name: "A",
		preFilter: func([]*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
			return &framework.PreFilterResult{NodeNames: map[string]struct{}{"n1": {}}}, nil
		},
		filter: func(*framework.NodeInfo) *framework.Status {
			return framework.NewStatus(framework.Unschedulable, "too small")
		},
	}
	res, err := schedule(t, framework.Profile{PreFilter: []string{"A"}, Filter: []string{"A"}}, []*fake{a}, 4, CycleOptions{})
	want := "0/4 nodes are available: 1 too small, 3 node(s) didn't satisfy plugin(s) [A]."
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant  %s", err, want)
	}
	nts := res.NodeToStatus()
	if got := nts.Get("n0"); got.Code() != framework.UnschedulableAndUnresolvable {
		t.Fatalf("absent node status = %v", got)
	}
	if got := nts.Get("n1"); got.Code() != framework.Unschedulable || got.Plugin() != "A" {
		t.Fatalf("n1 status = %v", got)
	}
	v := res.NodeVerdicts()
	if v[0].Verdict != VerdictExcluded || v[1].Verdict != VerdictRejected {
		t.Fatalf("verdicts = %+v", v)
	}
}

func TestScoreBranches(t *testing.T) {
	byNum := func(mul int64) func(*framework.NodeInfo) (int64, *framework.Status) {
		return func(n *framework.NodeInfo) (int64, *framework.Status) { return int64(nodeNum(n)) * mul, nil }
	}
	tests := []struct {
		name       string
		fakes      []*fake
		profile    framework.Profile
		wantTotals []int64
		wantErr    string
		wantSel    string
	}{
		{
			name:       "no score plugins: every feasible node scores 1",
			fakes:      []*fake{{name: "F"}},
			profile:    framework.Profile{Filter: []string{"F"}},
			wantTotals: []int64{1, 1, 1},
		},
		{
			name:       "weights, 0 means 1",
			fakes:      []*fake{{name: "A", score: byNum(10)}, {name: "B", score: byNum(1)}},
			profile:    framework.Profile{Score: []string{"A", "B"}, Weights: map[string]int64{"A": 3, "B": 0}},
			wantTotals: []int64{0, 31, 62}, // 10k×3 + k×1
			wantSel:    "n2",
		},
		{
			name: "normalization runs before the bounds check",
			fakes: []*fake{{name: "A", score: byNum(1000), normalize: func(s framework.NodeScoreList) *framework.Status {
				return framework.DefaultNormalizeScore(framework.MaxNodeScore, false, s)
			}}},
			profile:    framework.Profile{Score: []string{"A"}, Weights: map[string]int64{"A": 2}},
			wantTotals: []int64{0, 100, 200},
		},
		{
			name:    "score above 100 is an error naming plugin, node and score",
			fakes:   []*fake{{name: "A", score: byNum(60)}},
			profile: framework.Profile{Score: []string{"A"}, Weights: map[string]int64{"A": 1}},
			wantErr: `plugin "A" returns an invalid score 120 for node "n2"`,
		},
		{
			name:    "negative score is an error",
			fakes:   []*fake{{name: "A", score: byNum(-1)}},
			profile: framework.Profile{Score: []string{"A"}, Weights: map[string]int64{"A": 1}},
			wantErr: `plugin "A" returns an invalid score -1 for node "n1"`,
		},
		{
			name: "score failure aborts",
			fakes: []*fake{{name: "A", score: func(n *framework.NodeInfo) (int64, *framework.Status) {
				if nodeNum(n) == 1 {
					return 0, framework.NewStatus(framework.Error, "disk on fire")
				}
				return 1, nil
			}}},
			profile: framework.Profile{Score: []string{"A"}, Weights: map[string]int64{"A": 1}},
			wantErr: `plugin "A" failed on node "n1" with: disk on fire`,
		},
		{
			name: "PreScore Skip disables the coupled Score",
			fakes: []*fake{
				{name: "A", score: byNum(50), preScore: func([]*framework.NodeInfo) *framework.Status { return framework.NewStatus(framework.Skip) }},
				{name: "B", score: byNum(1)},
			},
			profile:    framework.Profile{PreScore: []string{"A"}, Score: []string{"A", "B"}, Weights: map[string]int64{"A": 1, "B": 1}},
			wantTotals: []int64{0, 1, 2},
		},
		{
			name: "PreScore failure aborts",
			fakes: []*fake{{name: "A", score: byNum(1), preScore: func([]*framework.NodeInfo) *framework.Status {
				return framework.NewStatus(framework.Unschedulable, "no")
			}}},
			profile:    framework.Profile{PreScore: []string{"A"}, Score: []string{"A"}, Weights: map[string]int64{"A": 1}},
			wantErr:    `running PreScore plugin "A": no`,
			wantTotals: nil,
		},
		{
			name: "normalize failure aborts",
			fakes: []*fake{{name: "A", score: byNum(1), normalize: func(framework.NodeScoreList) *framework.Status {
				return framework.NewStatus(framework.Error, "cannot")
			}}},
			profile: framework.Profile{Score: []string{"A"}, Weights: map[string]int64{"A": 1}},
			wantErr: `running Normalize on Score plugins: plugin "A" failed with: cannot`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := schedule(t, tc.profile, tc.fakes, 3, CycleOptions{})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.wantTotals, res.Totals); d != "" {
				t.Fatalf("totals (-want +got):\n%s", d)
			}
			if tc.wantSel != "" && res.SelectedNode() != tc.wantSel {
				t.Fatalf("selected %s, want %s", res.SelectedNode(), tc.wantSel)
			}
		})
	}
}

func TestScoresExplanation(t *testing.T) {
	a := &fake{name: "A", score: func(n *framework.NodeInfo) (int64, *framework.Status) { return int64(nodeNum(n)) * 5, nil },
		normalize: func(s framework.NodeScoreList) *framework.Status {
			return framework.DefaultNormalizeScore(framework.MaxNodeScore, true, s)
		}}
	b := &fake{name: "B", score: func(n *framework.NodeInfo) (int64, *framework.Status) { return int64(nodeNum(n)) * 40, nil }}
	res, err := schedule(t, framework.Profile{Score: []string{"A", "B"}, Weights: map[string]int64{"A": 2, "B": 1}}, []*fake{a, b}, 3, CycleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// A raw 0,5,10 → reverse-normalized 100,50,0 ×2; B raw = normalized 0,40,80 ×1.
	want := []NodeScores{
		{Node: "n0", Total: 200, Scores: []PluginScore{{"A", 0, 100, 2, 200, false}, {"B", 0, 0, 1, 0, false}}},
		{Node: "n1", Total: 140, Scores: []PluginScore{{"A", 5, 50, 2, 100, false}, {"B", 40, 40, 1, 40, false}}},
		{Node: "n2", Total: 80, Scores: []PluginScore{{"A", 10, 0, 2, 0, false}, {"B", 80, 80, 1, 80, false}}},
	}
	if d := cmp.Diff(want, res.Scores()); d != "" {
		t.Fatalf("scores (-want +got):\n%s", d)
	}
	if res.SelectedNode() != "n0" || res.Margin != 60 {
		t.Fatalf("selected %s margin %d, want n0 margin 60", res.SelectedNode(), res.Margin)
	}
	if d := cmp.Diff([]RankedNode{{"n0", 200}, {"n1", 140}, {"n2", 80}}, res.Top); d != "" {
		t.Fatalf("top (-want +got):\n%s", d)
	}
	table := res.String()
	for _, s := range []string{"selected n0 (total 200, margin 60 over n1)", "5 -> 50 x 2 = 100", "TOTAL"} {
		if !strings.Contains(table, s) {
			t.Fatalf("table lacks %q:\n%s", s, table)
		}
	}
}

func TestNumFeasibleToFindAndRoundRobin(t *testing.T) {
	a := &fake{name: "A", filter: func(n *framework.NodeInfo) *framework.Status {
		if nodeNum(n)%3 == 0 {
			return framework.NewStatus(framework.Unschedulable, "div3")
		}
		return nil
	}}
	s := &fake{name: "S", score: func(*framework.NodeInfo) (int64, *framework.Status) { return 1, nil }}
	res, err := schedule(t, framework.Profile{Filter: []string{"A"}, Score: []string{"S"}, Weights: map[string]int64{"S": 1}}, []*fake{a, s}, 10,
		CycleOptions{StartIndex: 7, NumFeasibleToFind: 3})
	if err != nil {
		t.Fatal(err)
	}
	// Order from 7: n7 ok, n8 ok, n9 rejected, n0 rejected, n1 ok → stop.
	if d := cmp.Diff([]string{"n7", "n8", "n1"}, names(res.FeasibleNodes())); d != "" {
		t.Fatalf("feasible (-want +got):\n%s", d)
	}
	if res.EvaluatedNodes() != 5 {
		t.Fatalf("evaluated %d, want 5", res.EvaluatedNodes())
	}
	var notEval int
	for _, v := range res.NodeVerdicts() {
		if v.Verdict == VerdictNotEvaluated {
			notEval++
		}
	}
	if notEval != 5 {
		t.Fatalf("not evaluated = %d, want 5", notEval)
	}
}

func TestRequiresRand(t *testing.T) {
	f, _ := NewFramework(framework.NewRegistry(), framework.Profile{})
	_, err := f.Schedule(context.Background(), nil, framework.MustSnapshot(testNodes(1), nil), testPod("p"), CycleOptions{})
	if err == nil || !strings.Contains(err.Error(), "CycleOptions.Rand") {
		t.Fatalf("err = %v", err)
	}
	if _, err := f.Schedule(context.Background(), nil, nil, testPod("p"), CycleOptions{Rand: rand.New(rand.NewPCG(1, 1))}); err == nil {
		t.Fatal("nil snapshot accepted")
	}
	if _, err := f.Schedule(context.Background(), nil, framework.MustSnapshot(nil, nil), nil, CycleOptions{Rand: rand.New(rand.NewPCG(1, 1))}); err == nil {
		t.Fatal("nil pod accepted")
	}
	_, err = f.Schedule(context.Background(), nil, framework.MustSnapshot(testNodes(1), nil), testPod("p"),
		CycleOptions{Rand: rand.New(rand.NewPCG(1, 1)), PreFiltered: &PreFilterOutcome{}})
	if err == nil || !strings.Contains(err.Error(), "CycleOptions.PreFiltered") {
		t.Fatalf("PreFiltered without a state: err = %v", err)
	}
}

// TestScheduleContext: a nil context is an error; a context already
// cancelled fails the cycle before any plugin runs; one cancelled during
// filtering stops it there (the remaining nodes are not filtered) and
// fails the cycle with the context's error, as kube-scheduler's
// parallelizer stops on a cancelled context.
func TestScheduleContext(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var calls int
	ctx, cancel := context.WithCancel(context.Background())
	a := &fake{name: "A", filter: func(*framework.NodeInfo) *framework.Status {
		calls++
		if calls == 2 {
			cancel()
		}
		return nil
	}}
	f, err := NewFramework(registryOf(a), framework.Profile{Filter: []string{"A"}}, WithParallelism(1))
	if err != nil {
		t.Fatal(err)
	}
	n := 4 * seqChunk // chunks enough for the loop to stop between them
	snap := framework.MustSnapshot(testNodes(n), nil)
	//lint:ignore SA1012 a nil context is what this checks
	if _, err := f.Schedule(nil, nil, snap, testPod("p"), CycleOptions{Rand: rng}); err == nil || !strings.Contains(err.Error(), "nil context") {
		t.Errorf("nil context: err = %v", err)
	}
	res, err := f.Schedule(ctx, nil, snap, testPod("p"), CycleOptions{Rand: rng})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled during Filter: err = %v, want context.Canceled", err)
	}
	if res == nil || res.SelectedNode() != "" {
		t.Errorf("cancelled cycle selected %q", res.SelectedNode())
	}
	if calls >= n {
		t.Errorf("Filter ran %d times on %d nodes after the context was cancelled at call 2", calls, n)
	}
	calls = 0
	if _, err := f.Schedule(ctx, nil, snap, testPod("p"), CycleOptions{Rand: rng}); !errors.Is(err, context.Canceled) || calls != 0 {
		t.Errorf("cancelled context: err = %v after %d Filter calls, want context.Canceled before any", err, calls)
	}
}

func TestEmptySnapshot(t *testing.T) {
	res, err := schedule(t, framework.Profile{Filter: []string{"A"}}, []*fake{{name: "A"}}, 0, CycleOptions{})
	var fe *FitError
	if !errors.As(err, &fe) || err.Error() != "0/0 nodes are available:" {
		t.Fatalf("err = %v", err)
	}
	if res.SelectedNode() != "" {
		t.Fatal("selected a node in an empty cluster")
	}
}

type fakeExtender struct {
	name       string
	interested bool
	reject     map[string]string
	unresolved map[string]string
	scores     map[string]int64
	weight     int64
	filterErr  error
	prioErr    error
	ignorable  bool
	noFilter   bool
	noPrio     bool
}

func (e *fakeExtender) Name() string                         { return e.name }
func (e *fakeExtender) IsInterested(*framework.PodInfo) bool { return e.interested }
func (e *fakeExtender) IsIgnorable() bool                    { return e.ignorable }
func (e *fakeExtender) IsFilter() bool                       { return !e.noFilter }
func (e *fakeExtender) IsPrioritizer() bool                  { return !e.noPrio }
func (e *fakeExtender) Filter(_ *framework.PodInfo, nodes []*framework.NodeInfo) ([]*framework.NodeInfo, map[string]string, map[string]string, error) {
	if e.filterErr != nil {
		return nil, nil, nil, e.filterErr
	}
	var out []*framework.NodeInfo
	for _, n := range nodes {
		if _, bad := e.reject[n.Name()]; bad {
			continue
		}
		if _, bad := e.unresolved[n.Name()]; bad {
			continue
		}
		out = append(out, n)
	}
	return out, e.reject, e.unresolved, nil
}
func (e *fakeExtender) Prioritize(_ *framework.PodInfo, nodes []*framework.NodeInfo) ([]framework.HostPriority, int64, error) {
	if e.prioErr != nil {
		return nil, 0, e.prioErr
	}
	var out []framework.HostPriority
	for _, n := range nodes {
		out = append(out, framework.HostPriority{Host: n.Name(), Score: e.scores[n.Name()]})
	}
	return out, e.weight, nil
}

func TestExtenders(t *testing.T) {
	s := &fake{name: "S", score: func(n *framework.NodeInfo) (int64, *framework.Status) { return int64(nodeNum(n)), nil }}
	ext := &fakeExtender{name: "ext", interested: true, reject: map[string]string{"n0": "ext says no"},
		unresolved: map[string]string{"n3": "never"}, scores: map[string]int64{"n1": 10, "n2": 3}, weight: 2}
	broken := &fakeExtender{name: "broken", interested: true, prioErr: errors.New("down")}
	bored := &fakeExtender{name: "bored", interested: false, reject: map[string]string{"n1": "x"}}
	f, err := NewFramework(registryOf(s), framework.Profile{Score: []string{"S"}, Weights: map[string]int64{"S": 1}}, WithExtenders(ext, broken, bored))
	if err != nil {
		t.Fatal(err)
	}
	res, err := f.Schedule(context.Background(), nil, framework.MustSnapshot(testNodes(4), nil), testPod("p"), CycleOptions{Rand: rand.New(rand.NewPCG(1, 2))})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"n1", "n2"}, names(res.FeasibleNodes())); d != "" {
		t.Fatalf("feasible (-want +got):\n%s", d)
	}
	// n1: 1 + 10×2×10 = 201; n2: 2 + 3×2×10 = 62.
	if d := cmp.Diff([]int64{201, 62}, res.Totals); d != "" {
		t.Fatalf("totals (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"ext"}, res.Extenders); d != "" {
		t.Fatalf("extenders that scored: %s", d)
	}
	v := res.NodeVerdicts()
	if v[0].Plugin != "ext" || v[0].Code != framework.Unschedulable || v[3].Code != framework.UnschedulableAndUnresolvable {
		t.Fatalf("verdicts %+v", v)
	}
	if d := cmp.Diff([]string{ExtenderName}, res.Diagnosis.UnschedulablePlugins); d != "" {
		t.Fatalf("unschedulable plugins: %s", d)
	}

	// An extender that only scores never filters, and one that only filters never scores.
	scoreOnly := &fakeExtender{name: "scoreOnly", interested: true, noFilter: true, reject: map[string]string{"n1": "x"}, scores: map[string]int64{"n1": 1}, weight: 1}
	filterOnly := &fakeExtender{name: "filterOnly", interested: true, noPrio: true, scores: map[string]int64{"n1": 10}, weight: 10}
	f3, _ := NewFramework(registryOf(s), framework.Profile{Score: []string{"S"}, Weights: map[string]int64{"S": 1}}, WithExtenders(scoreOnly, filterOnly))
	res3, err := f3.Schedule(context.Background(), nil, framework.MustSnapshot(testNodes(2), nil), testPod("p"), CycleOptions{Rand: rand.New(rand.NewPCG(1, 2))})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]int64{0, 1 + 10}, res3.Totals); d != "" {
		t.Fatalf("IsFilter/IsPrioritizer not honoured (-want +got):\n%s", d)
	}

	failing := &fakeExtender{name: "failing", interested: true, filterErr: errors.New("timeout")}
	f2, _ := NewFramework(framework.NewRegistry(), framework.Profile{}, WithExtenders(failing))
	if _, err := f2.Schedule(context.Background(), nil, framework.MustSnapshot(testNodes(2), nil), testPod("p"), CycleOptions{Rand: rand.New(rand.NewPCG(1, 2))}); err == nil || !strings.Contains(err.Error(), "timeout") {
		t.Fatalf("non-ignorable extender error: %v", err)
	}
	failing.ignorable = true
	if _, err := f2.Schedule(context.Background(), nil, framework.MustSnapshot(testNodes(2), nil), testPod("p"), CycleOptions{Rand: rand.New(rand.NewPCG(1, 2))}); err != nil {
		t.Fatalf("ignorable extender error surfaced: %v", err)
	}
}

func TestDefaultNormalizeScore(t *testing.T) {
	tests := []struct {
		in      []int64
		reverse bool
		want    []int64
	}{
		{[]int64{0, 0, 0}, false, []int64{0, 0, 0}},
		{[]int64{0, 0, 0}, true, []int64{100, 100, 100}},
		{[]int64{1, 2, 3}, false, []int64{33, 66, 100}},
		{[]int64{1, 2, 3}, true, []int64{67, 34, 0}},
		{[]int64{7}, false, []int64{100}},
		{nil, true, nil},
	}
	for _, tc := range tests {
		l := make(framework.NodeScoreList, len(tc.in))
		for i, s := range tc.in {
			l[i].Score = s
		}
		if s := framework.DefaultNormalizeScore(framework.MaxNodeScore, tc.reverse, l); !s.IsSuccess() {
			t.Fatal(s)
		}
		var got []int64
		for _, s := range l {
			got = append(got, s.Score)
		}
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("%v reverse=%v (-want +got):\n%s", tc.in, tc.reverse, d)
		}
	}
}

func TestReserveFailureUnreservesInReverse(t *testing.T) {
	log := &eventLog{}
	a := &fake{name: "A", log: log}
	b := &fake{name: "B", log: log, reserve: func() *framework.Status { return framework.NewStatus(framework.Unschedulable, "full") }}
	c := &fake{name: "C", log: log}
	f, err := NewFramework(registryOf(a, b, c), framework.Profile{Reserve: []string{"A", "B", "C"}})
	if err != nil {
		t.Fatal(err)
	}
	s := f.Reserve(context.Background(), framework.NewCycleState(), testPod("p"), "n1")
	if s.Code() != framework.Unschedulable || s.Plugin() != "B" {
		t.Fatalf("status %v", s)
	}
	want := []string{"Reserve A", "Reserve B", "Unreserve C", "Unreserve B", "Unreserve A"}
	if d := cmp.Diff(want, log.ev); d != "" {
		t.Fatalf("events (-want +got):\n%s", d)
	}
	b.reserve = func() *framework.Status { return framework.NewStatus(framework.Wait) }
	if s := f.Reserve(context.Background(), framework.NewCycleState(), testPod("p"), "n1"); s.Code() != framework.Error {
		t.Fatalf("a non-rejection Reserve failure must be an Error, got %v", s)
	}
}

func TestPermitBindPostFilter(t *testing.T) {
	ctx := context.Background()
	wait := &fake{name: "W", permit: func() (*framework.Status, time.Duration) {
		return framework.NewStatus(framework.Wait), 20 * time.Minute
	}}
	wait2 := &fake{name: "W2", permit: func() (*framework.Status, time.Duration) { return framework.NewStatus(framework.Wait), time.Second }}
	f, _ := NewFramework(registryOf(wait, wait2), framework.Profile{Permit: []string{"W", "W2"}})
	s, waits := f.RunPermitPlugins(ctx, framework.NewCycleState(), testPod("p"), "n")
	if !s.IsWait() || len(waits) != 2 || waits[0].Timeout != framework.MaxPermitTimeout || waits[1].Timeout != time.Second {
		t.Fatalf("status %v waits %v", s, waits)
	}
	rej := &fake{name: "R", permit: func() (*framework.Status, time.Duration) {
		return framework.NewStatus(framework.Unschedulable, "no"), 0
	}}
	f, _ = NewFramework(registryOf(rej, wait), framework.Profile{Permit: []string{"R", "W"}})
	if s, w := f.RunPermitPlugins(ctx, framework.NewCycleState(), testPod("p"), "n"); s.Code() != framework.Unschedulable || s.Plugin() != "R" || w != nil {
		t.Fatalf("reject: %v %v", s, w)
	}

	log := &eventLog{}
	skip := &fake{name: "Skipper", log: log, bind: func() *framework.Status { return framework.NewStatus(framework.Skip) }}
	ok := &fake{name: "Binder", log: log}
	never := &fake{name: "Never", log: log}
	f, _ = NewFramework(registryOf(skip, ok, never), framework.Profile{Bind: []string{"Skipper", "Binder", "Never"}})
	if s := f.RunBindPlugins(ctx, framework.NewCycleState(), testPod("p"), "n"); !s.IsSuccess() {
		t.Fatal(s)
	}
	if d := cmp.Diff([]string{"Bind Skipper", "Bind Binder"}, log.ev); d != "" {
		t.Fatalf("bind order: %s", d)
	}

	p1 := &fake{name: "P1"}
	p2 := &fake{name: "P2", postFilt: func() (*framework.PostFilterResult, *framework.Status) {
		return &framework.PostFilterResult{NominatingInfo: &framework.NominatingInfo{NominatedNodeName: "n3", Mode: framework.ModeOverride}}, nil
	}}
	f, _ = NewFramework(registryOf(p1, p2), framework.Profile{PostFilter: []string{"P1", "P2"}})
	r, s := f.RunPostFilterPlugins(ctx, framework.NewCycleState(), testPod("p"), framework.NewNodeToStatus(nil))
	if !s.IsSuccess() || r.NominatedNodeName != "n3" {
		t.Fatalf("postfilter %v %v", r, s)
	}
	f, _ = NewFramework(registryOf(p1), framework.Profile{PostFilter: []string{"P1"}})
	if _, s := f.RunPostFilterPlugins(ctx, framework.NewCycleState(), testPod("p"), framework.NewNodeToStatus(nil)); s.Code() != framework.Unschedulable || s.Plugin() != "P1" || s.Message() != "P1 could not help" {
		t.Fatalf("postfilter unschedulable: %v", s)
	}
}

// TestReuseEqualsFresh: a reused Result explains a cycle exactly as a fresh
// one, whatever the previous cycle left in it — including a previous cycle
// whose raw scores shared the normalized array (no plugin normalized) before
// a cycle that normalizes, and a cycle without explanation (Raw nil) after
// one that kept it.
func TestReuseEqualsFresh(t *testing.T) {
	mk := func(mod int, norm bool) []*fake {
		s := &fake{name: "S", score: func(n *framework.NodeInfo) (int64, *framework.Status) { return int64(nodeNum(n) % 7 * 10), nil }}
		if norm {
			s.normalize = func(l framework.NodeScoreList) *framework.Status {
				return framework.DefaultNormalizeScore(framework.MaxNodeScore, true, l)
			}
		}
		return []*fake{
			{name: "F", filter: func(n *framework.NodeInfo) *framework.Status {
				if nodeNum(n)%mod == 0 {
					return framework.NewStatus(framework.Unschedulable, "mod")
				}
				return nil
			}},
			s,
		}
	}
	reused := &Result{}
	for _, tc := range []struct {
		nodes, mod, find int
		norm, skip       bool
	}{{20, 3, 0, false, false}, {20, 3, 0, true, false}, {20, 3, 0, true, true}, {5, 2, 0, false, false}, {30, 4, 7, true, false},
		{3, 1, 0, false, false}, {12, 5, 2, false, true}, {12, 5, 0, true, false}} {
		p := framework.Profile{Filter: []string{"F"}, Score: []string{"S"}, Weights: map[string]int64{"S": 2}}
		fresh, errF := schedule(t, p, mk(tc.mod, tc.norm), tc.nodes, CycleOptions{NumFeasibleToFind: tc.find, AlwaysScore: true, SkipExplanation: tc.skip})
		got, errR := schedule(t, p, mk(tc.mod, tc.norm), tc.nodes, CycleOptions{NumFeasibleToFind: tc.find, AlwaysScore: true, Reuse: reused, SkipExplanation: tc.skip})
		if got != reused {
			t.Fatal("Schedule did not return the Reuse result")
		}
		if fmt.Sprint(errF) != fmt.Sprint(errR) {
			t.Fatalf("%+v: errors %v vs %v", tc, errF, errR)
		}
		if d := cmp.Diff(fresh.NodeVerdicts(), got.NodeVerdicts()); d != "" {
			t.Fatalf("%+v verdicts:\n%s", tc, d)
		}
		if d := cmp.Diff(fresh.Scores(), got.Scores()); d != "" {
			t.Fatalf("%+v scores:\n%s", tc, d)
		}
		if fresh.SelectedNode() != got.SelectedNode() || fresh.Margin != got.Margin || fresh.String() != got.String() {
			t.Fatalf("%+v: selection differs", tc)
		}
	}
}

// TestNodeToStatusNamesSharedStatuses: statuses that plugins share among
// nodes, one object returned by two plugins, and more shared statuses than
// the runner names at once, each reach PostFilter named by the plugin that
// rejected the node, with their own reasons.
func TestNodeToStatusNamesSharedStatuses(t *testing.T) {
	shared := framework.NewStatus(framework.Unschedulable, "shared")
	var many []*framework.Status
	for i := range 12 {
		many = append(many, framework.NewStatus(framework.Unschedulable, fmt.Sprintf("r%d", i)))
	}
	// A rejects even nodes: every fourth with the status B also returns,
	// the others with one of twelve shared statuses in turn; B rejects the
	// odd nodes with the shared one.
	a := &fake{name: "A", filter: func(n *framework.NodeInfo) *framework.Status {
		k := nodeNum(n)
		switch {
		case k%2 == 1:
			return nil
		case k%4 == 0:
			return shared
		}
		return many[(k/2)%len(many)]
	}}
	b := &fake{name: "B", filter: func(*framework.NodeInfo) *framework.Status { return shared }}
	res, err := schedule(t, framework.Profile{Filter: []string{"A", "B"}}, []*fake{a, b}, 60, CycleOptions{})
	if err == nil {
		t.Fatal("every node is rejected, want a FitError")
	}
	nts := res.NodeToStatus()
	for k := range 60 {
		st := nts.Get(fmt.Sprintf("n%d", k))
		wantPlugin, wantReason := "A", "shared"
		switch {
		case k%2 == 1:
			wantPlugin = "B"
		case k%4 != 0:
			wantReason = fmt.Sprintf("r%d", (k/2)%len(many))
		}
		if st.Plugin() != wantPlugin || len(st.Reasons()) != 1 || st.Reasons()[0] != wantReason {
			t.Fatalf("n%d: plugin %q reasons %v, want %q [%s]", k, st.Plugin(), st.Reasons(), wantPlugin, wantReason)
		}
	}
	if shared.Plugin() != "" {
		t.Fatalf("the plugins' shared status was changed: plugin %q", shared.Plugin())
	}
}

// boundedFake is a fake whose PreFilter bounds its result before it runs
// (fastpath.BoundedPreFilterPlugin).
type boundedFake struct {
	*fake
	bound int
}

func (b boundedFake) PreFilterBound(*framework.PodInfo) (int, bool) { return b.bound, b.bound >= 0 }

// TestBoundedPreFilterLeavesWorkersOut: a cycle whose PreFilter plugin
// bounds its result to a node or two neither wakes the workers nor
// weighs their width (the governor counts no cycle), where the same
// cycle unbounded does; both reach the same outcome.
func TestBoundedPreFilterLeavesWorkersOut(t *testing.T) {
	const nodes = 4096
	for _, tc := range []struct {
		bound      int
		wantCycles uint64
	}{{bound: -1, wantCycles: 1}, {bound: 2, wantCycles: 0}} {
		t.Run(fmt.Sprint("bound ", tc.bound), func(t *testing.T) {
			w, err := newTestWorkers(2)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			pre := boundedFake{fake: &fake{name: "Narrow", preFilter: func([]*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
				return &framework.PreFilterResult{NodeNames: map[string]struct{}{"n7": {}, "n3": {}}}, nil
			}}, bound: tc.bound}
			r := framework.NewRegistry()
			if err := r.Register("Narrow", func(any, framework.Handle) (framework.Plugin, error) { return pre, nil }); err != nil {
				t.Fatal(err)
			}
			f, err := NewFramework(r, framework.Profile{PreFilter: []string{"Narrow"}, Filter: []string{"Narrow"}}, WithWorkers(w))
			if err != nil {
				t.Fatal(err)
			}
			snap := framework.MustSnapshot(testNodes(nodes), nil)
			res, err := f.Schedule(context.Background(), nil, snap, testPod("p"), CycleOptions{Rand: rand.New(rand.NewPCG(1, 2))})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff([]string{"n3", "n7"}, names(res.FeasibleNodes())); d != "" {
				t.Fatalf("feasible (-want +got):\n%s", d)
			}
			if got := w.gov.cycles; got != tc.wantCycles {
				t.Errorf("governor counted %d cycles, want %d", got, tc.wantCycles)
			}
		})
	}
}
