package karmada

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
)

// Test-local node filters with Karmada's NodeClaim semantics (the filter
// package's plugins are exercised in accurate_filters_test.go, an external
// test, because filter imports estimator).
type taintFilter struct{}

var rejectedStatus = framework.NewStatus(framework.UnschedulableAndUnresolvable, "rejected")

func (taintFilter) Name() string { return "TestTaints" }
func (taintFilter) Filter(_ context.Context, _ *framework.CycleState, pod *framework.PodInfo, node *framework.NodeInfo) *framework.Status {
	for i := range node.Node().Spec.Taints {
		t := &node.Node().Spec.Taints[i]
		if t.Effect != api.TaintEffectNoSchedule && t.Effect != api.TaintEffectNoExecute {
			continue
		}
		if !api.TolerationsTolerateTaint(pod.Pod.Spec.Tolerations, t) {
			return rejectedStatus
		}
	}
	return nil
}

type affinityFilter struct{}

func (affinityFilter) Name() string { return "TestAffinity" }
func (affinityFilter) Filter(_ context.Context, _ *framework.CycleState, pod *framework.PodInfo, node *framework.NodeInfo) *framework.Status {
	r := api.GetRequiredNodeAffinity(pod.Pod)
	if !r.Match(node.Node()) {
		return rejectedStatus
	}
	return nil
}

type unschedulableFilter struct{}

func (unschedulableFilter) Name() string { return "TestUnschedulable" }
func (unschedulableFilter) Filter(_ context.Context, _ *framework.CycleState, pod *framework.PodInfo, node *framework.NodeInfo) *framework.Status {
	t := api.Taint{Key: "node.kubernetes.io/unschedulable", Effect: api.TaintEffectNoSchedule}
	if node.Node().Spec.Unschedulable && !api.TolerationsTolerateTaint(pod.Pod.Spec.Tolerations, &t) {
		return rejectedStatus
	}
	return nil
}

func localFilters() []framework.FilterPlugin {
	return []framework.FilterPlugin{affinityFilter{}, taintFilter{}, unschedulableFilter{}}
}

// serverTestSnapshot builds the cluster of Karmada's
// pkg/estimator/server/server_test.go: three nodes of 8 cpu, 16 memory units
// (Gi here), pods given per node, 16 ephemeral-storage units, and the same
// five pods. node(i) can change labels, taints and pod capacity.
func serverTestSnapshot(podCaps [3]string, edit func(i int, w *st.NodeWrapper)) *framework.Snapshot {
	nodes := make([]*api.Node, 3)
	for i := range nodes {
		w := st.MakeNode().Name("machine" + string(rune('1'+i))).Capacity(map[string]string{"cpu": "8", "memory": "16Gi", "pods": podCaps[i], "ephemeral-storage": "16Gi"})
		if edit != nil {
			edit(i, w)
		}
		nodes[i] = w.Obj()
	}
	pod := func(name, node, cpu, mem, eph string) *api.Pod {
		req := map[string]string{"cpu": cpu, "memory": mem}
		if eph != "" {
			req["ephemeral-storage"] = eph
		}
		return st.MakePod().Name(name).Node(node).Req(req).Obj()
	}
	pods := []*api.Pod{
		pod("pod1", "machine1", "1", "3Gi", ""),
		pod("pod2", "machine1", "3", "3Gi", ""),
		pod("pod3", "machine1", "2", "4Gi", "2Gi"),
		pod("pod4", "machine2", "4", "8Gi", "2Gi"),
		pod("pod5", "machine2", "1", "3Gi", "2Gi"),
	}
	return framework.MustSnapshot(nodes, pods)
}

