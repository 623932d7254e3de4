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

// The pods of kube's balanced_allocation_test.go, with requests per
// container.
var (
	baCPUAndMemory       = []map[string]string{nrfCM("1000m", "2000"), nrfCM("2000m", "3000")}
	baCPUAndMemoryAndGPU = []map[string]string{nrfCM("1000m", "2000"), nrfCM("2000m", "3000", "nvidia.com/gpu", "3")}
	baCPUOnly            = []map[string]string{nrfCM("1000m", "0"), nrfCM("2000m", "0")}
)

func baNode(name, milliCPU, mem string, gpu string) *api.Node {
	c := map[string]string{"cpu": milliCPU + "m", "memory": mem}
	if gpu != "" {
		c["nvidia.com/gpu"] = gpu
	}
	return nrfNode(name, c)
}

type baCase struct {
	name      string
	pod       *api.Pod
	nodes     []*api.Node
	existing  []*api.Pod
	resources []config.ResourceSpec
	stdDev    []int64 // kube v1.35 scores (from kube's test)
	delta     []int64 // kube v1.36 scores, worked out below
}

var baGPUSet = []config.ResourceSpec{{Name: "cpu", Weight: 1}, {Name: "memory", Weight: 1}, {Name: "nvidia.com/gpu", Weight: 1}}

// Cases of kube-scheduler noderesources/balanced_allocation_test.go
// (TestNodeResourcesBalancedAllocation), rewritten in our types. The
// StdDev column is kube v1.35's expectation; the Delta column applies
// v1.36's 50 + (50 + S_with − S_without)/2 to the same fractions.
func baCases() []baCase {
	return []baCase{
		// node1: with 3000/4000=.75, 5000/10000=.5 → σ .125 → 87; without 100 → 50+(37/2)=68.
		// node2: .5, .5 → 100; without 100 → 75.
		{name: "nothing scheduled, resources requested, differently sized nodes", pod: nrfPod("", baCPUAndMemory...),
			nodes:  []*api.Node{baNode("node1", "4000", "10000", ""), baNode("node2", "6000", "10000", "")},
			stdDev: []int64{87, 100}, delta: []int64{68, 75}},
		// node1 with .6,.25 → 82, without .3,0 → 85 → 50+(47/2)=73;
		// node2 with .6,.5 → 95, without .3,.25 → 97 → 50+(48/2)=74.
		{name: "resources requested, pods scheduled with resources", pod: nrfPod("", baCPUAndMemory...),
			nodes:    []*api.Node{baNode("node1", "10000", "20000", ""), baNode("node2", "10000", "20000", "")},
			existing: []*api.Pod{nrfPod("node1", baCPUOnly...), nrfPod("node2", baCPUAndMemory...)},
			stdDev:   []int64{82, 95}, delta: []int64{73, 74}},
		// node2 with .6,.2 → 80, without .3,.1 → 90 → 50+(40/2)=70.
		{name: "resources requested, pods scheduled with resources, differently sized nodes", pod: nrfPod("", baCPUAndMemory...),
			nodes:    []*api.Node{baNode("node1", "10000", "20000", ""), baNode("node2", "10000", "50000", "")},
			existing: []*api.Pod{nrfPod("node1", baCPUOnly...), nrfPod("node2", baCPUAndMemory...)},
			stdDev:   []int64{82, 80}, delta: []int64{73, 70}},
		// node1 with 1,0 → 50, without .5,0 → 75 → 50+(25/2)=62;
		// node2 with 1,.5 → 75, without .5,.5 → 100 → 50+(25/2)=62.
		{name: "requested resources at node capacity", pod: nrfPod("", baCPUOnly...),
			nodes:    []*api.Node{baNode("node1", "6000", "10000", ""), baNode("node2", "6000", "10000", "")},
			existing: []*api.Pod{nrfPod("node1", baCPUOnly...), nrfPod("node2", baCPUAndMemory...)},
			stdDev:   []int64{50, 75}, delta: []int64{62, 62}},
		// node1 with .857,.125,.5 → σ .2989 → 70; without .857,.125,.375 → σ .3039 → 69 → 75;
		// node2 with .857,.125,.125 → σ .3451 → 65; without .857,.125,0 → σ .3781 → 62 → 76.
		{name: "include scalar resource on a node for balanced resource allocation",
			pod:       st.MakePod().Name("p").Req(map[string]string{"memory": "0", "nvidia.com/gpu": "1"}).Obj(),
			nodes:     []*api.Node{baNode("node1", "3500", "40000", "8"), baNode("node2", "3500", "40000", "8")},
			existing:  []*api.Pod{nrfPod("node2", baCPUAndMemory...), nrfPod("node1", baCPUAndMemoryAndGPU...)},
			resources: baGPUSet, stdDev: []int64{70, 65}, delta: []int64{75, 76}},
		// gpu not requested → skipped: with .857,.125 → 63; without 100 → 50+(13/2)=56.
		{name: "node without the scalar resource should skip the scalar resource", pod: nrfPod("", baCPUAndMemory...),
			nodes:     []*api.Node{baNode("node1", "3500", "40000", "8"), baNode("node2", "3500", "40000", "")},
			resources: baGPUSet, stdDev: []int64{63, 63}, delta: []int64{56, 56}},
		// Beyond kube's table: a node with no allocatable has no fractions,
		// S = 100 with and without the pod → 75 (StdDev 100).
		{name: "zero allocatable", pod: nrfPod("", baCPUAndMemory...),
			nodes: []*api.Node{nrfNode("empty", nil)}, stdDev: []int64{100}, delta: []int64{75}},
		// Requests above allocatable cap the fraction at 1: with 1,1 → 100,
		// without 1,1 (existing already over) → 100 → 75.
		{name: "requests above allocatable", pod: nrfPod("", nrfCM("1", "1Gi")),
			nodes: []*api.Node{nrfNode("small", nrfCM("1", "1Gi"))}, existing: []*api.Pod{nrfPod("small", nrfCM("2", "2Gi"))},
			stdDev: []int64{100}, delta: []int64{75}},
	}
}

