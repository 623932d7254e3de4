package noderesources

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/schedkit/schedkit/config"
	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/internal/st"
	"pgregory.net/rapid"
)

const nrfExt = "abc.com/xyz"

func nrfNode(name string, capacity map[string]string) *api.Node {
	return st.MakeNode().Name(name).Capacity(capacity).Obj()
}

func nrfCM(cpu, mem string, extra ...string) map[string]string {
	m := map[string]string{"cpu": cpu, "memory": mem}
	for i := 0; i+1 < len(extra); i += 2 {
		m[extra[i]] = extra[i+1]
	}
	return m
}

func nrfPod(node string, reqs ...map[string]string) *api.Pod {
	w := st.MakePod().Name(fmt.Sprintf("p-%s-%d", node, len(reqs))).Node(node)
	for _, r := range reqs {
		w = w.Req(r)
	}
	return w.Obj()
}

type nrfCase struct {
	name      string
	pod       *api.Pod
	nodes     []*api.Node
	existing  []*api.Pod
	resources []config.ResourceSpec
	want      []int64
}

func nrfRunCases(t *testing.T, strategy ScoringStrategyType, shape []config.UtilizationShapePoint, tests []nrfCase) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &ScoringStrategy{Type: strategy, Resources: tc.resources}
			if shape != nil {
				s.RequestedToCapacityRatio = &RequestedToCapacityRatioParam{Shape: shape}
			}
			pl, err := NewFit(NodeResourcesFitArgs{ScoringStrategy: s}, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, pre := range []bool{true, false} {
				// Existing pods need distinct names per node.
				for i, p := range tc.existing {
					p.Name = fmt.Sprintf("e%d", i)
					p.UID = p.Name
				}
				got := st.RawScores(t, pl, tc.pod, tc.nodes, tc.existing, pre)
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("PreScore=%v scores (-want,+got):\n%s", pre, diff)
				}
			}
		})
	}
}

var nrfExtSet = []config.ResourceSpec{{Name: "cpu", Weight: 1}, {Name: "memory", Weight: 1}, {Name: nrfExt, Weight: 1}}

