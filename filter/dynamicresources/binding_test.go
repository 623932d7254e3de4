package dynamicresources

import (
	"context"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
)

// TestDynamicResourcesPreBindBindingConditions: PreBind checks the
// binding conditions of the claims' devices as stored when it runs. A
// True failure condition (the driver reported it after Filter) fails the
// pod with kube's error; a device whose conditions are not True yet is
// not waited for (kube polls until they are, up to the binding timeout).
func TestDynamicResourcesPreBindBindingConditions(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status api.ConditionStatus // of example.com/attach-failed at PreBind
		want   string              // PreBind's error ("" for success)
	}{
		{"failure condition True", api.ConditionTrue, `device binding failed: claim=c, reason=, message=""`},
		{"failure condition False", api.ConditionFalse, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nodes, objs := draCluster(1, 0)
			objs[1].(*api.ResourceSlice).Spec.Devices = []api.Device{builder.MakeDevice("fgpu-0").
				BindingConditions([]string{"example.com/attached"}, []string{"example.com/attach-failed"}).Obj()}
			result := api.DeviceRequestAllocationResult{Request: "r", Driver: "gpu.example.com", Pool: "n0", Device: "fgpu-0",
				BindingConditions: []string{"example.com/attached"}, BindingFailureConditions: []string{"example.com/attach-failed"}}
			claim := builder.MakeResourceClaim("c").UID("uid-c").Request("r", "gpu", 1).Allocated("n0", result)
			snap, pl, state, pi := draPreFiltered(t, nodes, append(objs, claim.Obj()), draPod("p", "c"))
			ctx := context.Background()
			if s := pl.Filter(ctx, state, pi, snap.Nodes()[0]); !s.IsSuccess() {
				t.Fatalf("Filter: %v (no device status yet: not ready, not timed out)", s)
			}
			if s := pl.Reserve(ctx, state, pi, "n0"); !s.IsSuccess() {
				t.Fatal(s)
			}
			if _, err := snap.SetStorageObject(claim.DeviceCondition("gpu.example.com", "n0", "fgpu-0", "example.com/attach-failed", tc.status).Obj()); err != nil {
				t.Fatal(err)
			}
			s := pl.PreBind(ctx, state, pi, "n0")
			switch {
			case tc.want == "" && !s.IsSuccess():
				t.Errorf("PreBind: %v, want success", s)
			case tc.want != "" && (s.Code() != framework.Error || !strings.Contains(s.Message(), tc.want)):
				t.Errorf("PreBind: %v, want an error %q", s, tc.want)
			}
		})
	}
}

// TestDynamicResourcesBindingFailureExplained: an allocated claim whose
// device reports a True binding failure condition is unavailable on every
// node (kube's reason), and the explanation names the condition.
func TestDynamicResourcesBindingFailureExplained(t *testing.T) {
	nodes, objs := draCluster(2, 1)
	result := api.DeviceRequestAllocationResult{Request: "r", Driver: "gpu.example.com", Pool: "n0", Device: "gpu0",
		BindingConditions: []string{"example.com/attached"}, BindingFailureConditions: []string{"example.com/attach-failed"}}
	claim := builder.MakeResourceClaim("c").UID("uid-c").Request("r", "gpu", 1).Allocated("n0", result).
		DeviceCondition("gpu.example.com", "n0", "gpu0", "example.com/attach-failed", api.ConditionTrue).Obj()
	snap, pl, state, pi := draPreFiltered(t, nodes, append(objs, claim), draPod("p", "c"))
	ctx := context.Background()
	for _, ni := range snap.Nodes() {
		s := pl.Filter(ctx, state, pi, ni)
		if s.Code() != framework.UnschedulableAndUnresolvable || strings.Join(s.Reasons(), "; ") != "resourceclaim not available on the node" {
			t.Fatalf("%s: Filter %v", ni.Name(), s)
		}
	}
	got := pl.ExplainRejection(ctx, state, pi, snap.Nodes()[0], framework.NewStatus(framework.UnschedulableAndUnresolvable, "resourceclaim not available on the node"))
	want := "claim default/c: binding failed, its device reports example.com/attach-failed=True"
	if strings.Join(got, "\n") != want {
		t.Errorf("explanation %q, want %q", got, want)
	}
}
