package builder_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/resource"
)

func attrString(s string) api.DeviceAttribute { return api.DeviceAttribute{StringValue: &s} }
func attrInt(i int64) api.DeviceAttribute     { return api.DeviceAttribute{IntValue: &i} }
func qty(q string) resource.Quantity          { return resource.MustParse(q) }
func fqn(s string) *api.FullyQualifiedName    { n := api.FullyQualifiedName(s); return &n }

// TestDRABuilders pins the objects the DRA wrappers build: their defaults
// and what each method sets.
func TestDRABuilders(t *testing.T) {
	yes := true
	pod := builder.MakePod().Name("train").Obj()
	tests := []struct {
		name      string
		got, want any
	}{
		{"slice defaults", builder.MakeResourceSlice("n1", "gpu.example.com").Obj(), &api.ResourceSlice{
			ObjectMeta: api.ObjectMeta{Name: "n1-gpu.example.com"},
			Spec: api.ResourceSliceSpec{Driver: "gpu.example.com", NodeName: ptr("n1"),
				Pool: api.ResourcePool{Name: "n1", Generation: 1, ResourceSliceCount: 1}}}},
		{"slice with devices", builder.MakeResourceSlice("n1", "gpu.example.com").Pool("p", 3, 2).
			SharedCounters("gpu-0-mem", map[string]string{"memory": "80Gi"}).
			Device(builder.MakeDevice("gpu-0").StringAttr("model", "A100").IntAttr("index", 0).VersionAttr("driverVersion", "1.2.3").BoolAttr("mig", false).
				StringAttr("resource.kubernetes.io/pcieRoot", "pci0").Capacity("memory", "80Gi"),
				builder.MakeDevice("gpu-0-half").ConsumesCounters("gpu-0-mem", map[string]string{"memory": "40Gi"}).NodeName("n1").
					AllowMultipleAllocations().Taint(api.DeviceTaint{Key: "broken", Effect: api.DeviceTaintEffectNoSchedule})).Obj(),
			&api.ResourceSlice{ObjectMeta: api.ObjectMeta{Name: "n1-gpu.example.com"},
				Spec: api.ResourceSliceSpec{Driver: "gpu.example.com", NodeName: ptr("n1"),
					Pool:           api.ResourcePool{Name: "p", Generation: 3, ResourceSliceCount: 2},
					SharedCounters: []api.CounterSet{{Name: "gpu-0-mem", Counters: map[string]api.Counter{"memory": {Value: qty("80Gi")}}}},
					Devices: []api.Device{
						{Name: "gpu-0", Attributes: map[api.QualifiedName]api.DeviceAttribute{"model": attrString("A100"), "index": attrInt(0),
							"driverVersion": {VersionValue: ptr("1.2.3")}, "mig": {BoolValue: ptr(false)}, "resource.kubernetes.io/pcieRoot": attrString("pci0")},
							Capacity: map[api.QualifiedName]api.DeviceCapacity{"memory": {Value: qty("80Gi")}}},
						{Name: "gpu-0-half", ConsumesCounters: []api.DeviceCounterConsumption{{CounterSet: "gpu-0-mem",
							Counters: map[string]api.Counter{"memory": {Value: qty("40Gi")}}}}, NodeName: ptr("n1"), AllowMultipleAllocations: &yes,
							Taints: []api.DeviceTaint{{Key: "broken", Effect: api.DeviceTaintEffectNoSchedule}}},
					}}}},
		{"slice for all nodes", builder.MakeResourceSlice("", "nic.example.com").Name("fabric").Pool("fabric", 1, 1).AllNodes().Obj(),
			&api.ResourceSlice{ObjectMeta: api.ObjectMeta{Name: "fabric"}, Spec: api.ResourceSliceSpec{Driver: "nic.example.com", AllNodes: &yes,
				Pool: api.ResourcePool{Name: "fabric", Generation: 1, ResourceSliceCount: 1}}}},
		{"slice for selected nodes", builder.MakeResourceSlice("n1", "d").NodeSelector(&api.NodeSelector{}).Obj(),
			&api.ResourceSlice{ObjectMeta: api.ObjectMeta{Name: "n1-d"}, Spec: api.ResourceSliceSpec{Driver: "d", NodeSelector: &api.NodeSelector{},
				Pool: api.ResourcePool{Name: "n1", Generation: 1, ResourceSliceCount: 1}}}},
		{"slice per device", builder.MakeResourceSlice("n1", "d").PerDeviceNodeSelection().Obj(),
			&api.ResourceSlice{ObjectMeta: api.ObjectMeta{Name: "n1-d"}, Spec: api.ResourceSliceSpec{Driver: "d", PerDeviceNodeSelection: &yes,
				Pool: api.ResourcePool{Name: "n1", Generation: 1, ResourceSliceCount: 1}}}},
		{"class", builder.MakeDeviceClass("gpu-a100").Selector(`device.driver == "gpu.example.com"`).
			Selector(`device.attributes["gpu.example.com"].model == "A100"`).Config("gpu.example.com", json.RawMessage(`{"x":1}`)).
			ExtendedResourceName("example.com/gpu").Obj(),
			&api.DeviceClass{ObjectMeta: api.ObjectMeta{Name: "gpu-a100"}, Spec: api.DeviceClassSpec{
				Selectors: []api.DeviceSelector{{CEL: &api.CELDeviceSelector{Expression: `device.driver == "gpu.example.com"`}},
					{CEL: &api.CELDeviceSelector{Expression: `device.attributes["gpu.example.com"].model == "A100"`}}},
				Config: []api.DeviceClassConfiguration{{DeviceConfiguration: api.DeviceConfiguration{
					Opaque: &api.OpaqueDeviceConfiguration{Driver: "gpu.example.com", Parameters: json.RawMessage(`{"x":1}`)}}}},
				ExtendedResourceName: ptr("example.com/gpu")}}},
		{"claim defaults", builder.MakeResourceClaim("c").Obj(),
			&api.ResourceClaim{ObjectMeta: api.ObjectMeta{Name: "c", Namespace: "default", UID: "c"}}},
		{"claim", builder.MakeResourceClaim("c").Namespace("ml").UID("u").
			Request("gpus", "gpu", 2).Selector("s1").Selector("s2").
			RequestAll("nics", "nic").AdminAccess().Toleration(api.DeviceToleration{Key: "k", Operator: api.DeviceTolerationOpExists}).
			FirstAvailable("accel", builder.SubRequest("big", "h100", 1), builder.SubRequestAll("any", "gpu")).Selector("s3").CapacityRequest("memory", "10Gi").
			MatchAttribute("resource.kubernetes.io/pcieRoot", "gpus", "accel").DistinctAttribute("gpu.example.com/index").
			Config("gpu.example.com", json.RawMessage(`{}`), "gpus").
			Allocated("n1", builder.DeviceResult("gpus", "gpu.example.com", "n1", "gpu-0")).ReservedFor(pod).OwnedBy(pod).Obj(),
			&api.ResourceClaim{ObjectMeta: api.ObjectMeta{Name: "c", Namespace: "ml", UID: "u",
				OwnerReferences: []api.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: "train", UID: "train", Controller: true}}},
				Spec: api.ResourceClaimSpec{Devices: api.DeviceClaim{
					Requests: []api.DeviceRequest{
						{Name: "gpus", Exactly: &api.ExactDeviceRequest{DeviceClassName: "gpu", AllocationMode: api.DeviceAllocationModeExactCount, Count: 2,
							Selectors: []api.DeviceSelector{{CEL: &api.CELDeviceSelector{Expression: "s1"}}, {CEL: &api.CELDeviceSelector{Expression: "s2"}}}}},
						{Name: "nics", Exactly: &api.ExactDeviceRequest{DeviceClassName: "nic", AllocationMode: api.DeviceAllocationModeAll, AdminAccess: &yes,
							Tolerations: []api.DeviceToleration{{Key: "k", Operator: api.DeviceTolerationOpExists}}}},
						{Name: "accel", FirstAvailable: []api.DeviceSubRequest{
							{Name: "big", DeviceClassName: "h100", AllocationMode: api.DeviceAllocationModeExactCount, Count: 1},
							{Name: "any", DeviceClassName: "gpu", AllocationMode: api.DeviceAllocationModeAll,
								Selectors: []api.DeviceSelector{{CEL: &api.CELDeviceSelector{Expression: "s3"}}},
								Capacity:  &api.CapacityRequirements{Requests: map[api.QualifiedName]resource.Quantity{"memory": qty("10Gi")}}}}},
					},
					Constraints: []api.DeviceConstraint{{Requests: []string{"gpus", "accel"}, MatchAttribute: fqn("resource.kubernetes.io/pcieRoot")},
						{DistinctAttribute: fqn("gpu.example.com/index")}},
					Config: []api.DeviceClaimConfiguration{{Requests: []string{"gpus"}, DeviceConfiguration: api.DeviceConfiguration{
						Opaque: &api.OpaqueDeviceConfiguration{Driver: "gpu.example.com", Parameters: json.RawMessage(`{}`)}}}},
				}},
				Status: api.ResourceClaimStatus{
					Allocation: &api.AllocationResult{Devices: api.DeviceAllocationResult{Results: []api.DeviceRequestAllocationResult{
						{Request: "gpus", Driver: "gpu.example.com", Pool: "n1", Device: "gpu-0"}}},
						NodeSelector: &api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{{MatchFields: []api.NodeSelectorRequirement{
							{Key: "metadata.name", Operator: api.NodeSelectorOpIn, Values: []string{"n1"}}}}}}},
					ReservedFor: []api.ResourceClaimConsumerReference{{Resource: "pods", Name: "train", UID: "train"}}}}},
		{"template", builder.MakeResourceClaimTemplate("single-gpu").Namespace("ml").ClaimLabel("app", "infer").
			Request("gpu", "gpu", 1).Selector("s").AdminAccess().MatchAttribute("a/b").Obj(),
			&api.ResourceClaimTemplate{ObjectMeta: api.ObjectMeta{Name: "single-gpu", Namespace: "ml"},
				Spec: api.ResourceClaimTemplateSpec{ObjectMeta: api.ObjectMeta{Labels: map[string]string{"app": "infer"}},
					Spec: api.ResourceClaimSpec{Devices: api.DeviceClaim{
						Requests: []api.DeviceRequest{{Name: "gpu", Exactly: &api.ExactDeviceRequest{DeviceClassName: "gpu",
							AllocationMode: api.DeviceAllocationModeExactCount, Count: 1, AdminAccess: &yes,
							Selectors: []api.DeviceSelector{{CEL: &api.CELDeviceSelector{Expression: "s"}}}}}},
						Constraints: []api.DeviceConstraint{{MatchAttribute: fqn("a/b")}}}}}}},
		{"template alternatives", builder.MakeResourceClaimTemplate("t").FirstAvailable("g", builder.SubRequest("a", "x", 2)).
			Toleration(api.DeviceToleration{Key: "k"}).CapacityRequest("cores", "2").DistinctAttribute("a/b", "g").
			Config("d", nil).RequestAll("all", "y").Obj(),
			&api.ResourceClaimTemplate{ObjectMeta: api.ObjectMeta{Name: "t", Namespace: "default"},
				Spec: api.ResourceClaimTemplateSpec{Spec: api.ResourceClaimSpec{Devices: api.DeviceClaim{
					Requests: []api.DeviceRequest{
						{Name: "g", FirstAvailable: []api.DeviceSubRequest{{Name: "a", DeviceClassName: "x", AllocationMode: api.DeviceAllocationModeExactCount, Count: 2,
							Tolerations: []api.DeviceToleration{{Key: "k"}},
							Capacity:    &api.CapacityRequirements{Requests: map[api.QualifiedName]resource.Quantity{"cores": qty("2")}}}}},
						{Name: "all", Exactly: &api.ExactDeviceRequest{DeviceClassName: "y", AllocationMode: api.DeviceAllocationModeAll}}},
					Constraints: []api.DeviceConstraint{{Requests: []string{"g"}, DistinctAttribute: fqn("a/b")}},
					Config:      []api.DeviceClaimConfiguration{{DeviceConfiguration: api.DeviceConfiguration{Opaque: &api.OpaqueDeviceConfiguration{Driver: "d"}}}},
				}}}}},
		{"device", builder.MakeDevice("d").Obj(), api.Device{Name: "d"}},
		{"pod claims", builder.MakePod().Name("p").Req(map[string]string{"cpu": "1"}).ResourceClaim("gpu", "train-gpu").
			ResourceClaimTemplate("scratch", "single-gpu").ClaimStatus("scratch", "p-scratch-x").Container("i", nil).Obj().Spec.Containers,
			[]api.Container{
				{Name: "c0", Resources: api.ResourceRequirements{Requests: resource.MustParseList(map[string]string{"cpu": "1"}),
					Claims: []api.ContainerResourceClaim{{Name: "gpu"}, {Name: "scratch"}}}},
				{Name: "c1", Image: "i", Resources: api.ResourceRequirements{Claims: []api.ContainerResourceClaim{{Name: "gpu"}, {Name: "scratch"}}}},
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.got, cmpQuantity); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	p := builder.MakePod().Name("p").ResourceClaim("gpu", "train-gpu").ResourceClaimTemplate("scratch", "single-gpu").
		ClaimStatus("scratch", "p-scratch-x").ClaimStatus("none", "").Obj()
	want := []api.PodResourceClaim{{Name: "gpu", ResourceClaimName: ptr("train-gpu")}, {Name: "scratch", ResourceClaimTemplateName: ptr("single-gpu")}}
	wantStatus := []api.PodResourceClaimStatus{{Name: "scratch", ResourceClaimName: ptr("p-scratch-x")}, {Name: "none"}}
	if !cmp.Equal(p.Spec.ResourceClaims, want) || !cmp.Equal(p.Status.ResourceClaimStatuses, wantStatus) {
		t.Errorf("pod claims %+v, statuses %+v", p.Spec.ResourceClaims, p.Status.ResourceClaimStatuses)
	}
}

