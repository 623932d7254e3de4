package noderesources

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/internal/st"
)

type rzM = map[string]string

// rzResizing is a pod asking spec cpu in its spec while its status
// reports status cpu (a resize in progress).
func rzResizing(name, spec, status string) *api.Pod {
	return builder.MakePod().Name(name).Req(rzM{"cpu": spec}).StatusReq("c0", rzM{"cpu": status}).ResizeInProgress().Obj()
}

// NodeResourcesFit counts a bound pod's resize in flight on its node
// (NodeInfo: the larger of spec and status), and checks an incoming pod
// by its spec alone (kube's computePodResourceRequest leaves the status
// out).
func TestNodeResourcesFitResizeInFlight(t *testing.T) {
	args := DefaultNodeResourcesFitArgs()
	tests := []struct {
		name     string
		pod      *api.Pod
		existing []*api.Pod
		want     *fw.Status
	}{
		{"a bound pod counts its status: 1500m + 700m > 2", builder.MakePod().Name("in").Req(rzM{"cpu": "700m"}).Obj(),
			[]*api.Pod{rzResizing("bound", "500m", "1500m")}, fw.NewStatus(fw.Unschedulable, "Insufficient cpu")},
		{"a bound pod counts its spec when larger: 1500m + 700m > 2", builder.MakePod().Name("in").Req(rzM{"cpu": "700m"}).Obj(),
			[]*api.Pod{rzResizing("bound", "1500m", "500m")}, fw.NewStatus(fw.Unschedulable, "Insufficient cpu")},
		{"a bound pod's infeasible resize counts its status: 500m + 700m <= 2", builder.MakePod().Name("in").Req(rzM{"cpu": "700m"}).Obj(),
			[]*api.Pod{builder.MakePod().Name("bound").Req(rzM{"cpu": "1500m"}).StatusReq("c0", rzM{"cpu": "500m"}).ResizePending(api.PodReasonInfeasible).Obj()}, nil},
		{"the incoming pod is checked by its spec: 1200m <= 2", rzResizing("in", "1200m", "3"), nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := nrfRunFilter(t, args, tc.pod, st.NodeInfo(t, "n", rzM{"cpu": "2", "pods": "10"}, tc.existing...))
			if got.Code() != tc.want.Code() || !cmp.Equal(got.Reasons(), tc.want.Reasons()) {
				t.Errorf("Filter %v, want %v", got, tc.want)
			}
		})
	}
}

// The NodeResourcesFit signature is the spec's requests
// (computePodResourceRequest): a resize in flight does not change it.
func TestNodeResourcesFitSignResizeInFlight(t *testing.T) {
	pl := st.HintPlugin[*NodeResourcesFit](t)(NewFit(nil, nil))
	sign := func(p *api.Pod) []fw.SignFragment {
		f, s := pl.SignPod(context.Background(), st.HintPodInfo(t, p))
		if !s.IsSuccess() {
			t.Fatal(s)
		}
		return f
	}
	resizing := sign(rzResizing("a", "500m", "1500m"))
	if plain := sign(builder.MakePod().Name("b").Req(rzM{"cpu": "500m"}).Obj()); !cmp.Equal(resizing, plain) {
		t.Errorf("signature %+v, want the spec's %+v", resizing, plain)
	}
	if status := sign(builder.MakePod().Name("c").Req(rzM{"cpu": "1500m"}).Obj()); cmp.Equal(resizing, status) {
		t.Errorf("signature %+v equals the status's", resizing)
	}
}

// Queueing hints: a node event is judged by the pod's spec (isFit), a pod
// event by requests with status resources, so a resize actuated downwards
// on a bound pod (spec unchanged) frees room (isSchedulableAfterPodScaleDown).
func TestNodeResourcesFitHintsResizeInFlight(t *testing.T) {
	pl := st.HintPlugin[*NodeResourcesFit](t)(NewFit(nil, nil))
	st.RunHints(t, pl.afterNodeChange, nil, []st.HintCase{
		{Name: "queue-on-node-add-fitting-the-spec", Pod: rzResizing("p", "800m", "1500m"),
			New: builder.MakeNode().Name("n").Capacity(rzM{"cpu": "1", "pods": "32"}).Obj(), Want: fw.Queue},
	})
	bound := func(status string) any {
		return st.HintPod(t, builder.MakePod().Name("b").UID("b").Node("n").Req(rzM{"cpu": "500m"}).StatusReq("c0", rzM{"cpu": status}).Obj())
	}
	st.RunHints(t, pl.afterPodEvent, nil, []st.HintCase{
		{Name: "queue-on-bound-pod-resize-actuated-down", Pod: builder.MakePod().Name("p").UID("p").Req(rzM{"cpu": "1"}).Obj(),
			Old: bound("1500m"), New: bound("500m"), Want: fw.Queue},
		{Name: "skip-queue-on-bound-pod-resize-actuated-up", Pod: builder.MakePod().Name("p").UID("p").Req(rzM{"cpu": "1"}).Obj(),
			Old: bound("500m"), New: bound("1500m"), Want: fw.QueueSkip},
	})
}
