package nodename

import (
	"context"
	"slices"
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/fastpath"
	"github.com/schedkit/schedkit/framework/frameworktest"
	"github.com/schedkit/schedkit/internal/st"
)

// Cases of kube-scheduler v1.36 nodename/node_name_test.go.
func TestNodeNameFilter(t *testing.T) {
	reject := fw.NewStatus(fw.UnschedulableAndUnresolvable, Reason)
	tests := []struct {
		name     string
		podNode  string
		nodeName string
		want     *fw.Status
	}{
		{"no host specified", "", "foo", nil},
		{"host matches", "foo", "foo", nil},
		{"host doesn't match", "bar", "foo", reject},
	}
	pl, _ := New(nil, nil)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ni, _ := fw.NewNodeInfo(st.MakeNode().Name(tc.nodeName).Obj())
			got := pl.(fw.FilterPlugin).Filter(context.Background(), nil, fw.MustPodInfo(st.MakePod().Node(tc.podNode).Obj()), ni)
			if !got.Equal(tc.want) {
				t.Errorf("Filter = %v, want %v", got, tc.want)
			}
		})
	}
}

func BenchmarkNodeNameFilter(b *testing.B) {
	pl, _ := New(nil, nil)
	st.BenchFilter(b, pl, fw.MustPodInfo(st.MakePod().Name("bench").Node("node-00042").Obj()))
}

// TestConformance holds NodeName's fast forms to its Filter on the
// harness's random clusters.
func TestConformance(t *testing.T) {
	frameworktest.Run(t, func() (fw.Plugin, error) { return New(nil, nil) })
}

// TestEventsToRegister pins NodeName's registered events: a node added
// (nodename/node_name.go).
func TestEventsToRegister(t *testing.T) {
	pl, _ := New(nil, nil)
	want := []fw.ClusterEvent{{Resource: fw.ResourceNode, ActionType: fw.Add}}
	if got := st.RegisteredEvents(t, pl); !slices.Equal(got, want) {
		t.Errorf("events %v, want %v", got, want)
	}
}

// TestPreFilterBound: from v1.37 a pod that names its node is bounded to
// that one node before PreFilter runs, and PreFilter's result names no
// more; a pod naming none is not bounded.
func TestPreFilterBound(t *testing.T) {
	pl, err := New(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, ok := pl.(fastpath.BoundedPreFilterPlugin)
	if !ok {
		t.Fatalf("%T: not a BoundedPreFilterPlugin", pl)
	}
	for _, tc := range []struct {
		node      string
		wantBound bool
	}{{"foo", true}, {"", false}} {
		pi := fw.MustPodInfo(st.MakePod().Node(tc.node).Obj())
		bound, ok := b.PreFilterBound(pi)
		if ok != tc.wantBound || ok && bound != 1 {
			t.Errorf("pod on %q: PreFilterBound = %d, %v; want 1, %v", tc.node, bound, ok, tc.wantBound)
		}
		res, st := b.PreFilter(context.Background(), fw.NewCycleState(), pi, nil)
		if !st.IsSuccess() || ok && (res.AllNodes() || len(res.NodeNames) > bound) || !ok && !res.AllNodes() {
			t.Errorf("pod on %q: PreFilter = %v, %v against the bound %d, %v", tc.node, res, st, bound, ok)
		}
	}
}
