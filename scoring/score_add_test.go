package scoring

import (
	"context"
	"testing"

	"github.com/schedkit/schedkit/config"
	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
)

// TestScoreBatchAddRefusesScoresOutOfRange: memory requests summed past
// int64's range give BalancedAllocation a score far below 0 on the node
// that holds them; ScoreBatchAdd then reports false (the runner weighs
// the plain rows and reports the score), and true on the other nodes.
func TestScoreBatchAddRefusesScoresOutOfRange(t *testing.T) {
	nodes := []*api.Node{
		st.MakeNode().Name("big").Capacity(map[string]string{"cpu": "4", "memory": "1Gi", "pods": "10"}).Obj(),
		st.MakeNode().Name("small").Capacity(map[string]string{"cpu": "4", "memory": "1Gi", "pods": "10"}).Obj(),
	}
	hog := st.MakePod().Name("hog").Namespace("default").Node("big").Req(map[string]string{"cpu": "1", "memory": "4Ei"}).Obj()
	snap := fw.MustSnapshot(nodes, []*api.Pod{hog})
	pod := fw.MustPodInfo(st.MakePod().Name("p").Namespace("default").Req(map[string]string{"cpu": "1", "memory": "4Ei"}).Obj())
	pl, err := NewNodeResourcesBalancedAllocation(config.NodeResourcesBalancedAllocationArgs{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ba := pl.(*NodeResourcesBalancedAllocation)
	ctx := context.Background()
	for i, want := range []bool{false, true} {
		state := fw.NewCycleState()
		state.SetSnapshot(snap)
		all := snap.Nodes()
		if s := ba.PreScore(ctx, state, pod, all); !s.IsSuccess() {
			t.Fatal(s)
		}
		nodes, idx := all[i:i+1], []int32{int32(i)}
		score := make([]int64, 1)
		if s := ba.ScoreBatch(ctx, state, pod, nodes, idx, score); !s.IsSuccess() {
			t.Fatal(s)
		}
		if inRange := score[0] >= fw.MinNodeScore && score[0] <= fw.MaxNodeScore; inRange != want {
			t.Fatalf("node %s: score %d, in range %v: the case does not test what it says", nodes[0].Name(), score[0], inRange)
		}
		totals := []int64{5}
		if got := ba.ScoreBatchAdd(ctx, state, pod, nodes, idx, make([]int64, 1), 2, totals); got != want {
			t.Fatalf("node %s (score %d): ScoreBatchAdd reports %v, want %v", nodes[0].Name(), score[0], got, want)
		}
		if want && totals[0] != 5+2*score[0] {
			t.Fatalf("node %s: total %d, want %d", nodes[0].Name(), totals[0], 5+2*score[0])
		}
	}
}

// TestLeastAllocatedAddRefusesScoresOutOfRange: 100 PB of memory
// overflows LeastRequestedScore's (capacity − requested)·100, as in kube:
// the memory score is 100 − 2⁶⁴/10¹⁷ = −84 and the node's mean of cpu
// (75) and memory is (75 − 84)/2 = −4 (kube's truncating division, in
// ScoreBatch as in Score), outside [0, 100]. NodeResourcesFit's
// ScoreBatchAdd then reports false, and true on an ordinary node.
func TestLeastAllocatedAddRefusesScoresOutOfRange(t *testing.T) {
	nodes := []*api.Node{
		st.MakeNode().Name("huge").Capacity(map[string]string{"cpu": "4", "memory": "100P", "pods": "10"}).Obj(),
		st.MakeNode().Name("small").Capacity(map[string]string{"cpu": "4", "memory": "8Gi", "pods": "10"}).Obj(),
	}
	snap := fw.MustSnapshot(nodes, nil)
	pod := fw.MustPodInfo(st.MakePod().Name("p").Namespace("default").Req(map[string]string{"cpu": "1", "memory": "1Gi"}).Obj())
	pl, err := NewNodeResourcesFit(config.DefaultNodeResourcesFitArgs(), nil)
	if err != nil {
		t.Fatal(err)
	}
	fit := pl.(*NodeResourcesFit)
	ctx := context.Background()
	for i, want := range []bool{false, true} {
		state := fw.NewCycleState()
		state.SetSnapshot(snap)
		all := snap.Nodes()
		if s := fit.PreScore(ctx, state, pod, all); !s.IsSuccess() {
			t.Fatal(s)
		}
		nodes, idx := all[i:i+1], []int32{int32(i)}
		score := make([]int64, 1)
		if s := fit.ScoreBatch(ctx, state, pod, nodes, idx, score); !s.IsSuccess() {
			t.Fatal(s)
		}
		if i == 0 && score[0] != -4 {
			t.Fatalf("node huge: score %d, want (75 − 84)/2 = −4", score[0])
		}
		if v, s := fit.Score(ctx, state, pod, nodes[0]); !s.IsSuccess() || v != score[0] {
			t.Fatalf("node %s: Score %d %v, ScoreBatch %d", nodes[0].Name(), v, s, score[0])
		}
		if inRange := score[0] >= fw.MinNodeScore && score[0] <= fw.MaxNodeScore; inRange != want {
			t.Fatalf("node %s: score %d, in range %v: the case does not test what it says", nodes[0].Name(), score[0], inRange)
		}
		totals := []int64{5}
		if got := fit.ScoreBatchAdd(ctx, state, pod, nodes, idx, make([]int64, 1), 2, totals); got != want {
			t.Fatalf("node %s (score %d): ScoreBatchAdd reports %v, want %v", nodes[0].Name(), score[0], got, want)
		}
		if want && totals[0] != 5+2*score[0] {
			t.Fatalf("node %s: total %d, want %d", nodes[0].Name(), totals[0], 5+2*score[0])
		}
	}
}
