package scheduling

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

// kubeFilterWindow is kube-scheduler v1.36's findNodesThatPassFilters
// (pkg/scheduler/schedule_one.go) and findNodesThatFitPod's
// nextStartNodeIndex update at parallelism 1, written out plainly: nodes
// are checked from start in round-robin order; the (k+1)-th feasible node
// cancels the search and is dropped; the start advances by the feasible
// nodes kept plus the nodes rejected on the way (NodeToStatus.Len()).
func kubeFilterWindow(fits []bool, start, k int) (evaluated, next int) {
	n := len(fits)
	found, rejected := 0, 0
	for i := range n {
		if !fits[(start+i)%n] {
			rejected++
			continue
		}
		if found == k {
			break
		}
		found++
	}
	return found + rejected, (start + found + rejected) % n
}

// TestSamplingWindowMatchesKube compares with kube's filter window: 5,000
// nodes, percentageOfNodesToScore 10 (k = 500), the default profile, four
// consecutive pods. A fifth of the nodes (chosen by a fixed seed) are
// unschedulable and the pods are small, so every node's verdict is fixed
// and kube's window can be computed by kubeFilterWindow. Stopping at the
// k-th feasible node instead would evaluate, and advance by, fewer nodes
// whenever rejected nodes follow it.
func TestSamplingWindowMatchesKube(t *testing.T) {
	const n = 5000
	rng := rand.New(rand.NewPCG(11, 12))
	fits := make([]bool, n)
	var nodes []*api.Node
	for i := range n {
		w := st.MakeNode().Name(fmt.Sprintf("n%04d", i)).Capacity(map[string]string{"cpu": "64", "memory": "256Gi", "pods": "110"})
		fits[i] = rng.IntN(5) != 0
		if !fits[i] {
			w = w.Unschedulable()
		}
		nodes = append(nodes, w.Obj())
	}
	c, err := cluster.NewFrom(nodes, nil)
	if err != nil {
		t.Fatal(err)
	}
	var ds []Decision
	s, err := New(c, NewDefaultRegistry(), []framework.Profile{DefaultProfile()}, WithSeed(1), WithClock(framework.NewFakeClock(scT0)),
		WithPercentageOfNodesToScore(10), WithDecisionHandler(func(d Decision) { ds = append(ds, d) }))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		if err := s.AddPod(scPod(fmt.Sprintf("p%d", i), "100m").Obj()); err != nil {
			t.Fatal(err)
		}
	}
	s.RunUntilIdle(context.Background())
	type window struct{ Start, Evaluated, Feasible int }
	var want, got []window
	start := 0
	for range 4 {
		ev, next := kubeFilterWindow(fits, start, 500)
		want = append(want, window{start, ev, 500})
		start = next
	}
	for _, d := range ds {
		got = append(got, window{d.StartIndex, d.EvaluatedNodes, d.FeasibleNodes})
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("filter windows (-kube +schedkit):\n%s", d)
	}
}
