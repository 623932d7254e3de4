package defaultpreemption

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/filter/noderesources"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/runtime"
	"github.com/schedkit/schedkit/internal/st"
)

// The cases below are modelled on kube-scheduler v1.36's
// pkg/scheduler/framework/plugins/defaultpreemption/default_preemption_test.go
// (TestPostFilter, TestSelectBestCandidate, TestCustomSelection), written
// in our types. Resources follow that file: small 100m/100, medium 200m/200,
// large 300m/300, very large 500m/500 (cpu/memory bytes); as a node
// capacity they come with 32 pods, the default of kube's test NodeWrapper.
// The messages of successful preemptions are v1.37's (the same file at
// v1.37.2, TestPostFilter's wantStatus); v1.36 gives them none.

var (
	ppNeg, ppLow, ppMid, ppHigh, ppVeryHigh = int32(-100), int32(0), int32(100), int32(1000), int32(10000)

	ppSmall     = map[string]string{"cpu": "100m", "memory": "100"}
	ppMedium    = map[string]string{"cpu": "200m", "memory": "200"}
	ppLarge     = map[string]string{"cpu": "300m", "memory": "300"}
	ppVeryLarge = map[string]string{"cpu": "500m", "memory": "500"}
	ppOnePod    = map[string]string{"pods": "1"}
	ppNodeRes   = map[string]string{"cpu": "200m", "memory": "400", "pods": "110"}

	ppEpoch = time.Unix(0, 0)
)

func ppEpochN(n int) time.Time { return time.Unix(0, int64(n)) }

// ppCap is a node capacity: res plus kube's test default of 32 pods.
func ppCap(res map[string]string) map[string]string {
	out := map[string]string{"pods": "32"}
	for k, v := range res {
		out[k] = v
	}
	return out
}

// ppErrPlugin is kube's TestPlugin: a PreFilter whose AddPod/RemovePod
// extensions fail on nodes labelled error=true.
type ppErrPlugin struct{}

func (ppErrPlugin) Name() string { return "test-plugin" }
func (ppErrPlugin) PreFilter(context.Context, *framework.CycleState, *framework.PodInfo, []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	return nil, nil
}
func (p ppErrPlugin) PreFilterExtensions() framework.PreFilterExtensions { return p }
func (ppErrPlugin) AddPod(_ context.Context, _ *framework.CycleState, pod, _ *framework.PodInfo, n *framework.NodeInfo) *framework.Status {
	if n.Node().Labels["error"] == "true" {
		return framework.AsStatus(fmt.Errorf("failed to add pod: %v", pod.Pod.Name))
	}
	return nil
}
func (ppErrPlugin) RemovePod(_ context.Context, _ *framework.CycleState, pod, _ *framework.PodInfo, n *framework.NodeInfo) *framework.Status {
	if n.Node().Labels["error"] == "true" {
		return framework.AsStatus(fmt.Errorf("failed to remove pod: %v", pod.Pod.Name))
	}
	return nil
}

// ppEnv is a framework with NodeResourcesFit (filter) and
// DefaultPreemption over nodes and bound pods, and a cycle state after
// PreFilter for pod; evictions go to a recording Evictor, the offset is
// drawn from the source a scheduling.Scheduler seeded with 4 draws from.
type ppEnv struct {
	fw      *runtime.Framework
	pl      *DefaultPreemption
	state   *framework.CycleState
	pi      *framework.PodInfo
	evicted *ppEvictor
}

// ppEvictor records the evictions.
type ppEvictor struct{ victims map[string][]string }

func (e *ppEvictor) Evict(_ *framework.CycleState, _ *api.Pod, node string, victims []*framework.PodInfo, _ string) error {
	for _, v := range victims {
		e.victims[node] = append(e.victims[node], v.Pod.Key())
	}
	return nil
}

func ppRegistry() *framework.Registry {
	reg := framework.NewRegistry()
	for name, f := range map[string]framework.Factory{
		config.NodeResourcesFitName:  noderesources.NewFit,
		config.DefaultPreemptionName: New,
		"test-plugin":                func(any, framework.Handle) (framework.Plugin, error) { return ppErrPlugin{}, nil },
	} {
		if err := reg.Register(name, f); err != nil {
			panic(err)
		}
	}
	return reg
}

func ppProfile() framework.Profile {
	return framework.Profile{
		PreFilter:  []string{config.NodeResourcesFitName, "test-plugin"},
		Filter:     []string{config.NodeResourcesFitName},
		PostFilter: []string{config.DefaultPreemptionName},
	}
}

func newPPEnv(t testing.TB, nodes []*api.Node, pods []*api.Pod, pdbs []api.PodDisruptionBudget, pod *api.Pod) *ppEnv {
	t.Helper()
	return newPPEnvFor(t, framework.DefaultKubeVersion, nodes, pods, pdbs, pod)
}

// newPPEnvFor is newPPEnv for kube-scheduler release v.
func newPPEnvFor(t testing.TB, v framework.KubeVersion, nodes []*api.Node, pods []*api.Pod, pdbs []api.PodDisruptionBudget, pod *api.Pod) *ppEnv {
	t.Helper()
	snap, err := framework.NewSnapshot(nodes, pods, framework.WithDisruptionBudgets(pdbs...))
	if err != nil {
		t.Fatal(err)
	}
	ev := &ppEvictor{victims: map[string][]string{}}
	const seed = 4
	fw, err := runtime.NewFramework(ppRegistry(), ppProfile(), runtime.WithClock(framework.NewFakeClock(ppEpoch.Add(time.Hour))), runtime.WithKubeVersion(v),
		runtime.WithEvictor(ev), runtime.WithRand(rand.New(rand.NewPCG(seed, seed^0x9E3779B97F4A7C15))))
	if err != nil {
		t.Fatal(err)
	}
	pl, _ := fw.Plugin(config.DefaultPreemptionName)
	e := &ppEnv{fw: fw, pl: pl.(*DefaultPreemption), pi: framework.MustPodInfo(pod), evicted: ev}
	e.state = framework.NewCycleState()
	e.state.SetSnapshot(snap)
	if _, st, _ := fw.RunPreFilterPlugins(context.Background(), e.state, e.pi); !st.IsSuccess() {
		t.Fatalf("PreFilter: %v", st)
	}
	return e
}

