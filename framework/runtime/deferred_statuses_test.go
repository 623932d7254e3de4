package runtime_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/framework/runtime"
	"github.com/schedkit/schedkit/scheduling"
)

// TestDeferredStatusesOfNarrowedCandidates: a pod that NodeAffinity's
// PreFilter narrows to three nodes, each short of something else (cpu,
// memory, a pod slot), fits none; with RejectionsOnFailure,
// NodeResourcesFit leaves its statuses for later and the runner asks for
// them by each node's own snapshot index, so the verdicts, NodeToStatus
// and Diagnosis are those of a cycle that keeps every rejection. Asked
// by the candidates' positions instead, a node would read another node's
// row (n0 … n2).
func TestDeferredStatusesOfNarrowedCandidates(t *testing.T) {
	node := func(name, cpu, mem, pods string) *api.Node {
		return builder.MakeNode().Name(name).Allocatable(map[string]string{"cpu": cpu, "memory": mem, "pods": pods}).Obj()
	}
	snap := framework.MustSnapshot([]*api.Node{
		node("n0", "8", "8Gi", "110"),
		node("n1", "1", "8Gi", "110"),
		node("n2", "1", "1Gi", "110"),
		node("n3", "8", "1Gi", "110"),
		node("n4", "8", "8Gi", "0"),
	}, nil)
	named := func(name string) api.NodeSelectorTerm {
		return api.NodeSelectorTerm{MatchFields: []api.NodeSelectorRequirement{{Key: "metadata.name", Operator: api.NodeSelectorOpIn, Values: []string{name}}}}
	}
	pod := framework.MustPodInfo(builder.MakePod().Name("p").Namespace("default").Req(map[string]string{"cpu": "2", "memory": "2Gi"}).
		Affinity(&api.Affinity{NodeAffinity: &api.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &api.NodeSelector{
			NodeSelectorTerms: []api.NodeSelectorTerm{named("n1"), named("n3"), named("n4")},
		}}}).Obj())
	f, err := runtime.NewFramework(scheduling.NewDefaultRegistry(), scheduling.DefaultProfile())
	if err != nil {
		t.Fatal(err)
	}
	run := func(lean bool) *runtime.Result {
		res, err := f.Schedule(context.Background(), nil, snap, pod, runtime.CycleOptions{Rand: rand.New(rand.NewPCG(1, 2)), StartIndex: 1, RejectionsOnFailure: lean})
		if err == nil {
			t.Fatalf("lean %v: the pod fits %s", lean, res.SelectedNode())
		}
		return res
	}
	want, got := run(false), run(true)
	if n := want.NodeToStatus().Len(); n != 3 {
		t.Fatalf("NodeToStatus lists %d nodes, want the 3 candidates", n)
	}
	if d := cmp.Diff(want.NodeVerdicts(), got.NodeVerdicts()); d != "" {
		t.Fatalf("verdicts differ (-all kept +on failure):\n%s", d)
	}
	for _, name := range []string{"n1", "n3", "n4"} {
		w, g := want.NodeToStatus().Get(name), got.NodeToStatus().Get(name)
		if w.Message() != g.Message() || w.Code() != g.Code() {
			t.Fatalf("node %s: status %v, want %v", name, g, w)
		}
	}
	if d := cmp.Diff(want.Diagnosis.UnschedulablePlugins, got.Diagnosis.UnschedulablePlugins); d != "" {
		t.Fatalf("diagnoses differ:\n%s", d)
	}
}
