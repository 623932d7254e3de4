package noderesources

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/framework/frameworktest"
	"github.com/schedkit/schedkit/internal/st"
	"pgregory.net/rapid"
)

const (
	nrfExtA  = "example.com/aaa"
	nrfExtB  = "example.com/bbb"
	nrfKIOA  = "kubernetes.io/something"
	nrfKIOB  = "subdomain.kubernetes.io/something"
	nrfHugeA = "hugepages-2Mi"
)

// nrfRes renders milli-cpu, memory bytes and scalar counts as a request map.
func nrfRes(milliCPU, mem int64, scalars ...any) map[string]string {
	m := map[string]string{"cpu": strconv.FormatInt(milliCPU, 10) + "m", "memory": strconv.FormatInt(mem, 10)}
	for i := 0; i+1 < len(scalars); i += 2 {
		m[scalars[i].(string)] = fmt.Sprint(scalars[i+1])
	}
	return m
}

func nrfRunFilter(t testing.TB, args NodeResourcesFitArgs, pod *api.Pod, node *fw.NodeInfo) *fw.Status {
	t.Helper()
	pl, err := NewFit(args, nil)
	if err != nil {
		t.Fatal(err)
	}
	f := pl.(*NodeResourcesFit)
	state := fw.NewCycleState()
	pi := fw.MustPodInfo(pod)
	if _, s := f.PreFilter(context.Background(), state, pi, []*fw.NodeInfo{node}); !s.IsSuccess() {
		t.Fatalf("PreFilter: %v", s)
	}
	return f.Filter(context.Background(), state, pi, node)
}

// The node of kube's TestEnoughRequests: cpu 10m, memory 20, pods 32,
// example.com/aaa 5, ephemeral-storage 20, hugepages-2Mi 5.
var nrfEnoughNode = map[string]string{"cpu": "10m", "memory": "20", "pods": "32", nrfExtA: "5", "ephemeral-storage": "20", nrfHugeA: "5"}