// Cases of kube-scheduler v1.36 noderesources/least_allocated_test.go
// (TestLeastAllocatedScoringStrategy), rewritten in our types. Capacities
// such as cpu "4000" are whole cores, as in kube's test.
func TestNodeResourcesFitLeastAllocated(t *testing.T) {
	req3_5 := []map[string]string{nrfCM("1000", "2000"), nrfCM("2000", "3000")}
	nrfRunCases(t, LeastAllocated, nil, []nrfCase{
		{name: "nothing scheduled, nothing requested", pod: nrfPod(""),
			nodes: []*api.Node{nrfNode("node1", nrfCM("4000", "10000")), nrfNode("node2", nrfCM("4000", "10000"))}, want: []int64{100, 100}},
		// cpu (4000−3000)·100/4000 = 25, mem 50 → 37; node2 (6000−3000)/6000 = 50, 50 → 50.
		{name: "nothing scheduled, resources requested, differently sized nodes", pod: nrfPod("", req3_5...),
			nodes: []*api.Node{nrfNode("node1", nrfCM("4000", "10000")), nrfNode("node2", nrfCM("6000", "10000"))}, want: []int64{37, 50}},
		// Pods without containers request nothing, not even the non-zero
		// defaults (those apply per container).
		{name: "no resources requested, pods scheduled", pod: nrfPod(""),
			nodes:    []*api.Node{nrfNode("node1", nrfCM("4000", "10000")), nrfNode("node2", nrfCM("4000", "10000"))},
			existing: []*api.Pod{nrfPod("node1"), nrfPod("node1"), nrfPod("node2"), nrfPod("node2")}, want: []int64{100, 100}},
		// One container without requests on a 4-core, 10Gi node running two
		// more: 300m → (4000−300)·100/4000 = 92; 600Mi → (10240−600)·100/10240 = 94 → 93.
		{name: "non-zero defaults per container", pod: st.MakePod().Container("img", nil).Obj(),
			nodes:    []*api.Node{nrfNode("node1", nrfCM("4", "10Gi"))},
			existing: []*api.Pod{st.MakePod().Node("node1").Container("img", nil).Obj(), st.MakePod().Node("node1").Container("img", nil).Obj()}, want: []int64{93}},
		// cpu (10000−6000)/10000 = 40, mem 100 → 70; node2 40, (20000−5000)/20000 = 75 → 57.
		{name: "no resources requested, pods scheduled with resources", pod: st.MakePod().Req(nrfCM("0", "0")).Obj(),
			nodes: []*api.Node{nrfNode("node1", nrfCM("10000", "20000")), nrfNode("node2", nrfCM("10000", "20000"))},
			existing: []*api.Pod{nrfPod("node1", nrfCM("3000", "0")), nrfPod("node1", nrfCM("3000", "0")),
				nrfPod("node2", nrfCM("3000", "0")), nrfPod("node2", nrfCM("3000", "5000"))}, want: []int64{70, 57}},
		{name: "resources requested, pods scheduled with resources", pod: nrfPod("", req3_5...),
			nodes:    []*api.Node{nrfNode("node1", nrfCM("10000", "20000")), nrfNode("node2", nrfCM("10000", "20000"))},
			existing: []*api.Pod{nrfPod("node1", nrfCM("3000", "0")), nrfPod("node2", nrfCM("3000", "5000"))}, want: []int64{57, 45}},
		{name: "resources requested, pods scheduled with resources, differently sized nodes", pod: nrfPod("", req3_5...),
			nodes:    []*api.Node{nrfNode("node1", nrfCM("10000", "20000")), nrfNode("node2", nrfCM("10000", "50000"))},
			existing: []*api.Pod{nrfPod("node1", nrfCM("3000", "0")), nrfPod("node2", nrfCM("3000", "5000"))}, want: []int64{57, 60}},
		// cpu 6000 > 4000 → 0; memory 100 / 50.
		{name: "requested resources exceed node capacity", pod: nrfPod("", nrfCM("3000", "0")),
			nodes:    []*api.Node{nrfNode("node1", nrfCM("4000", "10000")), nrfNode("node2", nrfCM("4000", "10000"))},
			existing: []*api.Pod{nrfPod("node1", nrfCM("3000", "0")), nrfPod("node2", nrfCM("3000", "5000"))}, want: []int64{50, 25}},
		{name: "zero node resources, pods scheduled with resources", pod: nrfPod(""),
			nodes:    []*api.Node{nrfNode("node1", nil), nrfNode("node2", nil)},
			existing: []*api.Pod{nrfPod("node1", nrfCM("3000", "0")), nrfPod("node2", nrfCM("3000", "5000"))}, want: []int64{0, 0}},
		// (25·1 + 50·2)/3 = 41; (50 + 100)/3 = 50.
		{name: "different weights on cpu and memory", pod: nrfPod("", req3_5...),
			nodes:     []*api.Node{nrfNode("node1", nrfCM("4000", "10000")), nrfNode("node2", nrfCM("6000", "10000"))},
			resources: []config.ResourceSpec{{Name: "memory", Weight: 2}, {Name: "cpu", Weight: 1}}, want: []int64{41, 50}},
		{name: "bypass extended resource if the pod does not request", pod: nrfPod("", req3_5...),
			nodes:     []*api.Node{nrfNode("node1", nrfCM("6000", "10000")), nrfNode("node2", nrfCM("6000", "10000", nrfExt, "4"))},
			resources: nrfExtSet, want: []int64{50, 50}},
		// ext: (4−2)/4 = 50, (10−2)/10 = 80 → (50+50+50)/3 = 50, (50+50+80)/3 = 60.
		{name: "honor extended resource if the pod requests", pod: nrfPod("", nrfCM("3000", "5000", nrfExt, "2")),
			nodes:     []*api.Node{nrfNode("node1", nrfCM("6000", "10000", nrfExt, "4")), nrfNode("node2", nrfCM("6000", "10000", nrfExt, "10"))},
			resources: nrfExtSet, want: []int64{50, 60}},
		// ext requested but missing on node1; node2 has it but the pod does
		// not request it: (50 + 60)/2 = 55 on both.
		{name: "if the node doesn't have a resource", pod: nrfPod("", nrfCM("3000", "4000")),
			nodes:     []*api.Node{nrfNode("node1", nrfCM("6000", "10000")), nrfNode("node2", nrfCM("6000", "10000", nrfExt, "4"))},
			resources: []config.ResourceSpec{{Name: nrfExt, Weight: 2}, {Name: "cpu", Weight: 1}, {Name: "memory", Weight: 1}}, want: []int64{55, 55}},
		// Seed 001's log: allocatable cpu 47800m, memory 66054406144;
		// requested (with the pod) 7850m/6786383872 → (83 + 89)/2 = 86 and
		// 6950m/7627341824 → (85 + 88)/2 = 86.
		{name: "seed 001 worked numbers", pod: nrfPod("", nrfCM("0", "0")),
			nodes:    []*api.Node{nrfNode("n238", nrfCM("47800m", "66054406144")), nrfNode("n237", nrfCM("47800m", "66054406144"))},
			existing: []*api.Pod{nrfPod("n238", nrfCM("7850m", "6786383872")), nrfPod("n237", nrfCM("6950m", "7627341824"))},
			want:     []int64{86, 86}},
		{name: "pods and unknown names are not scored", pod: nrfPod("", nrfCM("1", "1Gi")),
			nodes:     []*api.Node{nrfNode("n", map[string]string{"cpu": "4", "memory": "4Gi", "pods": "10"})},
			resources: []config.ResourceSpec{{Name: "pods", Weight: 5}, {Name: "cpu", Weight: 1}}, want: []int64{75}},
		{name: "ephemeral storage uses real requests", pod: nrfPod("", map[string]string{"ephemeral-storage": "1Gi"}),
			nodes:     []*api.Node{nrfNode("n", map[string]string{"ephemeral-storage": "4Gi"})},
			existing:  []*api.Pod{nrfPod("n", map[string]string{"ephemeral-storage": "1Gi"})},
			resources: []config.ResourceSpec{{Name: "ephemeral-storage", Weight: 1}}, want: []int64{50}},
	})
}

