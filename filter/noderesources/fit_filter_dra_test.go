package noderesources

import (
	"context"
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
)

// nrfGPUClass is a DeviceClass named name that backs extended resource ext
// (none when ext is ""), selecting gpu.example.com's devices.
func nrfGPUClass(name, ext string) *api.DeviceClass {
	c := &api.DeviceClass{ObjectMeta: api.ObjectMeta{Name: name}}
	if ext != "" {
		c.Spec.ExtendedResourceName = &ext
	}
	c.Spec.Selectors = []api.DeviceSelector{{CEL: &api.CELDeviceSelector{Expression: `device.driver == "gpu.example.com"`}}}
	return c
}

// TestNodeResourcesFitDRABackedResource: a request of an extended resource
// a DeviceClass backs (explicitly through spec.extendedResourceName, or
// through the class's implicit name) is left to DynamicResources on a node
// that does not advertise the resource (allocatable 0 or absent); a node
// that advertises it is checked as without classes (kube's
// shouldDelegateResourceToDRA). Every filter path agrees.
func TestNodeResourcesFitDRABackedResource(t *testing.T) {
	const gpu = "example.com/gpu"
	implicit := "deviceclass.resource.kubernetes.io/gpu.example.com"
	for _, tc := range []struct {
		name    string
		classes []*api.DeviceClass
		req     map[string]string
		alloc   map[string]string
		used    map[string]string
		want    []string // reasons; nil: fits
		unres   bool
	}{
		{name: "no class", req: map[string]string{gpu: "1"}, alloc: map[string]string{"cpu": "4", "pods": "110"},
			want: []string{"Insufficient " + gpu}, unres: true},
		{name: "class backs it", classes: []*api.DeviceClass{nrfGPUClass("gpu.example.com", gpu)},
			req: map[string]string{gpu: "1"}, alloc: map[string]string{"cpu": "4", "pods": "110"}},
		{name: "class backs another name", classes: []*api.DeviceClass{nrfGPUClass("gpu.example.com", "example.com/other")},
			req: map[string]string{gpu: "1"}, alloc: map[string]string{"cpu": "4", "pods": "110"},
			want: []string{"Insufficient " + gpu}, unres: true},
		{name: "implicit name", classes: []*api.DeviceClass{nrfGPUClass("gpu.example.com", "")},
			req: map[string]string{implicit: "2"}, alloc: map[string]string{"cpu": "4", "pods": "110"}},
		{name: "implicit name of a missing class", classes: []*api.DeviceClass{nrfGPUClass("other", "")},
			req: map[string]string{implicit: "2"}, alloc: map[string]string{"cpu": "4", "pods": "110"},
			want: []string{"Insufficient " + implicit}, unres: true},
		{name: "allocatable 0 is not advertising", classes: []*api.DeviceClass{nrfGPUClass("gpu.example.com", gpu)},
			req: map[string]string{gpu: "1"}, alloc: map[string]string{"cpu": "4", "pods": "110", gpu: "0"}},
		{name: "device plugin first", classes: []*api.DeviceClass{nrfGPUClass("gpu.example.com", gpu)},
			req: map[string]string{gpu: "1"}, alloc: map[string]string{"cpu": "4", "pods": "110", gpu: "1"}, used: map[string]string{gpu: "1"},
			want: []string{"Insufficient " + gpu}},
		{name: "other shortfalls stay", classes: []*api.DeviceClass{nrfGPUClass("gpu.example.com", gpu)},
			req: map[string]string{gpu: "1", "cpu": "8", "example.com/fpga": "1"}, alloc: map[string]string{"cpu": "4", "pods": "110"},
			want: []string{"Insufficient cpu", "Insufficient example.com/fpga"}, unres: true},
		{name: "cpu short only", classes: []*api.DeviceClass{nrfGPUClass("gpu.example.com", gpu)},
			req: map[string]string{gpu: "1", "cpu": "3"}, alloc: map[string]string{"cpu": "4", "pods": "110"}, used: map[string]string{"cpu": "2"},
			want: []string{"Insufficient cpu"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			node := st.MakeNode().Name("n1").Capacity(tc.alloc).Obj()
			var pods []*api.Pod
			if tc.used != nil {
				pods = append(pods, st.MakePod().Name("used").Node("n1").Req(tc.used).Obj())
			}
			var objs []api.StorageObject
			for _, c := range tc.classes {
				objs = append(objs, c)
			}
			snap, err := fw.NewSnapshot([]*api.Node{node}, pods, fw.WithStorage(objs...))
			if err != nil {
				t.Fatal(err)
			}
			pl, err := NewFit(DefaultNodeResourcesFitArgs(), nil)
			if err != nil {
				t.Fatal(err)
			}
			f := pl.(*NodeResourcesFit)
			pi := fw.MustPodInfo(st.MakePod().Name("p").Req(tc.req).Obj())
			state := fw.NewCycleState()
			state.SetSnapshot(snap)
			ctx := context.Background()
			if _, s := f.PreFilter(ctx, state, pi, snap.Nodes()); !s.IsSuccess() {
				t.Fatalf("PreFilter: %v", s)
			}
			ni := snap.Nodes()[0]
			check := func(path string, s *fw.Status) {
				t.Helper()
				if tc.want == nil {
					if !s.IsSuccess() {
						t.Errorf("%s: %v, want success", path, s)
					}
					return
				}
				code := fw.Unschedulable
				if tc.unres {
					code = fw.UnschedulableAndUnresolvable
				}
				if s.Code() != code || !equalStrings(s.Reasons(), tc.want) {
					t.Errorf("%s: %v %q, want %v %q", path, s.Code(), s.Reasons(), code, tc.want)
				}
			}
			check("Filter", f.Filter(ctx, state, pi, ni))
			for _, idx := range [][]int32{nil, {0}} {
				rej := f.FilterRejects(ctx, state, pi, []*fw.NodeInfo{ni}, idx, nil)
				var s *fw.Status
				if len(rej) == 1 {
					s = rej[0].Status
				}
				check("FilterRejects", s)
			}
		})
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