// Cases of kube-scheduler v1.36 noderesources/fit_test.go TestEnoughRequests,
// rewritten in our types. The codes are worked out with v1.36's
// unresolvable rule (request > allocatable ⇒ UnschedulableAndUnresolvable).
func TestNodeResourcesFitEnoughRequests(t *testing.T) {
	U, UU := fw.Unschedulable, fw.UnschedulableAndUnresolvable
	ins := func(n string) string { return ReasonInsufficientPrefix + n }
	type tc struct {
		name     string
		pod      *api.Pod
		existing *api.Pod
		args     NodeResourcesFitArgs
		code     fw.Code
		reasons  []string
	}
	mk := func() *st.PodWrapper { return st.MakePod().Name("p") }
	ex := func(req map[string]string) *api.Pod { return st.MakePod().Name("e").Req(req).Obj() }
	tests := []tc{
		{name: "no resources requested always fits", pod: mk().Obj(), existing: ex(nrfRes(10, 20))},
		{name: "too many resources fails", pod: mk().Req(nrfRes(1, 1)).Obj(), existing: ex(nrfRes(10, 20)), code: U, reasons: []string{ins("cpu"), ins("memory")}},
		{name: "too many resources fails due to init container cpu", pod: mk().Req(nrfRes(1, 1)).InitReq(nrfRes(3, 1)).Obj(), existing: ex(nrfRes(8, 19)), code: U, reasons: []string{ins("cpu")}},
		{name: "too many resources fails due to highest init container cpu", pod: mk().Req(nrfRes(1, 1)).InitReq(nrfRes(3, 1)).InitReq(nrfRes(2, 1)).Obj(), existing: ex(nrfRes(8, 19)), code: U, reasons: []string{ins("cpu")}},
		{name: "too many resources fails due to init container memory", pod: mk().Req(nrfRes(1, 1)).InitReq(nrfRes(1, 3)).Obj(), existing: ex(nrfRes(9, 19)), code: U, reasons: []string{ins("memory")}},
		{name: "too many resources fails due to highest init container memory", pod: mk().Req(nrfRes(1, 1)).InitReq(nrfRes(1, 3)).InitReq(nrfRes(1, 2)).Obj(), existing: ex(nrfRes(9, 19)), code: U, reasons: []string{ins("memory")}},
		{name: "init container fits because it's the max, not sum", pod: mk().Req(nrfRes(1, 1)).InitReq(nrfRes(1, 1)).Obj(), existing: ex(nrfRes(9, 19))},
		{name: "multiple init containers fit because it's the max, not sum", pod: mk().Req(nrfRes(1, 1)).InitReq(nrfRes(1, 1)).InitReq(nrfRes(1, 1)).Obj(), existing: ex(nrfRes(9, 19))},
		{name: "both resources fit", pod: mk().Req(nrfRes(1, 1)).Obj(), existing: ex(nrfRes(5, 5))},
		{name: "one resource memory fits", pod: mk().Req(nrfRes(2, 1)).Obj(), existing: ex(nrfRes(9, 5)), code: U, reasons: []string{ins("cpu")}},
		{name: "one resource cpu fits", pod: mk().Req(nrfRes(1, 2)).Obj(), existing: ex(nrfRes(5, 19)), code: U, reasons: []string{ins("memory")}},
		{name: "equal edge case", pod: mk().Req(nrfRes(5, 1)).Obj(), existing: ex(nrfRes(5, 19))},
		{name: "equal edge case for init container", pod: mk().Req(nrfRes(4, 1)).InitReq(nrfRes(5, 1)).Obj(), existing: ex(nrfRes(5, 19))},
		{name: "extended resource fits", pod: mk().Req(map[string]string{nrfExtA: "1"}).Obj(), existing: ex(nil)},
		{name: "extended resource fits for init container", pod: mk().Req(nil).InitReq(map[string]string{nrfExtA: "1"}).Obj(), existing: ex(nil)},
		{name: "extended resource capacity enforced", pod: mk().Req(nrfRes(1, 1, nrfExtA, 10)).Obj(), existing: ex(nrfRes(0, 0, nrfExtA, 0)), code: UU, reasons: []string{ins(nrfExtA)}},
		{name: "extended resource capacity enforced for init container", pod: mk().Req(nil).InitReq(nrfRes(1, 1, nrfExtA, 10)).Obj(), existing: ex(nrfRes(0, 0, nrfExtA, 0)), code: UU, reasons: []string{ins(nrfExtA)}},
		{name: "extended resource allocatable enforced", pod: mk().Req(nrfRes(1, 1, nrfExtA, 1)).Obj(), existing: ex(nrfRes(0, 0, nrfExtA, 5)), code: U, reasons: []string{ins(nrfExtA)}},
		{name: "extended resource allocatable enforced for init container", pod: mk().Req(nil).InitReq(nrfRes(1, 1, nrfExtA, 1)).Obj(), existing: ex(nrfRes(0, 0, nrfExtA, 5)), code: U, reasons: []string{ins(nrfExtA)}},
		{name: "extended resource allocatable enforced for multiple containers", pod: mk().Req(nrfRes(1, 1, nrfExtA, 3)).Req(nrfRes(1, 1, nrfExtA, 3)).Obj(), existing: ex(nrfRes(0, 0, nrfExtA, 2)), code: UU, reasons: []string{ins(nrfExtA)}},
		{name: "extended resource allocatable admits multiple init containers", pod: mk().Req(nil).InitReq(nrfRes(1, 1, nrfExtA, 3)).InitReq(nrfRes(1, 1, nrfExtA, 3)).Obj(), existing: ex(nrfRes(0, 0, nrfExtA, 2))},
		{name: "extended resource allocatable enforced for multiple init containers", pod: mk().Req(nil).InitReq(nrfRes(1, 1, nrfExtA, 6)).InitReq(nrfRes(1, 1, nrfExtA, 3)).Obj(), existing: ex(nrfRes(0, 0, nrfExtA, 2)), code: UU, reasons: []string{ins(nrfExtA)}},
		{name: "extended resource allocatable enforced for unknown resource", pod: mk().Req(nrfRes(1, 1, nrfExtB, 1)).Obj(), existing: ex(nrfRes(0, 0)), code: UU, reasons: []string{ins(nrfExtB)}},
		{name: "extended resource allocatable enforced for unknown resource for init container", pod: mk().Req(nil).InitReq(nrfRes(1, 1, nrfExtB, 1)).Obj(), existing: ex(nrfRes(0, 0)), code: UU, reasons: []string{ins(nrfExtB)}},
		{name: "kubernetes.io resource capacity enforced", pod: mk().Req(nrfRes(1, 1, nrfKIOA, 10)).Obj(), existing: ex(nrfRes(0, 0)), code: UU, reasons: []string{ins(nrfKIOA)}},
		{name: "kubernetes.io resource capacity enforced for init container", pod: mk().Req(nil).InitReq(nrfRes(1, 1, nrfKIOB, 10)).Obj(), existing: ex(nrfRes(0, 0)), code: UU, reasons: []string{ins(nrfKIOB)}},
		{name: "hugepages resource capacity enforced", pod: mk().Req(nrfRes(1, 1, nrfHugeA, 10)).Obj(), existing: ex(nrfRes(0, 0, nrfHugeA, 0)), code: UU, reasons: []string{ins(nrfHugeA)}},
		{name: "hugepages resource capacity enforced for init container", pod: mk().Req(nil).InitReq(nrfRes(1, 1, nrfHugeA, 10)).Obj(), existing: ex(nrfRes(0, 0, nrfHugeA, 0)), code: UU, reasons: []string{ins(nrfHugeA)}},
		{name: "hugepages resource allocatable enforced for multiple containers", pod: mk().Req(nrfRes(1, 1, nrfHugeA, 3)).Req(nrfRes(1, 1, nrfHugeA, 3)).Obj(), existing: ex(nrfRes(0, 0, nrfHugeA, 2)), code: UU, reasons: []string{ins(nrfHugeA)}},
		{name: "skip checking ignored extended resource", pod: mk().Req(nrfRes(1, 1, nrfExtB, 1)).Obj(), existing: ex(nrfRes(0, 0)),
			args: NodeResourcesFitArgs{IgnoredResources: []string{nrfExtB}}},
		{name: "resources + pod overhead fits", pod: mk().Req(nrfRes(1, 1)).Overhead(map[string]string{"cpu": "3m", "memory": "13"}).Obj(), existing: ex(nrfRes(5, 5))},
		{name: "requests + overhead does not fit for memory", pod: mk().Req(nrfRes(1, 1)).Overhead(map[string]string{"cpu": "1m", "memory": "15"}).Obj(), existing: ex(nrfRes(5, 5)), code: U, reasons: []string{ins("memory")}},
		{name: "skip checking ignored extended resource via resource groups", pod: mk().Req(nrfRes(1, 1, nrfExtB, 1, nrfKIOA, 1)).Obj(), existing: ex(nrfRes(0, 0)),
			args: NodeResourcesFitArgs{IgnoredResourceGroups: []string{"example.com"}}, code: UU, reasons: []string{ins(nrfKIOA)}},
		{name: "ignoredResources never applies to non-extended resources", pod: mk().Req(nrfRes(1, 1, nrfKIOA, 1)).Obj(), existing: ex(nrfRes(0, 0)),
			args: NodeResourcesFitArgs{IgnoredResources: []string{nrfKIOA}}, code: UU, reasons: []string{ins(nrfKIOA)}},
		{name: "skip checking extended resource request with quantity zero", pod: mk().Req(nrfRes(1, 1, nrfExtA, 0)).Obj(), existing: ex(nrfRes(0, 0, nrfExtA, 6))},
		{name: "skip checking resource request with quantity zero", pod: mk().Req(map[string]string{nrfExtA: "1"}).Obj(), existing: ex(nrfRes(20, 30, nrfExtA, 1))},
		// Beyond kube's table: every failure is listed, pods first, then
		// cpu, memory, ephemeral-storage and scalars in name order; one
		// unresolvable shortfall makes the whole status unresolvable.
		{name: "all shortfalls in order", pod: mk().Req(nrfRes(11, 1, nrfExtB, 1, nrfExtA, 1)).Req(map[string]string{"ephemeral-storage": "5"}).Obj(),
			existing: ex(map[string]string{"cpu": "0", "memory": "20", "ephemeral-storage": "16", nrfExtA: "5"}),
			code:     UU, reasons: []string{ins("cpu"), ins("memory"), ins("ephemeral-storage"), ins(nrfExtA), ins(nrfExtB)}},
		{name: "requests above allocatable on an empty node", pod: mk().Req(map[string]string{"ephemeral-storage": "25"}).Obj(), existing: ex(nil), code: UU, reasons: []string{ins("ephemeral-storage")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			node := st.NodeInfo(t, "n", nrfEnoughNode, tc.existing)
			got := nrfRunFilter(t, tc.args, tc.pod, node)
			var want *fw.Status
			if tc.reasons != nil {
				want = fw.NewStatus(tc.code, tc.reasons...)
			}
			if !got.Equal(want) {
				t.Errorf("Filter = %v, want %v", got, want)
			}
		})
	}
}

