package whatif

import (
	"slices"
	"testing"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/runtime"
	"github.com/schedkit/schedkit/internal/st"
)

// A bound pod whose resize is not yet actuated holds, on its node, the
// larger of its spec and status requests, or its status alone when the
// kubelet declared the resize infeasible (kube-scheduler v1.36's NodeInfo:
// component-helpers PodRequests with UseStatusResources). node-a has 2 cpu,
// node-b 1 cpu; the incoming pod asks 700m. Counted at 1500m, the bound pod
// leaves node-a 500m, so kube rejects node-a (Insufficient cpu) and places
// the pod on node-b; counted at 500m, node-a fits and, being the emptier
// node (40% cpu free against node-b's 30%), wins.
func TestPlaceCountsResizeInFlight(t *testing.T) {
	tests := []struct {
		name      string
		bound     *st.PodWrapper
		want      string
		rejectedA bool
	}{
		{
			name: "status above spec",
			bound: st.MakePod().Name("resizing").UID("uid-resizing").Node("node-a").Req(map[string]string{"cpu": "500m", "memory": "1Gi"}).
				StatusReq("c0", map[string]string{"cpu": "1500m", "memory": "1Gi"}).ResizeInProgress(),
			want: "node-b", rejectedA: true,
		},
		{
			name: "spec above status",
			bound: st.MakePod().Name("resizing").UID("uid-resizing").Node("node-a").Req(map[string]string{"cpu": "1500m", "memory": "1Gi"}).
				StatusReq("c0", map[string]string{"cpu": "500m", "memory": "1Gi"}).ResizePending(api.PodReasonDeferred),
			want: "node-b", rejectedA: true,
		},
		{
			name: "allocated above spec and status",
			bound: st.MakePod().Name("resizing").UID("uid-resizing").Node("node-a").Req(map[string]string{"cpu": "500m", "memory": "1Gi"}).
				StatusReq("c0", map[string]string{"cpu": "500m", "memory": "1Gi"}).StatusAllocated("c0", map[string]string{"cpu": "1500m", "memory": "1Gi"}).ResizeInProgress(),
			want: "node-b", rejectedA: true,
		},
		{
			name: "infeasible resize counts the status alone",
			bound: st.MakePod().Name("resizing").UID("uid-resizing").Node("node-a").Req(map[string]string{"cpu": "1500m", "memory": "1Gi"}).
				StatusReq("c0", map[string]string{"cpu": "500m", "memory": "1Gi"}).ResizePending(api.PodReasonInfeasible),
			want: "node-a",
		},
		{
			name:  "no status: the spec",
			bound: st.MakePod().Name("resizing").UID("uid-resizing").Node("node-a").Req(map[string]string{"cpu": "500m", "memory": "1Gi"}),
			want:  "node-a",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := wiCluster(t, []*api.Node{wiNode("node-a", "2").Obj(), wiNode("node-b", "1").Obj()}, []*api.Pod{tc.bound.Obj()})
			ans, err := w.Place(t.Context(), wiPod("incoming", "700m").Obj())
			if err != nil {
				t.Fatal(err)
			}
			if ans.Decision.Node != tc.want {
				t.Errorf("placed on %q, want %q", ans.Decision.Node, tc.want)
			}
			verdicts := ans.Decision.Result.NodeVerdicts()
			i := slices.IndexFunc(verdicts, func(v runtime.NodeVerdict) bool { return v.Node == "node-a" })
			if i < 0 {
				t.Fatalf("no verdict for node-a in %+v", verdicts)
			}
			v := verdicts[i]
			rejected := v.Verdict == runtime.VerdictRejected && v.Plugin == "NodeResourcesFit" && slices.Equal(v.Reasons, []string{"Insufficient cpu"})
			if rejected != tc.rejectedA {
				t.Errorf("node-a verdict %+v, want rejected for Insufficient cpu: %v", v, tc.rejectedA)
			}
		})
	}
}

// Preemption counts a resize in flight as the filter does. On a 2-cpu node
// a pod of priority 5 whose resize up to 1500m is infeasible holds 500m
// (its status), a pod of priority 1 holds 1000m; a 1-cpu pod of priority
// 100 does not fit (1500m used). kube's DefaultPreemption removes both,
// then reprieves the more important first: 500m + 1000m fits, so only the
// 1000m pod is evicted. Counted at its 1500m spec, the resizing pod could
// not be reprieved and would be the victim instead.
func TestPreemptionCountsResizeInFlight(t *testing.T) {
	resizing := st.MakePod().Name("resizing").Namespace("default").UID("uid-resizing").Node("node-a").Priority(5).
		Req(map[string]string{"cpu": "1500m", "memory": "1Gi"}).StatusReq("c0", map[string]string{"cpu": "500m", "memory": "1Gi"}).
		ResizePending(api.PodReasonInfeasible).Obj()
	big := wiPod("big", "1").Node("node-a").Priority(1).Obj()
	w := wiCluster(t, []*api.Node{wiNode("node-a", "2").Obj()}, []*api.Pod{resizing, big})
	ans, err := w.Place(t.Context(), wiPod("urgent", "1").Priority(100).Obj())
	if err != nil {
		t.Fatal(err)
	}
	if ans.Placed() || ans.Preemption == nil {
		t.Fatalf("placed %v, preemption %+v; want a preemption", ans.Placed(), ans.Preemption)
	}
	var victims []string
	for _, v := range ans.Preemption.Victims {
		victims = append(victims, v.Key())
	}
	if ans.Preemption.Node != "node-a" || !slices.Equal(victims, []string{"default/big"}) {
		t.Errorf("preemption on %q evicting %v; want node-a evicting [default/big]", ans.Preemption.Node, victims)
	}
}