// Cases of kube-scheduler v1.36 noderesources/most_allocated_test.go.
func TestNodeResourcesFitMostAllocated(t *testing.T) {
	req3_5 := []map[string]string{nrfCM("1000", "2000"), nrfCM("2000", "3000")}
	nrfRunCases(t, MostAllocated, nil, []nrfCase{
		{name: "nothing scheduled, nothing requested", pod: st.MakePod().Req(nrfCM("0", "0")).Obj(),
			nodes: []*api.Node{nrfNode("node1", nrfCM("4000", "10000")), nrfNode("node2", nrfCM("4000", "10000"))}, want: []int64{0, 0}},
		{name: "nothing scheduled, resources requested, differently sized nodes", pod: nrfPod("", req3_5...),
			nodes: []*api.Node{nrfNode("node1", nrfCM("4000", "10000")), nrfNode("node2", nrfCM("6000", "10000"))}, want: []int64{62, 50}},
		{name: "no resources requested, pods scheduled with resources", pod: st.MakePod().Req(nrfCM("0", "0")).Obj(),
			nodes: []*api.Node{nrfNode("node1", nrfCM("10000", "20000")), nrfNode("node2", nrfCM("10000", "20000"))},
			existing: []*api.Pod{nrfPod("node1", nrfCM("3000", "0")), nrfPod("node1", nrfCM("3000", "0")),
				nrfPod("node2", nrfCM("3000", "0")), nrfPod("node2", nrfCM("3000", "5000"))}, want: []int64{30, 42}},
		{name: "resources requested, pods scheduled with resources", pod: nrfPod("", req3_5...),
			nodes:    []*api.Node{nrfNode("node1", nrfCM("10000", "20000")), nrfNode("node2", nrfCM("10000", "20000"))},
			existing: []*api.Pod{nrfPod("node1", nrfCM("3000", "0")), nrfPod("node2", nrfCM("3000", "5000"))}, want: []int64{42, 55}},
		{name: "resources requested equal node capacity", pod: nrfPod("", nrfCM("2000", "4000"), nrfCM("3000", "5000")),
			nodes: []*api.Node{nrfNode("node1", nrfCM("5000", "10000")), nrfNode("node2", nrfCM("10000", "9000"))}, want: []int64{95, 75}},
		{name: "different weights", pod: nrfPod("", req3_5...),
			nodes:     []*api.Node{nrfNode("node1", nrfCM("4000", "10000")), nrfNode("node2", nrfCM("6000", "10000"))},
			resources: []config.ResourceSpec{{Name: "memory", Weight: 2}, {Name: "cpu", Weight: 1}}, want: []int64{58, 50}},
		// Non-zero defaults: node1 runs two request-less pods, 3·100m of
		// 250m → capped 100, 3·200Mi of 1000Mi → 60 → 80; node2 40, 20 → 30.
		{name: "no resources requested, pods scheduled, nonzero request for resource", pod: st.MakePod().Container("img", nil).Obj(),
			nodes:    []*api.Node{nrfNode("node1", nrfCM("250m", "1000Mi")), nrfNode("node2", nrfCM("250m", "1000Mi"))},
			existing: []*api.Pod{st.MakePod().Node("node1").Container("img", nil).Obj(), st.MakePod().Node("node1").Container("img", nil).Obj()}, want: []int64{80, 30}},
		{name: "bypass extended resource if the pod does not request", pod: nrfPod("", req3_5...),
			nodes:     []*api.Node{nrfNode("node1", nrfCM("6000", "10000")), nrfNode("node2", nrfCM("6000", "10000", nrfExt, "4"))},
			resources: nrfExtSet, want: []int64{50, 50}},
		{name: "honor extended resource if the pod request", pod: nrfPod("", nrfCM("3000", "5000", nrfExt, "2")),
			nodes:     []*api.Node{nrfNode("node1", nrfCM("6000", "10000", nrfExt, "4")), nrfNode("node2", nrfCM("6000", "10000", nrfExt, "10"))},
			resources: nrfExtSet, want: []int64{50, 40}},
		{name: "if the node doesn't have a resource", pod: nrfPod("", nrfCM("3000", "4000")),
			nodes:     []*api.Node{nrfNode("node1", nrfCM("6000", "10000")), nrfNode("node2", nrfCM("6000", "10000", nrfExt, "4"))},
			resources: []config.ResourceSpec{{Name: nrfExt, Weight: 2}, {Name: "cpu", Weight: 1}, {Name: "memory", Weight: 1}}, want: []int64{45, 45}},
	})
}