// Cases of kube's TestNotEnoughRequests (a node with one pod slot, taken)
// and TestStorageRequests.
func TestNodeResourcesFitPodsAndStorage(t *testing.T) {
	full := map[string]string{"cpu": "10m", "memory": "20", "pods": "1"}
	tooMany := fw.NewStatus(fw.Unschedulable, ReasonTooManyPods)
	ex := func(req map[string]string) *api.Pod { return st.MakePod().Name("e").Req(req).Obj() }
	tests := []struct {
		name     string
		alloc    map[string]string
		pod      *api.Pod
		existing *api.Pod
		want     *fw.Status
	}{
		{"even without specified resources, fails when there's no space for another pod", full, st.MakePod().Obj(), ex(nrfRes(10, 20)), tooMany},
		{"even if both resources fit, fails on pod count", full, st.MakePod().Req(nrfRes(1, 1)).Obj(), ex(nrfRes(5, 5)), tooMany},
		{"even for equal edge case, fails on pod count", full, st.MakePod().Req(nrfRes(5, 1)).Obj(), ex(nrfRes(5, 19)), tooMany},
		{"equal edge case with init container, fails on pod count", full, st.MakePod().Req(nrfRes(5, 1)).InitReq(nrfRes(5, 1)).Obj(), ex(nrfRes(5, 19)), tooMany},
		{"pod count and unresolvable cpu", full, st.MakePod().Req(nrfRes(11, 0)).Obj(), ex(nrfRes(10, 20)),
			fw.NewStatus(fw.UnschedulableAndUnresolvable, ReasonTooManyPods, "Insufficient cpu")},
		{"zero allocatable pods", map[string]string{"cpu": "10m", "pods": "0"}, st.MakePod().Obj(), nil, tooMany},
		{"empty storage requested, and pod fits", nrfEnoughNode, st.MakePod().Req(nrfRes(1, 1)).Obj(), ex(nrfRes(2, 10)), nil},
		{"storage ephemeral local storage request exceeds allocatable", nrfEnoughNode, st.MakePod().Req(map[string]string{"ephemeral-storage": "25"}).Obj(), ex(nrfRes(2, 2)),
			fw.NewStatus(fw.UnschedulableAndUnresolvable, "Insufficient ephemeral-storage")},
		{"ephemeral local storage is sufficient", nrfEnoughNode, st.MakePod().Req(map[string]string{"ephemeral-storage": "5"}).Obj(),
			ex(map[string]string{"cpu": "2m", "memory": "2", "ephemeral-storage": "10"}), nil},
		{"ephemeral storage resolvable shortfall", nrfEnoughNode, st.MakePod().Req(map[string]string{"ephemeral-storage": "11"}).Obj(),
			ex(map[string]string{"ephemeral-storage": "10"}), fw.NewStatus(fw.Unschedulable, "Insufficient ephemeral-storage")},
		{"pod fits", nrfEnoughNode, st.MakePod().Req(map[string]string{"ephemeral-storage": "10"}).Obj(), ex(nrfRes(2, 2)), nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var pods []*api.Pod
			if tc.existing != nil {
				pods = append(pods, tc.existing)
			}
			node := st.NodeInfo(t, "n", tc.alloc, pods...)
			if got := nrfRunFilter(t, NodeResourcesFitArgs{}, tc.pod, node); !got.Equal(tc.want) {
				t.Errorf("Filter = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestNodeResourcesFitSidecarsCounted(t *testing.T) {
	// Sidecars run beside the containers: 2 + 3 = 5m > 4m free.
	pod := st.MakePod().SidecarReq(nrfRes(2, 0)).Req(nrfRes(3, 0)).Obj()
	node := st.NodeInfo(t, "n", map[string]string{"cpu": "4m", "memory": "10", "pods": "10"})
	want := fw.NewStatus(fw.UnschedulableAndUnresolvable, "Insufficient cpu")
	if got := nrfRunFilter(t, NodeResourcesFitArgs{}, pod, node); !got.Equal(want) {
		t.Errorf("Filter = %v, want %v", got, want)
	}
}

func TestNodeResourcesFitWithoutPreFilter(t *testing.T) {
	pl, err := NewFit(NodeResourcesFitArgs{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	node := st.NodeInfo(t, "n", nrfEnoughNode)
	s := pl.(fw.FilterPlugin).Filter(context.Background(), fw.NewCycleState(), fw.MustPodInfo(st.MakePod().Obj()), node)
	if s.Code() != fw.Error || s.Message() != `error reading "PreFilterNodeResourcesFit" from cycleState: framework: state key not found` {
		t.Errorf("got %v, want an Error naming the state key", s)
	}
}

func TestNewNodeResourcesFitInvalidArgs(t *testing.T) {
	_, err := NewFit(NodeResourcesFitArgs{IgnoredResourceGroups: []string{"example.com/x"}}, nil)
	if err == nil {
		t.Fatal("invalid args accepted")
	}
}

// TestNodeResourcesFitFilterAllocs checks that the per-node path does not
// allocate, for a fitting node and for single-reason rejections.
func TestNodeResourcesFitFilterAllocs(t *testing.T) {
	pl, _ := NewFit(NodeResourcesFitArgs{}, nil)
	f := pl.(*NodeResourcesFit)
	pod := fw.MustPodInfo(st.MakePod().Req(nrfRes(2, 2, nrfExtA, 1)).Obj())
	state := fw.NewCycleState()
	f.PreFilter(context.Background(), state, pod, nil)
	fits := st.NodeInfo(t, "a", nrfEnoughNode)
	cpuShort := st.NodeInfo(t, "b", nrfEnoughNode, st.MakePod().Name("e").Req(nrfRes(9, 0)).Obj())
	extShort := st.NodeInfo(t, "c", nrfEnoughNode, st.MakePod().Name("e").Req(map[string]string{nrfExtA: "5"}).Obj())
	for _, n := range []*fw.NodeInfo{fits, cpuShort, extShort} {
		allocs := testing.AllocsPerRun(100, func() { f.Filter(context.Background(), state, pod, n) })
		if allocs != 0 {
			t.Errorf("node %s: %v allocs per Filter, want 0", n.Name(), allocs)
		}
	}
}

// nrfRefFilter is a plain reference of kube v1.36 fitsRequest over the
// well-known resources and one extended resource, used by the property
// test.
func nrfRefFilter(podCPU, podMem, podExt, allocCPU, allocMem, allocExt, usedCPU, usedMem, usedExt, pods, allocPods int64) *fw.Status {
	var reasons []string
	code := fw.Unschedulable
	if pods+1 > allocPods {
		reasons = append(reasons, ReasonTooManyPods)
	}
	if podCPU == 0 && podMem == 0 && podExt == 0 {
		if reasons == nil {
			return nil
		}
		return fw.NewStatus(code, reasons...)
	}
	check := func(name string, req, alloc, used int64) {
		if req > 0 && req > alloc-used {
			reasons = append(reasons, "Insufficient "+name)
			if req > alloc {
				code = fw.UnschedulableAndUnresolvable
			}
		}
	}
	check("cpu", podCPU, allocCPU, usedCPU)
	check("memory", podMem, allocMem, usedMem)
	check(nrfExtA, podExt, allocExt, usedExt)
	if reasons == nil {
		return nil
	}
	return fw.NewStatus(code, reasons...)
}

// TestPropNodeResourcesFitMatchesReference compares Filter with the plain
// reference on random nodes, and checks that verdicts do not depend on the
// order nodes are filtered in.
func TestPropNodeResourcesFitMatchesReference(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		podCPU := rapid.Int64Range(0, 20).Draw(rt, "podCPU")
		podMem := rapid.Int64Range(0, 20).Draw(rt, "podMem")
		podExt := rapid.Int64Range(0, 5).Draw(rt, "podExt")
		req := map[string]string{}
		if podCPU > 0 {
			req["cpu"] = fmt.Sprintf("%dm", podCPU)
		}
		if podMem > 0 {
			req["memory"] = fmt.Sprint(podMem)
		}
		if podExt > 0 {
			req[nrfExtA] = fmt.Sprint(podExt)
		}
		pod := fw.MustPodInfo(st.MakePod().Name("p").Req(req).Obj())
		n := rapid.IntRange(1, 6).Draw(rt, "nodes")
		type spec struct{ aCPU, aMem, aExt, uCPU, uMem, uExt, pods, aPods int64 }
		specs := make([]spec, n)
		nodes := make([]*fw.NodeInfo, n)
		for i := range n {
			s := spec{
				aCPU: rapid.Int64Range(0, 20).Draw(rt, "aCPU"), aMem: rapid.Int64Range(0, 20).Draw(rt, "aMem"),
				aExt: rapid.Int64Range(0, 5).Draw(rt, "aExt"), uCPU: rapid.Int64Range(0, 20).Draw(rt, "uCPU"),
				uMem: rapid.Int64Range(0, 20).Draw(rt, "uMem"), uExt: rapid.Int64Range(0, 5).Draw(rt, "uExt"),
				aPods: rapid.Int64Range(0, 3).Draw(rt, "aPods"),
			}
			var pods []*api.Pod
			if s.uCPU+s.uMem+s.uExt > 0 || rapid.Bool().Draw(rt, "extraPod") {
				m := map[string]string{"cpu": fmt.Sprintf("%dm", s.uCPU), "memory": fmt.Sprint(s.uMem), nrfExtA: fmt.Sprint(s.uExt)}
				pods = append(pods, st.MakePod().Name(fmt.Sprint("e", i)).Req(m).Obj())
			}
			s.pods = int64(len(pods))
			specs[i] = s
			nodes[i] = st.NodeInfo(rt, fmt.Sprint("n", i), map[string]string{
				"cpu": fmt.Sprintf("%dm", s.aCPU), "memory": fmt.Sprint(s.aMem), nrfExtA: fmt.Sprint(s.aExt), "pods": fmt.Sprint(s.aPods),
			}, pods...)
		}
		pl, _ := NewFit(NodeResourcesFitArgs{}, nil)
		f := pl.(*NodeResourcesFit)
		state := fw.NewCycleState()
		f.PreFilter(context.Background(), state, pod, nodes)
		got := make([]*fw.Status, n)
		for i, ni := range nodes {
			got[i] = f.Filter(context.Background(), state, pod, ni)
			s := specs[i]
			want := nrfRefFilter(podCPU, podMem, podExt, s.aCPU, s.aMem, s.aExt, s.uCPU, s.uMem, s.uExt, s.pods, s.aPods)
			if !got[i].Equal(want) {
				rt.Fatalf("node %d %+v: Filter = %v, reference = %v", i, s, got[i], want)
			}
		}
		perm := rand.New(rand.NewPCG(uint64(n), 7)).Perm(n)
		for _, i := range perm {
			if s := f.Filter(context.Background(), state, pod, nodes[i]); !s.Equal(got[i]) {
				rt.Fatalf("node %d: verdict changed with order: %v vs %v", i, s, got[i])
			}
		}
	})
}

func ExampleNewFit_filter() {
	pl, err := NewFit(DefaultNodeResourcesFitArgs(), nil)
	if err != nil {
		panic(err)
	}
	fit := pl.(*NodeResourcesFit)
	small := builder.MakeNode().Name("small").Capacity(map[string]string{"cpu": "1", "memory": "1Gi", "pods": "110"}).Obj()
	busy := builder.MakeNode().Name("busy").Capacity(map[string]string{"cpu": "4", "memory": "8Gi", "pods": "110"}).Obj()
	big := builder.MakeNode().Name("big").Capacity(map[string]string{"cpu": "8", "memory": "16Gi", "pods": "110"}).Obj()
	hog := builder.MakePod().Name("hog").Node("busy").Req(map[string]string{"cpu": "3", "memory": "1Gi"}).Obj()
	snap := fw.MustSnapshot([]*api.Node{small, busy, big}, []*api.Pod{hog})

	pod := fw.MustPodInfo(builder.MakePod().Name("web").Req(map[string]string{"cpu": "2", "memory": "2Gi"}).Obj())
	state := fw.NewCycleState()
	fit.PreFilter(context.Background(), state, pod, snap.Nodes())
	for _, ni := range snap.Nodes() {
		fmt.Printf("%s: %v\n", ni.Name(), fit.Filter(context.Background(), state, pod, ni))
	}
	// Output:
	// small: UnschedulableAndUnresolvable: Insufficient cpu, Insufficient memory
	// busy: Unschedulable: Insufficient cpu
	// big: Success
}

// nrfPropSetup returns the filter with default args and a drawer of small
// quantities (0..max) for the property tests below.
func nrfPropSetup(t *rapid.T) (*NodeResourcesFit, func(label string, max int) string) {
	p, err := NewFit(DefaultNodeResourcesFitArgs(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return p.(*NodeResourcesFit), func(label string, max int) string { return fmt.Sprint(rapid.IntRange(0, max).Draw(t, label)) }
}

// TestPropNodeResourcesFitMemoizedStatus: the multi-reason status a node
// with several shortfalls gets (memoized per combination of shortfalls)
// equals the status built for that node afresh, whatever the nodes seen
// before.
func TestPropNodeResourcesFitMemoizedStatus(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pl, q := nrfPropSetup(t)
		for range rapid.IntRange(1, 12).Draw(t, "rounds") {
			req := map[string]string{"cpu": q("reqCPU", 4), "memory": q("reqMem", 4)}
			if rapid.Bool().Draw(t, "reqEph") {
				req["ephemeral-storage"] = q("eph", 3)
			}
			if rapid.IntRange(0, 3).Draw(t, "reqGPU") == 0 {
				req["example.com/gpu"] = q("gpu", 2)
			}
			pod := fw.MustPodInfo(st.MakePod().Name("p").Req(req).Obj())
			state := fw.NewCycleState()
			if _, s := pl.PreFilter(context.Background(), state, pod, nil); !s.IsSuccess() {
				t.Fatal(s)
			}
			node := st.MakeNode().Name("n").Capacity(map[string]string{"cpu": q("cpu", 4), "memory": q("mem", 4),
				"ephemeral-storage": q("nodeEph", 3), "pods": q("pods", 2), "example.com/gpu": q("nodeGPU", 2)}).Obj()
			var pods []*fw.PodInfo
			for j := range rapid.IntRange(0, 2).Draw(t, "existing") {
				pods = append(pods, fw.MustPodInfo(st.MakePod().Name(fmt.Sprint("e", j)).Req(map[string]string{"cpu": q("usedCPU", 2), "memory": q("usedMem", 2)}).Obj()))
			}
			ni, _ := fw.NewNodeInfo(node, pods...)
			s, _ := nrfReadPreFilterState(state)
			got, want := pl.filter(s, ni), pl.buildStatus(s, ni)
			if want.IsSuccess() || len(want.Reasons()) < 2 {
				continue // single reasons come from pl.filter's pre-built statuses
			}
			if !st.SameStatus(got, want) {
				t.Fatalf("node %v with pods %d, pod %v: got %v, want %v", node.Status.Allocatable, len(pods), req, got, want)
			}
		}
	})
}

// TestPropNodeResourcesFitBatchScalars: the conformance harness on nodes
// with and without scalar resources and pods requesting scalar resources
// (nodes without any take the dense path) or none, with and without
// DeviceClasses backing some of them.
func TestPropNodeResourcesFitBatchScalars(t *testing.T) {
	frameworktest.RunCases(t, func(t *rapid.T) frameworktest.Case {
		pl, q := nrfPropSetup(t)
		var nodes []*api.Node
		var pods []*api.Pod
		for i := range rapid.IntRange(1, 8).Draw(t, "nodes") {
			c := map[string]string{"cpu": q("cpu", 4), "memory": q("mem", 4), "ephemeral-storage": q("eph", 2), "pods": q("pods", 2)}
			if rapid.Bool().Draw(t, "gpuNode") {
				c["example.com/gpu"] = q("gpu", 2)
			}
			n := st.MakeNode().Name(fmt.Sprint("n", i)).Capacity(c).Obj()
			nodes = append(nodes, n)
			for j := range rapid.IntRange(0, 2).Draw(t, "existing") {
				pods = append(pods, st.MakePod().Name(fmt.Sprint("e", i, j)).Node(n.Name).Req(map[string]string{"cpu": q("usedCPU", 2), "memory": q("usedMem", 2)}).Obj())
			}
		}
		req := map[string]string{"cpu": q("reqCPU", 4), "memory": q("reqMem", 4), "ephemeral-storage": q("reqEph", 2)}
		for _, r := range []string{"example.com/gpu", "example.com/fpga"} {
			if rapid.Bool().Draw(t, "req "+r) {
				req[r] = fmt.Sprint(rapid.IntRange(1, 2).Draw(t, "amount "+r))
			}
		}
		var classes []api.StorageObject
		for _, r := range []string{"example.com/gpu", "example.com/fpga"} {
			if rapid.Bool().Draw(t, "class "+r) {
				classes = append(classes, nrfGPUClass("class-"+r[len("example.com/"):], r))
			}
		}
		return frameworktest.Case{Plugin: pl, Nodes: nodes, Pods: pods, Incoming: st.MakePod().Name("p").Req(req).Obj(),
			SnapshotOptions: []fw.SnapshotOption{fw.WithStorage(classes...)}}
	})
}

// TestNodeResourcesFitPreFilterStateShared: a pod that asks for no
// scalar resource shares the PreFilter state of one of the last
// nrfPlainKept such pods of other requests when it asks for as much cpu,
// memory and ephemeral storage, and gets its own otherwise; a pod asking
// for a scalar resource neither reads nor replaces the shared states.
func TestNodeResourcesFitPreFilterStateShared(t *testing.T) {
	pl, err := NewFit(NodeResourcesFitArgs{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	f := pl.(*NodeResourcesFit)
	stateOf := func(req map[string]string) *nrfPreFilterState {
		t.Helper()
		state := fw.NewCycleState()
		if _, s := f.PreFilter(context.Background(), state, fw.MustPodInfo(st.MakePod().Req(req).Obj()), nil); !s.IsSuccess() {
			t.Fatalf("PreFilter: %v", s)
		}
		s, st := nrfReadPreFilterState(state)
		if st != nil {
			t.Fatal(st)
		}
		return s
	}
	a := stateOf(nrfRes(100, 1<<30))
	// As much cpu and memory as the pod before it, more storage.
	withEph := map[string]string{"cpu": "100m", "memory": strconv.Itoa(2 << 30), "ephemeral-storage": "1"}
	steps := []struct {
		name    string
		req     map[string]string
		shares  *nrfPreFilterState // nil: a state of its own
		scalars int
	}{
		{"the same requests", nrfRes(100, 1<<30), a, 0},
		{"more memory", nrfRes(100, 2<<30), nil, 0},
		{"a scalar besides", nrfRes(100, 1<<30, nrfExtA, 1), nil, 1},
		{"ephemeral storage besides", withEph, nil, 0},
	}
	var mine []*nrfPreFilterState
	for _, s := range steps {
		got := stateOf(s.req)
		if s.shares != nil && got != s.shares {
			t.Fatalf("%s: a state of its own, want the shared one", s.name)
		}
		if s.shares == nil && (got == a || slices.Contains(mine, got)) {
			t.Fatalf("%s: shares an earlier pod's state", s.name)
		}
		if len(got.scalars) != s.scalars {
			t.Fatalf("%s: %d scalar requests in the state, want %d", s.name, len(got.scalars), s.scalars)
		}
		mine = append(mine, got)
	}
	if again := stateOf(withEph); again != mine[len(mine)-1] {
		t.Fatal("the last pod without scalars: its state is not shared by the next pod asking as much")
	}
	if again := stateOf(nrfRes(100, 1<<30)); again != a {
		t.Fatal("the first pod's requests after two others: a state of its own, want the first pod's")
	}
	// nrfPlainKept states of other requests replace the first pod's.
	for i := range nrfPlainKept {
		stateOf(nrfRes(int64(200+i), 1<<30))
	}
	if again := stateOf(nrfRes(100, 1<<30)); again == a {
		t.Fatalf("the first pod's state still shared after %d pods of other requests", nrfPlainKept)
	}
}