// ppStatuses builds the filter statuses; absent nodes are
// UnschedulableAndUnresolvable.
func ppStatuses(m map[string]framework.Code) *framework.NodeToStatus {
	out := framework.NewNodeToStatus(nil)
	for n, c := range m {
		out.Set(n, framework.NewStatus(c))
	}
	return out
}

func ppPod(name string) *st.PodWrapper { return st.MakePod().Name(name) }

func TestPreemptionPostFilter(t *testing.T) {
	u, uu := framework.Unschedulable, framework.UnschedulableAndUnresolvable
	tests := []struct {
		name     string
		pod      *api.Pod
		pods     []*api.Pod
		pdbs     []api.PodDisruptionBudget
		nodes    []*api.Node
		statuses map[string]framework.Code
		wantNode string // "" with wantClear: the result clears the nomination
		wantNil  bool   // no result at all
		wantCode framework.Code
		// wantMsg is the v1.37 message; v1.36 gives a successful
		// preemption no message (preemption.go:(*Evaluator).Preempt).
		wantMsg string
	}{
		{
			name:     "pod with higher priority can be made schedulable",
			pod:      ppPod("p").Priority(ppHigh).Obj(),
			pods:     []*api.Pod{ppPod("p1").Node("node1").Obj()},
			nodes:    []*api.Node{st.MakeNode().Name("node1").Capacity(ppOnePod).Obj()},
			statuses: map[string]framework.Code{"node1": u},
			wantNode: "node1",
			wantMsg:  "preemption: found a potential placement for pod on node node1, preempting 1 victims",
		},
		{
			name:     "pod with tied priority is still unschedulable",
			pod:      ppPod("p").Obj(),
			pods:     []*api.Pod{ppPod("p1").Node("node1").Obj()},
			nodes:    []*api.Node{st.MakeNode().Name("node1").Capacity(ppOnePod).Obj()},
			statuses: map[string]framework.Code{"node1": u},
			wantCode: u,
			wantMsg:  "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.",
		},
		{
			name:     "preemption should respect filteredNodesStatuses",
			pod:      ppPod("p").Priority(ppHigh).Obj(),
			pods:     []*api.Pod{ppPod("p1").Node("node1").Obj()},
			nodes:    []*api.Node{st.MakeNode().Name("node1").Capacity(ppOnePod).Obj()},
			statuses: map[string]framework.Code{"node1": uu},
			wantCode: u,
			wantMsg:  "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
		},
		{
			name:     "absent statuses mean UnschedulableAndUnresolvable",
			pod:      ppPod("p").Priority(ppHigh).Obj(),
			pods:     []*api.Pod{ppPod("p1").Node("node1").Obj()},
			nodes:    []*api.Node{st.MakeNode().Name("node1").Capacity(ppOnePod).Obj()},
			wantCode: u,
			wantMsg:  "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
		},
		{
			name: "pod can be made schedulable on one node",
			pod:  ppPod("p").Priority(ppMid).Obj(),
			pods: []*api.Pod{
				ppPod("p1").Priority(ppHigh).Node("node1").Obj(),
				ppPod("p2").Priority(ppLow).Node("node2").Obj(),
			},
			nodes:    []*api.Node{st.MakeNode().Name("node1").Capacity(ppOnePod).Obj(), st.MakeNode().Name("node2").Capacity(ppOnePod).Obj()},
			statuses: map[string]framework.Code{"node1": u, "node2": u},
			wantNode: "node2",
			wantMsg:  "preemption: found a potential placement for pod on node node2, preempting 1 victims",
		},
		{
			// node1: p2 (violating) and p1 must both go: 1 violation, highest
			// victim priority high; node2: p3 (violating): 1 violation,
			// highest mid → node2.
			name: "pod can be made schedulable on minHighestPriority node",
			pod:  ppPod("p").Priority(ppVeryHigh).Obj(),
			pods: []*api.Pod{
				ppPod("p1").Label("pdb", "non-violating").Priority(ppHigh).Node("node1").Obj(),
				ppPod("p2").Label("pdb", "violating").Priority(ppLow).Node("node1").Obj(),
				ppPod("p3").Label("pdb", "violating").Priority(ppMid).Node("node2").Obj(),
			},
			pdbs: []api.PodDisruptionBudget{
				st.PDB("default", "violating-pdb", "pdb", "violating", 0),
				st.PDB("default", "non-violating-pdb", "pdb", "non-violating", math.MaxInt32),
			},
			nodes:    []*api.Node{st.MakeNode().Name("node1").Capacity(ppOnePod).Obj(), st.MakeNode().Name("node2").Capacity(ppOnePod).Obj()},
			statuses: map[string]framework.Code{"node1": u, "node2": u},
			wantNode: "node2",
			wantMsg:  "preemption: found a potential placement for pod on node node2, preempting 1 victims",
		},
		{
			name: "no candidate nodes found, no enough resource after removing low priority pods",
			pod:  ppPod("p").Priority(ppHigh).Req(ppLarge).Obj(),
			pods: []*api.Pod{ppPod("p1").Node("node1").Obj(), ppPod("p2").Node("node2").Obj()},
			nodes: []*api.Node{
				st.MakeNode().Name("node1").Capacity(ppNodeRes).Obj(),
				st.MakeNode().Name("node2").Capacity(ppNodeRes).Obj(),
			},
			statuses: map[string]framework.Code{"node1": u, "node2": u},
			wantCode: u,
			wantMsg:  "preemption: 0/2 nodes are available: 2 Insufficient cpu.",
		},
		{
			name: "no candidate nodes found with mixed reasons, no lower priority pod and no enough CPU resource",
			pod:  ppPod("p").Priority(ppHigh).Req(ppLarge).Obj(),
			pods: []*api.Pod{
				ppPod("p1").Node("node1").Priority(ppHigh).Obj(),
				ppPod("p2").Node("node2").Obj(),
				ppPod("p3").Node("node3").Priority(ppHigh).Obj(),
			},
			nodes: []*api.Node{
				st.MakeNode().Name("node1").Capacity(ppOnePod).Obj(),
				st.MakeNode().Name("node2").Capacity(ppNodeRes).Obj(),
				st.MakeNode().Name("node3").Capacity(ppOnePod).Obj(),
			},
			statuses: map[string]framework.Code{"node1": u, "node2": u, "node3": u},
			wantCode: u,
			wantMsg:  "preemption: 0/3 nodes are available: 1 Insufficient cpu, 2 No preemption victims found for incoming pod.",
		},
		{
			name: "no candidate nodes found with mixed reason, 2 UnschedulableAndUnresolvable nodes and 2 nodes don't have enough CPU resource",
			pod:  ppPod("p").Priority(ppHigh).Req(ppLarge).Obj(),
			pods: []*api.Pod{ppPod("p1").Node("node1").Obj(), ppPod("p2").Node("node2").Obj()},
			nodes: []*api.Node{
				st.MakeNode().Name("node1").Capacity(ppNodeRes).Obj(), st.MakeNode().Name("node2").Capacity(ppNodeRes).Obj(),
				st.MakeNode().Name("node3").Capacity(ppNodeRes).Obj(), st.MakeNode().Name("node4").Capacity(ppNodeRes).Obj(),
			},
			statuses: map[string]framework.Code{"node1": u, "node2": u, "node4": uu},
			wantCode: u,
			wantMsg:  "preemption: 0/4 nodes are available: 2 Insufficient cpu, 2 Preemption is not helpful for scheduling.",
		},
		{
			name:     "only one node but failed with TestPlugin",
			pod:      ppPod("p").Priority(ppHigh).Req(ppLarge).Obj(),
			pods:     []*api.Pod{ppPod("p1").Node("node1").Obj()},
			nodes:    []*api.Node{st.MakeNode().Name("node1").Capacity(ppCap(ppLarge)).Label("error", "true").Obj()},
			statuses: map[string]framework.Code{"node1": u},
			wantNil:  true,
			wantCode: framework.Error,
			wantMsg:  `preemption: running RemovePod on PreFilter plugin "test-plugin": failed to remove pod: p`,
		},
		{
			name: "one failed with TestPlugin and the other pass",
			pod:  ppPod("p").Priority(ppHigh).Req(ppLarge).Obj(),
			pods: []*api.Pod{ppPod("p1").Node("node1").Obj(), ppPod("p2").Node("node2").Req(ppMedium).Obj()},
			nodes: []*api.Node{
				st.MakeNode().Name("node1").Capacity(ppCap(ppLarge)).Label("error", "true").Obj(),
				st.MakeNode().Name("node2").Capacity(ppCap(ppLarge)).Obj(),
			},
			statuses: map[string]framework.Code{"node1": u, "node2": u},
			wantNode: "node2",
			wantMsg:  "preemption: found a potential placement for pod on node node2, preempting 1 victims",
		},
		{
			// kube's DryRunPreemption returns utilerrors.NewAggregate of the
			// nodes' errors; the aggregate prints a message once however many
			// nodes report it, and without brackets when only one is left.
			name: "two nodes failing with the same TestPlugin error report it once",
			pod:  ppPod("p").Priority(ppHigh).Req(ppLarge).Obj(),
			pods: []*api.Pod{ppPod("p1").Node("node1").Obj(), ppPod("p2").Node("node2").Obj()},
			nodes: []*api.Node{
				st.MakeNode().Name("node1").Capacity(ppCap(ppLarge)).Label("error", "true").Obj(),
				st.MakeNode().Name("node2").Capacity(ppCap(ppLarge)).Label("error", "true").Obj(),
			},
			statuses: map[string]framework.Code{"node1": u, "node2": u},
			wantNil:  true,
			wantCode: framework.Error,
			wantMsg:  `preemption: running RemovePod on PreFilter plugin "test-plugin": failed to remove pod: p`,
		},
		{
			name:     "preemptionPolicy Never is not eligible",
			pod:      ppPod("p").Priority(ppHigh).PreemptionPolicy(api.PreemptNever).Obj(),
			pods:     []*api.Pod{ppPod("p1").Node("node1").Obj()},
			nodes:    []*api.Node{st.MakeNode().Name("node1").Capacity(ppOnePod).Obj()},
			statuses: map[string]framework.Code{"node1": u},
			wantNil:  true,
			wantCode: u,
			wantMsg:  "preemption: not eligible due to preemptionPolicy=Never.",
		},
		{
			name: "a lower-priority pod terminating by preemption on the nominated node blocks preemption",
			pod:  ppPod("p").Priority(ppHigh).NominatedNode("node1").Obj(),
			pods: []*api.Pod{
				ppPod("p1").Node("node1").Terminating(ppEpoch).DisruptionTarget("PreemptionByScheduler").Obj(),
			},
			nodes:    []*api.Node{st.MakeNode().Name("node1").Capacity(ppOnePod).Obj()},
			statuses: map[string]framework.Code{"node1": u},
			wantNil:  true,
			wantCode: u,
			wantMsg:  "preemption: not eligible due to a terminating pod on the nominated node.",
		},
		{
			name: "the terminating pod does not block when the nominated node is now unresolvable",
			pod:  ppPod("p").Priority(ppHigh).NominatedNode("node1").Obj(),
			pods: []*api.Pod{
				ppPod("p1").Node("node1").Terminating(ppEpoch).DisruptionTarget("PreemptionByScheduler").Obj(),
				ppPod("p2").Node("node2").Obj(),
			},
			nodes:    []*api.Node{st.MakeNode().Name("node1").Capacity(ppOnePod).Obj(), st.MakeNode().Name("node2").Capacity(ppOnePod).Obj()},
			statuses: map[string]framework.Code{"node1": uu, "node2": u},
			wantNode: "node2",
			wantMsg:  "preemption: found a potential placement for pod on node node2, preempting 1 victims",
		},
	}
	for _, v := range framework.KubeVersions() {
		for _, tt := range tests {
			t.Run(v.String()+"/"+tt.name, func(t *testing.T) {
				wantMsg := tt.wantMsg
				if tt.wantCode == framework.Success && !v.AtLeast(framework.KubeV137) {
					wantMsg = ""
				}
				e := newPPEnvFor(t, v, tt.nodes, tt.pods, tt.pdbs, tt.pod)
				res, st := e.pl.PostFilter(context.Background(), e.state, e.pi, ppStatuses(tt.statuses))
				if st.Code() != tt.wantCode || st.Message() != wantMsg {
					t.Errorf("status = %v %q, want %v %q", st.Code(), st.Message(), tt.wantCode, wantMsg)
				}
				switch {
				case tt.wantNil:
					if res != nil {
						t.Errorf("result = %+v, want nil", res.NominatingInfo)
					}
				case res == nil || res.NominatingInfo == nil:
					t.Errorf("result = nil, want nominated node %q", tt.wantNode)
				case res.NominatedNodeName != tt.wantNode || res.Mode != framework.ModeOverride:
					t.Errorf("result = %+v, want %q (override)", *res.NominatingInfo, tt.wantNode)
				}
			})
		}
	}
}

