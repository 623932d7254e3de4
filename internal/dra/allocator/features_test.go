package allocator

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
)

// Behaviour beyond the oracle cases: features switched off, pool order
// with binding conditions, configuration, node selectors, cancellation and
// v1.36's differences. The expectations follow k8s.io/dynamic-resource-allocation
// v0.37.2 (and v0.36.4 for Release v1.36) structured/internal/incubating.

func gpuSlice(name, node string, devs ...api.Device) *api.ResourceSlice {
	return &api.ResourceSlice{
		ObjectMeta: api.ObjectMeta{Name: name},
		Spec: api.ResourceSliceSpec{
			Driver:   "gpu.example.com",
			Pool:     api.ResourcePool{Name: name, Generation: 1, ResourceSliceCount: 1},
			NodeName: ptrTo(node),
			Devices:  devs,
		},
	}
}

func gpu(name string) api.Device {
	return api.Device{Name: name, Attributes: map[api.QualifiedName]api.DeviceAttribute{"model": {StringValue: ptrTo("a100")}}}
}

func gpuClass(configs ...string) *api.DeviceClass {
	c := &api.DeviceClass{ObjectMeta: api.ObjectMeta{Name: "gpu"}, Spec: api.DeviceClassSpec{
		Selectors: []api.DeviceSelector{{CEL: &api.CELDeviceSelector{Expression: `device.driver == "gpu.example.com"`}}},
	}}
	for _, p := range configs {
		c.Spec.Config = append(c.Spec.Config, api.DeviceClassConfiguration{DeviceConfiguration: api.DeviceConfiguration{
			Opaque: &api.OpaqueDeviceConfiguration{Driver: "gpu.example.com", Parameters: json.RawMessage(p)},
		}})
	}
	return c
}

func claimOf(reqs ...api.DeviceRequest) *api.ResourceClaim {
	return &api.ResourceClaim{ObjectMeta: api.ObjectMeta{Name: "c", Namespace: "default"},
		Spec: api.ResourceClaimSpec{Devices: api.DeviceClaim{Requests: reqs}}}
}

func exactly(name string, count int64) api.DeviceRequest {
	return api.DeviceRequest{Name: name, Exactly: &api.ExactDeviceRequest{DeviceClassName: "gpu", Count: count}}
}

var n1 = &api.Node{ObjectMeta: api.ObjectMeta{Name: "n1"}}

// outcome runs Allocate and renders its answer: the devices per claim,
// "none", or "error: <text>".
func outcome(t *testing.T, f Features, slices []*api.ResourceSlice, classes []*api.DeviceClass, claims ...*api.ResourceClaim) (string, []api.AllocationResult) {
	t.Helper()
	a, err := New(f, AllocatedState{}, classesOf(classes), slices, celCache(t))
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Allocate(context.Background(), n1, claims)
	switch {
	case err != nil:
		return "error: " + err.Error(), nil
	case res == nil:
		return "none", nil
	}
	s := ""
	for i, r := range res {
		if i > 0 {
			s += "; "
		}
		for j, d := range r.Devices.Results {
			if j > 0 {
				s += ","
			}
			s += d.Request + "=" + d.Pool + "/" + d.Device
		}
	}
	return s, res
}