// TestDRABuildErrors: a malformed quantity, or a refinement with no
// request to refine, is Build's error naming the object and the field;
// Obj panics with it.
func TestDRABuildErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		build func() error
		want  string
	}{
		{"device capacity", func() error { _, err := builder.MakeDevice("d").Capacity("memory", "lots").Build(); return err },
			`builder: device "d": capacity.memory: resource: quantity "lots"`},
		{"device in a slice", func() error {
			_, err := builder.MakeResourceSlice("n", "d").Device(builder.MakeDevice("g").ConsumesCounters("c", map[string]string{"m": "x"})).Build()
			return err
		}, `builder: ResourceSlice "n-d": builder: device "g": consumesCounters[c].m`},
		{"shared counters", func() error {
			_, err := builder.MakeResourceSlice("n", "d").SharedCounters("c", map[string]string{"m": "1Q"}).Build()
			return err
		}, `builder: ResourceSlice "n-d": spec.sharedCounters[c].m`},
		{"claim capacity", func() error {
			_, err := builder.MakeResourceClaim("c").Request("r", "g", 1).CapacityRequest("memory", "?").Build()
			return err
		}, `builder: ResourceClaim "c": capacity.requests.memory`},
		{"selector before any request", func() error { _, err := builder.MakeResourceClaim("c").Selector("true").Build(); return err },
			`builder: ResourceClaim "c": no request to refine`},
		{"template admin access on alternatives", func() error {
			_, err := builder.MakeResourceClaimTemplate("t").FirstAvailable("r", builder.SubRequest("a", "g", 1)).AdminAccess().Build()
			return err
		}, `builder: ResourceClaimTemplate "t": AdminAccess: a firstAvailable alternative has no adminAccess`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.build(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
	defer func() {
		if recover() == nil {
			t.Error("Obj did not panic on a malformed quantity")
		}
	}()
	builder.MakeResourceClaimTemplate("t").Request("r", "g", 1).CapacityRequest("m", "bad").Obj()
}

// TestDRANoSharing: each Obj is a new object sharing nothing with its
// wrapper, so one wrapper serves as the template of several objects.
func TestDRANoSharing(t *testing.T) {
	sw := builder.MakeResourceSlice("n1", "d").Device(builder.MakeDevice("g0").StringAttr("model", "A"))
	s1 := sw.Obj()
	s1.Spec.Devices[0].Attributes["model"] = attrString("changed")
	s2 := sw.Name("n2-d").NodeName("n2").Device(builder.MakeDevice("g1")).Obj()
	if *s2.Spec.Devices[0].Attributes["model"].StringValue != "A" || len(s1.Spec.Devices) != 1 || *s1.Spec.NodeName != "n1" || *s2.Spec.NodeName != "n2" {
		t.Errorf("slices share state: %+v %+v", s1, s2)
	}
	cw := builder.MakeResourceClaim("c").Request("r", "g", 1)
	c1 := cw.Obj()
	c2 := cw.Selector("x").Obj()
	if len(c1.Spec.Devices.Requests[0].Exactly.Selectors) != 0 || len(c2.Spec.Devices.Requests[0].Exactly.Selectors) != 1 {
		t.Errorf("claims share state: %+v %+v", c1.Spec, c2.Spec)
	}
	pw := builder.MakePod().Name("p").Req(nil).ResourceClaim("a", "x")
	p1 := pw.Obj()
	p2 := pw.ResourceClaim("b", "y").Obj()
	if len(p1.Spec.ResourceClaims) != 1 || len(p1.Spec.Containers[0].Resources.Claims) != 1 || len(p2.Spec.Containers[0].Resources.Claims) != 2 {
		t.Errorf("pods share state: %+v %+v", p1.Spec, p2.Spec)
	}
}

// TestDRAJSON: built objects marshal in the resource.k8s.io/v1 shape and
// read back unchanged.
func TestDRAJSON(t *testing.T) {
	c := builder.MakeResourceClaim("c").FirstAvailable("g", builder.SubRequest("a", "x", 2)).MatchAttribute("a/b").Obj()
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"metadata":{"name":"c","namespace":"default","uid":"c"},"spec":{"devices":{"requests":[{"name":"g","firstAvailable":` +
		`[{"name":"a","deviceClassName":"x","allocationMode":"ExactCount","count":2}]}],"constraints":[{"matchAttribute":"a/b"}]}}}`
	if string(b) != want {
		t.Errorf("JSON\n%s\nwant\n%s", b, want)
	}
	var back api.ResourceClaim
	if err := json.Unmarshal(b, &back); err != nil || !cmp.Equal(&back, c, cmpQuantity) {
		t.Errorf("read back %+v, %v", back, err)
	}
}
