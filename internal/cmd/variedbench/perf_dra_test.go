package main

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
	"text/template"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"sigs.k8s.io/yaml"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
)

// renderTemplate renders a scheduler_perf template that uses Go template
// actions beyond {{.Index}} (the DRA templates: ranges, Mod, Int, JSON)
// with params and the object's index, and decodes it into v.
func renderTemplate(t *testing.T, path string, index int, params map[string]any, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	toInt := func(v any) int {
		switch x := v.(type) {
		case int:
			return x
		case float64:
			return int(x)
		}
		t.Fatalf("%s: Int of %v", path, v)
		return 0
	}
	funcs := template.FuncMap{
		"Int": toInt,
		"Mod": func(a, b any) int { return toInt(a) % toInt(b) },
		"JSON": func(v any) string {
			out, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			return string(out)
		},
	}
	tmpl, err := template.New(path).Funcs(funcs).Parse(string(b))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	data := map[string]any{"Index": index}
	for k, v := range params {
		data[k] = v
	}
	var out bytes.Buffer
	if err := tmpl.Execute(&out, data); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if err := yaml.Unmarshal(out.Bytes(), v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// draTemplateParams are a createAny op's templateParams with the
// workload's parameters put in ("$name|default" takes the default when
// the workload has no such parameter).
func draTemplateParams(t *testing.T, o perfConfigOp, wl perfConfigWorkload) map[string]any {
	t.Helper()
	out := map[string]any{}
	for k, v := range o.TemplateParams {
		s, ok := v.(string)
		if !ok || len(s) == 0 || s[0] != '$' {
			out[k] = v
			continue
		}
		name, def, _ := bytes.Cut([]byte(s[1:]), []byte("|"))
		if p, ok := wl.Params[string(name)]; ok {
			out[k] = p
		} else if len(def) > 0 {
			var d any
			if err := json.Unmarshal(def, &d); err != nil {
				d = string(def)
			}
			out[k] = d
		}
	}
	return out
}

// checkDRAObjects checks the translation of a DRA case's createAny op o
// of workload wl (templates in dir) against d's objects: a slice, the
// class, the init claims (as many as the op creates) and the claim
// template, which every measured pod's claim copies.
func checkDRAObjects(t *testing.T, dir string, o perfConfigOp, wl perfConfigWorkload, d *perfDRA, kind string) {
	t.Helper()
	quantities := cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 })
	path := dir + "/" + o.TemplatePath
	params := draTemplateParams(t, o, wl)
	objs := d.objects([]*api.Node{perfDRANode("", 0), perfDRANode("", 1), perfDRANode("", 2), perfDRANode("", 3),
		perfDRANode("", 4), perfDRANode("", 5), perfDRANode("", 6), perfDRANode("", 7)}, defaultSeed)
	switch kind {
	case "ResourceSlice":
		var want api.ResourceSlice
		renderTemplate(t, path, 7, params, &want)
		if diff := cmp.Diff(&want, objs.ResourceSlices[7], quantities, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("slice against %s (-source +translation):\n%s", o.TemplatePath, diff)
		}
	case "DeviceClass":
		var want api.DeviceClass
		renderTemplate(t, path, 0, params, &want)
		if diff := cmp.Diff(&want, objs.DeviceClasses[0], cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("class against %s (-source +translation):\n%s", o.TemplatePath, diff)
		}
	case "ResourceClaim":
		var want api.ResourceClaim
		renderTemplate(t, path, 7, params, &want)
		want.Spec.Devices.SetDefaults()
		got := objs.ResourceClaims[7]
		if diff := cmp.Diff(want.Spec, got.Spec, cmpopts.EquateEmpty()); diff != "" || want.Name != got.Name || o.Namespace != got.Namespace {
			t.Errorf("init claim %s/%s against %s in %s (-source +translation):\n%s", got.Namespace, got.Name, o.TemplatePath, o.Namespace, diff)
		}
		if n := wl.opCount(t, o); n != d.initClaims {
			t.Errorf("%d init claims, the source's %d", d.initClaims, n)
		}
	case "ResourceClaimTemplate":
		var want api.ResourceClaimTemplate
		renderTemplate(t, path, 0, params, &want)
		want.Spec.Spec.Devices.SetDefaults()
		got := d.claim(podWithClaim("p", "test", 0))
		if diff := cmp.Diff(want.Spec.Spec, got.Spec, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("a measured pod's claim against %s (-source +translation):\n%s", o.TemplatePath, diff)
		}
	default:
		t.Errorf("createAny of a %s: not translated", kind)
	}
}

// TestPerfDRAAllocations: the DRA case's init claims are allocated as
// allocResourceClaims allocates them: each a device of its own, on the
// node its slice is local to, the devices of a node taken from the
// first, and no node over its devices.
func TestPerfDRAAllocations(t *testing.T) {
	d := &perfDRA{devices: 3, initClaims: 10}
	var nodes []*api.Node
	for i := range 4 {
		nodes = append(nodes, perfDRANode("", i))
	}
	objs := d.objects(nodes, defaultSeed)
	if len(objs.ResourceClaims) != 10 || len(objs.ResourceSlices) != 4 {
		t.Fatalf("%d claims on %d slices, want 10 on 4", len(objs.ResourceClaims), len(objs.ResourceSlices))
	}
	perNode := map[string][]string{}
	seen := map[api.DeviceID]bool{}
	for _, c := range objs.ResourceClaims {
		a := c.Status.Allocation
		if a == nil || len(a.Devices.Results) != 1 {
			t.Fatalf("claim %s: allocation %+v", c.Name, a)
		}
		r := a.Devices.Results[0]
		id := api.DeviceID{Driver: r.Driver, Pool: r.Pool, Device: r.Device}
		if seen[id] {
			t.Fatalf("device %v allocated twice", id)
		}
		seen[id] = true
		node := a.NodeSelector.NodeSelectorTerms[0].MatchFields[0].Values[0]
		var slice *api.ResourceSlice
		for _, s := range objs.ResourceSlices {
			if s.Spec.Pool.Name == r.Pool {
				slice = s
			}
		}
		if slice == nil || *slice.Spec.NodeName != node {
			t.Fatalf("claim %s: device of pool %s for node %s", c.Name, r.Pool, node)
		}
		perNode[node] = append(perNode[node], r.Device)
	}
	for node, devs := range perNode {
		for k, dev := range devs {
			if want := "basic-device-" + string(rune('0'+k)); dev != want {
				t.Errorf("node %s: devices %v, want the first %d", node, devs, len(devs))
				break
			}
		}
		if len(devs) > d.devices {
			t.Errorf("node %s: %d devices allocated of %d", node, len(devs), d.devices)
		}
	}
}
