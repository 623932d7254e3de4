package noderesources

import (
	"context"
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
)

// TestNodeResourcesFitRejectionStatusesWithoutState: without PreFilter
// state, RejectionStatuses gives the error FilterRejects gives every node,
// whether asked by snapshot index or not.
func TestNodeResourcesFitRejectionStatusesWithoutState(t *testing.T) {
	pl, err := NewFit(DefaultNodeResourcesFitArgs(), nil)
	if err != nil {
		t.Fatal(err)
	}
	fit := pl.(*NodeResourcesFit)
	snap := fw.MustSnapshot([]*api.Node{st.MakeNode().Name("n0").Capacity(map[string]string{"cpu": "1", "memory": "1Gi", "pods": "10"}).Obj()}, nil)
	state := fw.NewCycleState()
	state.SetSnapshot(snap)
	pod := fw.MustPodInfo(st.MakePod().Name("p").Namespace("default").Req(map[string]string{"cpu": "2"}).Obj())
	ctx := context.Background()
	want := fit.FilterRejects(ctx, state, pod, snap.Nodes(), []int32{0}, nil)
	if len(want) != 1 || want[0].Status.Code() != fw.Error {
		t.Fatalf("FilterRejects without state: %v, want one error", want)
	}
	for _, idx := range [][]int32{{0}, nil} {
		got := []*fw.Status{nil}
		fit.RejectionStatuses(ctx, state, pod, snap.Nodes(), idx, got)
		if got[0].Code() != fw.Error || got[0].Message() != want[0].Status.Message() {
			t.Fatalf("RejectionStatuses(idx %v) without state: %v, want %v", idx, got[0], want[0].Status)
		}
	}
}