// Cases of kube-scheduler v1.36 noderesources/requested_to_capacity_ratio_test.go.
func TestNodeResourcesFitRequestedToCapacityRatio(t *testing.T) {
	leastShape := []config.UtilizationShapePoint{{Utilization: 0, Score: 10}, {Utilization: 100, Score: 0}}
	nrfRunCases(t, RequestedToCapacityRatio, leastShape, []nrfCase{
		{name: "nothing scheduled, nothing requested", pod: st.MakePod().Req(nrfCM("0", "0")).Obj(),
			nodes:    []*api.Node{nrfNode("node1", nrfCM("4000", "10000")), nrfNode("node2", nrfCM("4000", "10000"))},
			existing: []*api.Pod{nrfPod("node1", nrfCM("0", "0")), nrfPod("node1", nrfCM("0", "0"))}, want: []int64{100, 100}},
		// node1: util cpu 75 → 25, mem 50 → 50, round(75/2) = 38; node2 50, 50.
		{name: "nothing scheduled, resources requested, differently sized nodes", pod: nrfPod("", nrfCM("1000", "2000"), nrfCM("2000", "3000")),
			nodes: []*api.Node{nrfNode("node1", nrfCM("4000", "10000")), nrfNode("node2", nrfCM("6000", "10000"))}, want: []int64{38, 50}},
		{name: "no resources requested, pods scheduled with resources", pod: st.MakePod().Req(nrfCM("0", "0")).Obj(),
			nodes:    []*api.Node{nrfNode("node1", nrfCM("4000", "10000")), nrfNode("node2", nrfCM("6000", "10000"))},
			existing: []*api.Pod{nrfPod("node1", nrfCM("3000", "5000")), nrfPod("node2", nrfCM("3000", "5000"))}, want: []int64{38, 50}},
		// Full node: every resource scores 0, nothing is weighted → 0.
		{name: "full node scores 0", pod: nrfPod("", nrfCM("4000", "10000")),
			nodes: []*api.Node{nrfNode("node1", nrfCM("4000", "10000"))}, want: []int64{0}},
	})
	binpack := []config.UtilizationShapePoint{{Utilization: 0, Score: 0}, {Utilization: 100, Score: 1}}
	foo := []config.ResourceSpec{{Name: "intel.com/foo", Weight: 1}}
	ext := func(name string, foo string) *api.Node {
		return nrfNode(name, map[string]string{"cpu": "4", "memory": "10000Mi", "intel.com/foo": foo})
	}
	t.Run("TestResourceBinPackingSingleExtended", func(t *testing.T) {
		nrfRunCases(t, RequestedToCapacityRatio, binpack, []nrfCase{
			{name: "nothing requested", pod: nrfPod(""), nodes: []*api.Node{ext("node1", "8"), ext("node2", "4")}, resources: foo, want: []int64{0, 0}},
			// 2/8 → util 25 → 10·25/100 = 2; 2/4 → 50 → 5.
			{name: "resources requested, pods scheduled with less resources", pod: nrfPod("", map[string]string{"intel.com/foo": "2"}),
				nodes: []*api.Node{ext("node1", "8"), ext("node2", "4")}, existing: []*api.Pod{nrfPod("node1")}, resources: foo, want: []int64{2, 5}},
			{name: "on node with existing pod running", pod: nrfPod("", map[string]string{"intel.com/foo": "2"}),
				nodes: []*api.Node{ext("node1", "8"), ext("node2", "4")}, existing: []*api.Pod{nrfPod("node2", map[string]string{"intel.com/foo": "2"})}, resources: foo, want: []int64{2, 10}},
			{name: "pods scheduled with more resources", pod: nrfPod("", map[string]string{"intel.com/foo": "4"}),
				nodes: []*api.Node{ext("node1", "8"), ext("node2", "4")}, resources: foo, want: []int64{5, 10}},
		})
	})
	t.Run("TestResourceBinPackingMultipleExtended", func(t *testing.T) {
		two := []config.ResourceSpec{{Name: "intel.com/foo", Weight: 3}, {Name: "intel.com/bar", Weight: 5}}
		n1 := nrfNode("node1", map[string]string{"cpu": "4", "memory": "10000Mi", "intel.com/foo": "8", "intel.com/bar": "4"})
		n2 := nrfNode("node2", map[string]string{"cpu": "4", "memory": "10000Mi", "intel.com/foo": "4", "intel.com/bar": "8"})
		nrfRunCases(t, RequestedToCapacityRatio, binpack, []nrfCase{
			{name: "nothing requested", pod: nrfPod(""), nodes: []*api.Node{n1, n2}, resources: two, want: []int64{0, 0}},
			// node1 foo 2/8 → 2, bar 2/4 → 5: round((2·3 + 5·5)/8) = round(3.875) = 4;
			// node2 foo 2/4 → 5, bar 2/8 → 2: round((15 + 10)/8) = round(3.125) = 3.
			{name: "both requested", pod: nrfPod("", map[string]string{"intel.com/foo": "2", "intel.com/bar": "2"}),
				nodes: []*api.Node{n1, n2}, resources: two, want: []int64{4, 3}},
			// node1 foo 4/8 → 5, bar 2/4 → 5 → 5; node2 foo 4/4 → 10, bar 2/8 → 2: round((30+10)/8) = 5.
			{name: "more foo", pod: nrfPod("", map[string]string{"intel.com/foo": "4", "intel.com/bar": "2"}),
				nodes: []*api.Node{n1, n2}, resources: two, want: []int64{5, 5}},
			// Only resources scoring > 0 count: node1 foo 0/8 → 0 (left out),
			// bar 2/4 → 5 → 5.
			{name: "zero-score resources are not weighted", pod: nrfPod("", map[string]string{"intel.com/foo": "1", "intel.com/bar": "2"}),
				nodes: []*api.Node{nrfNode("node1", map[string]string{"intel.com/foo": "1000", "intel.com/bar": "4"})}, resources: two, want: []int64{5}},
		})
	})
}