func baRun(t *testing.T, mode BalancedAllocationMode, pick func(baCase) []int64) {
	for _, tc := range baCases() {
		t.Run(tc.name, func(t *testing.T) {
			pl, err := NewBalancedAllocation(NodeResourcesBalancedAllocationArgs{Resources: tc.resources, Mode: mode}, nil)
			if err != nil {
				t.Fatal(err)
			}
			for i, p := range tc.existing {
				p.Name, p.UID = fmt.Sprint("e", i), fmt.Sprint("e", i)
			}
			for _, pre := range []bool{true, false} {
				got := st.RawScores(t, pl, tc.pod, tc.nodes, tc.existing, pre)
				if diff := cmp.Diff(pick(tc), got); diff != "" {
					t.Errorf("PreScore=%v (-want,+got):\n%s", pre, diff)
				}
			}
		})
	}
}

func TestNodeResourcesBalancedAllocationDelta(t *testing.T) {
	baRun(t, BalancedAllocationDelta, func(c baCase) []int64 { return c.delta })
}

func TestNodeResourcesBalancedAllocationStdDev(t *testing.T) {
	baRun(t, BalancedAllocationStdDev, func(c baCase) []int64 { return c.stdDev })
}

// TestNodeResourcesBalancedAllocationSkip: kube's "nothing scheduled,
// nothing requested, skip in PreScore" case, and a pod requesting only
// resources outside the configured set.
func TestNodeResourcesBalancedAllocationSkip(t *testing.T) {
	for _, mode := range []BalancedAllocationMode{BalancedAllocationDelta, BalancedAllocationStdDev} {
		pl, _ := NewBalancedAllocation(NodeResourcesBalancedAllocationArgs{Mode: mode}, nil)
		for _, pod := range []*api.Pod{st.MakePod().Obj(), st.MakePod().Req(map[string]string{"nvidia.com/gpu": "1"}).Obj(), st.MakePod().Container("img", nil).Obj()} {
			s := pl.(fw.PreScorePlugin).PreScore(context.Background(), fw.NewCycleState(), fw.MustPodInfo(pod), nil)
			if !s.IsSkip() {
				t.Errorf("%s: PreScore(%v) = %v, want Skip", mode, pod.Spec.Containers, s)
			}
			// Score without PreScore scores such a pod 0, as kube.
			ni, _ := fw.NewNodeInfo(nrfNode("n", nrfCM("4", "4Gi")))
			if v, s := pl.(fw.ScorePlugin).Score(context.Background(), fw.NewCycleState(), fw.MustPodInfo(pod), ni); v != 0 || !s.IsSuccess() {
				t.Errorf("%s: Score without PreScore = %d, %v; want 0", mode, v, s)
			}
		}
		// A configured name that is not a scalar resource still counts
		// for the best-effort test (kube reads the pod's request list).
		pl2, err := NewBalancedAllocation(NodeResourcesBalancedAllocationArgs{Mode: mode,
			Resources: []config.ResourceSpec{{Name: "cpu", Weight: 1}, {Name: "foo", Weight: 1}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		foo := fw.MustPodInfo(st.MakePod().Req(map[string]string{"foo": "1"}).Obj())
		if s := pl2.(fw.PreScorePlugin).PreScore(context.Background(), fw.NewCycleState(), foo, nil); !s.IsSuccess() {
			t.Errorf("%s: pod requesting foo: PreScore = %v, want Success", mode, s)
		}
	}
}

// TestNodeResourcesBalancedAllocationClassic uses seed 001's numbers: the
// kube-scheduler log (allocatable cpu 47800m, memory 66054406144; requested
// including the pod 7850m/6786383872 → 93, 6950m/7627341824 → 97) and its
// table (10%/20% → 90, 20%/10% → 90, 20%/40% → 80, 20%/50% → 70), plus the
// ≥ 1 and zero-capacity rules and the non-zero defaults.
func TestNodeResourcesBalancedAllocationClassic(t *testing.T) {
	pl, err := NewBalancedAllocation(NodeResourcesBalancedAllocationArgs{Mode: BalancedAllocationClassic}, nil)
	if err != nil {
		t.Fatal(err)
	}
	zero := st.MakePod().Name("in").Req(nrfCM("0", "0")).Obj()
	tests := []struct {
		name     string
		pod      *api.Pod
		nodes    []*api.Node
		existing []*api.Pod
		want     []int64
	}{
		{name: "seed log", pod: zero,
			nodes:    []*api.Node{nrfNode("n238", nrfCM("47800m", "66054406144")), nrfNode("n237", nrfCM("47800m", "66054406144"))},
			existing: []*api.Pod{nrfPod("n238", nrfCM("7850m", "6786383872")), nrfPod("n237", nrfCM("6950m", "7627341824"))}, want: []int64{93, 97}},
		{name: "seed table", pod: zero,
			nodes: []*api.Node{nrfNode("a", nrfCM("1000m", "1000")), nrfNode("b", nrfCM("1000m", "1000")), nrfNode("c", nrfCM("1000m", "1000")), nrfNode("d", nrfCM("1000m", "1000"))},
			existing: []*api.Pod{nrfPod("a", nrfCM("100m", "200")), nrfPod("b", nrfCM("200m", "100")),
				nrfPod("c", nrfCM("200m", "400")), nrfPod("d", nrfCM("200m", "500"))}, want: []int64{90, 90, 80, 70}},
		{name: "a fraction of 1 scores 0", pod: st.MakePod().Name("in").Req(nrfCM("500m", "0")).Obj(),
			nodes: []*api.Node{nrfNode("a", nrfCM("1000m", "1000"))}, existing: []*api.Pod{nrfPod("a", nrfCM("500m", "100"))}, want: []int64{0}},
		{name: "zero capacity counts as fraction 1", pod: zero, nodes: []*api.Node{nrfNode("a", map[string]string{"cpu": "1"})}, want: []int64{0}},
		// One request-less container: 100m of 1000m and 200Mi of 2000Mi → 100.
		{name: "non-zero defaults", pod: st.MakePod().Name("in").Container("img", nil).Obj(),
			nodes: []*api.Node{nrfNode("a", nrfCM("1000m", "2000Mi"))}, want: []int64{100}},
		// Best-effort pods are scored, not skipped.
		{name: "no containers", pod: st.MakePod().Name("in").Obj(),
			nodes: []*api.Node{nrfNode("a", nrfCM("1000m", "1000"))}, existing: []*api.Pod{nrfPod("a", nrfCM("100m", "300"))}, want: []int64{80}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for i, p := range tc.existing {
				p.Name, p.UID = fmt.Sprint("e", i), fmt.Sprint("e", i)
			}
			if diff := cmp.Diff(tc.want, st.RawScores(t, pl, tc.pod, tc.nodes, tc.existing, true)); diff != "" {
				t.Errorf("(-want,+got):\n%s", diff)
			}
		})
	}
}

func TestNewNodeResourcesBalancedAllocationInvalid(t *testing.T) {
	if _, err := NewBalancedAllocation(NodeResourcesBalancedAllocationArgs{Resources: []config.ResourceSpec{{Name: "cpu", Weight: 2}}}, nil); err == nil {
		t.Error("weight 2 accepted")
	}
}

func TestNodeResourcesBalancedAllocationScoreAllocs(t *testing.T) {
	for _, mode := range []BalancedAllocationMode{BalancedAllocationDelta, BalancedAllocationStdDev, BalancedAllocationClassic} {
		res := baGPUSet
		if mode == BalancedAllocationClassic {
			res = nil
		}
		pl, err := NewBalancedAllocation(NodeResourcesBalancedAllocationArgs{Mode: mode, Resources: res}, nil)
		if err != nil {
			t.Fatal(err)
		}
		b := pl.(*NodeResourcesBalancedAllocation)
		node, _ := fw.NewNodeInfo(baNode("n", "4000", "8000", "4"), fw.MustPodInfo(nrfPod("n", nrfCM("1", "1000"))))
		pod := fw.MustPodInfo(nrfPod("", nrfCM("1", "1000", "nvidia.com/gpu", "1")))
		state := fw.NewCycleState()
		b.PreScore(context.Background(), state, pod, nil)
		if a := testing.AllocsPerRun(100, func() { b.Score(context.Background(), state, pod, node) }); a != 0 {
			t.Errorf("%s: %v allocs per Score, want 0", mode, a)
		}
	}
}

// TestPropBalancedAllocationRanges: Delta scores lie in [50, 100] and the
// other modes in [0, 100]; with no allocatable at all Delta gives 75.
func TestPropBalancedAllocationRanges(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		pod, nodes, pods := nrfDrawCluster(rt)
		for _, mode := range []BalancedAllocationMode{BalancedAllocationDelta, BalancedAllocationStdDev, BalancedAllocationClassic} {
			res := []config.ResourceSpec{{Name: "cpu", Weight: 1}, {Name: "memory", Weight: 1}, {Name: nrfExt, Weight: 1}}
			if mode == BalancedAllocationClassic {
				res = nil
			}
			pl, err := NewBalancedAllocation(NodeResourcesBalancedAllocationArgs{Mode: mode, Resources: res}, nil)
			if err != nil {
				rt.Fatal(err)
			}
			lo := int64(0)
			if mode == BalancedAllocationDelta {
				lo = 50
			}
			// A pod requesting none of the resources is skipped at PreScore
			// (Delta, StdDev) and scored 0 by a bare Score call, as kube.
			pi := fw.MustPodInfo(pod)
			if mode != BalancedAllocationClassic && pi.Requests.MilliCPU == 0 && pi.Requests.Memory == 0 && pi.Requests.Get(nrfExt) == 0 {
				if s := pl.(fw.PreScorePlugin).PreScore(context.Background(), fw.NewCycleState(), pi, nil); !s.IsSkip() {
					rt.Fatalf("%s: best-effort pod: PreScore = %v, want Skip", mode, s)
				}
				continue
			}
			for i, s := range st.RawScores(rt, pl, pod, nodes, pods, rapid.Bool().Draw(rt, "prescore")) {
				if s < lo || s > 100 {
					rt.Fatalf("%s: node %d score %d outside [%d,100]", mode, i, s, lo)
				}
			}
		}
	})
}

