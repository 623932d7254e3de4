package noderesources

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"

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

// TestPropNodeResourcesFitDeferredStatusesAreFilters: the statuses
// RejectionStatuses gives the nodes FilterRejectsDeferred rejects on the
// snapshot's numbers are Filter's for each node (code and reasons), and
// it rejects exactly the nodes Filter does, for pods asking for
// ephemeral storage or not, pods over a node's free or whole amounts,
// and full nodes.
func TestPropNodeResourcesFitDeferredStatusesAreFilters(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		req := map[string]string{}
		for _, r := range []string{"cpu", "memory", "ephemeral-storage"} {
			if v := rapid.Int64Range(0, 12).Draw(rt, "pod "+r); v > 0 {
				req[r] = fmt.Sprint(v)
			}
		}
		pod := fw.MustPodInfo(st.MakePod().Name("p").Namespace("default").Req(req).Obj())
		n := rapid.IntRange(1, 70).Draw(rt, "nodes")
		var nodes []*api.Node
		var pods []*api.Pod
		for i := range n {
			name := fmt.Sprint("n", i)
			nodes = append(nodes, st.MakeNode().Name(name).Capacity(map[string]string{
				"cpu": fmt.Sprint(rapid.Int64Range(0, 12).Draw(rt, "cpu")), "memory": fmt.Sprint(rapid.Int64Range(0, 12).Draw(rt, "memory")),
				"ephemeral-storage": fmt.Sprint(rapid.Int64Range(0, 12).Draw(rt, "ephemeral-storage")), "pods": fmt.Sprint(rapid.IntRange(0, 2).Draw(rt, "pods")),
			}).Obj())
			if rapid.Bool().Draw(rt, "used") {
				pods = append(pods, st.MakePod().Name(fmt.Sprint("e", i)).Namespace("default").Node(name).Req(map[string]string{
					"cpu": fmt.Sprint(rapid.Int64Range(0, 12).Draw(rt, "used cpu")), "memory": fmt.Sprint(rapid.Int64Range(0, 12).Draw(rt, "used memory")),
					"ephemeral-storage": fmt.Sprint(rapid.Int64Range(0, 12).Draw(rt, "used ephemeral-storage")),
				}).Obj())
			}
		}
		snap := fw.MustSnapshot(nodes, pods)
		pl, err := NewFit(DefaultNodeResourcesFitArgs(), nil)
		if err != nil {
			rt.Fatal(err)
		}
		fit := pl.(*NodeResourcesFit)
		state := fw.NewCycleState()
		state.SetSnapshot(snap)
		ctx := context.Background()
		if _, s := fit.PreFilter(ctx, state, pod, snap.Nodes()); !s.IsSuccess() {
			rt.Fatalf("PreFilter: %v", s)
		}
		idx := make([]int32, n)
		for i := range idx {
			idx[i] = int32(i)
		}
		rejected := fit.FilterRejectsDeferred(ctx, state, pod, snap.Nodes(), idx, nil)
		rejNodes := make([]*fw.NodeInfo, len(rejected))
		rejIdx := make([]int32, len(rejected))
		got := make([]*fw.Status, len(rejected))
		for k, x := range rejected {
			rejNodes[k], rejIdx[k], got[k] = snap.Nodes()[x.Node], int32(x.Node), x.Status
		}
		fit.RejectionStatuses(ctx, state, pod, rejNodes, rejIdx, got)
		k := 0
		for i, ni := range snap.Nodes() {
			want := fit.Filter(ctx, state, pod, ni)
			if want.IsSuccess() {
				if k < len(rejected) && int(rejected[k].Node) == i {
					rt.Fatalf("node %s rejected, Filter accepts it", ni.Name())
				}
				continue
			}
			if k >= len(rejected) || int(rejected[k].Node) != i {
				rt.Fatalf("node %s not rejected, Filter gives %v", ni.Name(), want)
			}
			if got[k].Code() != want.Code() || !slices.Equal(got[k].Reasons(), want.Reasons()) {
				rt.Fatalf("node %s: deferred status %v %q, Filter's %v %q", ni.Name(), got[k].Code(), got[k].Reasons(), want.Code(), want.Reasons())
			}
			k++
		}
		if k != len(rejected) {
			rt.Fatalf("%d rejections, Filter rejects %d nodes", len(rejected), k)
		}
	})
}
