package replay

// Test helpers shared with package scheduling's tests: the same small
// plugins, builders and profiles, so that the replay tests read as the
// scheduler's do.

import (
	"context"
	"fmt"
	"sync"
	"time"

	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/filter"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/scheduling"
)

var ppLow, ppHigh = int32(0), int32(1000)

var wgFeatures = scheduling.WorkloadFeatures{GenericWorkload: true, GangScheduling: true}

type scFit struct{}

func (scFit) Name() string { return "ScFit" }

func (scFit) Filter(_ context.Context, _ *framework.CycleState, pod *framework.PodInfo, n *framework.NodeInfo) *framework.Status {
	if int64(len(n.Pods))+1 > n.Allocatable.Pods {
		return scTooManyPods
	}
	if pod.Requests.MilliCPU > n.Allocatable.MilliCPU-n.Requested.MilliCPU {
		return scInsufficientCPU
	}
	return nil
}

var scInsufficientCPU = framework.NewStatus(framework.Unschedulable, "Insufficient cpu")

var scTooManyPods = framework.NewStatus(framework.Unschedulable, "Too many pods")

type scLeast struct{}

func (scLeast) Name() string { return "ScLeast" }

func (scLeast) Score(_ context.Context, _ *framework.CycleState, pod *framework.PodInfo, n *framework.NodeInfo) (int64, *framework.Status) {
	if n.Allocatable.MilliCPU == 0 {
		return 0, nil
	}
	return (n.Allocatable.MilliCPU - n.Requested.MilliCPU - pod.Requests.MilliCPU) * 100 / n.Allocatable.MilliCPU, nil
}

func (scLeast) ScoreExtensions() framework.ScoreExtensions { return nil }

// scRecorder records Reserve/Unreserve/PreBind/Bind/PostBind calls.
type scRecorder struct {
	mu    sync.Mutex
	calls []string
}

func (r *scRecorder) add(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, s)
}

// scStep is a plugin for every post-filter point; label "fail-<name>" on a
// pod makes it fail there ("reject-<name>" rejects), "wait-<name>=<dur>"
// makes Permit wait.
type scStep struct {
	name string
	rec  *scRecorder
}

func (p *scStep) Name() string { return p.name }

func (p *scStep) verdict(pod *framework.PodInfo) *framework.Status {
	if _, ok := pod.Pod.Labels["fail-"+p.name]; ok {
		return framework.AsStatus(fmt.Errorf("%s failed", p.name))
	}
	if _, ok := pod.Pod.Labels["reject-"+p.name]; ok {
		return framework.NewStatus(framework.Unschedulable, p.name+" says no")
	}
	return nil
}

func (p *scStep) Reserve(_ context.Context, _ *framework.CycleState, pod *framework.PodInfo, node string) *framework.Status {
	p.rec.add(fmt.Sprintf("Reserve %s %s %s", p.name, pod.Pod.Name, node))
	return p.verdict(pod)
}

func (p *scStep) Unreserve(_ context.Context, _ *framework.CycleState, pod *framework.PodInfo, node string) {
	p.rec.add(fmt.Sprintf("Unreserve %s %s %s", p.name, pod.Pod.Name, node))
}

func (p *scStep) Permit(_ context.Context, _ *framework.CycleState, pod *framework.PodInfo, node string) (*framework.Status, time.Duration) {
	if v, ok := pod.Pod.Labels["wait-"+p.name]; ok {
		d, _ := time.ParseDuration(v)
		return framework.NewStatus(framework.Wait), d
	}
	if _, ok := pod.Pod.Labels["deny-"+p.name]; ok {
		return framework.NewStatus(framework.Unschedulable, p.name+" denies"), 0
	}
	return p.verdict(pod), 0
}

func (p *scStep) PreBind(_ context.Context, _ *framework.CycleState, pod *framework.PodInfo, node string) *framework.Status {
	p.rec.add(fmt.Sprintf("PreBind %s %s %s", p.name, pod.Pod.Name, node))
	return p.verdict(pod)
}