func TestNodeResourcesFitScoreAllocs(t *testing.T) {
	for _, strat := range []ScoringStrategyType{LeastAllocated, MostAllocated, RequestedToCapacityRatio} {
		args := NodeResourcesFitArgs{ScoringStrategy: nrfStrategyArgs(strat, nrfExtSet, []config.UtilizationShapePoint{{Utilization: 0, Score: 0}, {Utilization: 100, Score: 10}})}
		pl, err := NewFit(args, nil)
		if err != nil {
			t.Fatal(err)
		}
		f := pl.(*NodeResourcesFit)
		node, _ := fw.NewNodeInfo(nrfNode("n", nrfCM("4", "8Gi", nrfExt, "4")), fw.MustPodInfo(nrfPod("n", nrfCM("1", "1Gi"))))
		pod := fw.MustPodInfo(nrfPod("", nrfCM("1", "1Gi", nrfExt, "1")))
		state := fw.NewCycleState()
		f.PreScore(context.Background(), state, pod, nil)
		if a := testing.AllocsPerRun(100, func() { f.Score(context.Background(), state, pod, node) }); a != 0 {
			t.Errorf("%s: %v allocs per Score, want 0", strat, a)
		}
	}
}

// nrfDrawCluster draws 1–5 nodes with random cpu/memory/extended capacity
// and existing requests, and a pod.
func nrfDrawCluster(rt *rapid.T) (*api.Pod, []*api.Node, []*api.Pod) {
	n := rapid.IntRange(1, 5).Draw(rt, "nodes")
	var nodes []*api.Node
	var pods []*api.Pod
	q := func(label string, max int64) string { return fmt.Sprint(rapid.Int64Range(0, max).Draw(rt, label)) }
	for i := range n {
		name := fmt.Sprint("n", i)
		nodes = append(nodes, nrfNode(name, map[string]string{"cpu": q("cpu", 64) + "00m", "memory": q("mem", 64) + "Mi", nrfExt: q("ext", 8)}))
		for j := range rapid.IntRange(0, 3).Draw(rt, "pods") {
			req := map[string]string{}
			if rapid.Bool().Draw(rt, "hasCPU") {
				req["cpu"] = q("pcpu", 30) + "00m"
			}
			if rapid.Bool().Draw(rt, "hasMem") {
				req["memory"] = q("pmem", 30) + "Mi"
			}
			req[nrfExt] = q("pext", 4)
			p := st.MakePod().Name(fmt.Sprintf("e%d-%d", i, j)).Node(name).Req(req).Obj()
			pods = append(pods, p)
		}
	}
	preq := map[string]string{"cpu": q("podcpu", 30) + "00m", nrfExt: q("podext", 4)}
	if rapid.Bool().Draw(rt, "podMem") {
		preq["memory"] = q("podmem", 30) + "Mi"
	}
	return st.MakePod().Name("incoming").Req(preq).Obj(), nodes, pods
}