// TestPreemptionSelectBestCandidate: the five ordered node criteria (kube's
// TestSelectBestCandidate); nodes have 500m/500 each.
func TestPreemptionSelectBestCandidate(t *testing.T) {
	type pod = *api.Pod
	mk := func(name, node string, prio int32, res map[string]string, start time.Time) pod {
		return ppPod(name).Node(node).Priority(prio).Req(res).StartTime(start).Obj()
	}
	tests := []struct {
		name     string
		nodes    int
		pod      pod
		pods     []pod
		expected []string
	}{
		{"a pod that fits on both nodes when lower priority pods are preempted", 2, ppPod("p").Priority(ppHigh).Req(ppLarge).Obj(),
			[]pod{mk("p1", "node1", ppMid, ppLarge, ppEpoch), mk("p2", "node2", ppMid, ppLarge, ppEpoch)}, []string{"node1", "node2"}},
		{"node with min highest priority pod is picked", 3, ppPod("p").Priority(ppHigh).Req(ppVeryLarge).Obj(), []pod{
			mk("p1.1", "node1", ppMid, ppMedium, ppEpoch), mk("p1.2", "node1", ppMid, ppLarge, ppEpoch),
			mk("p2.1", "node2", ppMid, ppMedium, ppEpoch), mk("p2.2", "node2", ppLow, ppMedium, ppEpoch),
			mk("p3.1", "node3", ppLow, ppMedium, ppEpoch), mk("p3.2", "node3", ppLow, ppMedium, ppEpoch),
		}, []string{"node3"}},
		{"when highest priorities are the same, minimum sum of priorities is picked", 3, ppPod("p").Priority(ppHigh).Req(ppVeryLarge).Obj(), []pod{
			mk("p1.1", "node1", ppMid, ppMedium, ppEpoch), mk("p1.2", "node1", ppMid, ppLarge, ppEpoch),
			mk("p2.1", "node2", ppMid, ppLarge, ppEpoch), mk("p2.2", "node2", ppLow, ppMedium, ppEpoch),
			mk("p3.1", "node3", ppMid, ppMedium, ppEpoch), mk("p3.2", "node3", ppMid, ppMedium, ppEpoch),
		}, []string{"node2"}},
		{"when highest priority and sum are the same, minimum number of pods is picked", 3, ppPod("p").Priority(ppHigh).Req(ppVeryLarge).Obj(), []pod{
			mk("p1.1", "node1", ppMid, ppSmall, ppEpoch), mk("p1.2", "node1", ppNeg, ppSmall, ppEpoch),
			mk("p1.3", "node1", ppMid, ppSmall, ppEpoch), mk("p1.4", "node1", ppNeg, ppSmall, ppEpoch),
			mk("p2.1", "node2", ppMid, ppLarge, ppEpoch), mk("p2.2", "node2", ppNeg, ppMedium, ppEpoch),
			mk("p3.1", "node3", ppMid, ppMedium, ppEpoch), mk("p3.2", "node3", ppNeg, ppSmall, ppEpoch), mk("p3.3", "node3", ppLow, ppSmall, ppEpoch),
		}, []string{"node2"}},
		{"sum of adjusted priorities is considered", 3, ppPod("p").Priority(ppHigh).Req(ppVeryLarge).Obj(), []pod{
			mk("p1.1", "node1", ppMid, ppSmall, ppEpoch), mk("p1.2", "node1", ppNeg, ppSmall, ppEpoch), mk("p1.3", "node1", ppNeg, ppSmall, ppEpoch),
			mk("p2.1", "node2", ppMid, ppLarge, ppEpoch), mk("p2.2", "node2", ppNeg, ppMedium, ppEpoch),
			mk("p3.1", "node3", ppMid, ppMedium, ppEpoch), mk("p3.2", "node3", ppNeg, ppSmall, ppEpoch), mk("p3.3", "node3", ppLow, ppSmall, ppEpoch),
		}, []string{"node2"}},
		{"non-overlapping lowest high priority, sum priorities, and number of pods", 4, ppPod("p").Priority(ppVeryHigh).Req(ppVeryLarge).Obj(), []pod{
			mk("p1.1", "node1", ppMid, ppSmall, ppEpoch), mk("p1.2", "node1", ppLow, ppSmall, ppEpoch), mk("p1.3", "node1", ppLow, ppSmall, ppEpoch),
			mk("p2.1", "node2", ppHigh, ppLarge, ppEpoch),
			mk("p3.1", "node3", ppMid, ppMedium, ppEpoch), mk("p3.2", "node3", ppLow, ppSmall, ppEpoch), mk("p3.3", "node3", ppLow, ppSmall, ppEpoch), mk("p3.4", "node3", ppLow, ppMedium, ppEpoch),
			mk("p4.1", "node4", ppMid, ppMedium, ppEpoch), mk("p4.2", "node4", ppMid, ppSmall, ppEpoch), mk("p4.3", "node4", ppMid, ppSmall, ppEpoch), mk("p4.4", "node4", ppNeg, ppSmall, ppEpoch),
		}, []string{"node1"}},
		{"same priority, same number of victims, different start time for each node's pod", 3, ppPod("p").Priority(ppHigh).Req(ppVeryLarge).Obj(), []pod{
			mk("p1.1", "node1", ppMid, ppMedium, ppEpochN(2)), mk("p1.2", "node1", ppMid, ppMedium, ppEpochN(2)),
			mk("p2.1", "node2", ppMid, ppMedium, ppEpochN(3)), mk("p2.2", "node2", ppMid, ppMedium, ppEpochN(3)),
			mk("p3.1", "node3", ppMid, ppMedium, ppEpochN(1)), mk("p3.2", "node3", ppMid, ppMedium, ppEpochN(1)),
		}, []string{"node2"}},
		{"same priority, same number of victims, different start time for all pods", 3, ppPod("p").Priority(ppHigh).Req(ppVeryLarge).Obj(), []pod{
			mk("p1.1", "node1", ppMid, ppMedium, ppEpochN(4)), mk("p1.2", "node1", ppMid, ppMedium, ppEpochN(2)),
			mk("p2.1", "node2", ppMid, ppMedium, ppEpochN(5)), mk("p2.2", "node2", ppMid, ppMedium, ppEpochN(1)),
			mk("p3.1", "node3", ppMid, ppMedium, ppEpochN(3)), mk("p3.2", "node3", ppMid, ppMedium, ppEpochN(6)),
		}, []string{"node3"}},
		{"different priority, same number of victims, different start time for all pods", 3, ppPod("p").Priority(ppHigh).Req(ppVeryLarge).Obj(), []pod{
			mk("p1.1", "node1", ppLow, ppMedium, ppEpochN(4)), mk("p1.2", "node1", ppMid, ppMedium, ppEpochN(2)),
			mk("p2.1", "node2", ppMid, ppMedium, ppEpochN(6)), mk("p2.2", "node2", ppLow, ppMedium, ppEpochN(1)),
			mk("p3.1", "node3", ppLow, ppMedium, ppEpochN(3)), mk("p3.2", "node3", ppMid, ppMedium, ppEpochN(5)),
		}, []string{"node2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var nodes []*api.Node
			for i := 1; i <= tt.nodes; i++ {
				nodes = append(nodes, st.MakeNode().Name(fmt.Sprintf("node%d", i)).Capacity(ppCap(ppVeryLarge)).Obj())
			}
			e := newPPEnv(t, nodes, tt.pods, nil, tt.pod)
			cands, _, err := e.pl.dryRun(context.Background(), e.state, e.pi, nil, e.state.Snapshot().Nodes(), 0, e.pl.numCandidates(tt.nodes), &dryRunScratch{})
			if err != nil || len(cands) == 0 {
				t.Fatalf("dry run: %d candidates, %v", len(cands), err)
			}
			if got := e.pl.pickOne(cands, &dryRunScratch{}).node; !slices.Contains(tt.expected, got) {
				t.Errorf("picked %s, want one of %v", got, tt.expected)
			}
		})
	}
}

