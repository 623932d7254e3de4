package runtime

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/schedkit/schedkit/framework"
)

// TestExtenderDropsFromRunsOfFeasible: when the filters leave the feasible
// nodes in long runs (splitEvaluated copies them run by run) and a
// filtering extender then drops some of them, the nodes scored and
// reported are the ones it kept, in evaluation order, wrapping round the
// nodes or not.
func TestExtenderDropsFromRunsOfFeasible(t *testing.T) {
	rejectN5 := &fake{name: "A", filter: func(n *framework.NodeInfo) *framework.Status {
		if n.Name() == "n5" {
			return framework.NewStatus(framework.Unschedulable, "too small")
		}
		return nil
	}}
	tests := []struct {
		start  int
		drop   []string
		copies bool
		want   []string
	}{
		{start: 0, drop: []string{"n20", "n30"}, want: without(0, "n5", "n20", "n30")},
		{start: 0, drop: []string{"n20", "n30"}, copies: true, want: without(0, "n5", "n20", "n30")},
		{start: 35, drop: []string{"n1", "n38"}, want: without(35, "n5", "n1", "n38")},
		{start: 35, drop: nil, want: without(35, "n5")},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("start %d drop %v copies %v", tc.start, tc.drop, tc.copies), func(t *testing.T) {
			verdict := map[string]string{}
			for i := range 40 {
				verdict[fmt.Sprintf("n%d", i)] = "pass"
			}
			for _, n := range tc.drop {
				delete(verdict, n)
			}
			ext := &scriptedExtender{fakeExtender: fakeExtender{name: "ext", interested: true, noPrio: true}, verdict: verdict, copies: tc.copies}
			f, err := NewFramework(registryOf(rejectN5), framework.Profile{Filter: []string{"A"}}, WithExtenders(ext))
			if err != nil {
				t.Fatal(err)
			}
			res, err := f.Schedule(context.Background(), nil, framework.MustSnapshot(testNodes(40), nil), testPod("p"),
				CycleOptions{Rand: rand.New(rand.NewPCG(1, 2)), StartIndex: tc.start, AlwaysScore: true})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, names(res.FeasibleNodes())); d != "" {
				t.Fatalf("feasible (-want +got):\n%s", d)
			}
			if len(res.Totals) != len(tc.want) {
				t.Fatalf("%d totals for %d feasible nodes", len(res.Totals), len(tc.want))
			}
		})
	}
}

// without lists the names of testNodes(40) from start on, wrapping round,
// leaving out drop.
func without(start int, drop ...string) []string {
	var out []string
	for p := range 40 {
		name := fmt.Sprintf("n%d", (start+p)%40)
		keep := true
		for _, d := range drop {
			keep = keep && d != name
		}
		if keep {
			out = append(out, name)
		}
	}
	return out
}

// TestFillPositions: fillPositions writes 0, 1, … into every entry,
// from the snapshot's index runs or by its loop: shorter than the nodes,
// as long, one longer (past the first half of the runs), twice as long,
// empty, and without a snapshot.
func TestFillPositions(t *testing.T) {
	snap := framework.MustSnapshot(testNodes(5), nil)
	for _, tc := range []struct {
		name string
		n    int
		snap *framework.Snapshot
	}{
		{"shorter than the nodes", 3, snap},
		{"as long as the nodes", 5, snap},
		{"one longer", 6, snap},
		{"twice as long", 10, snap},
		{"empty", 0, snap},
		{"no snapshot", 4, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dst := make([]int32, tc.n)
			for p := range dst {
				dst[p] = -7
			}
			fillPositions(dst, tc.snap)
			for p, v := range dst {
				if v != int32(p) {
					t.Fatalf("dst = %v, want 0, 1, …", dst)
				}
			}
		})
	}
}
