package st

import (
	"fmt"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
)

// PerfDRADriver is kube scheduler_perf's DRA test driver.
const PerfDRADriver = "test-driver.cdi.k8s.io"

// PerfDRASlice is kube scheduler_perf's resourceslice-basic-devices.yaml
// (test/integration/scheduler_perf/dra, v1.37.2) for the index-th node,
// named node: devices devices with the template's 13 attributes (two
// PCI roots in turn) and 2 capacities, in a pool of their own.
func PerfDRASlice(node string, index, devices int) *api.ResourceSlice {
	name := fmt.Sprintf("resourceslice-%d", index)
	s := &api.ResourceSlice{ObjectMeta: api.ObjectMeta{Name: name}}
	s.Spec.Driver, s.Spec.NodeName = PerfDRADriver, &node
	s.Spec.Pool = api.ResourcePool{Name: name, Generation: 1, ResourceSliceCount: 1}
	str := func(v string) api.DeviceAttribute { return api.DeviceAttribute{StringValue: &v} }
	for k := range devices {
		version, sriov := "1.2.3", true
		s.Spec.Devices = append(s.Spec.Devices, api.Device{
			Name: fmt.Sprintf("basic-device-%d", k),
			Attributes: map[api.QualifiedName]api.DeviceAttribute{
				"driver":                          str("xe"),
				"driverVersion":                   {VersionValue: &version},
				"resource.k8s.io/pciRoot":         str(fmt.Sprint(k % 2)),
				"family":                          str("Arc Pro B-Series"),
				"health":                          str("Healthy"),
				"model":                           str("B60"),
				"pciAddress":                      str(fmt.Sprintf("0000:0%d:00.0", k)),
				"pciId":                           str("0xe211"),
				"pciRoot":                         str(fmt.Sprintf("0%d", k%2)),
				"resource.kubernetes.io/pciBusID": str(fmt.Sprintf("0000:0%d:00.0", k)),
				"resource.kubernetes.io/pciRoot":  str(fmt.Sprintf("pci0000:0%d", k%2)),
				"sriov":                           {BoolValue: &sriov},
				"type":                            str("gpu"),
			},
			Capacity: map[api.QualifiedName]api.DeviceCapacity{
				"memory":     {Value: resource.MustParse("24480Mi")},
				"millicores": {Value: resource.MustParse("1k")},
			},
		})
	}
	return s
}

// PerfDRAClass is scheduler_perf's deviceclass.yaml: test-class, the test
// driver's devices.
func PerfDRAClass() *api.DeviceClass {
	return &api.DeviceClass{
		ObjectMeta: api.ObjectMeta{Name: "test-class"},
		Spec: api.DeviceClassSpec{Selectors: []api.DeviceSelector{{CEL: &api.CELDeviceSelector{
			Expression: `device.driver == "` + PerfDRADriver + `"`}}}},
	}
}