// TestPreemptionCustomSelection: IsEligiblePod narrows the victims (kube's
// TestCustomSelection); candidates are picked one after another.
func TestPreemptionCustomSelection(t *testing.T) {
	labelIs := func(k, v string) func(*framework.NodeInfo, *framework.PodInfo, *api.Pod) bool {
		return func(_ *framework.NodeInfo, victim *framework.PodInfo, _ *api.Pod) bool {
			return victim.Pod.Labels[k] == v
		}
	}
	nodeIs := func(name string) func(*framework.NodeInfo, *framework.PodInfo, *api.Pod) bool {
		return func(n *framework.NodeInfo, _ *framework.PodInfo, _ *api.Pod) bool { return n.Name() == name }
	}
	mk := func(name, node string, prio int32, res map[string]string) *api.Pod {
		return ppPod(name).Node(node).Priority(prio).Req(res).StartTime(ppEpoch).Obj()
	}
	labelled := func(name, node, v string, prio int32) *api.Pod {
		w := ppPod(name).Node(node).Priority(prio).Req(ppLarge).StartTime(ppEpoch)
		if v != "" {
			w = w.Label("preemptible", v)
		}
		return w.Obj()
	}
	labelPods := []*api.Pod{
		labelled("v1", "node1", "no", ppMid), labelled("v2", "node2", "yes", ppMid),
		labelled("v3", "node3", "yes", ppLow), labelled("v4", "node4", "", ppLow),
	}
	nodePods := []*api.Pod{
		mk("v1", "node1", ppHigh, ppMedium), mk("v2", "node1", ppMid, ppSmall), mk("v3", "node1", ppLow, ppSmall),
		mk("v4", "node2", ppMid, ppLarge), mk("v5", "node3", ppLow, ppLarge),
	}
	tests := []struct {
		name     string
		eligible func(*framework.NodeInfo, *framework.PodInfo, *api.Pod) bool
		nodes    int
		pod      *api.Pod
		pods     []*api.Pod
		expected map[string][]string
	}{
		{"filter for matching pod label: high priority", labelIs("preemptible", "yes"), 4, ppPod("p1").Priority(ppHigh).Req(ppLarge).Obj(), labelPods,
			map[string][]string{"node2": {"v2"}, "node3": {"v3"}}},
		{"filter for matching pod label: mid priority", labelIs("preemptible", "yes"), 4, ppPod("p2").Priority(ppMid).Req(ppLarge).Obj(), labelPods,
			map[string][]string{"node3": {"v3"}}},
		{"filter for matching pod label: low priority", labelIs("preemptible", "yes"), 4, ppPod("p3").Priority(ppLow).Req(ppLarge).Obj(), labelPods,
			map[string][]string{}},
		{"filter for matching victim node: high priority", nodeIs("node1"), 3, ppPod("p3").Priority(ppHigh).Req(ppLarge).Obj(), nodePods,
			map[string][]string{"node1": {"v2", "v3"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var nodes []*api.Node
			for i := 1; i <= tt.nodes; i++ {
				nodes = append(nodes, st.MakeNode().Name(fmt.Sprintf("node%d", i)).Capacity(ppCap(ppVeryLarge)).Obj())
			}
			e := newPPEnv(t, nodes, tt.pods, nil, tt.pod)
			e.pl.IsEligiblePod = tt.eligible
			cands, _, _ := e.pl.dryRun(context.Background(), e.state, e.pi, nil, e.state.Snapshot().Nodes(), 0, tt.nodes, &dryRunScratch{})
			if len(cands) != len(tt.expected) {
				t.Fatalf("%d candidates, want %v", len(cands), tt.expected)
			}
			for len(cands) > 0 {
				best := e.pl.pickOne(cands, &dryRunScratch{})
				var got []string
				for _, v := range best.victims {
					got = append(got, v.Pod.Name)
				}
				if diff := cmp.Diff(tt.expected[best.node], got); diff != "" {
					t.Errorf("victims on %s (-want +got):\n%s", best.node, diff)
				}
				cands = slices.DeleteFunc(cands, func(c preemptCandidate) bool { return c.node == best.node })
			}
		})
	}
}

func TestPreemptionNumCandidates(t *testing.T) {
	for _, tc := range []struct {
		args DefaultPreemptionArgs
		n    int
		want int
	}{
		{DefaultDefaultPreemptionArgs(), 10, 10},
		{DefaultDefaultPreemptionArgs(), 1000, 100},
		{DefaultDefaultPreemptionArgs(), 5000, 500},
		{DefaultPreemptionArgs{MinCandidateNodesPercentage: 40, MinCandidateNodesAbsolute: 10}, 100, 40},
		{DefaultPreemptionArgs{MinCandidateNodesPercentage: 0, MinCandidateNodesAbsolute: 5}, 100, 5},
		{DefaultPreemptionArgs{MinCandidateNodesPercentage: 50, MinCandidateNodesAbsolute: 0}, 3, 1},
	} {
		pl, err := New(tc.args, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := pl.(*DefaultPreemption).numCandidates(tc.n); got != tc.want {
			t.Errorf("numCandidates(%+v, %d) = %d, want %d", tc.args, tc.n, got, tc.want)
		}
	}
	if _, err := New(DefaultPreemptionArgs{}, nil); err == nil || !strings.Contains(err.Error(), "cannot be zero") {
		t.Errorf("both-zero args: %v", err)
	}
}

// TestPreemptionDryRunErrorAggregate: when several examined nodes end in an
// error (here: the preemptor fits once every lower-priority pod is
// reprieved, so the node needs no victims), kube-scheduler v1.36's
// DryRunPreemption (pkg/scheduler/framework/preemption/preemption.go)
// returns utilerrors.NewAggregate of their errors in the order the nodes
// were examined, which prints as "[a, b]" (k8s.io/apimachinery
// pkg/util/errors aggregate.Error). PostFilter then reports it as an Error
// status prefixed "preemption: ".
func TestPreemptionDryRunErrorAggregate(t *testing.T) {
	noVictim := func(node string) string { return `expected at least one victim pod on node "` + node + `"` }
	tests := []struct {
		name   string
		nodes  int
		offset int
		want   string
	}{
		{"one node", 1, 0, noVictim("node1")},
		{"two nodes from the first", 2, 0, "[" + noVictim("node1") + ", " + noVictim("node2") + "]"},
		{"two nodes from the second", 2, 1, "[" + noVictim("node2") + ", " + noVictim("node1") + "]"},
		{"three nodes from the third", 3, 2, "[" + noVictim("node3") + ", " + noVictim("node1") + ", " + noVictim("node2") + "]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var nodes []*api.Node
			var pods []*api.Pod
			for i := 1; i <= tt.nodes; i++ {
				name := fmt.Sprintf("node%d", i)
				nodes = append(nodes, st.MakeNode().Name(name).Capacity(ppCap(ppVeryLarge)).Obj())
				pods = append(pods, ppPod(fmt.Sprintf("p%d", i)).Node(name).Priority(ppLow).Req(ppSmall).StartTime(ppEpoch).Obj())
			}
			e := newPPEnv(t, nodes, pods, nil, ppPod("p").Priority(ppHigh).Req(ppSmall).Obj())
			cands, statuses, err := e.pl.dryRun(context.Background(), e.state, e.pi, nil, e.state.Snapshot().Nodes(), tt.offset, e.pl.numCandidates(tt.nodes), &dryRunScratch{})
			if len(cands) != 0 || len(statuses) != tt.nodes {
				t.Fatalf("dry run: %d candidates, %d statuses; want none and %d", len(cands), len(statuses), tt.nodes)
			}
			if err == nil || err.Error() != tt.want {
				t.Fatalf("dry run error = %v\nwant %s", err, tt.want)
			}
			if tt.nodes != 2 {
				return
			}
			// Through PostFilter the offset is drawn from the framework's
			// random source: either order is kube's text.
			statusMap := map[string]framework.Code{"node1": framework.Unschedulable, "node2": framework.Unschedulable}
			_, st := e.pl.PostFilter(context.Background(), e.state, e.pi, ppStatuses(statusMap))
			ok := []string{
				"preemption: [" + noVictim("node1") + ", " + noVictim("node2") + "]",
				"preemption: [" + noVictim("node2") + ", " + noVictim("node1") + "]",
			}
			if st.Code() != framework.Error || !slices.Contains(ok, st.Message()) {
				t.Errorf("PostFilter status = %v %q, want Error and one of %q", st.Code(), st.Message(), ok)
			}
		})
	}
}

// TestPreemptSplitByPDB: the split of victims (most important first) into
// PDB-violating and non-violating ones, and so the violation count of a
// node, in both accountings (see TestPreemptionPDBAccountingByVersion for
// the sources).
func TestPreemptSplitByPDB(t *testing.T) {
	pod := func(name string, labels ...string) *framework.PodInfo {
		w := ppPod(name)
		for i := 0; i+1 < len(labels); i += 2 {
			w = w.Label(labels[i], labels[i+1])
		}
		return framework.MustPodInfo(w.Obj())
	}
	names := func(ps []*framework.PodInfo) []string {
		out := []string{}
		for _, p := range ps {
			out = append(out, p.Pod.Name)
		}
		return out
	}
	tests := []struct {
		name                string
		pdbs                []api.PodDisruptionBudget
		pods                []*framework.PodInfo
		viol136, nonViol136 []string
		viol137, nonViol137 []string
	}{
		{
			name:       "exhausted first budget spares the second",
			pdbs:       []api.PodDisruptionBudget{st.PDB("default", "a", "app", "a", 0), st.PDB("default", "t", "tier", "t", 1)},
			pods:       []*framework.PodInfo{pod("v1", "app", "a", "tier", "t"), pod("v2", "tier", "t")},
			viol136:    []string{"v1", "v2"},
			nonViol136: []string{},
			viol137:    []string{"v1"},
			nonViol137: []string{"v2"},
		},
		{
			// The budget exhausted first is the later-listed one: both
			// accountings have already spent the earlier one.
			name:       "exhausted second budget",
			pdbs:       []api.PodDisruptionBudget{st.PDB("default", "t", "tier", "t", 1), st.PDB("default", "a", "app", "a", 0)},
			pods:       []*framework.PodInfo{pod("v1", "app", "a", "tier", "t"), pod("v2", "tier", "t")},
			viol136:    []string{"v1", "v2"},
			nonViol136: []string{},
			viol137:    []string{"v1", "v2"},
			nonViol137: []string{},
		},
		{
			name:       "one budget per pod: no difference",
			pdbs:       []api.PodDisruptionBudget{st.PDB("default", "a", "app", "a", 1)},
			pods:       []*framework.PodInfo{pod("v1", "app", "a"), pod("v2", "app", "a"), pod("v3")},
			viol136:    []string{"v2"},
			nonViol136: []string{"v1", "v3"},
			viol137:    []string{"v2"},
			nonViol137: []string{"v1", "v3"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pdbs := preemptCompilePDBs(tt.pdbs)
			for _, c := range []struct {
				firstOnly     bool
				viol, nonViol []string
			}{{false, tt.viol136, tt.nonViol136}, {true, tt.viol137, tt.nonViol137}} {
				viol, nonViol := preemptSplitByPDB(tt.pods, pdbs, c.firstOnly)
				if !slices.Equal(names(viol), c.viol) || !slices.Equal(names(nonViol), c.nonViol) {
					t.Errorf("firstOnly=%v: violating %v, non-violating %v; want %v, %v", c.firstOnly, names(viol), names(nonViol), c.viol, c.nonViol)
				}
			}
		})
	}
}

// TestMoreImportantVictim ports kube-scheduler v1.36's
// framework/preemption/podgrouppreemption_test.go TestMoreImportantVictim.
func TestMoreImportantVictim(t *testing.T) {
	pods := func(n int) []*framework.PodInfo { return make([]*framework.PodInfo, n) }
	t0, t1 := time.Unix(100, 0), time.Unix(200, 0)
	for _, tt := range []struct {
		name   string
		a, b   pgVictim
		aFirst bool
	}{
		{"vi1 has higher priority", pgVictim{priority: 10, pods: pods(1)}, pgVictim{priority: 5, pods: pods(1)}, true},
		{"vi2 has higher priority", pgVictim{priority: 5, pods: pods(1)}, pgVictim{priority: 10, pods: pods(1)}, false},
		{"vi1 is PG, vi2 is Pod, same priority", pgVictim{priority: 5, group: true, pods: pods(1)}, pgVictim{priority: 5, pods: pods(1)}, true},
		{"vi1 is Pod, vi2 is PG, same priority", pgVictim{priority: 5, pods: pods(1)}, pgVictim{priority: 5, group: true, pods: pods(1)}, false},
		{"both Pods, vi1 older", pgVictim{pods: pods(1), earliest: t0}, pgVictim{pods: pods(1), earliest: t1}, true},
		{"both Pods, vi2 older", pgVictim{pods: pods(1), earliest: t1}, pgVictim{pods: pods(1), earliest: t0}, false},
		{"both PGs, vi1 larger", pgVictim{group: true, pods: pods(3), earliest: t1}, pgVictim{group: true, pods: pods(2), earliest: t0}, true},
		{"both PGs, vi2 larger", pgVictim{group: true, pods: pods(2), earliest: t0}, pgVictim{group: true, pods: pods(3), earliest: t1}, false},
		{"both PGs, same size, vi1 older", pgVictim{group: true, pods: pods(2), earliest: t0}, pgVictim{group: true, pods: pods(2), earliest: t1}, true},
		{"both PGs, same size, vi2 older", pgVictim{group: true, pods: pods(2), earliest: t1}, pgVictim{group: true, pods: pods(2), earliest: t0}, false},
	} {
		if got := pgMoreImportant(&tt.a, &tt.b); got != tt.aFirst {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.aFirst)
		}
	}
}