// TestPropNodeResourcesFitScoreRange: every strategy scores every node in
// [0, 100].
func TestPropNodeResourcesFitScoreRange(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		pod, nodes, pods := nrfDrawCluster(rt)
		shape := rapid.SliceOfNDistinct(rapid.Int32Range(0, 100), 1, 4, func(v int32) int32 { return v }).Draw(rt, "utils")
		pts := make([]config.UtilizationShapePoint, len(shape))
		for i := range shape {
			pts[i] = config.UtilizationShapePoint{Utilization: shape[i], Score: rapid.Int32Range(0, 10).Draw(rt, "score")}
		}
		// Sort utilizations ascending.
		for i := range pts {
			for j := i + 1; j < len(pts); j++ {
				if pts[j].Utilization < pts[i].Utilization {
					pts[i], pts[j] = pts[j], pts[i]
				}
			}
		}
		for _, strat := range []ScoringStrategyType{LeastAllocated, MostAllocated, RequestedToCapacityRatio} {
			pl, err := NewFit(NodeResourcesFitArgs{ScoringStrategy: nrfStrategyArgs(strat, nrfExtSet, pts)}, nil)
			if err != nil {
				rt.Fatal(err)
			}
			for i, s := range st.RawScores(rt, pl, pod, nodes, pods, true) {
				if s < 0 || s > 100 {
					rt.Fatalf("%s: node %d score %d outside [0,100]", strat, i, s)
				}
			}
		}
	})
}

