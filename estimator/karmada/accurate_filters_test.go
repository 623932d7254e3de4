package karmada_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/schedkit/schedkit/estimator/karmada"
	"github.com/schedkit/schedkit/filter/nodeaffinity"
	"github.com/schedkit/schedkit/filter/nodeunschedulable"
	"github.com/schedkit/schedkit/filter/tainttoleration"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/resource"
)

// karmadaFilters are the kube-scheduler filters that reproduce Karmada's
// NodeClaim check: node selector and required affinity, NoSchedule and
// NoExecute taints, cordoned nodes.
func karmadaFilters(t testing.TB) []framework.FilterPlugin {
	t.Helper()
	na, err := nodeaffinity.New(nodeaffinity.NodeAffinityArgs{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tt, _ := tainttoleration.New(nil, nil)
	nu, _ := nodeunschedulable.New(nil, nil)
	return []framework.FilterPlugin{na.(framework.FilterPlugin), tt.(framework.FilterPlugin), nu.(framework.FilterPlugin)}
}

// The cases of Karmada's pkg/estimator/server/server_test.go with the
// filter package's plugins as node filters (the internal test runs them
// with test-local filters).
func TestNodeResourceEstimatorWithFilterPlugins(t *testing.T) {
	mk := func(podCaps [3]string, edit func(i int, w *st.NodeWrapper)) *framework.Snapshot {
		nodes := make([]*api.Node, 3)
		for i := range nodes {
			w := st.MakeNode().Name("machine" + string(rune('1'+i))).Capacity(map[string]string{"cpu": "8", "memory": "16Gi", "pods": podCaps[i], "ephemeral-storage": "16Gi"})
			if edit != nil {
				edit(i, w)
			}
			nodes[i] = w.Obj()
		}
		pods := []*api.Pod{
			st.MakePod().Name("pod1").Node("machine1").Req(map[string]string{"cpu": "1", "memory": "3Gi"}).Obj(),
			st.MakePod().Name("pod2").Node("machine1").Req(map[string]string{"cpu": "3", "memory": "3Gi"}).Obj(),
			st.MakePod().Name("pod3").Node("machine1").Req(map[string]string{"cpu": "2", "memory": "4Gi", "ephemeral-storage": "2Gi"}).Obj(),
			st.MakePod().Name("pod4").Node("machine2").Req(map[string]string{"cpu": "4", "memory": "8Gi", "ephemeral-storage": "2Gi"}).Obj(),
			st.MakePod().Name("pod5").Node("machine2").Req(map[string]string{"cpu": "1", "memory": "3Gi", "ephemeral-storage": "2Gi"}).Obj(),
		}
		return framework.MustSnapshot(nodes, pods)
	}
	labels := func(i int, w *st.NodeWrapper) {
		switch i {
		case 0:
			w.Label("a", "1")
		case 1:
			w.Label("a", "3").Label("b", "2")
		}
	}
	req := func(nc *karmada.NodeClaim) *karmada.ReplicaRequirements {
		return &karmada.ReplicaRequirements{ResourceRequest: resource.MustParseList(map[string]string{"cpu": "1", "memory": "2Gi"}), NodeClaim: nc}
	}
	eleven := [3]string{"11", "11", "11"}
	tests := []struct {
		name string
		snap *framework.Snapshot
		req  *karmada.ReplicaRequirements
		want int32
	}{
		{"normal", mk(eleven, nil), req(nil), 12},
		{"pod resource strict", mk([3]string{"4", "3", "11"}, nil), req(nil), 10},
		{"node selector", mk(eleven, labels), req(&karmada.NodeClaim{NodeSelector: map[string]string{"a": "3"}}), 2},
		{"node affinity", mk(eleven, labels), req(&karmada.NodeClaim{HardNodeAffinity: &api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{{
			MatchExpressions: []api.NodeSelectorRequirement{{Key: "a", Operator: api.NodeSelectorOpGt, Values: []string{"0"}}},
		}}}}), 4},
		{"tolerations", mk(eleven, func(i int, w *st.NodeWrapper) {
			switch i {
			case 0:
				w.Taint("key1", "value1", api.TaintEffectNoSchedule)
			case 1:
				w.Taint("key2", "value2", api.TaintEffectNoSchedule)
			}
		}), req(&karmada.NodeClaim{Tolerations: []api.Toleration{{Key: "key1", Operator: api.TolerationOpEqual, Value: "value1"}}}), 10},
		{"cordoned node", mk(eleven, func(i int, w *st.NodeWrapper) {
			if i == 2 {
				w.Unschedulable()
			}
		}), req(nil), 4},
		// NodeAffinity's PreFilter narrows to the metadata.name nodes.
		{"metadata.name affinity", mk(eleven, nil), req(&karmada.NodeClaim{HardNodeAffinity: &api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{{
			MatchFields: []api.NodeSelectorRequirement{{Key: "metadata.name", Operator: api.NodeSelectorOpIn, Values: []string{"machine3"}}},
		}}}}), 8},
	}
	p, err := karmada.NewNodeResourceEstimator(karmadaFilters(t)...)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, s := p.Estimate(context.Background(), tt.snap, tt.req)
			if !s.IsSuccess() || got != tt.want {
				t.Errorf("Estimate = %d, %v; want %d", got, s, tt.want)
			}
		})
	}
}

// With the filter package's plugins too, the per-node path does not
// allocate: 500 nodes cost the allocations of 5.
func TestNodeResourceEstimatorFilterPluginsPerNodeAllocs(t *testing.T) {
	mk := func(n int) *framework.Snapshot {
		nodes := make([]*api.Node, n)
		for i := range nodes {
			nodes[i] = st.MakeNode().Name(fmt.Sprint("n", i)).Capacity(map[string]string{"cpu": "8", "memory": "16Gi", "pods": "110"}).
				Taint("k", "v", api.TaintEffectNoSchedule).Label("zone", "z").Obj()
		}
		return framework.MustSnapshot(nodes, nil)
	}
	p, _ := karmada.NewNodeResourceEstimator(karmadaFilters(t)...)
	req := &karmada.ReplicaRequirements{ResourceRequest: resource.MustParseList(map[string]string{"cpu": "1", "memory": "1Gi"}),
		NodeClaim: &karmada.NodeClaim{NodeSelector: map[string]string{"zone": "z"}, Tolerations: []api.Toleration{{Key: "k", Operator: api.TolerationOpExists}}}}
	small, large := mk(5), mk(500)
	ctx := context.Background()
	if n, _ := p.Estimate(ctx, large, req); n != 500*8 {
		t.Fatalf("got %d, want %d", n, 500*8)
	}
	a := testing.AllocsPerRun(20, func() { p.Estimate(ctx, small, req) })
	b := testing.AllocsPerRun(20, func() { p.Estimate(ctx, large, req) })
	// A per-node allocation would add ~500; allow a little slack because the
	// race detector makes sync.Pool drop items at random.
	if b > a+3 {
		t.Errorf("allocations grow with nodes: %v for 5 nodes, %v for 500", a, b)
	}
}
