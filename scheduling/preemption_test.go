package scheduling

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/filter"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/scheduling/cluster"
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

// ppEnv is a scheduler with NodeResourcesFit (filter) and DefaultPreemption
// over nodes and bound pods, and a cycle state after PreFilter for pod.
type ppEnv struct {
	s     *Scheduler
	pl    *DefaultPreemption
	state *framework.CycleState
	pi    *framework.PodInfo
}

func ppRegistry() *framework.Registry {
	reg := scRegistry(&scRecorder{})
	for name, f := range map[string]framework.Factory{
		config.NodeResourcesFitName:  filter.NodeResourcesFitFactory,
		config.DefaultPreemptionName: DefaultPreemptionFactory,
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
		QueueSort:  []string{config.PrioritySortName},
		PreFilter:  []string{config.NodeResourcesFitName, "test-plugin"},
		Filter:     []string{config.NodeResourcesFitName},
		PostFilter: []string{config.DefaultPreemptionName},
		Bind:       []string{config.DefaultBinderName},
	}
}

func newPPEnv(t testing.TB, nodes []*api.Node, pods []*api.Pod, pdbs []api.PodDisruptionBudget, pod *api.Pod) *ppEnv {
	t.Helper()
	return newPPEnvFor(t, framework.DefaultKubeVersion, nodes, pods, pdbs, pod)
}

// newPPEnvFor is newPPEnv for kube-scheduler release v.
func newPPEnvFor(t testing.TB, v framework.KubeVersion, nodes []*api.Node, pods []*api.Pod, pdbs []api.PodDisruptionBudget, pod *api.Pod) *ppEnv {
	t.Helper()
	return newPPEnvWith(t, v, ppRegistry(), ppProfile(), nodes, pods, pdbs, pod)
}

