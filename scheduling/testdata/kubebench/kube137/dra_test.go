package main

import (
	"context"
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/structured"
)

// classes lists the benchmark's one DeviceClass.
type classes []*resourceapi.DeviceClass

func (c classes) List() ([]*resourceapi.DeviceClass, error) { return c, nil }
func (c classes) Get(name string) (*resourceapi.DeviceClass, error) {
	for _, x := range c {
		if x.Name == name {
			return x, nil
		}
	}
	return nil, fmt.Errorf("no class %q", name)
}

// BenchmarkKubeDRAAllocatePerNode is the kube side of schedkit's
// BenchmarkDynamicResourcesCycle (filter/dynamicresources): one claim for
// one device of class gpu (`device.driver == "gpu.example.com"`), nodes
// of 8 devices each in one ResourceSlice, no device allocated. A cycle
// builds the allocator once (DynamicResources' PreFilter) and allocates
// on every node under the filter timeout, as its Filter does. The
// firstAvailable case asks for the device through a firstAvailable
// request of one subrequest.
func BenchmarkKubeDRAAllocatePerNode(b *testing.B) {
	for _, tc := range []struct {
		n              int
		firstAvailable bool
	}{{1000, false}, {5000, false}, {1000, true}} {
		name := fmt.Sprintf("nodes=%d", tc.n)
		if tc.firstAvailable {
			name += "/firstAvailable"
		}
		n := tc.n
		b.Run(name, func(b *testing.B) {
			class := &resourceapi.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: "gpu"},
				Spec: resourceapi.DeviceClassSpec{Selectors: []resourceapi.DeviceSelector{{CEL: &resourceapi.CELDeviceSelector{
					Expression: `device.driver == "gpu.example.com"`}}}}}
			var nodes []*v1.Node
			var slices []*resourceapi.ResourceSlice
			for i := range n {
				name := fmt.Sprintf("n%d", i)
				nodes = append(nodes, &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/hostname": name}},
					Status: v1.NodeStatus{Allocatable: v1.ResourceList{v1.ResourceCPU: resource.MustParse("8")}}})
				sl := &resourceapi.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: name + "-gpus"}}
				sl.Spec.Driver = "gpu.example.com"
				nn := name
				sl.Spec.NodeName = &nn
				sl.Spec.Pool = resourceapi.ResourcePool{Name: name, Generation: 1, ResourceSliceCount: 1}
				for d := range 8 {
					sl.Spec.Devices = append(sl.Spec.Devices, resourceapi.Device{Name: fmt.Sprintf("gpu%d", d)})
				}
				slices = append(slices, sl)
			}
			claim := &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "default", UID: "uid-c"}}
			claim.Spec.Devices.Requests = []resourceapi.DeviceRequest{{Name: "r", Exactly: &resourceapi.ExactDeviceRequest{
				DeviceClassName: "gpu", AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: 1}}}
			if tc.firstAvailable {
				claim.Spec.Devices.Requests = []resourceapi.DeviceRequest{{Name: "r", FirstAvailable: []resourceapi.DeviceSubRequest{{
					Name: "one", DeviceClassName: "gpu", AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: 1}}}}
			}
			benchAllocate(b, nodes, slices, class, claim, sets.New[structured.DeviceID]())
		})
	}
}

