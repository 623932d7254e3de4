package cluster

import (
	"slices"
	"testing"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
)

// TestTemplateClaimsWithoutUID: pods added without a UID whose claims
// come from a template each get a UID of their own, so each owns its
// claim alone, and deleting one leaves the other's claim in place (claims
// name their owner and users by UID).
func TestTemplateClaimsWithoutUID(t *testing.T) {
	for _, tc := range []struct {
		name    string
		uid     string // the pods' UID prefix ("": none given)
		wantUID func(key string) string
	}{
		{"no uid", "", func(key string) string { return claimPodUID(key) }},
		{"own uid", "u-", func(key string) string { return "u-" + key[len("default/"):] }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := New()
			if err != nil {
				t.Fatal(err)
			}
			tmpl := &api.ResourceClaimTemplate{ObjectMeta: api.ObjectMeta{Name: "one-gpu", Namespace: "default"}}
			tmpl.Spec.Spec.Devices.Requests = []api.DeviceRequest{{Name: "gpu", Exactly: &api.ExactDeviceRequest{DeviceClassName: "gpu", AllocationMode: api.DeviceAllocationModeExactCount, Count: 1}}}
			if err := c.AddStorageObject(tmpl); err != nil {
				t.Fatal(err)
			}
			name := "one-gpu"
			for _, pod := range []string{"a", "b"} {
				p := st.MakePod().Namespace("default").Name(pod).Obj()
				p.UID = "" // the builder's default UID is the name
				if tc.uid != "" {
					p.UID = tc.uid + pod
				}
				p.Spec.ResourceClaims = []api.PodResourceClaim{{Name: "gpu", ResourceClaimTemplateName: &name}}
				if err := c.AddPod(p); err != nil {
					t.Fatal(err)
				}
			}
			owners := func() []string {
				var out []string
				for _, cl := range c.Snapshot().DRA().ResourceClaims() {
					out = append(out, cl.ControllerRef().UID)
				}
				slices.Sort(out)
				return out
			}
			if got, want := owners(), []string{tc.wantUID("default/a"), tc.wantUID("default/b")}; !slices.Equal(got, want) {
				t.Fatalf("claims owned by %v, want %v", got, want)
			}
			if _, err := c.DeletePod("default", "a"); err != nil {
				t.Fatal(err)
			}
			if got, want := owners(), []string{tc.wantUID("default/b")}; !slices.Equal(got, want) {
				t.Errorf("after deleting a, claims owned by %v, want %v", got, want)
			}
		})
	}
}
