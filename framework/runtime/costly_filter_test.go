package runtime

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/schedkit/schedkit/framework"
)

// costlyFake is a fake filter that says, for the pods it is told, that
// its Filter is costly (fastpath.CostlyFilterPlugin).
type costlyFake struct {
	*fake
	costlyFor map[string]bool
}

func (c *costlyFake) FilterCostly(_ *framework.CycleState, pod *framework.PodInfo) bool {
	return c.costlyFor[pod.Pod.Name]
}

// TestCostlyFilterLoopShared: a filter loop over 300 nodes, below the
// 1,024 from which a loop of cheap filters is shared on two workers, runs
// on both workers when an active filter says it is costly for the pod,
// over every node and with kube's sampling; for any other pod it stays on
// the caller's goroutine. The outcome is the one worker's either way.
func TestCostlyFilterLoopShared(t *testing.T) {
	defer atLeastProcs(2)()
	filter := func(ni *framework.NodeInfo) *framework.Status {
		if nodeNum(ni)%3 == 0 {
			return framework.NewStatus(framework.Unschedulable, "thirds")
		}
		return nil
	}
	score := func(ni *framework.NodeInfo) (int64, *framework.Status) { return int64(nodeNum(ni) % 7), nil }
	build := func(workers int) *Framework {
		fk := &costlyFake{fake: &fake{name: "P", filter: filter, score: score}, costlyFor: map[string]bool{"costly": true}}
		r := framework.NewRegistry()
		if err := r.Register("P", func(any, framework.Handle) (framework.Plugin, error) { return fk, nil }); err != nil {
			t.Fatal(err)
		}
		f, err := NewFramework(r, framework.Profile{Filter: []string{"P"}, Score: []string{"P"}, Weights: map[string]int64{"P": 1}}, WithParallelism(workers))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(f.Close)
		return f
	}
	one, two := build(1), build(2)
	snap := framework.MustSnapshot(testNodes(300), nil)
	for _, tc := range []struct {
		pod       string
		feasible  int // 0: every node
		wantWidth int
	}{
		{"costly", 0, 2}, {"costly", 100, 2}, {"cheap", 0, 1}, {"cheap", 100, 1},
	} {
		run := func(f *Framework) *Result {
			res, err := f.Schedule(context.Background(), nil, snap, testPod(tc.pod), CycleOptions{
				Rand: rand.New(rand.NewPCG(1, 2)), NumFeasibleToFind: tc.feasible, StartIndex: 17})
			if err != nil {
				t.Fatal(err)
			}
			return res
		}
		want, got := run(one), run(two)
		if got.filterWidth != tc.wantWidth {
			t.Errorf("%s pod, %d feasible wanted: filter loop on %d workers, want %d", tc.pod, tc.feasible, got.filterWidth, tc.wantWidth)
		}
		if got.SelectedNode() != want.SelectedNode() || got.evaluated != want.evaluated || len(got.feasible) != len(want.feasible) {
			t.Errorf("%s pod, %d feasible wanted: 2 workers chose %s after %d nodes (%d feasible), 1 worker %s after %d (%d)", tc.pod, tc.feasible,
				got.SelectedNode(), got.evaluated, len(got.feasible), want.SelectedNode(), want.evaluated, len(want.feasible))
		}
	}
}
