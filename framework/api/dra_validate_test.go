package api_test

import (
	"strings"
	"testing"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
)

// TestDRAValidate: the DRA objects' validation accepts what the API server
// accepts (after its defaults) and names the field of what it rejects.
func TestDRAValidate(t *testing.T) {
	node := "n1"
	slice := func(edit func(*api.ResourceSlice)) error {
		s := &api.ResourceSlice{ObjectMeta: api.ObjectMeta{Name: "s"}, Spec: api.ResourceSliceSpec{Driver: "d", NodeName: &node,
			Pool: api.ResourcePool{Name: "p", Generation: 1, ResourceSliceCount: 1}, Devices: []api.Device{{Name: "g0"}}}}
		edit(s)
		return api.ValidateResourceSlice(s)
	}
	claim := func(requests ...api.DeviceRequest) error {
		c := &api.ResourceClaim{ObjectMeta: api.ObjectMeta{Name: "c"}, Spec: api.ResourceClaimSpec{Devices: api.DeviceClaim{Requests: requests}}}
		c.Spec.Devices.SetDefaults()
		return api.ValidateResourceClaim(c)
	}
	for _, tc := range []struct {
		name string
		err  error
		want string // "" for valid
	}{
		{"slice", slice(func(*api.ResourceSlice) {}), ""},
		{"slice without driver", slice(func(s *api.ResourceSlice) { s.Spec.Driver = "" }), "spec.driver: empty"},
		{"unnamed device", slice(func(s *api.ResourceSlice) { s.Spec.Devices[0].Name = "" }), "spec.devices[0].name: empty"},
		{"capacity stepping by 1", slice(func(s *api.ResourceSlice) { s.Spec.Devices[0].Capacity = capacityStep("1") }), ""},
		{"capacity stepping by 0", slice(func(s *api.ResourceSlice) { s.Spec.Devices[0].Capacity = capacityStep("0") }),
			"spec.devices[0].capacity[memory].requestPolicy.validRange.step 0: must be greater than zero"},
		{"capacity stepping down", slice(func(s *api.ResourceSlice) { s.Spec.Devices[0].Capacity = capacityStep("-1") }), "step -1: must be greater than zero"},
		{"class", api.ValidateDeviceClass(&api.DeviceClass{ObjectMeta: api.ObjectMeta{Name: "g"}, Spec: api.DeviceClassSpec{Selectors: []api.DeviceSelector{{CEL: &api.CELDeviceSelector{Expression: "true"}}}}}), ""},
		{"class with an empty selector", api.ValidateDeviceClass(&api.DeviceClass{ObjectMeta: api.ObjectMeta{Name: "g"}, Spec: api.DeviceClassSpec{Selectors: []api.DeviceSelector{{}}}}), "spec.selectors[0].cel: missing"},
		{"claim defaulted", claim(api.DeviceRequest{Name: "r", Exactly: &api.ExactDeviceRequest{DeviceClassName: "g"}}), ""},
		{"claim with alternatives", claim(api.DeviceRequest{Name: "r", FirstAvailable: []api.DeviceSubRequest{{Name: "a", DeviceClassName: "g", AllocationMode: api.DeviceAllocationModeAll}}}), ""},
		{"claim without class", claim(api.DeviceRequest{Name: "r", Exactly: &api.ExactDeviceRequest{}}), "spec.devices.requests[0].exactly.deviceClassName: empty"},
		{"template", api.ValidateResourceClaimTemplate(&api.ResourceClaimTemplate{ObjectMeta: api.ObjectMeta{Name: "t"}}), ""},
		{"unnamed template", api.ValidateResourceClaimTemplate(&api.ResourceClaimTemplate{}), "metadata.name: empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.want == "" && tc.err != nil || tc.want != "" && (tc.err == nil || !strings.Contains(tc.err.Error(), tc.want)) {
				t.Errorf("error %v, want %q", tc.err, tc.want)
			}
		})
	}
}

// capacityStep is a memory capacity of 8 whose valid range starts at 0
// and goes up by step.
func capacityStep(step string) map[api.QualifiedName]api.DeviceCapacity {
	zero, by := resource.MustParse("0"), resource.MustParse(step)
	return map[api.QualifiedName]api.DeviceCapacity{"memory": {Value: resource.MustParse("8"),
		RequestPolicy: &api.CapacityRequestPolicy{ValidRange: &api.CapacityRequestPolicyRange{Min: &zero, Step: &by}}}}
}

// TestDeviceClaimSetDefaults: ExactCount and one device where a request
// states neither; All keeps no count; what is set stays.
func TestDeviceClaimSetDefaults(t *testing.T) {
	dc := api.DeviceClaim{Requests: []api.DeviceRequest{
		{Name: "a", Exactly: &api.ExactDeviceRequest{DeviceClassName: "g"}},
		{Name: "b", Exactly: &api.ExactDeviceRequest{DeviceClassName: "g", Count: 3}},
		{Name: "c", FirstAvailable: []api.DeviceSubRequest{{Name: "x", DeviceClassName: "g", AllocationMode: api.DeviceAllocationModeAll}, {Name: "y", DeviceClassName: "g"}}},
	}}
	dc.SetDefaults()
	got := []api.DeviceAllocationMode{dc.Requests[0].Exactly.AllocationMode, dc.Requests[1].Exactly.AllocationMode,
		dc.Requests[2].FirstAvailable[0].AllocationMode, dc.Requests[2].FirstAvailable[1].AllocationMode}
	counts := []int64{dc.Requests[0].Exactly.Count, dc.Requests[1].Exactly.Count, dc.Requests[2].FirstAvailable[0].Count, dc.Requests[2].FirstAvailable[1].Count}
	ec, all := api.DeviceAllocationModeExactCount, api.DeviceAllocationModeAll
	if got[0] != ec || got[1] != ec || got[2] != all || got[3] != ec || counts[0] != 1 || counts[1] != 3 || counts[2] != 0 || counts[3] != 1 {
		t.Errorf("modes %v, counts %v", got, counts)
	}
}
