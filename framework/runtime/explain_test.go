package runtime

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/schedkit/schedkit/framework"
)

// Nodes n0..n5 with a score of min(k, 3): n3, n4 and n5 tie at the top.
func TestResultTies(t *testing.T) {
	s := &fake{name: "S", score: func(n *framework.NodeInfo) (int64, *framework.Status) { return int64(min(nodeNum(n), 3)), nil }}
	tests := []struct {
		name      string
		nodes     int
		wantTies  int
		wantTable string
	}{
		{"three tie", 6, 3, "tied with 2 other nodes; the seeded tie-break chose it"},
		{"two tie", 5, 2, "tied with 1 other node; the seeded tie-break chose it"},
		{"a clear winner", 4, 1, "margin 1 over n2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := schedule(t, framework.Profile{Score: []string{"S"}, Weights: map[string]int64{"S": 1}}, []*fake{s}, tt.nodes, CycleOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Ties != tt.wantTies {
				t.Errorf("Ties = %d, want %d", res.Ties, tt.wantTies)
			}
			if table := res.String(); !strings.Contains(table, tt.wantTable) {
				t.Errorf("table lacks %q:\n%s", tt.wantTable, table)
			}
		})
	}
	// One feasible node, not scored: it wins alone. No feasible node: no ties.
	reject := &fake{name: "F", filter: func(n *framework.NodeInfo) *framework.Status {
		if nodeNum(n) == 1 {
			return nil
		}
		return framework.NewStatus(framework.Unschedulable, "no")
	}}
	res, _ := schedule(t, framework.Profile{Filter: []string{"F"}}, []*fake{reject}, 3, CycleOptions{})
	if res.Ties != 1 {
		t.Errorf("one feasible node: Ties = %d, want 1", res.Ties)
	}
	res, _ = schedule(t, framework.Profile{Filter: []string{"F"}}, []*fake{reject}, 1, CycleOptions{})
	if res.Ties != 0 {
		t.Errorf("no feasible node: Ties = %d, want 0", res.Ties)
	}
}

func TestResultScoresOf(t *testing.T) {
	f := &fake{name: "F", filter: func(n *framework.NodeInfo) *framework.Status {
		if nodeNum(n) == 2 {
			return framework.NewStatus(framework.Unschedulable, "two")
		}
		return nil
	}}
	s := &fake{name: "S", score: func(n *framework.NodeInfo) (int64, *framework.Status) { return int64(nodeNum(n)) * 10, nil }}
	res, err := schedule(t, framework.Profile{Filter: []string{"F"}, Score: []string{"S"}, Weights: map[string]int64{"S": 3}}, []*fake{f, s}, 4, CycleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range res.Scores() {
		got, ok := res.ScoresOf(want.Node)
		if !ok {
			t.Errorf("ScoresOf(%s) not found", want.Node)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("ScoresOf(%s) (-Scores() +ScoresOf):\n%s", want.Node, d)
		}
	}
	want := NodeScores{Node: "n3", Total: 90, Scores: []PluginScore{{Plugin: "S", Raw: 30, Normalized: 30, Weight: 3, Weighted: 90}}}
	if got, _ := res.ScoresOf("n3"); !cmp.Equal(want, got) {
		t.Errorf("ScoresOf(n3) = %+v, want %+v", got, want)
	}
	for _, node := range []string{"n2", "nx", ""} { // rejected, unknown
		if got, ok := res.ScoresOf(node); ok {
			t.Errorf("ScoresOf(%q) = %+v, true; want false", node, got)
		}
	}
	var nilResult *Result
	if _, ok := nilResult.ScoresOf("n0"); ok {
		t.Error("nil Result: ScoresOf found a node")
	}
}

// Fifty nodes, seven rejected for two reasons: WriteTableTop(k) lists k
// rejected nodes and the k best scored ones, each section with a count of
// what it left out.
func TestWriteTableTop(t *testing.T) {
	f := &fake{name: "F", filter: func(n *framework.NodeInfo) *framework.Status {
		switch k := nodeNum(n); {
		case k%10 == 3:
			return framework.NewStatus(framework.Unschedulable, "odd three")
		case k < 2:
			return framework.NewStatus(framework.Unschedulable, "too small")
		}
		return nil
	}}
	s := &fake{name: "S", score: func(n *framework.NodeInfo) (int64, *framework.Status) { return int64(nodeNum(n)), nil }}
	res, err := schedule(t, framework.Profile{Filter: []string{"F"}, Score: []string{"S"}, Weights: map[string]int64{"S": 1}}, []*fake{f, s}, 50, CycleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var full, top strings.Builder
	if err := res.WriteTable(&full); err != nil {
		t.Fatal(err)
	}
	if err := res.WriteTableTop(&top, 3); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(full.String(), "\n"); n < 100 {
		t.Fatalf("full table has %d lines, want one per node and section", n)
	}
	want := `pod default/p, profile "", 50 nodes
selected n49 (total 49, margin 1 over n48)

filter:
  50 nodes: 43 feasible, 7 rejected (2 too small, 5 odd three)
  NODE  VERDICT   PLUGIN  REASONS
  n0    rejected  F       too small
  n1    rejected  F       too small
  n3    rejected  F       odd three
  ... 4 more nodes not feasible

score (raw -> normalized x weight = weighted):
  NODE  S                  TOTAL
  n49   49 -> 49 x 1 = 49  49
  n48   48 -> 48 x 1 = 48  48
  n47   47 -> 47 x 1 = 47  47
  ... 40 more feasible nodes
`
	if d := cmp.Diff(want, top.String()); d != "" {
		t.Errorf("WriteTableTop(3) (-want +got):\n%s", d)
	}
	// k ≤ 0, or k at least the node count, lists every node.
	for _, k := range []int{0, -1, 50} {
		var b strings.Builder
		if err := res.WriteTableTop(&b, k); err != nil {
			t.Fatal(err)
		}
		for _, node := range []string{"n0 ", "n2 ", "n25 ", "n49 "} {
			if !strings.Contains(b.String(), fmt.Sprintf("  %s", node)) {
				t.Errorf("WriteTableTop(%d) lacks node %s", k, node)
			}
		}
	}
}