// Karmada TestAccurateSchedulerEstimatorServer_MaxAvailableReplicas, request
// 1 cpu / 2 memory units. Left per node: machine1 2 cpu, 6 mem, 8 pods;
// machine2 3, 5, 9; machine3 8, 16, 11.
func TestNodeResourceEstimatorServerCases(t *testing.T) {
	req := func(nc *NodeClaim) *ReplicaRequirements {
		return &ReplicaRequirements{ResourceRequest: parseList(map[string]string{"cpu": "1", "memory": "2Gi"}), NodeClaim: nc}
	}
	eleven := [3]string{"11", "11", "11"}
	tests := []struct {
		name string
		snap *framework.Snapshot
		req  *ReplicaRequirements
		want int32
	}{
		// min(2, 3, 8) + min(3, 2, 9) + min(8, 8, 11) = 2 + 2 + 8.
		{"normal", serverTestSnapshot(eleven, nil), req(nil), 12},
		// Pod caps 4 and 3 leave 1 slot each: 1 + 1 + 8.
		{"pod resource strict", serverTestSnapshot([3]string{"4", "3", "11"}, nil), req(nil), 10},
		{"node selector a=3", serverTestSnapshot(eleven, func(i int, w *st.NodeWrapper) {
			switch i {
			case 0:
				w.Label("a", "1")
			case 1:
				w.Label("a", "3").Label("b", "2")
			}
		}), req(&NodeClaim{NodeSelector: map[string]string{"a": "3"}}), 2},
		{"node affinity a Gt 0", serverTestSnapshot(eleven, func(i int, w *st.NodeWrapper) {
			switch i {
			case 0:
				w.Label("a", "1")
			case 1:
				w.Label("a", "3").Label("b", "2")
			}
		}), req(&NodeClaim{HardNodeAffinity: &api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{{
			MatchExpressions: []api.NodeSelectorRequirement{{Key: "a", Operator: api.NodeSelectorOpGt, Values: []string{"0"}}},
		}}}}), 4},
		{"tolerations", serverTestSnapshot(eleven, func(i int, w *st.NodeWrapper) {
			switch i {
			case 0:
				w.Taint("key1", "value1", api.TaintEffectNoSchedule)
			case 1:
				w.Taint("key2", "value2", api.TaintEffectNoSchedule)
			}
		}), req(&NodeClaim{Tolerations: []api.Toleration{{Key: "key1", Operator: api.TolerationOpEqual, Value: "value1"}}}), 10},
		// Edge cases.
		{"prefer-no-schedule taints are ignored", serverTestSnapshot(eleven, func(i int, w *st.NodeWrapper) {
			w.Taint("soft", "x", api.TaintEffectPreferNoSchedule)
		}), req(nil), 12},
		{"cordoned node needs a toleration", serverTestSnapshot(eleven, func(i int, w *st.NodeWrapper) {
			if i == 2 {
				w.Unschedulable()
			}
		}), req(nil), 4},
		{"cordoned node tolerated", serverTestSnapshot(eleven, func(i int, w *st.NodeWrapper) {
			if i == 2 {
				w.Unschedulable()
			}
		}), req(&NodeClaim{Tolerations: []api.Toleration{{Key: "node.kubernetes.io/unschedulable", Operator: api.TolerationOpExists}}}), 12},
		// No request: free pod slots 8 + 9 + 11.
		{"empty request", serverTestSnapshot(eleven, nil), &ReplicaRequirements{}, 28},
		{"nil request", serverTestSnapshot(eleven, nil), nil, 28},
		// Ephemeral storage left: 14, 12, 16 Gi → 3 Gi each: 4 + 4 + 5.
		{"ephemeral storage", serverTestSnapshot(eleven, nil), testReq(map[string]string{"ephemeral-storage": "3Gi"}), 13},
		// Scalars the nodes lack give 0; names Karmada ignores are ignored.
		{"missing extended resource", serverTestSnapshot(eleven, nil), testReq(map[string]string{"cpu": "1", "nvidia.com/gpu": "1"}), 0},
		{"unknown name ignored", serverTestSnapshot(eleven, nil), testReq(map[string]string{"cpu": "1", "storage": "1Gi"}), 13},
		{"requests above allocatable", serverTestSnapshot(eleven, nil), testReq(map[string]string{"cpu": "9"}), 0},
		{"zero request skipped", serverTestSnapshot(eleven, nil), testReq(map[string]string{"cpu": "0", "memory": "2Gi"}), 3 + 2 + 8},
		{"empty snapshot", framework.MustSnapshot(nil, nil), req(nil), 0},
	}
	p, err := NewNodeResourceEstimator(localFilters()...)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, st := p.Estimate(context.Background(), tt.snap, tt.req)
			if !st.IsSuccess() {
				t.Fatalf("status %v", st)
			}
			if got != tt.want {
				t.Errorf("Estimate = %d, want %d", got, tt.want)
			}
		})
	}
}