func TestFeaturesOff(t *testing.T) {
	on := DefaultFeatures(framework.DefaultKubeVersion)
	tainted := gpu("gpu0")
	tainted.Taints = []api.DeviceTaint{{Key: "k", Effect: api.DeviceTaintEffectNoSchedule}}
	bound := gpu("gpu0")
	bound.BindingConditions = []string{"ready"}
	admin := exactly("r", 1)
	admin.Exactly.AdminAccess = ptrTo(true)
	sized := exactly("r", 1)
	sized.Exactly.Capacity = &api.CapacityRequirements{}
	prioritized := api.DeviceRequest{Name: "r", FirstAvailable: []api.DeviceSubRequest{{Name: "a", DeviceClassName: "gpu", Count: 1}}}

	partitioned := gpu("gpu0")
	partitioned.ConsumesCounters = []api.DeviceCounterConsumption{{CounterSet: "mem", Counters: map[string]api.Counter{"m": {}}}}
	devSlice := gpuSlice("n1", "n1", partitioned)
	devSlice.Spec.Pool.ResourceSliceCount = 2
	counterSlice := gpuSlice("n1", "n1")
	counterSlice.Name = "n1-counters"
	counterSlice.Spec.Pool.ResourceSliceCount = 2
	counterSlice.Spec.SharedCounters = []api.CounterSet{{Name: "mem", Counters: map[string]api.Counter{"m": {}}}}

	for _, tc := range []struct {
		name    string
		off     func(*Features)
		slices  []*api.ResourceSlice
		req     api.DeviceRequest
		whenOn  string
		whenOff string
	}{
		{"admin access", func(f *Features) { f.AdminAccess = false }, []*api.ResourceSlice{gpuSlice("n1", "n1", gpu("gpu0"))}, admin,
			"r=n1/gpu0", "error: claim default/c, request r: admin access is requested, but the feature is disabled"},
		{"prioritized list", func(f *Features) { f.PrioritizedList = false }, []*api.ResourceSlice{gpuSlice("n1", "n1", gpu("gpu0"))}, prioritized,
			"r/a=n1/gpu0", "error: claim default/c, request r: has subrequests, but the DRAPrioritizedList feature is disabled"},
		{"consumable capacity", func(f *Features) { f.ConsumableCapacity = false }, []*api.ResourceSlice{gpuSlice("n1", "n1", gpu("gpu0"))}, sized,
			"r=n1/gpu0", "error: claim default/c, request r: has capacity requests, but the DRAConsumableCapacity feature is disabled"},
		{"device taints", func(f *Features) { f.DeviceTaints = false }, []*api.ResourceSlice{gpuSlice("n1", "n1", tainted)}, exactly("r", 1),
			"none", "r=n1/gpu0"},
		{"binding conditions", func(f *Features) { f.DeviceBindingAndStatus = false }, []*api.ResourceSlice{gpuSlice("n1", "n1", bound)}, exactly("r", 1),
			"r=n1/gpu0", "none"},
		{"partitionable devices", func(f *Features) { f.PartitionableDevices = false }, []*api.ResourceSlice{devSlice, counterSlice}, exactly("r", 1),
			"r=n1/gpu0", "none"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			classes := []*api.DeviceClass{gpuClass()}
			if got, _ := outcome(t, on, tc.slices, classes, claimOf(tc.req)); got != tc.whenOn {
				t.Errorf("on: got %q, want %q", got, tc.whenOn)
			}
			off := on
			tc.off(&off)
			if got, _ := outcome(t, off, tc.slices, classes, claimOf(tc.req)); got != tc.whenOff {
				t.Errorf("off: got %q, want %q", got, tc.whenOff)
			}
		})
	}
}

// Pools whose devices have binding conditions come after all others,
// whatever their names; their conditions are copied into the result.
func TestBindingConditionPoolsLast(t *testing.T) {
	bound := gpu("gpu0")
	bound.BindingConditions = []string{"attached"}
	bound.BindingFailureConditions = []string{"failed"}
	slices := []*api.ResourceSlice{gpuSlice("a", "n1", bound), gpuSlice("b", "n1", gpu("gpu0"))}
	f := DefaultFeatures(framework.DefaultKubeVersion)
	if got, _ := outcome(t, f, slices, []*api.DeviceClass{gpuClass()}, claimOf(exactly("r", 1))); got != "r=b/gpu0" {
		t.Errorf("got %q, want r=b/gpu0", got)
	}
	got, res := outcome(t, f, slices, []*api.DeviceClass{gpuClass()}, claimOf(exactly("r", 2)))
	if got != "r=b/gpu0,r=a/gpu0" {
		t.Fatalf("got %q, want r=b/gpu0,r=a/gpu0", got)
	}
	if r := res[0].Devices.Results[1]; fmt.Sprint(r.BindingConditions, r.BindingFailureConditions) != "[attached] [failed]" {
		t.Errorf("binding conditions %v %v", r.BindingConditions, r.BindingFailureConditions)
	}
}