// newPPEnvWith is newPPEnvFor with the given registry and profile.
func newPPEnvWith(t testing.TB, v framework.KubeVersion, reg *framework.Registry, p framework.Profile, nodes []*api.Node, pods []*api.Pod, pdbs []api.PodDisruptionBudget, pod *api.Pod) *ppEnv {
	t.Helper()
	c, err := cluster.NewFrom(nodes, pods)
	if err != nil {
		t.Fatal(err)
	}
	c.SetDisruptionBudgets(pdbs)
	s, err := New(c, reg, []framework.Profile{p}, WithClock(framework.NewFakeClock(ppEpoch.Add(time.Hour))), WithSeed(4), WithKubeVersion(v))
	if err != nil {
		t.Fatal(err)
	}
	prof := s.profiles[DefaultSchedulerName]
	pl, _ := prof.fw.Plugin(config.DefaultPreemptionName)
	e := &ppEnv{s: s, pl: pl.(*DefaultPreemption), pi: framework.MustPodInfo(pod)}
	e.state = s.newState(&cycleHandle{s: s, prof: prof})
	e.state.SetSnapshot(c.Snapshot())
	if _, st, _ := prof.fw.RunPreFilterPlugins(context.Background(), e.state, e.pi); !st.IsSuccess() {
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
			h, _ := handleFrom(e.state)
			cands, _, err := e.pl.dryRun(context.Background(), h, e.state, e.pi, nil, e.state.Snapshot().Nodes(), 0, e.pl.numCandidates(tt.nodes))
			if err != nil || len(cands) == 0 {
				t.Fatalf("dry run: %d candidates, %v", len(cands), err)
			}
			if got := e.pl.pickOne(cands).node; !slices.Contains(tt.expected, got) {
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
			h, _ := handleFrom(e.state)
			cands, _, _ := e.pl.dryRun(context.Background(), h, e.state, e.pi, nil, e.state.Snapshot().Nodes(), 0, tt.nodes)
			if len(cands) != len(tt.expected) {
				t.Fatalf("%d candidates, want %v", len(cands), tt.expected)
			}
			for len(cands) > 0 {
				best := e.pl.pickOne(cands)
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
		args config.DefaultPreemptionArgs
		n    int
		want int
	}{
		{config.DefaultDefaultPreemptionArgs(), 10, 10},
		{config.DefaultDefaultPreemptionArgs(), 1000, 100},
		{config.DefaultDefaultPreemptionArgs(), 5000, 500},
		{config.DefaultPreemptionArgs{MinCandidateNodesPercentage: 40, MinCandidateNodesAbsolute: 10}, 100, 40},
		{config.DefaultPreemptionArgs{MinCandidateNodesPercentage: 0, MinCandidateNodesAbsolute: 5}, 100, 5},
		{config.DefaultPreemptionArgs{MinCandidateNodesPercentage: 50, MinCandidateNodesAbsolute: 0}, 3, 1},
	} {
		pl, err := NewDefaultPreemption(tc.args, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := pl.(*DefaultPreemption).numCandidates(tc.n); got != tc.want {
			t.Errorf("numCandidates(%+v, %d) = %d, want %d", tc.args, tc.n, got, tc.want)
		}
	}
	if _, err := DefaultPreemptionFactory(config.DefaultPreemptionArgs{}, nil); err == nil || !strings.Contains(err.Error(), "cannot be zero") {
		t.Errorf("both-zero args: %v", err)
	}
}

// TestPreemptionEndToEnd: a full node of low-priority pods; a high-priority
// pod preempts the cheapest victims, is nominated, and after its backoff
// lands on the nominated node by the fast path. Victims are gone from the
// cluster.
func TestPreemptionEndToEnd(t *testing.T) {
	nodes := []*api.Node{
		st.MakeNode().Name("n1").Capacity(map[string]string{"cpu": "2", "memory": "4Gi", "pods": "10"}).Obj(),
		st.MakeNode().Name("n2").Capacity(map[string]string{"cpu": "2", "memory": "4Gi", "pods": "10"}).Obj(),
	}
	pods := []*api.Pod{
		ppPod("a").Node("n1").Priority(10).Req(map[string]string{"cpu": "1"}).StartTime(ppEpoch).Obj(),
		ppPod("b").Node("n1").Priority(10).Req(map[string]string{"cpu": "1"}).StartTime(ppEpoch).Obj(),
		ppPod("c").Node("n2").Priority(5).Req(map[string]string{"cpu": "1"}).StartTime(ppEpoch).Obj(),
		ppPod("d").Node("n2").Priority(500).Req(map[string]string{"cpu": "1"}).StartTime(ppEpoch).Obj(),
	}
	c, _ := cluster.NewFrom(nodes, pods)
	var log []Decision
	s, err := New(c, ppRegistry(), []framework.Profile{ppProfile()}, WithClock(framework.NewFakeClock(ppEpoch.Add(time.Hour))), WithSeed(1), WithDecisionHandler(func(d Decision) { log = append(log, d) }))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AddPod(ppPod("hi").Priority(100).Req(map[string]string{"cpu": "1"}).Obj()); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, ok := s.ScheduleOne(ctx); !ok {
		t.Fatal("nothing to schedule")
	}
	// n1: a or b must go (1 victim, priority 10); n2: c (priority 5) — the
	// lower highest victim priority wins: n2, victim c.
	if len(log) != 1 || log[0].Outcome != OutcomeUnschedulable || log[0].NominatedNode != "n2" || !cmp.Equal(log[0].Victims, []string{"default/c"}) {
		t.Fatalf("first decision = %+v", log)
	}
	if !strings.HasPrefix(log[0].Message, "0/2 nodes are available: 2 Insufficient cpu.") {
		t.Errorf("message = %q", log[0].Message)
	}
	if _, ok := c.Pod("default", "c"); ok {
		t.Errorf("victim c still in the cluster")
	}
	if r, _ := c.Pod("default", "hi"); r.Pod.Status.NominatedNodeName != "n2" {
		t.Errorf("nominated node = %q", r.Pod.Status.NominatedNodeName)
	}
	// The victim's deletion moved the pod to the backoff queue; with the
	// active queue empty it is retried at once (PopFromBackoffQ) and takes
	// its nominated node by the fast path.
	s.RunUntilIdle(ctx)
	last := log[len(log)-1]
	if len(log) != 2 || last.Pod != "default/hi" || last.Outcome != OutcomeScheduled || last.Node != "n2" || last.FastPath != "nominated" || last.Attempt != 2 {
		t.Errorf("decisions = %+v", log)
	}
	if _, nominated := s.nominator.NodeOf["default/hi"]; nominated {
		t.Errorf("nomination kept after binding")
	}
}
