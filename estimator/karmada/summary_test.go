package karmada

import (
	"strings"
	"testing"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/resource"
)

func testNode(name string, alloc map[string]string) *api.Node {
	return st.MakeNode().Name(name).Capacity(alloc).Obj()
}

func testPod(name, node string, req map[string]string) *st.PodWrapper {
	return st.MakePod().Name(name).Node(node).Req(req)
}

func wantList(t *testing.T, what string, got resource.List, want map[string]string) {
	t.Helper()
	if !got.Equal(parseList(want)) {
		t.Errorf("%s = %v, want %v", what, got, parseList(want))
	}
}

// B.1: allocatable sums every node; allocated holds the bound, non-terminal
// pods; allocating the pods without a node (whatever their phase).
func TestBuildResourceSummary(t *testing.T) {
	nodes := []*api.Node{
		testNode("n1", map[string]string{"cpu": "4", "memory": "8Gi", "pods": "110", "nvidia.com/gpu": "2"}),
		testNode("n2", map[string]string{"cpu": "2500m", "memory": "4Gi", "pods": "110"}),
	}
	pods := []*api.Pod{
		testPod("running", "n1", map[string]string{"cpu": "1", "memory": "1Gi"}).Phase(api.PodRunning).Obj(),
		testPod("unknown-phase", "n2", map[string]string{"cpu": "500m", "nvidia.com/gpu": "1"}).Obj(),
		testPod("done", "n1", map[string]string{"cpu": "2"}).Phase(api.PodSucceeded).Obj(),
		testPod("failed", "n2", map[string]string{"cpu": "2"}).Phase(api.PodFailed).Obj(),
		testPod("pending", "", map[string]string{"cpu": "300m", "memory": "256Mi"}).Phase(api.PodPending).Obj(),
		// Karmada counts every node-less pod as allocating, terminal or not.
		testPod("failed-unbound", "", map[string]string{"cpu": "100m"}).Phase(api.PodFailed).Obj(),
	}
	s, err := BuildResourceSummary(nodes, pods, SummaryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wantList(t, "allocatable", s.Allocatable, map[string]string{"cpu": "6500m", "memory": "12Gi", "pods": "220", "nvidia.com/gpu": "2"})
	wantList(t, "allocated", s.Allocated, map[string]string{"cpu": "1500m", "memory": "1Gi", "pods": "2", "nvidia.com/gpu": "1"})
	wantList(t, "allocating", s.Allocating, map[string]string{"cpu": "400m", "memory": "256Mi", "pods": "2"})
	if f := s.Allocated[resource.Memory].Format(); f != resource.BinarySI {
		t.Errorf("allocated memory format %q, want BinarySI", f)
	}
	if f := s.Allocatable[resource.CPU].Format(); f != resource.DecimalSI {
		t.Errorf("allocatable cpu format %q, want DecimalSI", f)
	}

	empty, err := BuildResourceSummary(nodes, nil, SummaryOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if empty.Allocated != nil || empty.Allocating != nil {
		t.Errorf("no pods: allocated %v allocating %v, want nil", empty.Allocated, empty.Allocating)
	}
	none, err := BuildResourceSummary(nil, nil, SummaryOptions{})
	if err != nil || len(none.Allocatable) != 0 {
		t.Errorf("no nodes: %+v, %v", none, err)
	}
}

// Karmada adds requests with util.Resource.AddPodRequest on a running total:
// the init-container maximum is taken against the total so far, so the
// result depends on pod order and can be below the per-pod rule.
func TestBuildResourceSummaryRequestRules(t *testing.T) {
	nodes := []*api.Node{testNode("n1", map[string]string{"cpu": "64", "pods": "110"})}
	a := testPod("a", "n1", map[string]string{"cpu": "1"}).Obj()
	withInit := testPod("b", "n1", map[string]string{"cpu": "1"}).InitReq(map[string]string{"cpu": "1500m"}).Obj()
	overhead := testPod("c", "n1", map[string]string{"cpu": "1"}).Overhead(map[string]string{"cpu": "250m"}).Obj()
	// Sidecar 500m then init 1: kube counts 1 + 0.5 steady, init 1 + 0.5.
	sidecar := testPod("d", "n1", map[string]string{"cpu": "1"}).SidecarReq(map[string]string{"cpu": "500m"}).InitReq(map[string]string{"cpu": "1"}).Obj()
	tests := []struct {
		name string
		pods []*api.Pod
		rule PodRequestRule
		want string
	}{
		// a: 1; b: 1+1 = 2, max(2, 1.5) = 2.
		{"karmada: init after a smaller pod is absorbed", []*api.Pod{a, withInit}, PodRequestKarmada, "2"},
		// b: 1, max 1.5; a: +1.
		{"karmada: order matters", []*api.Pod{withInit, a}, PodRequestKarmada, "2500m"},
		{"per pod", []*api.Pod{a, withInit}, PodRequestPerPod, "2500m"},
		{"kube", []*api.Pod{a, withInit}, PodRequestKube, "2500m"},
		{"karmada: overhead added", []*api.Pod{overhead}, PodRequestKarmada, "1250m"},
		{"per pod: overhead added", []*api.Pod{overhead}, PodRequestPerPod, "1250m"},
		// Karmada treats the sidecar as a plain init container: max(1, 0.5, 1) = 1.
		{"karmada: sidecar as init", []*api.Pod{sidecar}, PodRequestKarmada, "1"},
		{"per pod: sidecar as init", []*api.Pod{sidecar}, PodRequestPerPod, "1"},
		{"kube: sidecar steady state", []*api.Pod{sidecar}, PodRequestKube, "1500m"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := BuildResourceSummary(nodes, tt.pods, SummaryOptions{RequestRule: tt.rule})
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Allocated[resource.CPU]; got.Cmp(mustQty(tt.want)) != 0 {
				t.Errorf("allocated cpu = %s, want %s", got.String(), tt.want)
			}
		})
	}
}

func TestBuildResourceSummaryBadInput(t *testing.T) {
	n := testNode("n1", map[string]string{"cpu": "4"})
	tests := []struct {
		name  string
		nodes []*api.Node
		pods  []*api.Pod
		opts  SummaryOptions
		want  string
	}{
		{"nil node", []*api.Node{n, nil}, nil, SummaryOptions{}, "nodes[1] is nil"},
		{"nil pod", []*api.Node{n}, []*api.Pod{nil}, SummaryOptions{}, "pods[0] is nil"},
		{"duplicate node", []*api.Node{n, n}, nil, SummaryOptions{}, `nodes[0] and nodes[1] are both named "n1"`},
		{"negative allocatable", []*api.Node{testNode("x", map[string]string{"cpu": "-1"})}, nil, SummaryOptions{}, `node "x": allocatable["cpu"]=-1`},
		{"negative request", []*api.Node{n}, []*api.Pod{testPod("p", "n1", map[string]string{"memory": "-1Gi"}).Obj()}, SummaryOptions{}, `pod default/p: container "c0": requests["memory"]=-1Gi`},
		{"unknown rule", []*api.Node{n}, nil, SummaryOptions{RequestRule: 9}, "RequestRule=9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := BuildResourceSummary(tt.nodes, tt.pods, tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

// B.1 grading: last grade whose Min ≤ free, minimum over resources (the
// scarcest resource decides), and Karmada's stop at the first node without
// a free pod slot.
func TestGradeNodes(t *testing.T) {
	def := DefaultResourceModels()
	gpuModels := StandardizeResourceModels(testModels([]string{"cpu", "nvidia.com/gpu"}, []string{"0", "0"}, []string{"4", "1"}))
	tests := []struct {
		name   string
		models []ResourceModel
		nodes  []*api.Node
		pods   []*api.Pod
		opts   SummaryOptions
		want   map[uint]int
	}{
		// The documented example's member1: one grade-2 node, six grade-3.
		{name: "documented member1", models: def, nodes: append([]*api.Node{testNode("a", map[string]string{"cpu": "2", "memory": "16Gi", "pods": "110"})},
			testNodes("b", 6, map[string]string{"cpu": "4", "memory": "32Gi", "pods": "110"})...), want: map[uint]int{2: 1, 3: 6}},
		// 12 cpu alone is grade 4, but 16G (< 16Gi) memory is grade 1 (karmada-io/karmada#6037).
		{name: "scarcest resource", models: def, nodes: []*api.Node{testNode("a", map[string]string{"cpu": "12", "memory": "16G", "pods": "110"}), testNode("b", map[string]string{"cpu": "12", "memory": "16Gi", "pods": "110"})}, want: map[uint]int{1: 1, 2: 1}},
		// Free = allocatable − requests: 8 cpu / 64Gi minus 5 cpu / 40Gi → (3, 24Gi) → grade 2.
		{name: "pods deducted", models: def, nodes: []*api.Node{testNode("a", map[string]string{"cpu": "8", "memory": "64Gi", "pods": "110"})},
			pods: []*api.Pod{testPod("p", "a", map[string]string{"cpu": "5", "memory": "40Gi"}).Obj(), testPod("done", "a", map[string]string{"cpu": "5"}).Phase(api.PodSucceeded).Obj()},
			want: map[uint]int{2: 1}},
		// A node lacking a model resource is graded 0 for it (karmada-io/karmada#4050).
		{name: "gpu-less node", models: gpuModels, nodes: []*api.Node{testNode("a", map[string]string{"cpu": "8", "pods": "110"}), testNode("b", map[string]string{"cpu": "8", "nvidia.com/gpu": "2", "pods": "110"})}, want: map[uint]int{0: 1, 1: 1}},
		// Node b has no free pod slot: Karmada stops there, so c is not counted.
		{name: "break at full node", models: def, nodes: []*api.Node{
			testNode("a", map[string]string{"cpu": "4", "memory": "32Gi", "pods": "110"}),
			testNode("b", map[string]string{"cpu": "4", "memory": "32Gi", "pods": "1"}),
			testNode("c", map[string]string{"cpu": "4", "memory": "32Gi", "pods": "110"}),
		}, pods: []*api.Pod{testPod("p", "b", nil).Obj()}, want: map[uint]int{3: 1}},
		{name: "continue past full node", opts: SummaryOptions{GradeNodesAfterFullNode: true}, models: def, nodes: []*api.Node{
			testNode("a", map[string]string{"cpu": "4", "memory": "32Gi", "pods": "110"}),
			testNode("b", map[string]string{"cpu": "4", "memory": "32Gi", "pods": "1"}),
			testNode("c", map[string]string{"cpu": "4", "memory": "32Gi", "pods": "110"}),
		}, pods: []*api.Pod{testPod("p", "b", nil).Obj()}, want: map[uint]int{3: 2}},
		// A node without pods is graded even with no pod slot; a node with nil
		// allocatable stops grading.
		{name: "no pods, no pod slot", models: def, nodes: []*api.Node{testNode("a", map[string]string{"cpu": "4", "memory": "32Gi", "pods": "0"})}, want: map[uint]int{3: 1}},
		{name: "nil allocatable breaks", models: def, nodes: []*api.Node{{ObjectMeta: api.ObjectMeta{Name: "x"}}, testNode("a", map[string]string{"cpu": "4", "memory": "32Gi", "pods": "110"})}, want: map[uint]int{}},
		// Over-committed (free cpu < 0): Karmada would index grade -1; skipped.
		{name: "over-committed node skipped", models: def, nodes: []*api.Node{
			testNode("a", map[string]string{"cpu": "1", "memory": "32Gi", "pods": "110"}),
			testNode("b", map[string]string{"cpu": "1", "memory": "32Gi", "pods": "110"}),
		}, pods: []*api.Pod{testPod("p", "a", map[string]string{"cpu": "2"}).Obj()}, want: map[uint]int{1: 1}},
		{name: "no nodes", models: def, want: map[uint]int{}},
		// Pods on unknown nodes do not matter to grading.
		{name: "pod on unknown node", models: def, nodes: []*api.Node{testNode("a", map[string]string{"cpu": "1", "memory": "4Gi", "pods": "110"})},
			pods: []*api.Pod{testPod("p", "zz", map[string]string{"cpu": "1"}).Obj()}, want: map[uint]int{1: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := GradeNodes(tt.models, tt.nodes, tt.pods, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.models) {
				t.Fatalf("%d entries for %d models", len(got), len(tt.models))
			}
			for i, am := range got {
				if am.Grade != tt.models[i].Grade || am.Count != tt.want[am.Grade] {
					t.Errorf("grade %d: count %d, want %d (all: %v)", am.Grade, am.Count, tt.want[am.Grade], got)
				}
			}
		})
	}
	if got, err := GradeNodes(nil, nil, nil, SummaryOptions{}); got != nil || err != nil {
		t.Errorf("nil models: %v, %v", got, err)
	}
	bad := testModels([]string{"cpu"}, []string{"1"}, []string{"2"})
	if _, err := GradeNodes(bad, nil, nil, SummaryOptions{}); err == nil || !strings.Contains(err.Error(), MsgModelFirstMinNotZero) {
		t.Errorf("invalid models: %v", err)
	}
}

func testNodes(prefix string, n int, alloc map[string]string) []*api.Node {
	out := make([]*api.Node, n)
	for i := range out {
		out[i] = testNode(prefix+string(rune('0'+i)), alloc)
	}
	return out
}

// BuildCluster ties summary and grading together; the general estimator on
// it reproduces the documented customized-model numbers.
func TestBuildClusterDocumentedExample(t *testing.T) {
	spec := map[string][]struct {
		n     int
		alloc map[string]string
	}{
		"member1": {{1, map[string]string{"cpu": "2", "memory": "16Gi", "pods": "110"}}, {6, map[string]string{"cpu": "4", "memory": "32Gi", "pods": "110"}}},
		"member2": {{4, map[string]string{"cpu": "2", "memory": "16Gi", "pods": "110"}}, {4, map[string]string{"cpu": "4", "memory": "32Gi", "pods": "110"}}},
		"member3": {{1, map[string]string{"cpu": "32", "memory": "256Gi", "pods": "110"}}},
	}
	want := map[string][2]int32{"member1": {7, 6}, "member2": {8, 4}, "member3": {10, 4}}
	e, _ := NewGeneralEstimator(GeneralOptions{Generation: ModelContainingGrade})
	for name, groups := range spec {
		var nodes []*api.Node
		for gi, g := range groups {
			nodes = append(nodes, testNodes(name+string(rune('a'+gi)), g.n, g.alloc)...)
		}
		c, err := BuildCluster(name, DefaultResourceModels(), nodes, nil, SummaryOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for i, req := range []map[string]string{{"cpu": "3", "memory": "20Gi"}, {"cpu": "3", "memory": "60Gi"}} {
			got, err := e.ClusterReplicas(c, testReq(req), nil)
			if err != nil {
				t.Fatal(err)
			}
			if got != want[name][i] {
				t.Errorf("%s %v: %d, want %d", name, req, got, want[name][i])
			}
		}
	}
	if _, err := BuildCluster("", nil, nil, nil, SummaryOptions{}); err == nil {
		t.Error("empty name accepted")
	}
}