// TestPodGroupPreemptionGate: with TopologyAwareWorkloadScheduling a pod of
// a constrained PodGroup does not preempt on its own, and with
// WorkloadAwarePreemption no pod of a group does (kube-scheduler v1.36's
// plugins/defaultpreemption/default_preemption.go PostFilter).
func TestPodGroupPreemptionGate(t *testing.T) {
	plFeatures := framework.WorkloadFeatures{GenericWorkload: true, GangScheduling: true, TopologyAwareWorkloadScheduling: true}
	group := func(name string, zoned bool) *api.WorkloadPodGroup {
		g := &api.WorkloadPodGroup{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: name},
			Spec: api.WorkloadPodGroupSpec{SchedulingPolicy: api.PodGroupSchedulingPolicy{Gang: &api.GangSchedulingPolicy{MinCount: 1}}}}
		if zoned {
			g.Spec.SchedulingConstraints = &api.PodGroupSchedulingConstraints{Topology: []api.TopologyConstraint{{Key: api.LabelTopologyZone}}}
		}
		return g
	}
	pod := func(g string) *api.Pod {
		p := ppPod("p").Namespace("ns").Obj()
		if g != "" {
			p.Spec.SchedulingGroup = &api.PodSchedulingGroup{PodGroupName: &g}
		}
		return p
	}
	for _, tt := range []struct {
		name  string
		feats framework.WorkloadFeatures
		group string
		want  string
	}{
		{"TAS: missing group", plFeatures, "ghost", "preemption: pod group for pod not found"},
		{"TAS: constrained group", plFeatures, "zoned", "preemption: not eligible due to placement-based pod group scheduling limitation"},
		{"TAS: unconstrained group preempts", plFeatures, "plain", ""},
		{"WAP", framework.WorkloadFeatures{GenericWorkload: true, GangScheduling: true, WorkloadAwarePreemption: true}, "plain", "preemption: not eligible due to workload aware preemption enabled"},
		{"no pod group", plFeatures, "", ""},
		{"no features", framework.WorkloadFeatures{}, "zoned", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := &ppGroups{Handle: framework.NewHandle(framework.RealClock{}, 1, framework.DefaultKubeVersion), feats: tt.feats,
				groups: map[string]*api.WorkloadPodGroup{"zoned": group("zoned", true), "plain": group("plain", false)}}
			pl, err := New(nil, h)
			if err != nil {
				t.Fatal(err)
			}
			got := pl.(*DefaultPreemption).podGroupGate(pod(tt.group))
			if got.Message() != tt.want || (tt.want != "" && got.Code() != framework.Unschedulable) {
				t.Errorf("gate = %v, want %q", got, tt.want)
			}
		})
	}
}

