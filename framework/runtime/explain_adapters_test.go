package runtime

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
)

// TestScoresListSkippedPlugins: a plugin whose PreScore returned Skip is
// listed in Scores() at its place in the profile, with its weight, Skipped
// set and zero scores.
func TestScoresListSkippedPlugins(t *testing.T) {
	a := &fake{name: "A", score: func(n *framework.NodeInfo) (int64, *framework.Status) { return 10 * int64(nodeNum(n)), nil }}
	b := &fake{name: "B", preScore: func([]*framework.NodeInfo) *framework.Status { return framework.NewStatus(framework.Skip) }, score: func(*framework.NodeInfo) (int64, *framework.Status) { return 99, nil }}
	c := &fake{name: "C", score: func(*framework.NodeInfo) (int64, *framework.Status) { return 7, nil }}
	res, err := schedule(t, framework.Profile{PreScore: []string{"B"}, Score: []string{"A", "B", "C"}, Weights: map[string]int64{"A": 1, "B": 5, "C": 2}}, []*fake{a, b, c}, 2, CycleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []NodeScores{
		{Node: "n0", Total: 14, Scores: []PluginScore{
			{Plugin: "A", Weight: 1}, {Plugin: "B", Weight: 5, Skipped: true}, {Plugin: "C", Raw: 7, Normalized: 7, Weight: 2, Weighted: 14}}},
		{Node: "n1", Total: 24, Scores: []PluginScore{
			{Plugin: "A", Raw: 10, Normalized: 10, Weight: 1, Weighted: 10}, {Plugin: "B", Weight: 5, Skipped: true}, {Plugin: "C", Raw: 7, Normalized: 7, Weight: 2, Weighted: 14}}},
	}
	if d := cmp.Diff(want, res.Scores()); d != "" {
		t.Errorf("scores (-want +got):\n%s", d)
	}
	// The table keeps one column per plugin that scored.
	table := res.String()
	for _, w := range []string{"n0    0 -> 0 x 1 = 0     7 -> 7 x 2 = 14  14", "n1    10 -> 10 x 1 = 10  7 -> 7 x 2 = 14  24"} {
		if !strings.Contains(table, w) {
			t.Errorf("table lacks %q:\n%s", w, table)
		}
	}
}

// TestExplainFilters: with CycleOptions.ExplainFilters every Filter plugin
// runs on every candidate, past the first rejection and on the nodes
// sampling left unevaluated; each verdict is reported, a plugin skipped by
// its PreFilter is marked, and the decision is the same as without
// (RejectionsOnFailure, also set, gives way to it).
func TestExplainFilters(t *testing.T) {
	a := &fake{name: "A", filter: func(n *framework.NodeInfo) *framework.Status {
		if nodeNum(n) == 1 {
			return framework.NewStatus(framework.Unschedulable, "a-no")
		}
		return nil
	}}
	b := &fake{name: "B", filter: func(n *framework.NodeInfo) *framework.Status {
		if k := nodeNum(n); k == 1 || k == 2 || len(n.Pods) > 0 {
			return framework.NewStatus(framework.UnschedulableAndUnresolvable, "b-no")
		}
		return nil
	}}
	c := &fake{name: "C", preFilter: func([]*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
		return nil, framework.NewStatus(framework.Skip)
	}}
	s := &fake{name: "S", score: func(*framework.NodeInfo) (int64, *framework.Status) { return 1, nil }}
	f, err := NewFramework(registryOf(a, b, c, s), framework.Profile{PreFilter: []string{"C"}, Filter: []string{"A", "B", "C"}, Score: []string{"S"}, Weights: map[string]int64{"S": 1}})
	if err != nil {
		t.Fatal(err)
	}
	snap := framework.MustSnapshot(testNodes(5), nil)
	hi := int32(10)
	nominee := framework.MustPodInfo(&api.Pod{ObjectMeta: api.ObjectMeta{Name: "q", Namespace: "default", UID: "q"}, Spec: api.PodSpec{Priority: &hi}})
	// n4 holds a nominated pod of higher priority: B rejects it with the
	// pod added (the first of the two passes).
	nominated := func(node string) []*framework.PodInfo {
		if node == "n4" {
			return []*framework.PodInfo{nominee}
		}
		return nil
	}
	run := func(explain bool) *Result {
		res, err := f.Schedule(t.Context(), nil, snap, testPod("p"), CycleOptions{Rand: rand.New(rand.NewPCG(1, 2)), NumFeasibleToFind: 1, NominatedPods: nominated, ExplainFilters: explain, RejectionsOnFailure: explain})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	plain, res := run(false), run(true)
	ok := func(p string) PluginVerdict { return PluginVerdict{Plugin: p} }
	no := func(p string, code framework.Code, r string) PluginVerdict {
		return PluginVerdict{Plugin: p, Code: code, Reasons: []string{r}}
	}
	skipped := PluginVerdict{Plugin: "C", Skipped: true}
	// k = 1: n0 fits, n1 and n2 are rejected, n3 (the second fit) stops
	// the search; n4 is not evaluated.
	want := []NodeVerdict{
		{Node: "n0", Verdict: VerdictFeasible, Filters: []PluginVerdict{ok("A"), ok("B"), skipped}},
		{Node: "n1", Verdict: VerdictRejected, Plugin: "A", Code: framework.Unschedulable, Reasons: []string{"a-no"},
			Filters: []PluginVerdict{no("A", framework.Unschedulable, "a-no"), no("B", framework.UnschedulableAndUnresolvable, "b-no"), skipped}},
		{Node: "n2", Verdict: VerdictRejected, Plugin: "B", Code: framework.UnschedulableAndUnresolvable, Reasons: []string{"b-no"},
			Filters: []PluginVerdict{ok("A"), no("B", framework.UnschedulableAndUnresolvable, "b-no"), skipped}},
		{Node: "n3", Verdict: VerdictNotEvaluated, Filters: []PluginVerdict{ok("A"), ok("B"), skipped}},
		{Node: "n4", Verdict: VerdictNotEvaluated, Filters: []PluginVerdict{ok("A"), no("B", framework.UnschedulableAndUnresolvable, "b-no"), skipped}},
	}
	if d := cmp.Diff(want, res.NodeVerdicts()); d != "" {
		t.Errorf("verdicts (-want +got):\n%s", d)
	}
	for _, v := range plain.NodeVerdicts() {
		if v.Filters != nil {
			t.Errorf("%s: Filters without ExplainFilters: %v", v.Node, v.Filters)
		}
	}
	if plain.SelectedNode() != res.SelectedNode() || plain.EvaluatedNodes() != res.EvaluatedNodes() {
		t.Errorf("explaining changed the decision: %s/%d vs %s/%d", plain.SelectedNode(), plain.EvaluatedNodes(), res.SelectedNode(), res.EvaluatedNodes())
	}
}

// TestNumFeasibleNodes: the feasible count is reported when exactly one
// node fits and no scoring runs (Totals is empty then).
func TestNumFeasibleNodes(t *testing.T) {
	fits := func(ok ...int) *fake {
		return &fake{name: "F", filter: func(n *framework.NodeInfo) *framework.Status {
			for _, k := range ok {
				if nodeNum(n) == k {
					return nil
				}
			}
			return framework.NewStatus(framework.Unschedulable, "no")
		}}
	}
	s := &fake{name: "S", score: func(*framework.NodeInfo) (int64, *framework.Status) { return 1, nil }}
	p := framework.Profile{Filter: []string{"F"}, Score: []string{"S"}, Weights: map[string]int64{"S": 1}}
	for _, tc := range []struct {
		fit       []int
		want      int
		wantTotal int
	}{
		{fit: []int{2}, want: 1, wantTotal: 0},
		{fit: []int{0, 2, 3}, want: 3, wantTotal: 3},
		{fit: nil, want: 0, wantTotal: 0},
	} {
		res, _ := schedule(t, p, []*fake{fits(tc.fit...), s}, 4, CycleOptions{})
		if res.NumFeasibleNodes() != tc.want || len(res.Totals) != tc.wantTotal {
			t.Errorf("fit %v: NumFeasibleNodes %d (Totals %d), want %d (%d)", tc.fit, res.NumFeasibleNodes(), len(res.Totals), tc.want, tc.wantTotal)
		}
	}
}
