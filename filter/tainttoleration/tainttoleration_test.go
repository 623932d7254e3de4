package tainttoleration

import (
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"

	"github.com/schedkit/schedkit/framework/frameworktest"
	"github.com/schedkit/schedkit/internal/st"
)

// TestConformance holds TaintToleration's fast forms to its Filter, PreScore,
// Score and NormalizeScore on the harness's random clusters.
func TestConformance(t *testing.T) {
	frameworktest.Run(t, func() (fw.Plugin, error) { return New(nil, nil) })
}

// TestEventsToRegister pins TaintToleration's registered events: a node
// added or its taints updated, a pod's tolerations updated
// (tainttoleration/taint_toleration.go, SchedulerQueueingHints on).
func TestEventsToRegister(t *testing.T) {
	pl, _ := New(nil, nil)
	want := []fw.ClusterEvent{{Resource: fw.ResourceNode, ActionType: fw.Add | fw.UpdateNodeTaint}, {Resource: fw.ResourcePod, ActionType: fw.UpdatePodToleration}}
	if got := st.RegisteredEvents(t, pl); !slices.Equal(got, want) {
		t.Errorf("events %v, want %v", got, want)
	}
}

// TestConformanceManyTaintClasses holds the fast forms to Filter and
// Score on clusters of more taint classes than a mask holds: every node
// carries a PreferNoSchedule taint with a value of its own (as
// cluster-autoscaler's DeletionCandidateOfClusterAutoscaler does), some
// a NoSchedule or NoExecute taint of a few pools, some are cordoned; the
// incoming pod tolerates some of them.
func TestConformanceManyTaintClasses(t *testing.T) {
	frameworktest.RunCases(t, func(t *rapid.T) frameworktest.Case {
		effects := []api.TaintEffect{api.TaintEffectNoSchedule, api.TaintEffectNoExecute, api.TaintEffectPreferNoSchedule}
		n := rapid.IntRange(ttMaskClasses+1, 2*ttMaskClasses+8).Draw(t, "nodes")
		nodes := make([]*api.Node, n)
		for i := range nodes {
			b := builder.MakeNode().Name(fmt.Sprintf("n%d", i)).Capacity(map[string]string{"cpu": "4", "memory": "8Gi", "pods": "10"})
			if rapid.IntRange(0, 9).Draw(t, "candidate") > 0 {
				b = b.Taint("DeletionCandidateOfClusterAutoscaler", fmt.Sprint(1700000000+i), api.TaintEffectPreferNoSchedule)
			}
			for range rapid.IntRange(0, 2).Draw(t, "taints") {
				b = b.Taint(rapid.SampledFrom([]string{"dedicated", "gpu", "spot"}).Draw(t, "key"),
					rapid.SampledFrom([]string{"a", "b", ""}).Draw(t, "value"), rapid.SampledFrom(effects).Draw(t, "effect"))
			}
			if rapid.IntRange(0, 19).Draw(t, "cordon") == 0 {
				b = b.Unschedulable()
			}
			nodes[i] = b.Obj()
		}
		pod := builder.MakePod().Name("incoming").Namespace("default")
		for range rapid.IntRange(0, 3).Draw(t, "tolerations") {
			op := rapid.SampledFrom([]string{"Equal", "Exists"}).Draw(t, "op")
			tol := api.Toleration{Key: rapid.SampledFrom([]string{"dedicated", "gpu", "spot", "DeletionCandidateOfClusterAutoscaler", ""}).Draw(t, "tolKey"),
				Operator: api.TolerationOperator(op), Effect: rapid.SampledFrom(append(effects, "")).Draw(t, "tolEffect")}
			if op == "Equal" {
				tol.Value = rapid.SampledFrom([]string{"a", "b", "", "1700000003"}).Draw(t, "tolValue")
			}
			if tol.Key == "" {
				tol.Operator = api.TolerationOpExists
			}
			pod = pod.Toleration(tol)
		}
		return frameworktest.Case{Plugin: must(New(nil, nil)), Nodes: nodes, Incoming: pod.Obj()}
	})
}

func must(p fw.Plugin, err error) fw.Plugin {
	if err != nil {
		panic(err)
	}
	return p
}