type podGroups = framework.PodGroupManager

// ppGroups is a handle whose PodGroupManager has kube PodGroups of
// namespace ns by name and the features feats.
type ppGroups struct {
	framework.Handle
	podGroups
	feats  framework.WorkloadFeatures
	groups map[string]*api.WorkloadPodGroup
}

func (h *ppGroups) PodGroupManager() framework.PodGroupManager { return h }
func (h *ppGroups) Features() framework.WorkloadFeatures       { return h.feats }

func (h *ppGroups) WorkloadPodGroup(ns, name string) (*api.WorkloadPodGroup, bool) {
	g, ok := h.groups[name]
	return g, ok && ns == "ns"
}

// TestPostFilterEvicts: the chosen victims go to the handle's Evictor; a
// framework without a scheduler refuses to evict, which is PostFilter's
// Error.
func TestPostFilterEvicts(t *testing.T) {
	nodes := []*api.Node{st.MakeNode().Name("node1").Capacity(ppOnePod).Obj()}
	pods := []*api.Pod{ppPod("p1").Node("node1").Priority(ppLow).Obj()}
	pod := ppPod("p").Priority(ppHigh).Obj()
	statuses := ppStatuses(map[string]framework.Code{"node1": framework.Unschedulable})
	e := newPPEnv(t, nodes, pods, nil, pod)
	if res, st := e.pl.PostFilter(context.Background(), e.state, e.pi, statuses); !st.IsSuccess() || res.NominatedNodeName != "node1" {
		t.Fatalf("PostFilter = %+v, %v", res, st)
	}
	if want := map[string][]string{"node1": {"default/p1"}}; !cmp.Equal(e.evicted.victims, want) {
		t.Errorf("evicted %v, want %v", e.evicted.victims, want)
	}

	fw, err := runtime.NewFramework(ppRegistry(), ppProfile())
	if err != nil {
		t.Fatal(err)
	}
	pl, _ := fw.Plugin(config.DefaultPreemptionName)
	_, st := pl.(*DefaultPreemption).PostFilter(context.Background(), e.state, e.pi, statuses)
	if want := `preemption: framework: Evict for pod default/p on node "node1": no scheduler runs the framework`; st.Code() != framework.Error || st.Message() != want {
		t.Errorf("PostFilter without a scheduler = %v, want Error %q", st, want)
	}
}

