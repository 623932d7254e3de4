package dynamicresources

import (
	"context"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
)

// TestDynamicResourcesExplainRejection: for a node Filter rejects, the
// explanation names the claim and request short of devices with the free
// count and the claims holding the others, a constraint no choice meets,
// a class the node has no device of, and claims that fit only alone;
// Filter's status keeps kube's reason.
func TestDynamicResourcesExplainRejection(t *testing.T) {
	root := api.FullyQualifiedName("gpu.example.com/root")
	withRoots := func(objs []api.StorageObject) []api.StorageObject {
		sl := objs[1].(*api.ResourceSlice)
		for i := range sl.Spec.Devices {
			v := []string{"a", "a", "b", "b"}[i]
			sl.Spec.Devices[i].Attributes = map[api.QualifiedName]api.DeviceAttribute{api.QualifiedName(root): {StringValue: &v}}
		}
		return objs
	}
	allocated := func(name, device string) *api.ResourceClaim {
		c := draClaim(name, 1)
		c.Status.Allocation = &api.AllocationResult{Devices: api.DeviceAllocationResult{Results: []api.DeviceRequestAllocationResult{
			{Request: "r", Driver: "gpu.example.com", Pool: "n0", Device: device}}}}
		return c
	}
	constrained := draClaim("c", 3)
	constrained.Spec.Devices.Constraints = []api.DeviceConstraint{{MatchAttribute: &root}}
	otherClass := draClaim("c", 1)
	otherClass.Spec.Devices.Requests[0].Exactly.DeviceClassName = "tpu"
	tpu := &api.DeviceClass{ObjectMeta: api.ObjectMeta{Name: "tpu"}, Spec: api.DeviceClassSpec{Selectors: []api.DeviceSelector{{CEL: &api.CELDeviceSelector{
		Expression: `device.driver == "tpu.example.com"`}}}}}
	ruleOn := func(device string) *api.DeviceTaintRule {
		return builder.MakeDeviceTaintRule("broken", api.DeviceTaint{Key: "k", Effect: api.DeviceTaintEffectNoSchedule}).Pool("n0").Device(device).Obj()
	}
	for _, tc := range []struct {
		name   string
		objs   []api.StorageObject
		claims []string
		want   []string
	}{
		{"too few devices", []api.StorageObject{draClaim("c", 5)}, []string{"c"},
			[]string{"claim default/c request r: 4 of 5 devices of class gpu free on this node"}},
		{"devices taken", []api.StorageObject{allocated("x", "gpu0"), allocated("y", "gpu2"), draClaim("c", 3)}, []string{"c"},
			[]string{"claim default/c request r: 2 of 3 devices of class gpu free on this node (gpu0 allocated to claim default/x; gpu2 allocated to claim default/y)"}},
		{"constraint", []api.StorageObject{constrained}, []string{"c"},
			[]string{"claim default/c request r: 4 devices of class gpu free on this node, but no 3 of them have the same gpu.example.com/root (constraint matchAttribute)"}},
		{"no device of the class", []api.StorageObject{tpu, otherClass}, []string{"c"},
			[]string{"claim default/c request r: no device of class tpu on this node"}},
		{"tainted by a rule", []api.StorageObject{ruleOn("gpu1"), draClaim("c", 4)}, []string{"c"},
			[]string{"claim default/c request r: 3 of 4 devices of class gpu free on this node (gpu1 tainted)"}},
		{"claims compete", []api.StorageObject{draClaim("a", 3), draClaim("b", 3)}, []string{"a", "b"},
			[]string{"claims default/a, default/b each fit on this node alone but not together: they compete for the same devices"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nodes, objs := draCluster(1, 4)
			objs = append(withRoots(objs), tc.objs...)
			snap, err := framework.NewSnapshot(nodes, nil, framework.WithStorage(objs...))
			if err != nil {
				t.Fatal(err)
			}
			pl := newDRAPlugin(t, snap)
			pi, _ := framework.NewPodInfo(draPod("p", tc.claims...))
			state := framework.NewCycleState()
			state.SetSnapshot(snap)
			ctx := context.Background()
			if _, s := pl.PreFilter(ctx, state, pi, snap.Nodes()); !s.IsSuccess() {
				t.Fatal(s)
			}
			ni := snap.Nodes()[0]
			s := pl.Filter(ctx, state, pi, ni)
			if got := strings.Join(s.Reasons(), "; "); got != "cannot allocate all claims" {
				t.Fatalf("Filter: %v", s)
			}
			got := pl.ExplainRejection(ctx, state, pi, ni, s)
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}