// TestPropLeastPlusMostAllocated: for one resource with allocatable a > 0
// and requested r ≤ a, LeastAllocated = ⌊(a−r)·100/a⌋ and MostAllocated =
// ⌊r·100/a⌋ sum to exactly 100 when a divides r·100, and to 99 otherwise
// (⌊100−x⌋ + ⌊x⌋ = 99 for non-integer x). A linear RequestedToCapacityRatio
// shape (0→0, 100→10) equals MostAllocated.
func TestPropLeastPlusMostAllocated(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		a := rapid.Int64Range(1, 1_000_000).Draw(rt, "allocMilli")
		used := rapid.Int64Range(0, a).Draw(rt, "usedMilli")
		r := rapid.Int64Range(0, a-used).Draw(rt, "podMilli")
		node := nrfNode("n", map[string]string{"cpu": fmt.Sprintf("%dm", a)})
		var existing []*api.Pod
		if used > 0 {
			existing = append(existing, nrfPod("n", map[string]string{"cpu": fmt.Sprintf("%dm", used), "memory": "0"}))
		}
		pod := st.MakePod().Name("p").Req(map[string]string{"cpu": fmt.Sprintf("%dm", r)}).Obj()
		cpu := []config.ResourceSpec{{Name: "cpu", Weight: 1}}
		score := func(s ScoringStrategyType) int64 {
			pl, err := NewFit(NodeResourcesFitArgs{ScoringStrategy: nrfStrategyArgs(s, cpu, []config.UtilizationShapePoint{{Utilization: 0, Score: 0}, {Utilization: 100, Score: 10}})}, nil)
			if err != nil {
				rt.Fatal(err)
			}
			return st.RawScores(rt, pl, pod, []*api.Node{node}, existing, true)[0]
		}
		least, most, rtcr := score(LeastAllocated), score(MostAllocated), score(RequestedToCapacityRatio)
		total := used + r
		want := int64(100)
		if total*100%a != 0 {
			want = 99
		}
		if least+most != want {
			rt.Fatalf("a=%d req=%d: least %d + most %d = %d, want %d", a, total, least, most, least+most, want)
		}
		if rtcr != most {
			rt.Fatalf("a=%d req=%d: linear RTCR %d != MostAllocated %d", a, total, rtcr, most)
		}
	})
}

// ExampleNewNodeResourcesFit scores two nodes with the default
// LeastAllocated strategy (cpu and memory, weight 1 each).
func ExampleNewFit_score() {
	pl, err := NewFit(DefaultNodeResourcesFitArgs(), nil)
	if err != nil {
		panic(err)
	}
	small := builder.MakeNode().Name("small").Capacity(map[string]string{"cpu": "4", "memory": "8Gi"}).Obj()
	big := builder.MakeNode().Name("big").Capacity(map[string]string{"cpu": "16", "memory": "32Gi"}).Obj()
	used := builder.MakePod().Name("used").Node("big").Req(map[string]string{"cpu": "8", "memory": "8Gi"}).Obj()
	snap := fw.MustSnapshot([]*api.Node{small, big}, []*api.Pod{used})

	pod := fw.MustPodInfo(builder.MakePod().Name("web").Req(map[string]string{"cpu": "1", "memory": "2Gi"}).Obj())
	state := fw.NewCycleState()
	pl.(fw.PreScorePlugin).PreScore(context.Background(), state, pod, snap.Nodes())
	for _, ni := range snap.Nodes() {
		s, _ := pl.(fw.ScorePlugin).Score(context.Background(), state, pod, ni)
		fmt.Printf("%s: %d\n", ni.Name(), s)
	}
	// small: cpu (4−1)/4 = 75, memory (8−2)/8 = 75 → 75
	// big:   cpu (16−9)/16 = 43, memory (32−10)/32 = 68 → 55

	// Output:
	// small: 75
	// big: 55
}

// nrfStrategyArgs is a NodeResourcesFit scoring strategy with the given shape
// for RequestedToCapacityRatio (kube v1.36 forbids a shape with the other
// types).
func nrfStrategyArgs(t ScoringStrategyType, res []config.ResourceSpec, shape []config.UtilizationShapePoint) *ScoringStrategy {
	s := &ScoringStrategy{Type: t, Resources: res}
	if t == RequestedToCapacityRatio {
		s.RequestedToCapacityRatio = &RequestedToCapacityRatioParam{Shape: shape}
	}
	return s
}
