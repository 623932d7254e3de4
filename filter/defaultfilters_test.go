package filter_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/filter/nodeaffinity"
	"github.com/schedkit/schedkit/filter/nodename"
	"github.com/schedkit/schedkit/filter/nodeports"
	"github.com/schedkit/schedkit/filter/noderesources"
	"github.com/schedkit/schedkit/filter/nodeunschedulable"
	"github.com/schedkit/schedkit/filter/tainttoleration"
	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/runtime"
	"github.com/schedkit/schedkit/internal/st"
)

// TestDefaultFiltersThroughRunner runs kube's default filter order
// (NodeUnschedulable, NodeName, TaintToleration, NodeAffinity, NodePorts,
// NodeResourcesFit) through the framework runner; each node fails exactly
// one plugin, so the FitError histogram lists each reason once, sorted as
// strings, as kube-scheduler v1.36 formats it.
func TestDefaultFiltersThroughRunner(t *testing.T) {
	reg := fw.NewRegistry()
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(reg.Register(config.NodeUnschedulableName, nodeunschedulable.New))
	must(reg.Register(config.NodeNameName, nodename.New))
	must(reg.Register(config.TaintTolerationName, tainttoleration.New))
	must(reg.Register(config.NodeAffinityName, nodeaffinity.New))
	must(reg.Register(config.NodePortsName, nodeports.New))
	must(reg.Register(config.NodeResourcesFitName, noderesources.NewFit))
	filters := []string{config.NodeUnschedulableName, config.NodeNameName, config.TaintTolerationName, config.NodeAffinityName, config.NodePortsName, config.NodeResourcesFitName}
	f, err := runtime.NewFramework(reg, fw.Profile{
		PreFilter: []string{config.NodeAffinityName, config.NodePortsName, config.NodeResourcesFitName},
		Filter:    filters,
	})
	must(err)
	capacity := map[string]string{"cpu": "4", "memory": "8Gi", "pods": "110"}
	nodes := []*api.Node{
		st.MakeNode().Name("tainted").Label("zone", "a").Capacity(capacity).Taint("gpu", "true", api.TaintEffectNoSchedule).Obj(),
		st.MakeNode().Name("small").Label("zone", "a").Capacity(map[string]string{"cpu": "1", "memory": "8Gi", "pods": "110"}).Obj(),
		st.MakeNode().Name("elsewhere").Label("zone", "b").Capacity(capacity).Obj(),
		st.MakeNode().Name("cordoned").Label("zone", "a").Capacity(capacity).Unschedulable().Obj(),
	}
	snap := fw.MustSnapshot(nodes, nil)
	pod := st.MakePod().Name("web").NodeSelector(map[string]string{"zone": "a"}).Req(map[string]string{"cpu": "2"}).Obj()
	_, err = f.Schedule(context.Background(), nil, snap, fw.MustPodInfo(pod), runtime.CycleOptions{Rand: rand.New(rand.NewPCG(1, 2))})
	var fe *runtime.FitError
	if !errors.As(err, &fe) {
		t.Fatalf("Schedule error = %v, want a FitError", err)
	}
	want := "0/4 nodes are available: 1 Insufficient cpu, 1 node(s) didn't match Pod's node affinity/selector, " +
		"1 node(s) had untolerated taint(s), 1 node(s) were unschedulable."
	if fe.Error() != want {
		t.Errorf("FitError:\n got %q\nwant %q", fe.Error(), want)
	}

	// A metadata.name term narrows the cycle to one node through the
	// PreFilterResult; the other nodes are excluded, not filtered.
	named := st.MakePod().Name("pinned").RequiredNodeAffinity(st.NameIn("elsewhere")).Req(map[string]string{"cpu": "2"}).Obj()
	res, err := f.Schedule(context.Background(), nil, snap, fw.MustPodInfo(named), runtime.CycleOptions{Rand: rand.New(rand.NewPCG(1, 2))})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.SelectedNode(); got != "elsewhere" {
		t.Errorf("selected %q, want elsewhere", got)
	}
	if res.EvaluatedNodes() != 1 {
		t.Errorf("evaluated %d nodes, want 1", res.EvaluatedNodes())
	}
}
