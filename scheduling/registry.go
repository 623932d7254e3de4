package scheduling

import (
	"slices"

	"github.com/schedkit/schedkit/filter/interpodaffinity"
	"github.com/schedkit/schedkit/filter/nodeaffinity"
	"github.com/schedkit/schedkit/filter/noderesources"
	"github.com/schedkit/schedkit/filter/podtopologyspread"
	"github.com/schedkit/schedkit/filter/volumebinding"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/filter"
	"github.com/schedkit/schedkit/filter/defaultpreemption"
	"github.com/schedkit/schedkit/filter/loadaware"
	"github.com/schedkit/schedkit/filter/nodename"
	"github.com/schedkit/schedkit/filter/nodeports"
	"github.com/schedkit/schedkit/filter/nodeunschedulable"
	"github.com/schedkit/schedkit/filter/nodevolumelimits"
	"github.com/schedkit/schedkit/filter/schedulinggates"
	"github.com/schedkit/schedkit/filter/tainttoleration"
	"github.com/schedkit/schedkit/filter/volumerestrictions"
	"github.com/schedkit/schedkit/filter/volumezone"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/scheduling/defaultbinder"
	"github.com/schedkit/schedkit/scoring/imagelocality"
	"github.com/schedkit/schedkit/scoring/queuesort"
)

// PluginSpec describes a plugin a registry offers: its name, its factory and
// its default args (nil when it takes none). Configuration loading decodes
// a plugin's pluginConfig args into a value of the DefaultArgs type.
type PluginSpec struct {
	Name        string
	Factory     framework.Factory
	DefaultArgs func() any
}

func anyOf[A any](def func() A) func() any { return func() any { return def() } }

// DefaultPlugins lists the plugins schedkit offers under their
// kube-scheduler (and Koordinator) names: kube-scheduler's default
// plugins (v1.36 and v1.37) except NodeDeclaredFeatures (which needs
// objects the library does not model), Koordinator's LoadAwareScheduling,
// the in-tree volume limit filters of kube-scheduler ≤ v1.31 (EBSLimits,
// GCEPDLimits, AzureDiskLimits, CinderLimits; off by default), and the
// workload plugins: scheduler-plugins' TargetLoadPacking,
// LoadVariationRiskBalancing and Coscheduling, and kube-scheduler v1.36's
// alpha GangScheduling, TopologyPlacementGenerator and PodGroupPodsCount.
// Each factory builds one plugin that implements all of its plugin's
// extension points.
func DefaultPlugins() []PluginSpec {
	return append([]PluginSpec{
		{Name: config.SchedulingGatesName, Factory: schedulinggates.New},
		{Name: config.PrioritySortName, Factory: queuesort.New},
		{Name: config.NodeUnschedulableName, Factory: nodeunschedulable.New},
		{Name: config.NodeNameName, Factory: nodename.New},
		{Name: config.TaintTolerationName, Factory: tainttoleration.New},
		{Name: config.NodeAffinityName, DefaultArgs: anyOf(nodeaffinity.DefaultNodeAffinityArgs), Factory: nodeaffinity.New},
		{Name: config.NodePortsName, Factory: nodeports.New},
		{Name: config.NodeResourcesFitName, DefaultArgs: anyOf(noderesources.DefaultNodeResourcesFitArgs), Factory: noderesources.NewFit},
		{Name: config.VolumeRestrictionsName, Factory: volumerestrictions.New},
		{Name: config.NodeVolumeLimitsName, Factory: nodevolumelimits.New},
		{Name: config.VolumeBindingName, DefaultArgs: anyOf(volumebinding.DefaultVolumeBindingArgs), Factory: volumebinding.New},
		{Name: config.VolumeZoneName, Factory: volumezone.New},
		{Name: config.PodTopologySpreadName, DefaultArgs: anyOf(podtopologyspread.DefaultPodTopologySpreadArgs), Factory: podtopologyspread.New},
		{Name: config.InterPodAffinityName, DefaultArgs: anyOf(interpodaffinity.DefaultInterPodAffinityArgs), Factory: interpodaffinity.New},
		{Name: config.DynamicResourcesName, DefaultArgs: anyOf(config.DefaultDynamicResourcesArgs), Factory: filter.DynamicResourcesFactory},
		{Name: config.DefaultPreemptionName, DefaultArgs: anyOf(defaultpreemption.DefaultDefaultPreemptionArgs), Factory: defaultpreemption.New},
		{Name: config.NodeResourcesBalancedAllocationName, DefaultArgs: anyOf(noderesources.DefaultNodeResourcesBalancedAllocationArgs),
			Factory: noderesources.NewBalancedAllocation},
		{Name: config.ImageLocalityName, Factory: imagelocality.New},
		{Name: config.DefaultBinderName, Factory: defaultbinder.New},
		{Name: config.LoadAwareSchedulingName, DefaultArgs: anyOf(config.DefaultLoadAwareSchedulingArgs),
			Factory: loadaware.New},
		{Name: config.EBSLimitsName, Factory: nodevolumelimits.NewEBSLimits},
		{Name: config.GCEPDLimitsName, Factory: nodevolumelimits.NewGCEPDLimits},
		{Name: config.AzureDiskLimitsName, Factory: nodevolumelimits.NewAzureDiskLimits},
		{Name: config.CinderLimitsName, Factory: nodevolumelimits.NewCinderLimits},
	}, workloadPlugins()...)
}