// Over-committed nodes (requested > allocatable) count 0, not a negative
// number.
func TestNodeResourceEstimatorOvercommitted(t *testing.T) {
	nodes := []*api.Node{
		st.MakeNode().Name("a").Capacity(map[string]string{"cpu": "2", "pods": "10"}).Obj(),
		st.MakeNode().Name("b").Capacity(map[string]string{"cpu": "4", "pods": "10"}).Obj(),
	}
	pods := []*api.Pod{st.MakePod().Name("p").Node("a").Req(map[string]string{"cpu": "5"}).Obj()}
	p, _ := NewNodeResourceEstimator()
	got, s := p.Estimate(context.Background(), framework.MustSnapshot(nodes, pods), testReq(map[string]string{"cpu": "1"}))
	if !s.IsSuccess() || got != 4 {
		t.Errorf("got %d, %v; want 4", got, s)
	}
}

// namesPreFilter narrows the nodes through a PreFilterResult, or returns
// a fixed status.
type namesPreFilter struct {
	names  []string
	status *framework.Status
}

func (namesPreFilter) Name() string { return "TestNames" }
func (f namesPreFilter) PreFilter(context.Context, *framework.CycleState, *framework.PodInfo, []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	if f.status != nil {
		return nil, f.status
	}
	set := map[string]struct{}{}
	for _, n := range f.names {
		set[n] = struct{}{}
	}
	return &framework.PreFilterResult{NodeNames: set}, nil
}
func (namesPreFilter) PreFilterExtensions() framework.PreFilterExtensions { return nil }
func (namesPreFilter) Filter(context.Context, *framework.CycleState, *framework.PodInfo, *framework.NodeInfo) *framework.Status {
	return nil
}

type errorFilter struct{}

func (errorFilter) Name() string { return "TestError" }
func (errorFilter) Filter(context.Context, *framework.CycleState, *framework.PodInfo, *framework.NodeInfo) *framework.Status {
	return framework.NewStatus(framework.Error, "boom")
}

func TestNodeResourceEstimatorPreFilter(t *testing.T) {
	snap := serverTestSnapshot([3]string{"11", "11", "11"}, nil)
	req := testReq(map[string]string{"cpu": "1", "memory": "2Gi"})
	tests := []struct {
		name    string
		filters []framework.FilterPlugin
		want    int32
		wantErr string
	}{
		{"narrowed to machine2 and machine3", []framework.FilterPlugin{namesPreFilter{names: []string{"machine2", "machine3"}}}, 10, ""},
		{"two narrowings intersect", []framework.FilterPlugin{namesPreFilter{names: []string{"machine2", "machine3"}}, namesPreFilter{names: []string{"machine1", "machine2"}}}, 2, ""},
		{"skip disables the filter", []framework.FilterPlugin{namesPreFilter{status: framework.NewStatus(framework.Skip)}}, 12, ""},
		{"rejection: no node fits", []framework.FilterPlugin{namesPreFilter{status: framework.NewStatus(framework.UnschedulableAndUnresolvable, "conflict")}}, 0, ""},
		{"prefilter error", []framework.FilterPlugin{namesPreFilter{status: framework.NewStatus(framework.Error, "bad")}}, 0, `prefilter "TestNames": bad`},
		{"filter error", []framework.FilterPlugin{errorFilter{}}, 0, `filter "TestError" on node "machine1": boom`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := NewNodeResourceEstimator(tt.filters...)
			if err != nil {
				t.Fatal(err)
			}
			got, s := p.Estimate(context.Background(), snap, req)
			if tt.wantErr != "" {
				if s.Code() != framework.Error || !strings.Contains(s.Message(), tt.wantErr) {
					t.Fatalf("status %v, want error %q", s, tt.wantErr)
				}
				return
			}
			if !s.IsSuccess() || got != tt.want {
				t.Errorf("got %d, %v; want %d", got, s, tt.want)
			}
		})
	}
	if _, err := NewNodeResourceEstimator(nil); err == nil {
		t.Error("nil filter accepted")
	}
}

