package dynamicresources

import (
	"context"
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
)

// TestIsSubRequest: an allocation result names a FirstAvailable
// alternative as "request/subrequest" (kube's results); the match must not
// accept a longer or shorter name sharing the prefix or the suffix.
func TestIsSubRequest(t *testing.T) {
	for _, tc := range []struct {
		ref, req, sub string
		want          bool
	}{
		{"gpus/h100", "gpus", "h100", true},
		{"gpus/h100x", "gpus", "h100", false},
		{"gpusx/h100", "gpus", "h100", false},
		{"gpus-h100", "gpus", "h100", false},
		{"gpus", "gpus", "", false},
		{"gpus/", "gpus", "", true},
		{"a/b/c", "a/b", "c", true},
		{"a/b/c", "a", "b/c", true},
	} {
		if got := isSubRequest(tc.ref, tc.req, tc.sub); got != tc.want {
			t.Errorf("isSubRequest(%q, %q, %q) = %v, want %v", tc.ref, tc.req, tc.sub, got, tc.want)
		}
	}
}

// TestDynamicResourcesScoreBatch: the batch score of a pod with a
// FirstAvailable request equals Score node by node, with exact bounds; a
// node with one device gets the second alternative (8 − 1 = 7), the
// others the first (8).
func TestDynamicResourcesScoreBatch(t *testing.T) {
	nodes, objs := draCluster(4, 2)
	objs[1].(*api.ResourceSlice).Spec.Devices = objs[1].(*api.ResourceSlice).Spec.Devices[:1] // n0: one device
	c := &api.ResourceClaim{ObjectMeta: api.ObjectMeta{Name: "c", Namespace: "default", UID: "uid-c"}}
	c.Spec.Devices.Requests = []api.DeviceRequest{{Name: "gpus", FirstAvailable: []api.DeviceSubRequest{
		{Name: "two", DeviceClassName: "gpu", AllocationMode: api.DeviceAllocationModeExactCount, Count: 2},
		{Name: "one", DeviceClassName: "gpu", AllocationMode: api.DeviceAllocationModeExactCount, Count: 1},
	}}}
	snap, pl, state, pi := draPreFiltered(t, nodes, append(objs, c), draPod("p", "c"))
	ctx := context.Background()
	for _, ni := range snap.Nodes() {
		if s := pl.Filter(ctx, state, pi, ni); !s.IsSuccess() {
			t.Fatalf("%s: %v", ni.Name(), s)
		}
	}
	out := make([]int64, len(snap.Nodes()))
	lo, hi, st := pl.ScoreBatchBounds(ctx, state, pi, snap.Nodes(), nil, out)
	if !st.IsSuccess() {
		t.Fatal(st)
	}
	for j, ni := range snap.Nodes() {
		v, s := pl.Score(ctx, state, pi, ni)
		if !s.IsSuccess() || v != out[j] {
			t.Errorf("%s: Score %d (%v), batch %d", ni.Name(), v, s, out[j])
		}
		want := int64(8)
		if ni.Name() == "n0" {
			want = 7
		}
		if out[j] != want {
			t.Errorf("%s: score %d, want %d", ni.Name(), out[j], want)
		}
	}
	if lo != 7 || hi != 8 {
		t.Errorf("bounds %d..%d, want 7..8", lo, hi)
	}
}

// draPreFiltered is a snapshot of nodes and objs, DynamicResources on it,
// and the cycle state and pod info of pod after a successful PreFilter.
func draPreFiltered(t *testing.T, nodes []*api.Node, objs []api.StorageObject, pod *api.Pod) (*framework.Snapshot, *DynamicResources, *framework.CycleState, *framework.PodInfo) {
	t.Helper()
	snap, err := framework.NewSnapshot(nodes, nil, framework.WithStorage(objs...))
	if err != nil {
		t.Fatal(err)
	}
	pl := newDRAPlugin(t, snap)
	pi := framework.MustPodInfo(pod)
	state := framework.NewCycleState()
	state.SetSnapshot(snap)
	if _, s := pl.PreFilter(context.Background(), state, pi, snap.Nodes()); !s.IsSuccess() {
		t.Fatal(s)
	}
	return snap, pl, state, pi
}