// NewDefaultRegistry returns a new registry holding DefaultPlugins. Each call
// returns an independent registry: register your own plugins beside ours.
func NewDefaultRegistry() *framework.Registry {
	r := framework.NewRegistry()
	for _, p := range DefaultPlugins() {
		if err := r.Register(p.Name, p.Factory); err != nil {
			panic(err) // DefaultPlugins has unique names; a test guards this
		}
	}
	return r
}

// DefaultProfile returns DefaultProfileFor(framework.DefaultKubeVersion):
// the default profile of the newest kube-scheduler release schedkit
// reproduces.
func DefaultProfile() framework.Profile { return DefaultProfileFor(framework.DefaultKubeVersion) }

// DefaultProfileFor returns kube-scheduler's default profile of release v
// as schedkit runs it: DefaultMultiPointFor(v) expanded to each extension
// point in that order, without NodeDeclaredFeatures, which schedkit does
// not model. The profile's KubeVersion is v: build the scheduler with
// WithKubeVersion(v) (New refuses a profile of another release).
//
// From v1.37 NodeName, NodeUnschedulable and TaintToleration lead both
// PreFilter and Filter, in that order (v1.36 lists NodeUnschedulable
// before NodeName, at Filter only). VolumeBinding scores with weight 1
// only when its StorageCapacityScoring arg is on; otherwise its PreScore
// skips.
func DefaultProfileFor(v framework.KubeVersion) framework.Profile {
	if v.IsZero() {
		v = framework.DefaultKubeVersion
	}
	lead := []string{config.NodeUnschedulableName, config.NodeNameName, config.TaintTolerationName}
	var preLead []string
	if v.AtLeast(framework.KubeV137) {
		lead = []string{config.NodeNameName, config.NodeUnschedulableName, config.TaintTolerationName}
		preLead = lead
	}
	rest := []string{config.NodeAffinityName, config.NodePortsName, config.NodeResourcesFitName,
		config.VolumeRestrictionsName, config.NodeVolumeLimitsName, config.VolumeBindingName, config.VolumeZoneName,
		config.PodTopologySpreadName, config.InterPodAffinityName, config.DynamicResourcesName}
	return framework.Profile{
		SchedulerName: DefaultSchedulerName,
		KubeVersion:   v,
		PreEnqueue:    []string{config.SchedulingGatesName, config.DynamicResourcesName},
		QueueSort:     []string{config.PrioritySortName},
		PreFilter:     append(slices.Clone(preLead), rest...),
		Filter:        append(slices.Clone(lead), rest...),
		PostFilter:    append([]string{config.DynamicResourcesName}, defaultPostFilter()...),
		PreScore: []string{config.TaintTolerationName, config.NodeAffinityName, config.NodeResourcesFitName,
			config.VolumeBindingName, config.PodTopologySpreadName, config.InterPodAffinityName,
			config.NodeResourcesBalancedAllocationName},
		Score: []string{config.TaintTolerationName, config.NodeAffinityName, config.NodeResourcesFitName,
			config.VolumeBindingName, config.PodTopologySpreadName, config.InterPodAffinityName, config.DynamicResourcesName,
			config.NodeResourcesBalancedAllocationName, config.ImageLocalityName},
		Weights: map[string]int64{
			config.TaintTolerationName: 3, config.NodeAffinityName: 2, config.NodeResourcesFitName: 1,
			config.VolumeBindingName:     1,
			config.PodTopologySpreadName: 2, config.InterPodAffinityName: 2, config.DynamicResourcesName: config.DynamicResourcesWeight,
			config.NodeResourcesBalancedAllocationName: 1, config.ImageLocalityName: 1,
		},
		Reserve: []string{config.VolumeBindingName, config.DynamicResourcesName},
		PreBind: []string{config.VolumeBindingName, config.DynamicResourcesName},
		Bind:    []string{config.DefaultBinderName},
	}
}