// fixedPlugin returns a fixed answer.
type fixedPlugin struct {
	name string
	n    int32
	s    *framework.Status
}

func (p fixedPlugin) Name() string { return p.name }
func (p fixedPlugin) Estimate(context.Context, *framework.Snapshot, *ReplicaRequirements) (int32, *framework.Status) {
	return p.n, p.s
}

// Karmada's RunEstimateReplicasPlugins and estimateReplicas: the minimum of
// Success and Unschedulable plugins; Unschedulable → 0; failure → error;
// only Nooperation (Skip) → MaxInt32.
func TestAccurateEstimatorCombination(t *testing.T) {
	snap := serverTestSnapshot([3]string{"11", "11", "11"}, nil)
	succ := func(name string, n int32) ReplicaEstimatorPlugin { return fixedPlugin{name, n, nil} }
	tests := []struct {
		name    string
		plugins []ReplicaEstimatorPlugin
		want    int32
		wantErr string
	}{
		{"one plugin", []ReplicaEstimatorPlugin{succ("a", 12)}, 12, ""},
		{"minimum", []ReplicaEstimatorPlugin{succ("a", 12), succ("b", 5)}, 5, ""},
		{"unschedulable wins", []ReplicaEstimatorPlugin{succ("a", 12), fixedPlugin{"q", 7, framework.NewStatus(framework.Unschedulable, "quota")}}, 0, ""},
		{"skip ignored", []ReplicaEstimatorPlugin{succ("a", 12), fixedPlugin{"q", 1, framework.NewStatus(framework.Skip)}}, 12, ""},
		{"only skip", []ReplicaEstimatorPlugin{fixedPlugin{"q", 1, framework.NewStatus(framework.Skip)}}, math.MaxInt32, ""},
		{"no plugins", nil, math.MaxInt32, ""},
		{"failure", []ReplicaEstimatorPlugin{succ("a", 12), fixedPlugin{"q", 3, framework.NewStatus(framework.Error, "quota lister down")}}, 0, `plugin "q" failed: quota lister down`},
		{"wait is a failure", []ReplicaEstimatorPlugin{fixedPlugin{"w", 3, framework.NewStatus(framework.Wait)}}, 0, `plugin "w" failed`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := NewAccurateEstimator(AccurateOptions{}, tt.plugins...)
			if err != nil {
				t.Fatal(err)
			}
			got, err := e.ClusterReplicas(context.Background(), snap, nil)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("got %d, %v; want %d", got, err, tt.want)
			}
		})
	}
	// No nodes: 0 without asking the plugins.
	e, _ := NewAccurateEstimator(AccurateOptions{}, succ("a", 12))
	if got, err := e.ClusterReplicas(context.Background(), framework.MustSnapshot(nil, nil), nil); got != 0 || err != nil {
		t.Errorf("no nodes: %d, %v", got, err)
	}
}

