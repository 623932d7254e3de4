package runtime

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/schedkit/schedkit/framework"
	"pgregory.net/rapid"
)

// TestPropSelectedIndex: a cycle's SelectedIndex is the snapshot position
// of its SelectedNode (-1 when none fits), whether PreFilter narrowed the
// nodes or not, from any round-robin start and with any sampling.
func TestPropSelectedIndex(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 30).Draw(t, "nodes")
		seed := rapid.Uint64().Draw(t, "seed")
		rejectPct := rapid.Int64Range(0, 90).Draw(t, "rejectPct")
		var narrowed map[string]struct{}
		if rapid.Bool().Draw(t, "narrow") {
			narrowed = map[string]struct{}{}
			for i := range n {
				if rapid.Bool().Draw(t, "keep") {
					narrowed[fmt.Sprintf("n%d", i)] = struct{}{}
				}
			}
		}
		pre := &fake{name: "P", preFilter: func([]*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
			if narrowed == nil {
				return nil, nil
			}
			return &framework.PreFilterResult{NodeNames: narrowed}, nil
		}}
		flt, sc := hashedFilterScore(seed, rejectPct)
		f, err := NewFramework(registryOf(pre, flt, sc), framework.Profile{PreFilter: []string{"P"}, Filter: []string{"F"}, Score: []string{"S"}, Weights: map[string]int64{"S": 1}})
		if err != nil {
			t.Fatal(err)
		}
		snap := framework.MustSnapshot(testNodes(n), nil)
		res, _ := f.Schedule(context.Background(), nil, snap, testPod("p"), CycleOptions{
			Rand:              rand.New(rand.NewPCG(seed, 7)),
			StartIndex:        rapid.IntRange(0, 40).Draw(t, "start"),
			NumFeasibleToFind: rapid.IntRange(0, 35).Draw(t, "toFind"),
		})
		want := -1
		if name := res.SelectedNode(); name != "" {
			want = snap.Index(name)
		}
		if got := res.SelectedIndex(); got != want {
			t.Fatalf("SelectedIndex() = %d, SelectedNode %q is at %d", got, res.SelectedNode(), want)
		}
	})
	var none *Result
	if got := none.SelectedIndex(); got != -1 {
		t.Fatalf("nil Result: SelectedIndex() = %d, want -1", got)
	}
}