// BenchmarkKubeDRASchedulerPerf is the kube side of schedkit's
// BenchmarkDynamicResourcesSchedulerPerf (filter/dynamicresources): the
// cluster of scheduler_perf's SchedulingWithResourceClaimTemplate
// (test/integration/scheduler_perf/dra: node-with-dra-test-driver.yaml,
// resourceslice-basic-devices.yaml with 10 devices, deviceclass.yaml),
// half of every node's devices allocated (the first five; scheduler_perf
// allocates its init claims on random nodes), and a pod's claim of one
// test-class device, allocated on every node of 500 and of 5,000. A cycle
// gathers the allocated devices (kube's DRA manager clones its set),
// builds the allocator and allocates on every node under the filter
// timeout's context.
func BenchmarkKubeDRASchedulerPerf(b *testing.B) {
	const driver = "test-driver.cdi.k8s.io"
	for _, n := range []int{500, 5000} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			class := &resourceapi.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: "test-class"},
				Spec: resourceapi.DeviceClassSpec{Selectors: []resourceapi.DeviceSelector{{CEL: &resourceapi.CELDeviceSelector{
					Expression: `device.driver == "` + driver + `"`}}}}}
			str := func(s string) resourceapi.DeviceAttribute { return resourceapi.DeviceAttribute{StringValue: &s} }
			yes := true
			var nodes []*v1.Node
			var slices []*resourceapi.ResourceSlice
			allocated := sets.New[structured.DeviceID]()
			for i := range n {
				name := fmt.Sprintf("scheduler-perf-dra-%d", i)
				nodes = append(nodes, &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"node-with-dra": "true"}},
					Status: v1.NodeStatus{Capacity: v1.ResourceList{v1.ResourcePods: resource.MustParse("110"),
						v1.ResourceCPU: resource.MustParse("4"), v1.ResourceMemory: resource.MustParse("32Gi")}}})
				sl := &resourceapi.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("resourceslice-%d", i)}}
				nn := name
				sl.Spec.Driver, sl.Spec.NodeName = driver, &nn
				sl.Spec.Pool = resourceapi.ResourcePool{Name: sl.Name, Generation: 1, ResourceSliceCount: 1}
				for d := range 10 {
					version := "1.2.3"
					sl.Spec.Devices = append(sl.Spec.Devices, resourceapi.Device{
						Name: fmt.Sprintf("basic-device-%d", d),
						Attributes: map[resourceapi.QualifiedName]resourceapi.DeviceAttribute{
							"driver":                          str("xe"),
							"driverVersion":                   {VersionValue: &version},
							"resource.k8s.io/pciRoot":         str(fmt.Sprint(d % 2)),
							"family":                          str("Arc Pro B-Series"),
							"health":                          str("Healthy"),
							"model":                           str("B60"),
							"pciAddress":                      str(fmt.Sprintf("0000:0%d:00.0", d)),
							"pciId":                           str("0xe211"),
							"pciRoot":                         str(fmt.Sprintf("0%d", d%2)),
							"resource.kubernetes.io/pciBusID": str(fmt.Sprintf("0000:0%d:00.0", d)),
							"resource.kubernetes.io/pciRoot":  str(fmt.Sprintf("pci0000:0%d", d%2)),
							"sriov":                           {BoolValue: &yes},
							"type":                            str("gpu"),
						},
						Capacity: map[resourceapi.QualifiedName]resourceapi.DeviceCapacity{
							"memory":     {Value: resource.MustParse("24480Mi")},
							"millicores": {Value: resource.MustParse("1k")},
						},
					})
					if d < 5 {
						allocated.Insert(structured.MakeDeviceID(driver, sl.Name, sl.Spec.Devices[d].Name))
					}
				}
				slices = append(slices, sl)
			}
			claim := &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: "pod-0-req", Namespace: "test", UID: "uid-test-pod-0-req"}}
			claim.Spec.Devices.Requests = []resourceapi.DeviceRequest{{Name: "req-0", Exactly: &resourceapi.ExactDeviceRequest{
				DeviceClassName: "test-class", AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: 1}}}
			benchAllocate(b, nodes, slices, class, claim, allocated)
		})
	}
}

// benchAllocate runs cycles of kube's DynamicResources as far as the
// allocator goes: the allocated devices cloned (kube's DRA manager clones
// its set), the allocator built with kube v1.37's default features, and
// claim allocated on every node under the filter timeout's context.
func benchAllocate(b *testing.B, nodes []*v1.Node, slices []*resourceapi.ResourceSlice, class *resourceapi.DeviceClass,
	claim *resourceapi.ResourceClaim, allocated sets.Set[structured.DeviceID]) {
	features := structured.Features{AdminAccess: true, ConsumableCapacity: true, DeviceBindingAndStatus: true,
		DeviceTaints: true, PartitionableDevices: true, PrioritizedList: true}
	cache := cel.NewCache(10, cel.Features{EnableConsumableCapacity: true})
	ctx := context.Background()
	claims := []*resourceapi.ResourceClaim{claim}
	b.ReportAllocs()
	for b.Loop() {
		state := structured.AllocatedState{AllocatedDevices: allocated.Clone(),
			AllocatedSharedDeviceIDs: sets.New[structured.SharedDeviceID](), AggregatedCapacity: structured.NewConsumedCapacityCollection()}
		alloc, err := structured.NewAllocator(ctx, features, state, classes{class}, slices, cache)
		if err != nil {
			b.Fatal(err)
		}
		for _, node := range nodes {
			c, cancel := context.WithTimeout(ctx, 10*time.Second)
			res, err := alloc.Allocate(c, node, claims)
			cancel()
			if err != nil || len(res) != 1 {
				b.Fatal(node.Name, err, len(res))
			}
		}
	}
}
