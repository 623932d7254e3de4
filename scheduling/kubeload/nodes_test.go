package kubeload

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/whatif"
)

// TestNodeAllocatableDefaults: a Node whose status has capacity and no
// allocatable gets allocatable equal to its capacity, with a note, as the
// API server's defaulting of NodeStatus gives it (kube
// pkg/apis/core/v1/defaults.go SetDefaults_NodeStatus: only when
// allocatable is nil, so an explicitly empty allocatable stays empty, with
// a note).
// Read, ReadObject and a round trip through WriteJSON agree.
func TestNodeAllocatableDefaults(t *testing.T) {
	list := func(kv ...string) resource.List {
		l := resource.List{}
		for i := 0; i < len(kv); i += 2 {
			l[resource.Name(kv[i])] = resource.MustParse(kv[i+1])
		}
		return l
	}
	for _, tc := range []struct {
		name, data  string
		allocatable resource.List // nil: none
		note        string        // the reason of the node's note, "" for none
	}{
		{"capacity only", `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n"},"status":{"capacity":{"cpu":"64","memory":"256Gi","pods":"110"}}}`,
			list("cpu", "64", "memory", "256Gi", "pods", "110"), reasonAllocatableFromCapacity},
		{"allocatable null", `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n"},"status":{"capacity":{"cpu":"64"},"allocatable":null}}`,
			list("cpu", "64"), reasonAllocatableFromCapacity},
		{"YAML, allocatable with no value", "apiVersion: v1\nkind: Node\nmetadata: {name: \"n\"}\nstatus:\n  capacity: {cpu: \"64\", nvidia.com/gpu: 4}\n  allocatable:\n",
			list("cpu", "64", "nvidia.com/gpu", "4"), reasonAllocatableFromCapacity},
		{"allocatable empty", `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n"},"status":{"capacity":{"cpu":"64"},"allocatable":{}}}`,
			resource.List{}, reasonEmptyAllocatable},
		{"both", `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n"},"status":{"capacity":{"cpu":"64"},"allocatable":{"cpu":"63"}}}`,
			list("cpu", "63"), ""},
		{"neither", `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n"}}`, nil, ""},
		{"capacity empty", `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n"},"status":{"capacity":{}}}`, resource.List{}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := load(t, Options{}, "n.json", tc.data)
			got := d.Nodes[0].Status.Allocatable
			check := func(what string, got resource.List) {
				t.Helper()
				if (got == nil) != (tc.allocatable == nil) || !cmp.Equal(got, tc.allocatable, cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 })) {
					t.Errorf("%s: allocatable %v (nil %v), want %v (nil %v)", what, got, got == nil, tc.allocatable, tc.allocatable == nil)
				}
			}
			check("Read", got)
			var notes []ObjectNote
			for _, n := range d.Report.Notes {
				if n.Kind == "Node" {
					notes = append(notes, n)
				}
			}
			if tc.note != "" {
				if len(notes) != 1 || notes[0].Object != "n" || notes[0].Reason != tc.note || !strings.Contains(notes[0].Detail, "status.capacity cpu=64") {
					t.Errorf("notes %+v, want one: %s", notes, tc.note)
				}
			} else if len(notes) != 0 {
				t.Errorf("notes %+v, want none", notes)
			}
			o, err := ReadObject(Options{}, []byte(tc.data), "n.json")
			if err != nil {
				t.Fatal(err)
			}
			check("ReadObject", o.Value.(*api.Node).Status.Allocatable)
			if (tc.note != "") != (len(o.Report.Notes) == 1) {
				t.Errorf("ReadObject notes %+v", o.Report.Notes)
			}
			var b bytes.Buffer
			if err := d.WriteJSON(&b); err != nil {
				t.Fatal(err)
			}
			again := load(t, Options{}, "again.json", b.String())
			check("printed and read back", again.Nodes[0].Status.Allocatable)
			// The printed dump has the defaulted allocatable: only an
			// empty one is remarked on again.
			if want := tc.note == reasonEmptyAllocatable; want != (len(again.Report.Notes) == 1) || len(again.Report.Notes) > 1 {
				t.Errorf("the printed dump has notes %+v, want one: %v", again.Report.Notes, want)
			}
		})
	}
}

// TestScaleUpTemplateCapacityOnly: a hand-written scale-up template with
// capacity and no allocatable is a node of that capacity, as the API server
// would store it: a pending pod asking 40 cpu needs one.
func TestScaleUpTemplateCapacityOnly(t *testing.T) {
	d := load(t, Options{}, "dump.json", `{"apiVersion":"v1","kind":"Node","metadata":{"name":"small"},"status":{"allocatable":{"cpu":"4","memory":"8Gi","pods":"110"}}}`+
		`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"big","namespace":"default"},"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"40"}}}]}}`)
	w := whatIfOf(t, d)
	tmpl := load(t, Options{}, "template.yaml", "apiVersion: v1\nkind: Node\nmetadata: {name: big}\nstatus:\n  capacity: {cpu: \"64\", memory: 256Gi, pods: \"110\"}\n")
	up, err := w.ScaleUp(t.Context(), tmpl.Nodes[0], whatif.ScaleUpOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !up.Feasible || up.Nodes != 1 || len(up.Unhelpable) != 0 {
		t.Errorf("scale-up: feasible %v with %d node(s), unhelpable %v; want 1 node", up.Feasible, up.Nodes, up.Unhelpable)
	}
}

// whatIfOf builds d's cluster and a WhatIf on it with the default profile.
func whatIfOf(t *testing.T, d *Dump) *whatif.WhatIf {
	t.Helper()
	c, err := d.Cluster()
	if err == nil {
		var w *whatif.WhatIf
		if w, err = whatif.New(c, scheduling.NewDefaultRegistry(), []framework.Profile{scheduling.DefaultProfile()}); err == nil {
			return w
		}
	}
	t.Fatal(err)
	return nil
}
