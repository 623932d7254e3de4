package runtime

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/schedkit/schedkit/framework"
	"pgregory.net/rapid"
)

// TestFilterStopsAtKPlusOneFeasible reproduces kube-scheduler v1.36's
// findNodesThatPassFilters (pkg/scheduler/schedule_one.go) at parallelism
// 1: it cancels on the (k+1)-th feasible node, keeping k, so the nodes
// rejected between the k-th and the (k+1)-th count as evaluated (they are
// in NodeToStatus and advance nextStartNodeIndex); the (k+1)-th node itself
// is not counted, nor is a node whose Filter fails with an error, and an
// error before the (k+1)-th feasible node fails the cycle. Each row is
// worked by hand over ten nodes n0..n9 from StartIndex 0 with k = 2.
func TestFilterStopsAtKPlusOneFeasible(t *testing.T) {
	tests := []struct {
		name      string
		verdict   string // per node: '.' fits, 'x' rejected, 'E' error
		k         int
		feasible  []string
		evaluated int
		err       string
	}{
		// n0, n1 fit; n2, n3 rejected; n4 is the third fit: stop there.
		{name: "rejections between the k-th and the (k+1)-th count", verdict: "..xx......", k: 2,
			feasible: []string{"n0", "n1"}, evaluated: 4},
		{name: "no rejection: k evaluated", verdict: "..........", k: 2, feasible: []string{"n0", "n1"}, evaluated: 2},
		// Only two fit: every node is evaluated.
		{name: "fewer than k+1 fit: all evaluated", verdict: "x.xxxxx.xx", k: 2, feasible: []string{"n1", "n7"}, evaluated: 10},
		// An error after the k-th feasible node but before the (k+1)-th
		// fails the cycle (kube reaches it; stopping at the k-th would not).
		{name: "error before the (k+1)-th fails the cycle", verdict: "..xE......", k: 2, err: `node n3 broke`, evaluated: 3},
		// An error after the (k+1)-th feasible node is never reached.
		{name: "error after the (k+1)-th is not reached", verdict: "...E......", k: 2, feasible: []string{"n0", "n1"}, evaluated: 2},
		{name: "first fit (k=1) stops at the second fit", verdict: ".xx.......", k: 1, feasible: []string{"n0"}, evaluated: 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			verdict := tc.verdict
			if len(verdict) != 10 {
				t.Fatalf("verdict %q: want one entry per node n0..n9", verdict)
			}
			a := &fake{name: "A", filter: func(n *framework.NodeInfo) *framework.Status {
				switch verdict[nodeNum(n)] {
				case 'x':
					return framework.NewStatus(framework.Unschedulable, "no")
				case 'E':
					return framework.AsStatus(errors.New("node " + n.Name() + " broke"))
				}
				return nil
			}}
			s := &fake{name: "S", score: func(*framework.NodeInfo) (int64, *framework.Status) { return 1, nil }}
			for _, par := range []int{1, 4} {
				f, err := NewFramework(registryOf(a, s), framework.Profile{Filter: []string{"A"}, Score: []string{"S"}, Weights: map[string]int64{"S": 1}}, WithParallelism(par))
				if err != nil {
					t.Fatal(err)
				}
				res, err := f.Schedule(t.Context(), nil, framework.MustSnapshot(testNodes(10), nil), testPod("p"), CycleOptions{Rand: rand.New(rand.NewPCG(1, 2)), NumFeasibleToFind: tc.k})
				if tc.err != "" {
					if err == nil || !strings.Contains(err.Error(), tc.err) {
						t.Fatalf("parallelism %d: err = %v, want %q", par, err, tc.err)
					}
				} else if err != nil {
					t.Fatalf("parallelism %d: %v", par, err)
				}
				if d := cmp.Diff(tc.feasible, names(res.FeasibleNodes())); tc.err == "" && d != "" {
					t.Errorf("parallelism %d: feasible (-want +got):\n%s", par, d)
				}
				if res.EvaluatedNodes() != tc.evaluated {
					t.Errorf("parallelism %d: evaluated %d, want %d", par, res.EvaluatedNodes(), tc.evaluated)
				}
			}
		})
	}
}

// TestPropSamplingMatchesNodeByNode checks the stopping filter loop (one
// worker or four, chunks sized to the feasible nodes still needed and, on
// four, split among them) against kube's node-by-node rule on clusters large
// enough to take several chunks: from the start index, the feasible nodes
// before the (k+1)-th, the nodes evaluated up to it, and a filter error
// before it failing the cycle.
func TestPropSamplingMatchesNodeByNode(t *testing.T) {
	defer atLeastProcs(4)()
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 1500).Draw(t, "nodes")
		fit := rapid.Float64Range(0, 1).Draw(t, "fit")
		errAt := -1
		if rapid.IntRange(0, 4).Draw(t, "withError") == 0 {
			errAt = rapid.IntRange(0, n-1).Draw(t, "errAt")
		}
		seed := rapid.Uint64().Draw(t, "seed")
		rng := rand.New(rand.NewPCG(seed, 1))
		verdict := make([]byte, n)
		for i := range verdict {
			verdict[i] = '.'
			if rng.Float64() >= fit {
				verdict[i] = 'x'
			}
		}
		if errAt >= 0 {
			verdict[errAt] = 'E'
		}
		k := rapid.IntRange(1, n).Draw(t, "k")
		start := rapid.IntRange(0, n-1).Draw(t, "start")
		// kube's rule, node by node.
		var want []string
		evaluated, failed := 0, false
		for p := 0; p < n; p++ {
			i := (start + p) % n
			if verdict[i] == 'E' {
				failed = true
				break
			}
			if verdict[i] == '.' {
				if len(want) == k {
					break
				}
				want = append(want, fmt.Sprintf("n%d", i))
			}
			evaluated++
		}
		a := &fake{name: "A", filter: func(nd *framework.NodeInfo) *framework.Status {
			switch verdict[nodeNum(nd)] {
			case 'x':
				return framework.NewStatus(framework.Unschedulable, "no")
			case 'E':
				return framework.AsStatus(errors.New("broke"))
			}
			return nil
		}}
		s := &fake{name: "S", score: func(*framework.NodeInfo) (int64, *framework.Status) { return 1, nil }}
		snap := framework.MustSnapshot(testNodes(n), nil)
		for _, par := range []int{1, 4} {
			w, err := newTestWorkers(par)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			f, err := NewFramework(registryOf(a, s), framework.Profile{Filter: []string{"A"}, Score: []string{"S"}, Weights: map[string]int64{"S": 1}}, WithWorkers(w))
			if err != nil {
				t.Fatal(err)
			}
			res, err := f.Schedule(context.Background(), nil, snap, testPod("p"), CycleOptions{Rand: rand.New(rand.NewPCG(1, 2)), NumFeasibleToFind: k, StartIndex: start})
			if failed {
				if err == nil || !strings.Contains(err.Error(), "broke") {
					t.Fatalf("parallelism %d: err = %v, want the filter's error", par, err)
				}
				continue
			}
			if err != nil && len(want) > 0 {
				t.Fatalf("parallelism %d: %v", par, err)
			}
			got := names(res.FeasibleNodes())
			slices.Sort(got)
			slices.Sort(want)
			if d := cmp.Diff(want, got, cmpopts.EquateEmpty()); d != "" {
				t.Fatalf("parallelism %d: feasible (-want +got):\n%s", par, d)
			}
			if res.EvaluatedNodes() != evaluated {
				t.Fatalf("parallelism %d: evaluated %d, want %d", par, res.EvaluatedNodes(), evaluated)
			}
		}
	})
}