func TestAccurateEstimatorMaxAvailableReplicas(t *testing.T) {
	p, _ := NewNodeResourceEstimator(localFilters()...)
	clusters := []ClusterSnapshot{
		{Name: "full", Snapshot: serverTestSnapshot([3]string{"11", "11", "11"}, nil)},
		{Name: "strict", Snapshot: serverTestSnapshot([3]string{"4", "3", "11"}, nil)},
		{Name: "empty", Snapshot: framework.MustSnapshot(nil, nil)},
	}
	req := testReq(map[string]string{"cpu": "1", "memory": "2Gi"})
	want := []TargetCluster{{"full", 12}, {"strict", 10}, {"empty", 0}}
	for _, par := range []int{0, 1, 2, 8} {
		e, err := NewAccurateEstimator(AccurateOptions{Parallelism: par}, p)
		if err != nil {
			t.Fatal(err)
		}
		got, err := e.MaxAvailableReplicas(context.Background(), clusters, req)
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("parallelism %d: got %v, want %v", par, got, want)
				break
			}
		}
	}
	// A failing cluster fails the call and is marked UnauthenticReplica.
	failing := fixedPlugin{"q", 0, framework.NewStatus(framework.Error, "down")}
	e, _ := NewAccurateEstimator(AccurateOptions{}, p, failing)
	got, err := e.MaxAvailableReplicas(context.Background(), clusters[:1], req)
	if err == nil || !strings.Contains(err.Error(), `cluster "full"`) || got[0].Replicas != UnauthenticReplica {
		t.Errorf("failing cluster: %v, %v", got, err)
	}
	// Bad input.
	for name, tc := range map[string]struct {
		clusters []ClusterSnapshot
		want     string
	}{
		"empty":     {nil, "empty cluster list"},
		"unnamed":   {[]ClusterSnapshot{{Snapshot: clusters[0].Snapshot}}, "clusters[0]: empty name"},
		"duplicate": {[]ClusterSnapshot{clusters[0], clusters[0]}, `both named "full"`},
		"nil snap":  {[]ClusterSnapshot{{Name: "x"}}, `cluster "x": nil snapshot`},
	} {
		e, _ := NewAccurateEstimator(AccurateOptions{}, p)
		if _, err := e.MaxAvailableReplicas(context.Background(), tc.clusters, req); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", name, err, tc.want)
		}
	}
	if _, err := NewAccurateEstimator(AccurateOptions{Parallelism: -1}); err == nil {
		t.Error("negative parallelism accepted")
	}
	if _, err := NewAccurateEstimator(AccurateOptions{}, p, p); err == nil {
		t.Error("duplicate plugin accepted")
	}
	if _, err := NewAccurateEstimator(AccurateOptions{}, nil); err == nil {
		t.Error("nil plugin accepted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.MaxAvailableReplicas(ctx, clusters[:1], req); err == nil {
		t.Error("cancelled context ignored")
	}
}

// The per-node loop does not allocate: estimating 500 nodes costs the same
// allocations as 5 (all per-call).
func TestNodeResourceEstimatorPerNodeAllocs(t *testing.T) {
	mk := func(n int) *framework.Snapshot {
		nodes := make([]*api.Node, n)
		for i := range nodes {
			nodes[i] = st.MakeNode().Name(string(rune('a'+i%26))+string(rune('0'+i/26%10))+string(rune('0'+i/260))).
				Capacity(map[string]string{"cpu": "8", "memory": "16Gi", "pods": "110", "nvidia.com/gpu": "2"}).
				Taint("k", "v", api.TaintEffectNoSchedule).Label("zone", "z").Obj()
		}
		return framework.MustSnapshot(nodes, nil)
	}
	// (The test-local affinity filter compiles the selector per node, so it
	// is left out here; the filter package's NodeAffinity does that once in
	// PreFilter.)
	p, _ := NewNodeResourceEstimator(taintFilter{}, unschedulableFilter{})
	req := &ReplicaRequirements{ResourceRequest: parseList(map[string]string{"cpu": "1", "memory": "1Gi", "nvidia.com/gpu": "1"}),
		NodeClaim: &NodeClaim{Tolerations: []api.Toleration{{Key: "k", Operator: api.TolerationOpExists}}}}
	small, large := mk(5), mk(500)
	ctx := context.Background()
	if n, _ := p.Estimate(ctx, large, req); n != 1000 {
		t.Fatalf("500 nodes × 2 GPUs: %d, want 1000", n)
	}
	a := testing.AllocsPerRun(20, func() { p.Estimate(ctx, small, req) })
	b := testing.AllocsPerRun(20, func() { p.Estimate(ctx, large, req) })
	// A per-node allocation would add ~500; allow a little slack because the
	// race detector makes sync.Pool drop items at random.
	if b > a+3 {
		t.Errorf("allocations grow with nodes: %v for 5 nodes, %v for 500", a, b)
	}
}
