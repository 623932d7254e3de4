package replay

// Test helpers shared with package scheduling's tests: the same small
// plugins, builders and profiles, so that the replay tests read as the
// scheduler's do.

import (
	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/filter/defaultpreemption"
	"github.com/schedkit/schedkit/filter/noderesources"
	"github.com/schedkit/schedkit/filter/podtopologyspread"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/defaultbinder"
	"github.com/schedkit/schedkit/scheduling/internal/testplugins"
	"github.com/schedkit/schedkit/scoring/queuesort"
)

var ppLow, ppHigh = int32(0), int32(1000)

var wgFeatures = framework.WorkloadFeatures{GenericWorkload: true, GangScheduling: true}

// The test plugins (testplugins): a cpu/pod-count fit filter, a
// least-allocated cpu score, and recording Reserve/Permit/PreBind/PostBind
// plugins whose behaviour is driven by pod labels.
type scRecorder = testplugins.Recorder

var scT0 = testplugins.T0

func scRegistry(rec *scRecorder) *framework.Registry {
	reg := framework.NewRegistry()
	must := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	must(testplugins.Register(reg, rec))
	must(reg.Register(config.PrioritySortName, func(any, framework.Handle) (framework.Plugin, error) { return &queuesort.PrioritySort{}, nil }))
	must(reg.Register(config.DefaultBinderName, defaultbinder.New))
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
		Bind:          []string{config.DefaultBinderName},
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
	if err := reg.Register(config.NodeResourcesFitName, noderesources.NewFit); err != nil {
		panic(err)
	}
	if err := reg.Register(config.DefaultPreemptionName, defaultpreemption.New); err != nil {
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

var scDrawNode = testplugins.DrawNode

var scDrawPod = testplugins.DrawPod

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
		Bind:          []string{config.DefaultBinderName},
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
func reuseProfile(strategy noderesources.ScoringStrategyType) framework.Profile {
	p := scheduling.DefaultProfile()
	p.Args = map[string]any{
		config.PodTopologySpreadName: podtopologyspread.PodTopologySpreadArgs{DefaultingType: podtopologyspread.ListDefaulting},
		config.NodeResourcesFitName:  noderesources.NodeResourcesFitArgs{ScoringStrategy: &noderesources.ScoringStrategy{Type: strategy, Resources: config.DefaultResourceSpecs()}},
	}
	return p
}

// resourcesOnlyProfile keeps the score plugins that never normalize over
// the feasible nodes, so that reuse is exact.
func resourcesOnlyProfile(strategy noderesources.ScoringStrategyType) framework.Profile {
	p := reuseProfile(strategy)
	p.PreScore = []string{config.NodeResourcesFitName, config.NodeResourcesBalancedAllocationName}
	p.Score = []string{config.NodeResourcesFitName, config.NodeResourcesBalancedAllocationName, config.ImageLocalityName}
	p.Weights = map[string]int64{config.NodeResourcesFitName: 1, config.NodeResourcesBalancedAllocationName: 1, config.ImageLocalityName: 1}
	return p
}