// A class's configuration is listed once for all requests of the class,
// and a configuration that covers every request lists none (v1.37); v1.36
// lists the requests, and repeats a claim configuration per request it
// names.
func TestConfigs(t *testing.T) {
	claim := claimOf(exactly("r1", 1), exactly("r2", 1))
	claim.Spec.Devices.Config = []api.DeviceClaimConfiguration{{
		Requests:            []string{"r1", "r2"},
		DeviceConfiguration: api.DeviceConfiguration{Opaque: &api.OpaqueDeviceConfiguration{Driver: "gpu.example.com", Parameters: json.RawMessage(`{"b":1}`)}},
	}}
	slices := []*api.ResourceSlice{gpuSlice("n1", "n1", gpu("gpu0"), gpu("gpu1"))}
	for _, tc := range []struct {
		v    framework.KubeVersion
		want string
	}{
		{framework.KubeV137, `[{"source":"FromClass","opaque":{"driver":"gpu.example.com","parameters":{"a":1}}},{"source":"FromClaim","opaque":{"driver":"gpu.example.com","parameters":{"b":1}}}]`},
		{framework.KubeV136, `[{"source":"FromClass","requests":["r1","r2"],"opaque":{"driver":"gpu.example.com","parameters":{"a":1}}},{"source":"FromClaim","requests":["r1","r2"],"opaque":{"driver":"gpu.example.com","parameters":{"b":1}}},{"source":"FromClaim","requests":["r1","r2"],"opaque":{"driver":"gpu.example.com","parameters":{"b":1}}}]`},
	} {
		_, res := outcome(t, DefaultFeatures(tc.v), slices, []*api.DeviceClass{gpuClass(`{"a":1}`)}, claim)
		if res == nil {
			t.Fatalf("%v: no allocation", tc.v)
		}
		if got := mustJSON(t, res[0].Devices.Config); got != tc.want {
			t.Errorf("%v:\n got  %s\n want %s", tc.v, got, tc.want)
		}
	}
}

// Network-attached devices selected by node selectors give an allocation
// whose node selector joins their requirements in one term, without
// repeats.
func TestNodeSelectorJoined(t *testing.T) {
	zone := func(name, zone string) *api.ResourceSlice {
		s := gpuSlice(name, "", gpu("gpu0"))
		s.Spec.NodeName = nil
		s.Spec.NodeSelector = &api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{{MatchExpressions: []api.NodeSelectorRequirement{
			{Key: "zone", Operator: api.NodeSelectorOpIn, Values: []string{zone}},
			{Key: "rack", Operator: api.NodeSelectorOpExists},
		}}}}
		return s
	}
	node := &api.Node{ObjectMeta: api.ObjectMeta{Name: "n1", Labels: map[string]string{"zone": "a", "rack": "1"}}}
	slices := []*api.ResourceSlice{zone("p1", "a"), zone("p2", "a"), zone("p3", "b")}
	a, err := New(DefaultFeatures(framework.DefaultKubeVersion), AllocatedState{}, classesOf([]*api.DeviceClass{gpuClass()}), slices, celCache(t))
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Allocate(context.Background(), node, []*api.ResourceClaim{claimOf(exactly("r", 2))})
	if err != nil || res == nil {
		t.Fatalf("got %v, %v", res, err)
	}
	want := `{"nodeSelectorTerms":[{"matchExpressions":[{"key":"zone","operator":"In","values":["a"]},{"key":"rack","operator":"Exists"}]}]}`
	if got := mustJSON(t, res[0].NodeSelector); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if res, err := a.Allocate(context.Background(), node, []*api.ResourceClaim{claimOf(exactly("r", 3))}); res != nil || err != nil {
		t.Errorf("three devices: got %v, %v; the third is in another zone", res, err)
	}
}