// TestPickOneAmongTies: candidates tied on every criterion go to the
// first in dry-run order (kube takes one in Go map order); with the
// RealClock and no start time among the tied victims, kube's last
// criterion itself prefers the last candidate examined, whose clock
// reading is the latest.
func TestPickOneAmongTies(t *testing.T) {
	for _, tt := range []struct {
		name    string
		started bool
		offset  int
		want    string
	}{
		{"started, from node1", true, 0, "node1"},
		{"started, from node2", true, 1, "node2"},
		{"started, from node3", true, 2, "node3"},
		{"not started, from node1", false, 0, "node3"},
		{"not started, from node2", false, 1, "node1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var nodes []*api.Node
			var pods []*api.Pod
			for i := 1; i <= 3; i++ {
				node := fmt.Sprintf("node%d", i)
				nodes = append(nodes, st.MakeNode().Name(node).Capacity(ppCap(ppVeryLarge)).Obj())
				w := ppPod(fmt.Sprintf("p%d", i)).Node(node).Priority(ppMid).Req(ppVeryLarge)
				if tt.started {
					w = w.StartTime(ppEpochN(1))
				}
				pods = append(pods, w.Obj())
			}
			e := newPPEnv(t, nodes, pods, nil, ppPod("p").Priority(ppHigh).Req(ppLarge).Obj())
			if !tt.started {
				e.pl.clock, e.pl.wallClock = framework.RealClock{}, true
			}
			cands, _, err := e.pl.dryRun(context.Background(), e.state, e.pi, nil, e.state.Snapshot().Nodes(), tt.offset, 3, &dryRunScratch{})
			if err != nil || len(cands) != 3 {
				t.Fatalf("dry run: %d candidates, %v", len(cands), err)
			}
			if got := e.pl.pickOne(cands, &dryRunScratch{}).node; got != tt.want {
				t.Errorf("picked %s, want %s", got, tt.want)
			}
		})
	}
}
