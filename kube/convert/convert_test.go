package convert_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/kube/convert"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/scheduling/cluster"
	"github.com/schedkit/schedkit/scheduling/kubeload"
)

// decodeTyped decodes a dump (YAML or JSON, objects and Lists) into typed
// objects as client-go would hold them: the scheme's types where it knows
// the kind, unstructured objects otherwise (custom resources).
func decodeTyped(t *testing.T, data []byte) []runtime.Object {
	t.Helper()
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var out []runtime.Object
	for {
		var u unstructured.Unstructured
		if err := dec.Decode(&u.Object); err != nil {
			if err.Error() == "EOF" {
				return out
			}
			t.Fatal(err)
		}
		if u.Object == nil {
			continue
		}
		if u.IsList() {
			list, err := u.ToList()
			if err != nil {
				t.Fatal(err)
			}
			for i := range list.Items {
				out = append(out, typed(t, &list.Items[i]))
			}
			continue
		}
		out = append(out, typed(t, &u))
	}
}

func typed(t *testing.T, u *unstructured.Unstructured) runtime.Object {
	t.Helper()
	obj, err := scheme.Scheme.New(u.GroupVersionKind())
	if err != nil {
		return u // a kind client-go does not know: kept unstructured
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, obj); err != nil {
		t.Fatalf("%s %s: %v", u.GetKind(), u.GetName(), err)
	}
	// Typed objects from informers carry no TypeMeta.
	tm := reflect.ValueOf(obj).Elem().FieldByName("TypeMeta")
	tm.Set(reflect.Zero(tm.Type()))
	return obj
}

// dumpOptions compare two Dumps on what the cluster is made of: the
// report's sources and ignored-field counts differ by construction (a
// typed object drops fields its Go type lacks and prints empty ones).
var dumpOptions = []cmp.Option{
	cmp.Exporter(func(reflect.Type) bool { return true }),
	cmpopts.IgnoreFields(kubeload.Dump{}, "sources"),
	cmpopts.IgnoreFields(kubeload.Report{}, "Documents", "Ignored"),
	cmpopts.IgnoreFields(kubeload.ObjectNote{}, "Source"),
	cmpopts.IgnoreFields(kubeload.PodFeatures{}, "Source"),
	cmpopts.EquateEmpty(),
	// Fields kept as raw JSON (volume sources schedkit only passes on)
	// compare by value: key order is the printer's, and a Go type prints
	// an unset pointer as null and leaves out a false omitempty field.
	cmp.FilterValues(func(a, b json.RawMessage) bool { return len(a) > 0 && len(b) > 0 }, cmp.Transformer("json", func(r json.RawMessage) any {
		var v any
		if err := json.Unmarshal(r, &v); err != nil {
			return string(r)
		}
		return dropUnset(v)
	})),
}

// clusterView is what a cluster.Cluster holds, for comparison.
type clusterView struct {
	Pods    []cluster.PodRecord
	Storage any
	Nodes   []any
}

func viewOf(t *testing.T, d *kubeload.Dump) clusterView {
	t.Helper()
	c, err := d.Cluster()
	if err != nil {
		t.Fatal(err)
	}
	v := clusterView{Pods: c.Pods(), Storage: c.Storage()}
	for _, n := range d.Nodes {
		ni, ok := c.NodeInfo(n.Name)
		if !ok {
			t.Fatalf("node %s missing", n.Name)
		}
		v.Nodes = append(v.Nodes, ni.Node(), ni.Requested, ni.NonZeroRequested, len(ni.Pods))
	}
	return v
}

// A cluster built from typed objects equals the one kubeload builds from
// their dump, on kubeload's own real-shaped test dumps.
func TestTypedEqualsDump(t *testing.T) {
	files, _ := filepath.Glob("../../scheduling/kubeload/testdata/*.yaml")
	files = append(files, "testdata/edges.yaml")
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			opts := kubeload.Options{SchedulerNames: []string{"default-scheduler", "second"}}
			want, err := kubeload.Load(opts, f)
			if err != nil {
				t.Fatal(err)
			}
			if filepath.Base(f) == "edges.yaml" {
				// The hand-made dump reaches every rule it is meant to (its pod
				// with a resource claim is modelled: no unmodelled features).
				r := want.Report
				if len(r.Skipped) != 3 || len(r.Notes) < 5 || len(r.Features) != 0 || len(r.Unknown) != 1 {
					t.Fatalf("edges.yaml: skipped %v, notes %v, features %v, unknown %v", r.Skipped, r.Notes, r.Features, r.Unknown)
				}
			}
			got, err := convert.Load(opts, decodeTyped(t, data)...)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got, dumpOptions...); diff != "" {
				t.Errorf("dump (-from dump +from typed):\n%s", diff)
			}
			if diff := cmp.Diff(viewOf(t, want), viewOf(t, got), dumpOptions...); diff != "" {
				t.Errorf("cluster (-from dump +from typed):\n%s", diff)
			}
		})
	}
}

// dropUnset removes null and false members of JSON objects, recursively.
func dropUnset(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if e == nil || e == false {
				delete(x, k)
				continue
			}
			x[k] = dropUnset(e)
		}
	case []any:
		for i, e := range x {
			x[i] = dropUnset(e)
		}
	}
	return v
}

// TestNodeAllocatableDefaults: a typed Node with capacity and no
// allocatable converts with its capacity as allocatable, as the API
// server's defaulting (SetDefaults_NodeStatus) gives it and as kubeload
// reads its manifest; an explicitly empty allocatable stays empty, as the
// defaulting keeps it. Both are noted in the Report.
func TestNodeAllocatableDefaults(t *testing.T) {
	capacity := corev1.ResourceList{corev1.ResourceCPU: apiresource.MustParse("64"), corev1.ResourcePods: apiresource.MustParse("110")}
	for _, tc := range []struct {
		name        string
		allocatable corev1.ResourceList
		want        resource.List
	}{
		{"missing", nil, resource.List{"cpu": resource.MustParse("64"), "pods": resource.MustParse("110")}},
		{"empty", corev1.ResourceList{}, resource.List{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n"}, Status: corev1.NodeStatus{Capacity: capacity, Allocatable: tc.allocatable}}
			o, err := convert.Object(kubeload.Options{}, node)
			if err != nil {
				t.Fatal(err)
			}
			got := o.Value.(*api.Node).Status.Allocatable
			if got == nil || !cmp.Equal(got, tc.want, cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 })) {
				t.Errorf("allocatable %v (nil %v), want %v", got, got == nil, tc.want)
			}
			if len(o.Report.Notes) != 1 || o.Report.Notes[0].Object != "n" {
				t.Errorf("notes %+v, want one on the node", o.Report.Notes)
			}
			d, err := convert.Load(kubeload.Options{}, node)
			if err != nil {
				t.Fatal(err)
			}
			if !cmp.Equal(d.Nodes[0].Status.Allocatable, got, cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 })) {
				t.Errorf("Load: allocatable %v, Object: %v", d.Nodes[0].Status.Allocatable, got)
			}
		})
	}
}
