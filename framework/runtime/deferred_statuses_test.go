package runtime_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

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

// TestPropDeferredStatusesAsKept: over clusters whose nodes are short of
// cpu, memory or pod slots, cordoned or tainted (NodeResourcesFit defers
// its statuses; NodeUnschedulable and TaintToleration reject first), a
// cycle with RejectionsOnFailure that fits no node reports every node's
// status, the verdicts and the diagnosis as a cycle that keeps every
// rejection does, at one and two workers and any start; one that fits a
// node picks the same one.
func TestPropDeferredStatusesAsKept(t *testing.T) {
	frameworks := map[int]*runtime.Framework{}
	for _, w := range []int{1, 2} {
		f, err := runtime.NewFramework(scheduling.NewDefaultRegistry(), scheduling.DefaultProfile(), runtime.WithParallelism(w))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(f.Close)
		frameworks[w] = f
	}
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 300).Draw(t, "nodes")
		nodes := make([]*api.Node, n)
		for i := range nodes {
			b := builder.MakeNode().Name(fmt.Sprintf("n%d", i)).Allocatable(map[string]string{
				"cpu":    fmt.Sprint(rapid.IntRange(0, 8).Draw(t, "cpu")),
				"memory": fmt.Sprintf("%dGi", rapid.IntRange(0, 8).Draw(t, "mem")),
				"pods":   fmt.Sprint(rapid.IntRange(0, 3).Draw(t, "pods")),
			})
			switch rapid.IntRange(0, 9).Draw(t, "other") {
			case 0:
				b = b.Unschedulable()
			case 1:
				b = b.Taint("dedicated", "x", api.TaintEffectNoSchedule)
			}
			nodes[i] = b.Obj()
		}
		snap := framework.MustSnapshot(nodes, nil)
		pod := framework.MustPodInfo(builder.MakePod().Name("p").Namespace("default").Req(map[string]string{
			"cpu":    fmt.Sprint(rapid.IntRange(1, 9).Draw(t, "podCPU")),
			"memory": fmt.Sprintf("%dGi", rapid.IntRange(1, 9).Draw(t, "podMem")),
		}).Obj())
		start := rapid.IntRange(0, n-1).Draw(t, "start")
		f := frameworks[rapid.SampledFrom([]int{1, 2}).Draw(t, "workers")]
		run := func(lean bool) (*runtime.Result, error) {
			return f.Schedule(context.Background(), nil, snap, pod, runtime.CycleOptions{Rand: rand.New(rand.NewPCG(1, 2)), StartIndex: start, RejectionsOnFailure: lean})
		}
		want, werr := run(false)
		got, gerr := run(true)
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("errors differ: kept %v, on failure %v", werr, gerr)
		}
		if werr == nil {
			if got.SelectedNode() != want.SelectedNode() {
				t.Fatalf("selected %s, want %s", got.SelectedNode(), want.SelectedNode())
			}
			return
		}
		if d := cmp.Diff(want.NodeVerdicts(), got.NodeVerdicts()); d != "" {
			t.Fatalf("verdicts differ (-all kept +on failure):\n%s", d)
		}
		for _, node := range nodes {
			w, g := want.NodeToStatus().Get(node.Name), got.NodeToStatus().Get(node.Name)
			if w.Code() != g.Code() || w.Message() != g.Message() || w.Plugin() != g.Plugin() {
				t.Fatalf("node %s: status %v from %q, want %v from %q", node.Name, g, g.Plugin(), w, w.Plugin())
			}
		}
		if d := cmp.Diff(want.Diagnosis.UnschedulablePlugins, got.Diagnosis.UnschedulablePlugins); d != "" {
			t.Fatalf("diagnoses differ:\n%s", d)
		}
	})
}

// TestDefaultProfilesReadNodesAsWords: the default profiles' PreScore
// plugins all use their nodes within the cycle, so that their cycles
// place the feasible nodes where the collector does not look.
func TestDefaultProfilesReadNodesAsWords(t *testing.T) {
	for _, v := range []framework.KubeVersion{framework.KubeV137, framework.KubeV136} {
		f, err := runtime.NewFramework(scheduling.NewDefaultRegistry(), scheduling.DefaultProfileFor(v), runtime.WithKubeVersion(v))
		if err != nil {
			t.Fatal(err)
		}
		if !runtime.WordNodes(f) {
			t.Errorf("kube %v's default profile: a PreScore plugin is not a fastpath.CycleScopedPreScorePlugin", v)
		}
	}
}
