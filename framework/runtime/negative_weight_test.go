package runtime

import (
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/schedkit/schedkit/framework"
)

// TestNegativeWeightRuns: kube-scheduler v1.36 builds and runs a profile
// with a negative Score weight (framework/runtime/framework.go,
// getScoreWeights only checks the running total for overflow), and each
// node's TotalScore is Σ weight × normalized score. Worked by hand over
// n0..n2: A scores 10·k and B 40 − 10·k for node nk, with weights 3 and
// −2: n0 0·3 − 40·2 = −80, n1 30 − 60 = −30, n2 60 − 40 = 20 → n2, margin
// 50.
func TestNegativeWeightRuns(t *testing.T) {
	a := &fake{name: "A", score: func(n *framework.NodeInfo) (int64, *framework.Status) { return 10 * int64(nodeNum(n)), nil }}
	b := &fake{name: "B", score: func(n *framework.NodeInfo) (int64, *framework.Status) { return 40 - 10*int64(nodeNum(n)), nil }}
	f, err := NewFramework(registryOf(a, b), framework.Profile{Score: []string{"A", "B"}, Weights: map[string]int64{"A": 3, "B": -2}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := f.Schedule(t.Context(), nil, framework.MustSnapshot(testNodes(3), nil), testPod("p"), CycleOptions{Rand: rand.New(rand.NewPCG(1, 2))})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]int64{-80, -30, 20}, res.Totals); d != "" {
		t.Errorf("totals (-want +got):\n%s", d)
	}
	if res.SelectedNode() != "n2" || res.Margin != 50 {
		t.Errorf("selected %s margin %d, want n2 margin 50", res.SelectedNode(), res.Margin)
	}
	if w := f.ScoreWeight("B"); w != -2 {
		t.Errorf("ScoreWeight(B) = %d", w)
	}
}