func TestCancelled(t *testing.T) {
	a, err := New(DefaultFeatures(framework.DefaultKubeVersion), AllocatedState{}, classesOf([]*api.DeviceClass{gpuClass()}),
		[]*api.ResourceSlice{gpuSlice("n1", "n1", gpu("gpu0"))}, celCache(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = a.Allocate(ctx, n1, []*api.ResourceClaim{claimOf(exactly("r", 1))})
	if err == nil || err.Error() != "filter operation aborted: context canceled" {
		t.Errorf("got %v", err)
	}
}

// v1.36 reports CEL runtime errors without the device and without the
// hint about optional chaining.
func TestRelease136CELError(t *testing.T) {
	req := exactly("r", 1)
	req.Exactly.Selectors = []api.DeviceSelector{{CEL: &api.CELDeviceSelector{Expression: `device.attributes["gpu.example.com"].nope == 1`}}}
	slices := []*api.ResourceSlice{gpuSlice("n1", "n1", gpu("gpu0"))}
	for v, want := range map[framework.KubeVersion]string{
		framework.KubeV137: "error: claim default/c: selector #0 on device gpu.example.com/n1/gpu0: CEL runtime error: no such key: nope. consider using CEL optional chaining (.? followed by orValue()) or guarding the check with has() for optional fields",
		framework.KubeV136: "error: claim default/c: selector #0: CEL runtime error: no such key: nope",
	} {
		if got, _ := outcome(t, DefaultFeatures(v), slices, []*api.DeviceClass{gpuClass()}, claimOf(req)); got != want {
			t.Errorf("%v: got %q\nwant %q", v, got, want)
		}
	}
}

// v1.36's distinctAttribute compares a device only with the last device
// of each request: two devices of one request may share a value that
// v1.37 keeps apart.
func TestRelease136DistinctAttribute(t *testing.T) {
	dev := func(name string, idx int64) api.Device {
		return api.Device{Name: name, Attributes: map[api.QualifiedName]api.DeviceAttribute{"index": {IntValue: ptrTo(idx)}}}
	}
	slices := []*api.ResourceSlice{gpuSlice("n1", "n1", dev("g0", 0), dev("g1", 1), dev("g2", 0))}
	claim := claimOf(exactly("r", 3))
	claim.Spec.Devices.Constraints = []api.DeviceConstraint{{DistinctAttribute: ptrTo(api.FullyQualifiedName("gpu.example.com/index"))}}
	for v, want := range map[framework.KubeVersion]string{
		framework.KubeV137: "none",
		framework.KubeV136: "r=n1/g0,r=n1/g1,r=n1/g2",
	} {
		if got, _ := outcome(t, DefaultFeatures(v), slices, []*api.DeviceClass{gpuClass()}, claim); got != want {
			t.Errorf("%v: got %q, want %q", v, got, want)
		}
	}
}

// Features that need Kubernetes' experimental allocator are refused.
func TestExperimentalFeaturesRefused(t *testing.T) {
	f := DefaultFeatures(framework.DefaultKubeVersion)
	f.ListTypeAttributes = true
	_, err := New(f, AllocatedState{}, classMap{}, nil, celCache(t))
	if err == nil || err.Error() != "allocator: feature ListTypeAttributes needs Kubernetes' experimental allocator, which is not reproduced" {
		t.Errorf("got %v", err)
	}
}

// An index shared across cycles gathers a node's pools again when the
// node object changes (here its labels, which a slice's node selector
// reads).
func TestSharedIndexFollowsNodeChanges(t *testing.T) {
	s := gpuSlice("zonal", "", gpu("gpu0"))
	s.Spec.NodeName = nil
	s.Spec.NodeSelector = &api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{{MatchExpressions: []api.NodeSelectorRequirement{
		{Key: "zone", Operator: api.NodeSelectorOpIn, Values: []string{"a"}},
	}}}}
	idx, err := IndexSlices([]*api.ResourceSlice{s}, celCache(t))
	if err != nil {
		t.Fatal(err)
	}
	f := DefaultFeatures(framework.DefaultKubeVersion)
	claims := []*api.ResourceClaim{claimOf(exactly("r", 1))}
	for _, tc := range []struct {
		zone string
		want bool
	}{{"a", true}, {"b", false}, {"a", true}} {
		a, err := NewFromSlices(f, AllocatedState{}, classesOf([]*api.DeviceClass{gpuClass()}), idx)
		if err != nil {
			t.Fatal(err)
		}
		node := &api.Node{ObjectMeta: api.ObjectMeta{Name: "n1", Labels: map[string]string{"zone": tc.zone}}}
		res, err := a.Allocate(context.Background(), node, claims)
		if err != nil || (res != nil) != tc.want {
			t.Errorf("zone %s: got %v, %v; want allocated %v", tc.zone, res, err, tc.want)
		}
	}
}