// DefaultMultiPoint returns DefaultMultiPointFor(framework.DefaultKubeVersion).
func DefaultMultiPoint() []WeightedPlugin { return DefaultMultiPointFor(framework.DefaultKubeVersion) }

// DefaultMultiPointFor is kube-scheduler release v's default multiPoint
// plugin list (with weights for score plugins; getDefaultPlugins in
// pkg/scheduler/apis/config/v1/default_plugins.go) restricted to the
// plugins schedkit offers, in kube's order: SchedulingGates, PrioritySort,
// NodeName, NodeUnschedulable (v1.36: NodeUnschedulable, NodeName),
// TaintToleration 3, NodeAffinity 2, NodePorts, NodeResourcesFit 1,
// VolumeRestrictions, NodeVolumeLimits, VolumeBinding, VolumeZone,
// PodTopologySpread 2, InterPodAffinity 2, DynamicResources 2,
// DefaultPreemption, NodeResourcesBalancedAllocation 1, ImageLocality 1,
// DefaultBinder.
// Configuration loading merges user plugin sets with it.
func DefaultMultiPointFor(v framework.KubeVersion) []WeightedPlugin {
	first, second := config.NodeUnschedulableName, config.NodeNameName
	if v.IsZero() || v.AtLeast(framework.KubeV137) {
		first, second = second, first
	}
	out := []WeightedPlugin{
		{Name: config.SchedulingGatesName},
		{Name: config.PrioritySortName},
		{Name: first},
		{Name: second},
		{Name: config.TaintTolerationName, Weight: 3},
		{Name: config.NodeAffinityName, Weight: 2},
		{Name: config.NodePortsName},
		{Name: config.NodeResourcesFitName, Weight: 1},
		{Name: config.VolumeRestrictionsName},
		{Name: config.NodeVolumeLimitsName},
		{Name: config.VolumeBindingName},
		{Name: config.VolumeZoneName},
		{Name: config.PodTopologySpreadName, Weight: 2},
		{Name: config.InterPodAffinityName, Weight: 2},
	}
	out = append(out, WeightedPlugin{Name: config.DynamicResourcesName, Weight: config.DynamicResourcesWeight})
	for _, n := range defaultPostFilter() {
		out = append(out, WeightedPlugin{Name: n})
	}
	return append(out,
		WeightedPlugin{Name: config.NodeResourcesBalancedAllocationName, Weight: 1},
		WeightedPlugin{Name: config.ImageLocalityName, Weight: 1},
		WeightedPlugin{Name: config.DefaultBinderName},
	)
}

// WeightedPlugin is a plugin name with its score weight (0 for plugins
// that do not score, or to mean 1).
type WeightedPlugin struct {
	Name   string
	Weight int64
}
