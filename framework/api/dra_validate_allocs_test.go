package api

import "testing"

// TestValidateClaimAllocatesNothing: a valid claim (allocation mode left
// to the defaults) is checked without allocating, as the cluster checks
// every claim it writes and restores; an invalid one still names the field.
func TestValidateClaimAllocatesNothing(t *testing.T) {
	c := &ResourceClaim{ObjectMeta: ObjectMeta{Name: "c", Namespace: "ml"}}
	c.Spec.Devices.Requests = []DeviceRequest{
		{Name: "gpus", Exactly: &ExactDeviceRequest{DeviceClassName: "gpu"}},
		{Name: "nic", FirstAvailable: []DeviceSubRequest{{Name: "fast", DeviceClassName: "nic", Count: 2}, {Name: "slow", DeviceClassName: "nic"}}},
	}
	c.Spec.Devices.Constraints = []DeviceConstraint{{Requests: []string{"gpus", "nic/fast"}}}
	if n := testing.AllocsPerRun(100, func() {
		if err := ValidateStorageObject(c); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("%v allocations per validation, want 0", n)
	}
	c.Spec.Devices.Requests[1].FirstAvailable[1].Count = -1
	want := `framework: ResourceClaim "ml/c": spec.devices.requests[1].firstAvailable[1].count -1: must not be negative`
	if err := ValidateStorageObject(c); err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
}