func (p *scStep) PostBind(_ context.Context, _ *framework.CycleState, pod *framework.PodInfo, node string) {
	p.rec.add(fmt.Sprintf("PostBind %s %s %s", p.name, pod.Pod.Name, node))
}

var scT0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func scRegistry(rec *scRecorder) *framework.Registry {
	reg := framework.NewRegistry()
	must := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	must(reg.Register("ScFit", func(any, framework.Handle) (framework.Plugin, error) { return scFit{}, nil }))
	must(reg.Register("ScLeast", func(any, framework.Handle) (framework.Plugin, error) { return scLeast{}, nil }))
	for _, n := range []string{"A", "B"} {
		must(reg.Register(n, func(any, framework.Handle) (framework.Plugin, error) { return &scStep{name: n, rec: rec}, nil }))
	}
	must(reg.Register(config.PrioritySortName, func(any, framework.Handle) (framework.Plugin, error) { return &scheduling.PrioritySort{}, nil }))
	must(reg.Register(scheduling.DefaultBinderName, scheduling.NewDefaultBinder))
	return reg
}

func scProfile(name string) framework.Profile {
	return framework.Profile{
		SchedulerName: name,
		QueueSort:     []string{config.PrioritySortName},
		Filter:        []string{"ScFit"},
		Score:         []string{"ScLeast"},
		Weights:       map[string]int64{"ScLeast": 1},
		Reserve:       []string{"A", "B"},
		Permit:        []string{"A", "B"},
		PreBind:       []string{"A"},
		Bind:          []string{scheduling.DefaultBinderName},
		PostBind:      []string{"A"},
	}
}

func scPod(name, cpu string) *st.PodWrapper {
	return st.MakePod().Name(name).Req(map[string]string{"cpu": cpu})
}

// rpProfile is scProfile without the recording plugins: filter, score and
// bind only.
func rpProfile() framework.Profile {
	p := scProfile("")
	p.Reserve, p.Permit, p.PreBind, p.PostBind = nil, nil, nil, nil
	return p
}

// scPropRegistry adds the real NodeResourcesFit filter (cpu, memory, pods,
// extended resources) to the test plugins.
func scPropRegistry() *framework.Registry {
	reg := scRegistry(&scRecorder{})
	if err := reg.Register(config.NodeResourcesFitName, filter.NodeResourcesFitFactory); err != nil {
		panic(err)
	}
	if err := reg.Register(config.DefaultPreemptionName, scheduling.DefaultPreemptionFactory); err != nil {
		panic(err)
	}
	return reg
}

func scPropProfile() framework.Profile {
	p := scProfile("")
	p.PreFilter = []string{config.NodeResourcesFitName}
	p.Filter = []string{config.NodeResourcesFitName}
	p.PostFilter = []string{config.DefaultPreemptionName}
	p.Reserve, p.Permit, p.PreBind, p.PostBind = nil, nil, nil, nil
	return p
}

func scDrawNode(t *rapid.T, i int) *api.Node {
	return st.MakeNode().Name(fmt.Sprintf("n%03d", i)).Capacity(map[string]string{
		"cpu":    fmt.Sprintf("%dm", rapid.IntRange(500, 8000).Draw(t, "nodeCPU")),
		"memory": fmt.Sprintf("%dMi", rapid.IntRange(512, 8192).Draw(t, "nodeMem")),
		"pods":   fmt.Sprint(rapid.IntRange(1, 8).Draw(t, "nodePods")),
	}).Obj()
}

func scDrawPod(t *rapid.T, name string) *api.Pod {
	return st.MakePod().Name(name).Priority(int32(rapid.IntRange(0, 3).Draw(t, "prio"))).Req(map[string]string{
		"cpu":    fmt.Sprintf("%dm", 100*rapid.IntRange(0, 30).Draw(t, "podCPU")),
		"memory": fmt.Sprintf("%dMi", 128*rapid.IntRange(0, 20).Draw(t, "podMem")),
	}).Obj()
}

