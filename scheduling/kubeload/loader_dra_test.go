package kubeload

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/schedkit/schedkit/framework/api"
)

// TestDRAShaped reads DRA objects as kubectl prints them
// (testdata/dra-shaped.yaml): every object kept, in the order read, with
// the API server's defaults; the slices, claims, templates and pods kube
// sets apart remarked on; v1beta1 objects counted as a kind not read.
func TestDRAShaped(t *testing.T) {
	d, err := Load(Options{}, "testdata/dra-shaped.yaml")
	if err != nil {
		t.Fatal(err)
	}
	names := func(n int, name func(int) string) []string {
		var out []string
		for i := range n {
			out = append(out, name(i))
		}
		return out
	}
	x := &d.DRA
	got := [][]string{
		names(len(x.DeviceClasses), func(i int) string { return x.DeviceClasses[i].Name }),
		names(len(x.ResourceSlices), func(i int) string { return x.ResourceSlices[i].Name }),
		names(len(x.ResourceClaims), func(i int) string { return x.ResourceClaims[i].Namespace + "/" + x.ResourceClaims[i].Name }),
		names(len(x.ResourceClaimTemplates), func(i int) string {
			return x.ResourceClaimTemplates[i].Namespace + "/" + x.ResourceClaimTemplates[i].Name
		}),
	}
	want := [][]string{
		{"gpu-a100", "gpu-any"},
		{"gpu-a-gpu.nvidia.example.com-7xk2p", "gpu-b-gpu.nvidia.example.com-old", "gpu-b-gpu.nvidia.example.com-0",
			"gpu-b-gpu.nvidia.example.com-1", "gpu-gone-gpu.nvidia.example.com-q9z4d", "fabric-nics"},
		{"ml/train-gpu", "ml/infer-0-gpu-abcde", "ml/orphan", "ml/old-allocated"},
		{"ml/single-gpu", "ml/h100-pair"},
	}
	if !cmp.Equal(got, want) {
		t.Fatalf("DRA objects %v, want %v", got, want)
	}

	// The fields as the API server wrote them.
	s := x.ResourceSlices[0]
	dev := s.Spec.Devices[1]
	if *s.Spec.NodeName != "gpu-a" || s.Spec.Pool != (api.ResourcePool{Name: "gpu-a", Generation: 1, ResourceSliceCount: 1}) ||
		*dev.Attributes["model"].StringValue != "A100" || *dev.Attributes["index"].IntValue != 1 ||
		*dev.Attributes["driverVersion"].VersionValue != "570.86.15" ||
		*dev.Attributes["resource.kubernetes.io/pcieRoot"].StringValue != "pci0000:40" ||
		dev.Capacity["memory"].Value.Value() != 80<<30 {
		t.Errorf("slice %+v", s)
	}
	if c := x.DeviceClasses[0]; !strings.Contains(c.Spec.Selectors[0].CEL.Expression, `model == "A100"`) ||
		c.Spec.Config[0].Opaque.Driver != "gpu.nvidia.example.com" || !bytes.Contains(c.Spec.Config[0].Opaque.Parameters, []byte("TimeSlicing")) {
		t.Errorf("class %+v", c)
	}
	train := x.ResourceClaims[0]
	if r := train.Spec.Devices.Requests[0].Exactly; r.DeviceClassName != "gpu-a100" || r.Count != 1 ||
		*train.Spec.Devices.Constraints[0].MatchAttribute != "resource.kubernetes.io/pcieRoot" ||
		!cmp.Equal(train.Status.Allocation.Devices.Results[0], api.DeviceRequestAllocationResult{Request: "gpus", Driver: "gpu.nvidia.example.com", Pool: "gpu-a", Device: "gpu-0"}) ||
		train.Status.Allocation.NodeSelector.NodeSelectorTerms[0].MatchFields[0].Values[0] != "gpu-a" ||
		train.Status.ReservedFor[0].Name != "train" {
		t.Errorf("allocated claim %+v", train)
	}
	// The API server's defaults: ExactCount, and one device for it.
	fa := x.ResourceClaims[1].Spec.Devices.Requests[0].FirstAvailable
	if fa[0].AllocationMode != api.DeviceAllocationModeExactCount || fa[0].Count != 2 ||
		fa[1].AllocationMode != api.DeviceAllocationModeExactCount || fa[1].Count != 1 {
		t.Errorf("firstAvailable %+v", fa)
	}
	if e := x.ResourceClaims[3].Spec.Devices.Requests[0].Exactly; e.AllocationMode != api.DeviceAllocationModeAll || e.Count != 0 || !*e.AdminAccess {
		t.Errorf("All request %+v", e)
	}
	if tm := x.ResourceClaimTemplates[0]; tm.Spec.ObjectMeta.Labels["app"] != "infer" || tm.Spec.Spec.Devices.Requests[0].Exactly.Count != 1 {
		t.Errorf("template %+v", tm)
	}
	// A DeviceTaintRule, and a device's status with its conditions (the
	// conditions' observedGeneration is not modelled).
	if len(x.DeviceTaintRules) != 1 {
		t.Fatalf("taint rules %v, want gpu-b-maintenance", x.DeviceTaintRules)
	}
	rule := x.DeviceTaintRules[0]
	if sel := rule.Spec.DeviceSelector; rule.Name != "gpu-b-maintenance" || *sel.Driver != "gpu.nvidia.example.com" || *sel.Pool != "gpu-b" || sel.Device != nil ||
		rule.Spec.Taint.Key != "example.com/maintenance" || rule.Spec.Taint.Value != "planned" || rule.Spec.Taint.Effect != api.DeviceTaintEffectNoSchedule ||
		rule.Spec.Taint.TimeAdded.Hour() != 9 || rule.Status.Conditions[0].Type != "EvictionInProgress" {
		t.Errorf("taint rule %+v", rule)
	}
	if st := x.ResourceClaims[3].Status.Devices; len(st) != 1 || st[0].Device != "nic-0" || st[0].Conditions[0].Type != "Ready" ||
		st[0].Conditions[0].Status != api.ConditionTrue || !bytes.Contains(st[0].NetworkData, []byte("eth1")) {
		t.Errorf("device status %+v", st)
	}
	if n := ignored(d, "ResourceClaim", "status.devices[].conditions[].observedGeneration"); n != 1 {
		t.Errorf("ResourceClaim status.devices[].conditions[].observedGeneration ignored %d times, want 1", n)
	}

	noted := notesOf(d.Report.Notes)
	delete(noted, "Namespace ml") // inferred: the dump has no Namespace objects
	for obj, want := range map[string]struct{ reason, detail string }{
		"ResourceSlice gpu-b-gpu.nvidia.example.com-old":      {reasonStaleSlice, "pool gpu.nvidia.example.com/gpu-b generation 1, newest 2"},
		"ResourceSlice gpu-b-gpu.nvidia.example.com-1":        {reasonDuplicateDevice, "pool gpu.nvidia.example.com/gpu-b: device gpu-0, also in slice gpu-b-gpu.nvidia.example.com-0"},
		"ResourceSlice gpu-gone-gpu.nvidia.example.com-q9z4d": {reasonSliceNoNode, "spec.nodeName gpu-gone"},
		"ResourceClaim ml/orphan":                             {reasonMissingClass, "request gpu/h100: deviceClassName gpu-h100"},
		"ResourceClaimTemplate ml/h100-pair":                  {reasonMissingClassTmpl, "request gpus: deviceClassName gpu-h100"},
		"Pod ml/infer-1":                                      {reasonMissingDRAClaim, "resourceClaim infer-1-gpu-fghij"},
		"Pod ml/infer-2":                                      {reasonClaimNotMade, "spec.resourceClaims gpu (template single-gpu)"},
		"Pod ml/lost-claim":                                   {reasonMissingDRAClaim, "resourceClaim shared-gpus"},
	} {
		if n := noted[obj]; n.Reason != want.reason || n.Detail != want.detail {
			t.Errorf("%s noted %q (%s), want %q (%s)", obj, n.Reason, n.Detail, want.reason, want.detail)
		}
	}
	if len(noted) != 8 || len(d.Report.Skipped) != 0 {
		t.Errorf("notes %v, skipped %v", d.Report.Notes, d.Report.Skipped)
	}
	if !slices.Contains(d.Report.Unknown, KindCount{APIVersion: "resource.k8s.io/v1beta1", Kind: "ResourceSlice", Count: 1}) {
		t.Errorf("unknown kinds %v, want the v1beta1 slice", d.Report.Unknown)
	}
	// Resource claims are modelled: no pod is reported as using a
	// feature schedkit does not model.
	if len(d.Report.Features) != 0 {
		t.Errorf("pods reported using unmodelled features %v", d.Report.Features)
	}
	if n := ignored(d, "ResourceClaim", "metadata.finalizers"); n != 1 {
		t.Errorf("ResourceClaim metadata.finalizers ignored %d times, want 1", n)
	}
	if _, err := d.Cluster(); err != nil {
		t.Errorf("cluster: %v", err)
	}
}

