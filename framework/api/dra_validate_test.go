package api

import (
	"strings"
	"testing"
)

// TestDRAValidate: the DRA objects' validation accepts what the API server
// accepts (after its defaults) and names the field of what it rejects.
func TestDRAValidate(t *testing.T) {
	node := "n1"
	slice := func(edit func(*ResourceSlice)) error {
		s := &ResourceSlice{ObjectMeta: ObjectMeta{Name: "s"}, Spec: ResourceSliceSpec{Driver: "d", NodeName: &node,
			Pool: ResourcePool{Name: "p", Generation: 1, ResourceSliceCount: 1}, Devices: []Device{{Name: "g0"}}}}
		edit(s)
		return ValidateResourceSlice(s)
	}
	claim := func(requests ...DeviceRequest) error {
		c := &ResourceClaim{ObjectMeta: ObjectMeta{Name: "c"}, Spec: ResourceClaimSpec{Devices: DeviceClaim{Requests: requests}}}
		c.Spec.Devices.SetDefaults()
		return ValidateResourceClaim(c)
	}
	for _, tc := range []struct {
		name string
		err  error
		want string // "" for valid
	}{
		{"slice", slice(func(*ResourceSlice) {}), ""},
		{"slice without driver", slice(func(s *ResourceSlice) { s.Spec.Driver = "" }), "spec.driver: empty"},
		{"unnamed device", slice(func(s *ResourceSlice) { s.Spec.Devices[0].Name = "" }), "spec.devices[0].name: empty"},
		{"class", ValidateDeviceClass(&DeviceClass{ObjectMeta: ObjectMeta{Name: "g"}, Spec: DeviceClassSpec{Selectors: []DeviceSelector{{CEL: &CELDeviceSelector{Expression: "true"}}}}}), ""},
		{"class with an empty selector", ValidateDeviceClass(&DeviceClass{ObjectMeta: ObjectMeta{Name: "g"}, Spec: DeviceClassSpec{Selectors: []DeviceSelector{{}}}}), "spec.selectors[0].cel: missing"},
		{"claim defaulted", claim(DeviceRequest{Name: "r", Exactly: &ExactDeviceRequest{DeviceClassName: "g"}}), ""},
		{"claim with alternatives", claim(DeviceRequest{Name: "r", FirstAvailable: []DeviceSubRequest{{Name: "a", DeviceClassName: "g", AllocationMode: DeviceAllocationModeAll}}}), ""},
		{"claim without class", claim(DeviceRequest{Name: "r", Exactly: &ExactDeviceRequest{}}), "spec.devices.requests[0].exactly.deviceClassName: empty"},
		{"template", ValidateResourceClaimTemplate(&ResourceClaimTemplate{ObjectMeta: ObjectMeta{Name: "t"}}), ""},
		{"unnamed template", ValidateResourceClaimTemplate(&ResourceClaimTemplate{}), "metadata.name: empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.want == "" && tc.err != nil || tc.want != "" && (tc.err == nil || !strings.Contains(tc.err.Error(), tc.want)) {
				t.Errorf("error %v, want %q", tc.err, tc.want)
			}
		})
	}
}

// TestDeviceClaimSetDefaults: ExactCount and one device where a request
// states neither; All keeps no count; what is set stays.
func TestDeviceClaimSetDefaults(t *testing.T) {
	dc := DeviceClaim{Requests: []DeviceRequest{
		{Name: "a", Exactly: &ExactDeviceRequest{DeviceClassName: "g"}},
		{Name: "b", Exactly: &ExactDeviceRequest{DeviceClassName: "g", Count: 3}},
		{Name: "c", FirstAvailable: []DeviceSubRequest{{Name: "x", DeviceClassName: "g", AllocationMode: DeviceAllocationModeAll}, {Name: "y", DeviceClassName: "g"}}},
	}}
	dc.SetDefaults()
	got := []DeviceAllocationMode{dc.Requests[0].Exactly.AllocationMode, dc.Requests[1].Exactly.AllocationMode,
		dc.Requests[2].FirstAvailable[0].AllocationMode, dc.Requests[2].FirstAvailable[1].AllocationMode}
	counts := []int64{dc.Requests[0].Exactly.Count, dc.Requests[1].Exactly.Count, dc.Requests[2].FirstAvailable[0].Count, dc.Requests[2].FirstAvailable[1].Count}
	ec, all := DeviceAllocationModeExactCount, DeviceAllocationModeAll
	if got[0] != ec || got[1] != ec || got[2] != all || got[3] != ec || counts[0] != 1 || counts[1] != 3 || counts[2] != 0 || counts[3] != 1 {
		t.Errorf("modes %v, counts %v", got, counts)
	}
}