// scResourceProfile is the default profile cut down to the resource
// plugins: NodeResourcesFit (filter, LeastAllocated score) and
// NodeResourcesBalancedAllocation.
func scResourceProfile() framework.Profile {
	return framework.Profile{
		SchedulerName: scheduling.DefaultSchedulerName,
		QueueSort:     []string{config.PrioritySortName},
		PreFilter:     []string{config.NodeResourcesFitName},
		Filter:        []string{config.NodeResourcesFitName},
		PreScore:      []string{config.NodeResourcesFitName, config.NodeResourcesBalancedAllocationName},
		Score:         []string{config.NodeResourcesFitName, config.NodeResourcesBalancedAllocationName},
		Weights:       map[string]int64{config.NodeResourcesFitName: 1, config.NodeResourcesBalancedAllocationName: 1},
		Bind:          []string{scheduling.DefaultBinderName},
	}
}

// csPod is st.MakePod().Name(name).Namespace(ns).UID(name) with the pod-group
// label when group is set.
func csPod(ns, name, group string) *st.PodWrapper {
	w := st.MakePod().Namespace(ns).Name(name)
	if group != "" {
		w = w.Label(api.PodGroupLabel, group)
	}
	return w
}

// gsPod is kube's st.MakePod().Namespace(ns).Name(name).UID(name).PodGroupName(group).
func gsPod(ns, name, group string) *api.Pod {
	p := st.MakePod().Namespace(ns).Name(name).Req(map[string]string{"cpu": "100m"}).Obj()
	if group != "" {
		g := group
		p.Spec.SchedulingGroup = &api.PodSchedulingGroup{PodGroupName: &g}
	}
	return p
}

func gsGang(ns, name string, minCount int32) *api.WorkloadPodGroup {
	return &api.WorkloadPodGroup{ObjectMeta: api.ObjectMeta{Namespace: ns, Name: name},
		Spec: api.WorkloadPodGroupSpec{SchedulingPolicy: api.PodGroupSchedulingPolicy{Gang: &api.GangSchedulingPolicy{MinCount: minCount}}}}
}

// plZoneNode is a 4-cpu node in zone.
func plZoneNode(name, zone string) *api.Node {
	w := st.MakeNode().Name(name).Capacity(map[string]string{"cpu": "4", "pods": "32"})
	if zone != "" {
		w = w.Label("topology.kubernetes.io/zone", zone)
	}
	return w.Obj()
}

func plZoned(ns, name string, minCount int32) *api.WorkloadPodGroup {
	g := gsGang(ns, name, minCount)
	g.Spec.SchedulingConstraints = &api.PodGroupSchedulingConstraints{Topology: []api.TopologyConstraint{{Key: "topology.kubernetes.io/zone"}}}
	return g
}

// ppCap is a node capacity: res plus kube's test default of 32 pods.
func ppCap(res map[string]string) map[string]string {
	out := map[string]string{"pods": "32"}
	for k, v := range res {
		out[k] = v
	}
	return out
}

// reuseProfile is a signable profile: the default plugins without
// PodTopologySpread's system defaults (which make every pod unsignable,
// in kube as here) and with the given resource score strategy.
func reuseProfile(strategy config.ScoringStrategyType) framework.Profile {
	p := scheduling.DefaultProfile()
	p.Args = map[string]any{
		config.PodTopologySpreadName: config.PodTopologySpreadArgs{DefaultingType: config.ListDefaulting},
		config.NodeResourcesFitName:  config.NodeResourcesFitArgs{ScoringStrategy: &config.ScoringStrategy{Type: strategy, Resources: config.DefaultResourceSpecs()}},
	}
	return p
}

// resourcesOnlyProfile keeps the score plugins that never normalize over
// the feasible nodes, so that reuse is exact.
func resourcesOnlyProfile(strategy config.ScoringStrategyType) framework.Profile {
	p := reuseProfile(strategy)
	p.PreScore = []string{config.NodeResourcesFitName, config.NodeResourcesBalancedAllocationName}
	p.Score = []string{config.NodeResourcesFitName, config.NodeResourcesBalancedAllocationName, config.ImageLocalityName}
	p.Weights = map[string]int64{config.NodeResourcesFitName: 1, config.NodeResourcesBalancedAllocationName: 1, config.ImageLocalityName: 1}
	return p
}