// draDoc wraps a DRA object's fields (apiVersion resource.k8s.io/v1).
func draDoc(kind, rest string) string {
	return `{"apiVersion":"resource.k8s.io/v1","kind":"` + kind + `",` + rest + `}`
}

// TestDRABadInput: objects the API server would refuse are errors naming
// the object and the field; none panics.
func TestDRABadInput(t *testing.T) {
	slice := func(spec string) string {
		return draDoc("ResourceSlice", `"metadata":{"name":"s"},"spec":{`+spec+`}`)
	}
	pool := `"driver":"d","nodeName":"n","pool":{"name":"p","generation":1,"resourceSliceCount":1}`
	claim := func(devices string) string {
		return draDoc("ResourceClaim", `"metadata":{"name":"c","namespace":"ml"},"spec":{"devices":{`+devices+`}}`)
	}
	rule := func(spec string) string {
		return draDoc("DeviceTaintRule", `"metadata":{"name":"r"},"spec":{`+spec+`}`)
	}
	for _, tc := range []struct{ name, data, want string }{
		{"slice without name", draDoc("ResourceSlice", `"metadata":{},"spec":{`+pool+`}`), "metadata.name: empty"},
		{"slice without driver", slice(`"pool":{"name":"p","resourceSliceCount":1}`), "spec.driver: empty"},
		{"slice without pool", slice(`"driver":"d","pool":{"resourceSliceCount":1}`), "spec.pool.name: empty"},
		{"slice count zero", slice(`"driver":"d","pool":{"name":"p"}`), "spec.pool.resourceSliceCount 0: must be at least 1"},
		{"negative generation", slice(`"driver":"d","pool":{"name":"p","generation":-1,"resourceSliceCount":1}`), "spec.pool.generation -1"},
		{"device without name", slice(pool + `,"devices":[{"name":"a"},{}]`), "spec.devices[1].name: empty"},
		{"bad capacity", slice(pool + `,"devices":[{"name":"a","capacity":{"memory":{"value":"lots"}}}]`), `spec.devices[0].capacity.memory.value: resource: quantity "lots"`},
		{"attribute of the wrong type", slice(pool + `,"devices":[{"name":"a","attributes":{"index":{"int":"one"}}}]`), "spec.devices[0].attributes.index.int"},
		{"duplicate slice", slice(pool) + "\n" + slice(pool), "duplicate ResourceSlice"},
		{"class without name", draDoc("DeviceClass", `"metadata":{},"spec":{}`), "metadata.name: empty"},
		{"class selector without cel", draDoc("DeviceClass", `"metadata":{"name":"g"},"spec":{"selectors":[{}]}`), "spec.selectors[0].cel: missing"},
		{"request without name", claim(`"requests":[{"exactly":{"deviceClassName":"g"}}]`), "spec.devices.requests[0].name: empty"},
		{"request of neither kind", claim(`"requests":[{"name":"r"}]`), "spec.devices.requests[0]: one of exactly and firstAvailable must be set"},
		{"request of both kinds", claim(`"requests":[{"name":"r","exactly":{"deviceClassName":"g"},"firstAvailable":[{"name":"a","deviceClassName":"g"}]}]`),
			"spec.devices.requests[0]: exactly and firstAvailable both set"},
		{"duplicate request", claim(`"requests":[{"name":"r","exactly":{"deviceClassName":"g"}},{"name":"r","exactly":{"deviceClassName":"g"}}]`),
			`spec.devices.requests[1].name "r": duplicate`},
		{"request without class", claim(`"requests":[{"name":"r","exactly":{}}]`), "spec.devices.requests[0].exactly.deviceClassName: empty"},
		{"bad allocation mode", claim(`"requests":[{"name":"r","exactly":{"deviceClassName":"g","allocationMode":"Some"}}]`), `allocationMode "Some": want "ExactCount" or "All"`},
		{"negative count", claim(`"requests":[{"name":"r","exactly":{"deviceClassName":"g","count":-2}}]`), "spec.devices.requests[0].exactly.count -2: must not be negative"},
		{"subrequest without name", claim(`"requests":[{"name":"r","firstAvailable":[{"deviceClassName":"g"}]}]`), "spec.devices.requests[0].firstAvailable[0].name: empty"},
		{"duplicate subrequest", claim(`"requests":[{"name":"r","firstAvailable":[{"name":"a","deviceClassName":"g"},{"name":"a","deviceClassName":"g"}]}]`),
			`firstAvailable[1].name "a": duplicate`},
		{"constraint on another request", claim(`"requests":[{"name":"r","exactly":{"deviceClassName":"g"}}],"constraints":[{"requests":["s"],"matchAttribute":"x.example.com/a"}]`),
			`spec.devices.constraints[0].requests: "s" is not a request of the claim`},
		{"config for another request", claim(`"requests":[{"name":"r","exactly":{"deviceClassName":"g"}}],"config":[{"requests":["s/a"],"opaque":{"driver":"d"}}]`),
			`spec.devices.config[0].requests: "s/a" is not a request of the claim`},
		{"template request without class", draDoc("ResourceClaimTemplate", `"metadata":{"name":"t"},"spec":{"spec":{"devices":{"requests":[{"name":"r","exactly":{}}]}}}`),
			"spec.spec.devices.requests[0].exactly.deviceClassName: empty"},
		{"duplicate claim", claim(`"requests":[]`) + "\n" + claim(`"requests":[]`), "duplicate ResourceClaim"},
		{"taint rule without key", rule(`"taint":{"effect":"NoSchedule"}`), "DeviceTaintRule r: spec.taint.key: empty"},
		{"taint rule without effect", rule(`"taint":{"key":"k"}`), "spec.taint.effect: empty"},
		{"taint rule of an unknown effect", rule(`"taint":{"key":"k","effect":"PreferNoSchedule"}`), `spec.taint.effect "PreferNoSchedule": want "NoExecute", "NoSchedule" or "None"`},
		{"taint rule selecting an empty pool", rule(`"deviceSelector":{"pool":""},"taint":{"key":"k","effect":"None"}`), "spec.deviceSelector.pool: empty"},
		{"duplicate taint rule", rule(`"taint":{"key":"k","effect":"None"}`) + "\n" + rule(`"taint":{"key":"k","effect":"None"}`), "duplicate DeviceTaintRule"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := NewLoader(Options{}).ReadBytes([]byte(tc.data), "dra.json")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// TestDRANotes: the cross-object rules remark on what kube's allocator
// and DynamicResources set apart, and keep every object.
func TestDRANotes(t *testing.T) {
	node := `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1"},"status":{"allocatable":{"cpu":"4"}}}`
	slice := func(name, node, pool string, gen int, devices ...string) string {
		var ds []string
		for _, d := range devices {
			ds = append(ds, `{"name":"`+d+`"}`)
		}
		return draDoc("ResourceSlice", `"metadata":{"name":"`+name+`"},"spec":{"driver":"d","nodeName":"`+node+`","pool":{"name":"`+pool+
			`","generation":`+string(rune('0'+gen))+`,"resourceSliceCount":2},"devices":[`+strings.Join(ds, ",")+`]}`)
	}
	class := draDoc("DeviceClass", `"metadata":{"name":"g"},"spec":{}`)
	for _, tc := range []struct {
		name  string
		objs  []string
		notes map[string]string // kind object -> reason
	}{
		{"clean", []string{node, class, slice("a", "n1", "p", 1, "x"), slice("b", "n1", "p", 1, "y")}, map[string]string{}},
		{"device repeated in one slice", []string{node, slice("a", "n1", "p", 1, "x", "x")},
			map[string]string{"ResourceSlice a": reasonDuplicateDevice}},
		{"device repeated across slices", []string{node, slice("a", "n1", "p", 1, "x"), slice("b", "n1", "p", 1, "x")},
			map[string]string{"ResourceSlice b": reasonDuplicateDevice}},
		{"device repeated across generations", []string{node, slice("a", "n1", "p", 1, "x"), slice("b", "n1", "p", 2, "x")},
			map[string]string{"ResourceSlice a": reasonStaleSlice}},
		{"same device name in two pools", []string{node, slice("a", "n1", "p", 1, "x"), slice("b", "n1", "q", 1, "x")}, map[string]string{}},
		{"node not in the dump", []string{node, slice("a", "n9", "p", 1, "x")},
			map[string]string{"ResourceSlice a": reasonSliceNoNode}},
		{"claim naming a missing class", []string{class, draDoc("ResourceClaim", `"metadata":{"name":"c"},"spec":{"devices":{"requests":[`+
			`{"name":"r","exactly":{"deviceClassName":"g"}},{"name":"s","exactly":{"deviceClassName":"h"}}]}}`)},
			map[string]string{"ResourceClaim default/c": reasonMissingClass}},
		{"allocated claim naming a missing class", []string{draDoc("ResourceClaim", `"metadata":{"name":"c"},"spec":{"devices":{"requests":[`+
			`{"name":"r","exactly":{"deviceClassName":"h"}}]}},"status":{"allocation":{"devices":{"results":[{"request":"r","driver":"d","pool":"p","device":"x"}]}}}`)},
			map[string]string{}},
		{"template naming a missing class", []string{draDoc("ResourceClaimTemplate", `"metadata":{"name":"t"},"spec":{"spec":{"devices":{"requests":[`+
			`{"name":"r","exactly":{"deviceClassName":"h"}}]}}}`)},
			map[string]string{"ResourceClaimTemplate default/t": reasonMissingClassTmpl}},
		{"pod naming a missing claim", []string{podJSON("p", `,"resourceClaims":[{"name":"g","resourceClaimName":"c"}]`)},
			map[string]string{"Pod default/p": reasonMissingDRAClaim}},
		{"pod whose template claim is not made", []string{podJSON("p", `,"resourceClaims":[{"name":"g","resourceClaimTemplateName":"t"}]`)},
			map[string]string{"Pod default/p": reasonClaimNotMade}},
		{"pod whose template needed no claim", []string{`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"default"},` +
			`"spec":{"resourceClaims":[{"name":"g","resourceClaimTemplateName":"t"}]},"status":{"resourceClaimStatuses":[{"name":"g"}]}}`},
			map[string]string{}},
		{"pod with its claim", []string{draDoc("ResourceClaim", `"metadata":{"name":"c"},"spec":{"devices":{}}`),
			podJSON("p", `,"resourceClaims":[{"name":"g","resourceClaimName":"c"}]`)}, map[string]string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := load(t, Options{}, "dra.json", strings.Join(tc.objs, "\n"))
			got := map[string]string{}
			for k, n := range notesOf(d.Report.Notes) {
				if n.Kind != "Namespace" { // inferred: no Namespace objects
					got[k] = n.Reason
				}
			}
			if !cmp.Equal(got, tc.notes) {
				t.Errorf("notes %v, want %v", d.Report.Notes, tc.notes)
			}
			kept := len(d.DRA.ResourceSlices) + len(d.DRA.DeviceClasses) + len(d.DRA.ResourceClaims) + len(d.DRA.ResourceClaimTemplates)
			if want := strings.Count(strings.Join(tc.objs, ""), "resource.k8s.io/v1"); kept != want || len(d.Report.Skipped) != 0 {
				t.Errorf("kept %d DRA objects, want all %d; skipped %v", kept, want, d.Report.Skipped)
			}
		})
	}
}

// TestDRAObjects: ReadObject returns each DRA kind as the Dump holds it,
// and a dump's DRA objects written out and read back are the same.
func TestDRAObjects(t *testing.T) {
	for kind, want := range map[string]string{
		"ResourceSlice":         "*api.ResourceSlice",
		"DeviceClass":           "*api.DeviceClass",
		"ResourceClaim":         "*api.ResourceClaim",
		"ResourceClaimTemplate": "*api.ResourceClaimTemplate",
		"DeviceTaintRule":       "*api.DeviceTaintRule",
	} {
		spec := `"spec":{}`
		switch kind {
		case "ResourceSlice":
			spec = `"spec":{"driver":"d","allNodes":true,"pool":{"name":"p","resourceSliceCount":1}}`
		case "DeviceTaintRule":
			spec = `"spec":{"taint":{"key":"k","effect":"NoExecute"}}`
		}
		obj, err := ReadObject(Options{}, []byte(draDoc(kind, `"metadata":{"name":"x"},`+spec)), "x.json")
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if got := fmt.Sprintf("%T", obj.Value); obj.Kind != kind || got != want {
			t.Errorf("%s: ReadObject gave %s %s", kind, obj.Kind, got)
		}
	}
	d, err := Load(Options{}, "testdata/dra-shaped.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := d.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	back := load(t, Options{}, "written.json", b.String())
	if diff := cmp.Diff(d.DRA, back.DRA); diff != "" {
		t.Errorf("DRA objects written and read back (-read +written):\n%s", diff)
	}
}