func ExampleNewBalancedAllocation() {
	pl, err := NewBalancedAllocation(DefaultNodeResourcesBalancedAllocationArgs(), nil)
	if err != nil {
		panic(err)
	}
	// Both nodes: 4 cores, 8Gi. "cpuheavy" already runs a 2-core, 1Gi pod.
	a := builder.MakeNode().Name("empty").Capacity(map[string]string{"cpu": "4", "memory": "8Gi"}).Obj()
	b := builder.MakeNode().Name("cpuheavy").Capacity(map[string]string{"cpu": "4", "memory": "8Gi"}).Obj()
	hog := builder.MakePod().Name("hog").Node("cpuheavy").Req(map[string]string{"cpu": "2", "memory": "1Gi"}).Obj()
	snap := fw.MustSnapshot([]*api.Node{a, b}, []*api.Pod{hog})
	// A memory-heavy pod balances "cpuheavy" and unbalances "empty".
	pod := fw.MustPodInfo(builder.MakePod().Name("cache").Req(map[string]string{"cpu": "0", "memory": "4Gi"}).Obj())
	state := fw.NewCycleState()
	pl.(fw.PreScorePlugin).PreScore(context.Background(), state, pod, snap.Nodes())
	for _, ni := range snap.Nodes() {
		s, _ := pl.(fw.ScorePlugin).Score(context.Background(), state, pod, ni)
		fmt.Printf("%s: %d\n", ni.Name(), s)
	}
	// empty:    with 0, .5 → 75; without 100 → 50 + (50+75−100)/2 = 62
	// cpuheavy: with .5, .625 → 93; without .5, .125 → 81 → 50 + (50+93−81)/2 = 81

	// Output:
	// empty: 62
	// cpuheavy: 81
}
