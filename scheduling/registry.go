package scheduling

import (
	"slices"

	"github.com/schedkit/schedkit/filter/dynamicresources"

	"github.com/schedkit/schedkit/filter/interpodaffinity"
	"github.com/schedkit/schedkit/filter/nodeaffinity"
	"github.com/schedkit/schedkit/filter/noderesources"
	"github.com/schedkit/schedkit/filter/podtopologyspread"
	"github.com/schedkit/schedkit/filter/volumebinding"

	"github.com/schedkit/schedkit/config"
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

// PluginSpec describes a plugin a registry offers in one kube-scheduler
// release: its name, its factory, its default args (nil when it takes
// none; configuration loading decodes a plugin's pluginConfig args into a
// value of the DefaultArgs type), the extension points it implements in
// that release, and its place in the release's default multiPoint list.
type PluginSpec struct {
	Name        string
	Factory     framework.Factory
	DefaultArgs func() any
	// Points lists the extension points the plugin implements in the
	// release, PointPreEnqueue first, then in AllPoints' order, then the
	// placement points. DefaultProfileFor and configuration loading expand
	// multiPoint with them. Nil for a plugin described without them (one of
	// the caller's own): configuration loading then asks the built plugin.
	Points []string
	// InDefault says the plugin is in the release's default multiPoint
	// list (DefaultMultiPointFor), at its position in PluginsFor, with
	// Weight as its score weight there (0: none given, which means 1 for a
	// score plugin).
	InDefault bool
	Weight    int64
}

func anyOf[A any](def func() A) func() any { return func() any { return def() } }

// Extension points a PluginSpec may list beyond AllPoints, as
// kube-scheduler's configuration spells them.
const (
	PointPreEnqueue        = "preEnqueue"
	PointPlacementGenerate = "placementGenerate"
	PointPlacementScore    = "placementScore"
)

// DefaultPlugins returns PluginsFor(framework.DefaultKubeVersion).
func DefaultPlugins() []PluginSpec { return PluginsFor(framework.DefaultKubeVersion) }

// PluginsFor lists the plugins schedkit offers under their kube-scheduler
// (and Koordinator) names, as release v has them: first kube-scheduler's
// default plugins in the order of v's default multiPoint list
// (getDefaultPlugins, pkg/scheduler/apis/config/v1/default_plugins.go)
// except NodeDeclaredFeatures (which needs objects the library does not
// model); then Koordinator's LoadAwareScheduling, the in-tree volume limit
// filters of kube-scheduler ≤ v1.31 (EBSLimits, GCEPDLimits,
// AzureDiskLimits, CinderLimits), and the workload plugins:
// scheduler-plugins' TargetLoadPacking, LoadVariationRiskBalancing and
// Coscheduling, and kube-scheduler's alpha GangScheduling,
// TopologyPlacementGenerator and PodGroupPodsCount, all off by default.
// Each factory builds one plugin that implements all of its plugin's
// extension points. The zero v means the default release.
//
// v1.37 differs from v1.36 in two places: NodeName comes before
// NodeUnschedulable, and NodeName, NodeUnschedulable and TaintToleration
// implement PreFilter.
func PluginsFor(v framework.KubeVersion) []PluginSpec {
	if v.IsZero() {
		v = framework.DefaultKubeVersion
	}
	pre := []string{PointPreFilter}
	if !v.AtLeast(framework.KubeV137) {
		pre = nil
	}
	filters := append(slices.Clone(pre), PointFilter)
	both := []string{PointPreFilter, PointFilter}
	scores := []string{PointPreScore, PointScore}
	nodeName := PluginSpec{Name: config.NodeNameName, Factory: nodename.New, Points: filters, InDefault: true}
	nodeUnschedulable := PluginSpec{Name: config.NodeUnschedulableName, Factory: nodeunschedulable.New, Points: filters, InDefault: true}
	first, second := nodeName, nodeUnschedulable
	if !v.AtLeast(framework.KubeV137) {
		first, second = second, first
	}
	out := []PluginSpec{
		{Name: config.SchedulingGatesName, Factory: schedulinggates.New, Points: []string{PointPreEnqueue}, InDefault: true},
		{Name: config.PrioritySortName, Factory: queuesort.New, Points: []string{PointQueueSort}, InDefault: true},
		first,
		second,
		{Name: config.TaintTolerationName, Factory: tainttoleration.New, Points: append(slices.Clone(filters), scores...), InDefault: true, Weight: 3},
		{Name: config.NodeAffinityName, DefaultArgs: anyOf(nodeaffinity.DefaultNodeAffinityArgs), Factory: nodeaffinity.New,
			Points: append(slices.Clone(both), scores...), InDefault: true, Weight: 2},
		{Name: config.NodePortsName, Factory: nodeports.New, Points: both, InDefault: true},
		{Name: config.NodeResourcesFitName, DefaultArgs: anyOf(noderesources.DefaultNodeResourcesFitArgs), Factory: noderesources.NewFit,
			Points: append(append(slices.Clone(both), scores...), PointPlacementScore), InDefault: true, Weight: 1},
		{Name: config.VolumeRestrictionsName, Factory: volumerestrictions.New, Points: both, InDefault: true},
		{Name: config.NodeVolumeLimitsName, Factory: nodevolumelimits.New, Points: both, InDefault: true},
		{Name: config.VolumeBindingName, DefaultArgs: anyOf(volumebinding.DefaultVolumeBindingArgs), Factory: volumebinding.New,
			Points: []string{PointPreFilter, PointFilter, PointPreScore, PointScore, PointReserve, PointPreBind}, InDefault: true},
		{Name: config.VolumeZoneName, Factory: volumezone.New, Points: both, InDefault: true},
		{Name: config.PodTopologySpreadName, DefaultArgs: anyOf(podtopologyspread.DefaultPodTopologySpreadArgs), Factory: podtopologyspread.New,
			Points: append(slices.Clone(both), scores...), InDefault: true, Weight: 2},
		{Name: config.InterPodAffinityName, DefaultArgs: anyOf(interpodaffinity.DefaultInterPodAffinityArgs), Factory: interpodaffinity.New,
			Points: append(slices.Clone(both), scores...), InDefault: true, Weight: 2},
		{Name: config.DynamicResourcesName, DefaultArgs: anyOf(dynamicresources.DefaultDynamicResourcesArgs), Factory: dynamicresources.New,
			Points:    []string{PointPreEnqueue, PointPreFilter, PointFilter, PointPostFilter, PointScore, PointReserve, PointPreBind},
			InDefault: true, Weight: config.DynamicResourcesWeight},
		{Name: config.DefaultPreemptionName, DefaultArgs: anyOf(defaultpreemption.DefaultDefaultPreemptionArgs), Factory: defaultpreemption.New,
			Points: []string{PointPostFilter}, InDefault: true},
		{Name: config.NodeResourcesBalancedAllocationName, DefaultArgs: anyOf(noderesources.DefaultNodeResourcesBalancedAllocationArgs),
			Factory: noderesources.NewBalancedAllocation, Points: scores, InDefault: true, Weight: 1},
		{Name: config.ImageLocalityName, Factory: imagelocality.New, Points: []string{PointScore}, InDefault: true, Weight: 1},
		{Name: config.DefaultBinderName, Factory: defaultbinder.New, Points: []string{PointBind}, InDefault: true},
		{Name: config.LoadAwareSchedulingName, DefaultArgs: anyOf(config.DefaultLoadAwareSchedulingArgs), Factory: loadaware.New,
			Points: []string{PointPreFilter, PointFilter, PointPreScore, PointScore, PointReserve}},
		{Name: config.EBSLimitsName, Factory: nodevolumelimits.NewEBSLimits, Points: both},
		{Name: config.GCEPDLimitsName, Factory: nodevolumelimits.NewGCEPDLimits, Points: both},
		{Name: config.AzureDiskLimitsName, Factory: nodevolumelimits.NewAzureDiskLimits, Points: both},
		{Name: config.CinderLimitsName, Factory: nodevolumelimits.NewCinderLimits, Points: both},
	}
	return append(out, workloadPlugins()...)
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
	p := framework.Profile{SchedulerName: DefaultSchedulerName, KubeVersion: v, Weights: map[string]int64{}}
	lists := map[string]*[]string{
		PointPreEnqueue: &p.PreEnqueue, PointQueueSort: &p.QueueSort, PointPreFilter: &p.PreFilter,
		PointFilter: &p.Filter, PointPostFilter: &p.PostFilter, PointPreScore: &p.PreScore, PointScore: &p.Score,
		PointReserve: &p.Reserve, PointPermit: &p.Permit, PointPreBind: &p.PreBind, PointBind: &p.Bind, PointPostBind: &p.PostBind,
	}
	for _, spec := range PluginsFor(v) {
		if !spec.InDefault {
			continue
		}
		for _, pt := range spec.Points {
			// The placement points run only with kube's alpha workload
			// scheduling, off by default (EnableWorkloadScheduling).
			if l := lists[pt]; l != nil {
				*l = append(*l, spec.Name)
			}
		}
		if slices.Contains(spec.Points, PointScore) {
			p.Weights[spec.Name] = max(spec.Weight, 1)
		}
	}
	return p
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
	var out []WeightedPlugin
	for _, spec := range PluginsFor(v) {
		if spec.InDefault {
			out = append(out, WeightedPlugin{Name: spec.Name, Weight: spec.Weight})
		}
	}
	return out
}

// WeightedPlugin is a plugin name with its score weight (0 for plugins
// that do not score, or to mean 1).
type WeightedPlugin struct {
	Name   string
	Weight int64
}
