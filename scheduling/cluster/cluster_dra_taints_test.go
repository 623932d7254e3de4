package cluster

import (
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
)

// TestStorageEventDeviceTaintRule: a DeviceTaintRule change is an update
// of ResourceSlices when it changes the taints of a device of the
// cluster's slices (v1.37), and an event of its own kind, which no plugin
// registers, otherwise; other kinds keep their own resource and action.
func TestStorageEventDeviceTaintRule(t *testing.T) {
	node := "n1"
	slice := &api.ResourceSlice{ObjectMeta: api.ObjectMeta{Name: "n1-gpus"}, Spec: api.ResourceSliceSpec{Driver: "gpu.example.com", NodeName: &node,
		Pool: api.ResourcePool{Name: "n1", Generation: 1, ResourceSliceCount: 1}, Devices: []api.Device{{Name: "gpu-0"}}}}
	rule := func(driver string, key string) *api.DeviceTaintRule {
		return &api.DeviceTaintRule{ObjectMeta: api.ObjectMeta{Name: "r"}, Spec: api.DeviceTaintRuleSpec{
			DeviceSelector: &api.DeviceTaintSelector{Driver: &driver}, Taint: api.DeviceTaint{Key: key, Effect: api.DeviceTaintEffectNoSchedule}}}
	}
	gpu, nic := rule("gpu.example.com", "k"), rule("nic.example.com", "k")
	relabeled := rule("gpu.example.com", "k")
	relabeled.Labels = map[string]string{"team": "a"}
	slices := framework.ClusterEvent{Resource: framework.ResourceResourceSlice, ActionType: framework.Update}
	own := func(a framework.ActionType) framework.ClusterEvent {
		return framework.ClusterEvent{Resource: framework.EventResource(api.KindDeviceTaintRule), ActionType: a}
	}
	for _, tc := range []struct {
		name     string
		v        framework.KubeVersion
		action   framework.ActionType
		old, cur api.StorageObject
		want     framework.ClusterEvent
	}{
		{"rule added on a device", framework.KubeV137, framework.Add, nil, gpu, slices},
		{"rule deleted from a device", framework.KubeV137, framework.Delete, gpu, nil, slices},
		{"rule moved off the devices", framework.KubeV137, framework.Update, gpu, nic, slices},
		{"taint changed", framework.KubeV137, framework.Update, gpu, rule("gpu.example.com", "k2"), slices},
		{"rule on no device", framework.KubeV137, framework.Add, nil, nic, own(framework.Add)},
		{"labels changed", framework.KubeV137, framework.Update, gpu, relabeled, own(framework.Update)},
		{"v1.36 ignores rules", framework.KubeV136, framework.Add, nil, gpu, own(framework.Add)},
		{"a slice", framework.KubeV137, framework.Delete, slice, nil, framework.ClusterEvent{Resource: framework.ResourceResourceSlice, ActionType: framework.Delete}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := New()
			if err != nil {
				t.Fatal(err)
			}
			if err := c.SetKubeVersion(tc.v); err != nil {
				t.Fatal(err)
			}
			if err := c.AddStorageObject(slice); err != nil {
				t.Fatal(err)
			}
			if got := c.StorageEvent(tc.action, tc.old, tc.cur); got != tc.want {
				t.Errorf("StorageEvent = %+v, want %+v", got, tc.want)
			}
		})
	}
}
