package configfile

import (
	"github.com/schedkit/schedkit/filter/dynamicresources"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/filter/defaultpreemption"
	"github.com/schedkit/schedkit/filter/interpodaffinity"
	"github.com/schedkit/schedkit/filter/nodeaffinity"
	"github.com/schedkit/schedkit/filter/noderesources"
	"github.com/schedkit/schedkit/filter/podtopologyspread"
	"github.com/schedkit/schedkit/filter/volumebinding"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/runtime"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/scheduling"
)

func cfgLoadTestdata(t *testing.T, name string, opts ...Option) *Configuration {
	t.Helper()
	c, err := LoadFile(filepath.Join("testdata", "config", name), opts...)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return c
}

// cfgLists is the part of a profile the seed texts talk about.
type cfgLists struct {
	PreEnqueue, QueueSort, PreFilter, Filter, PostFilter, PreScore, Score, Reserve, PreBind, Bind []string
	Weights                                                                                       map[string]int64
}

func cfgListsOf(p framework.Profile) cfgLists {
	return cfgLists{p.PreEnqueue, p.QueueSort, p.PreFilter, p.Filter, p.PostFilter, p.PreScore, p.Score, p.Reserve, p.PreBind, p.Bind, p.Weights}
}

func cfgDiffLists(t *testing.T, what string, want, got cfgLists) {
	t.Helper()
	if d := cmp.Diff(want, got, cmpopts.EquateEmpty()); d != "" {
		t.Errorf("%s (-want +got):\n%s", what, d)
	}
}

func cfgAppend(list []string, names ...string) []string {
	return append(append([]string(nil), list...), names...)
}

// TestConfigSeed004Minimal: seed 004's minimal file (clientConnection only)
// gives one profile, default-scheduler, equal to DefaultProfile: kube v1.36's
// default multiPoint list expanded, weights TaintToleration 3, NodeAffinity
// 2, NodeResourcesFit 1, PodTopologySpread 2, InterPodAffinity 2,
// NodeResourcesBalancedAllocation 1, ImageLocality 1 (seed 004: "the v1
// default weights").
func TestConfigSeed004Minimal(t *testing.T) {
	c := cfgLoadTestdata(t, "seed004_minimal.yaml")
	if len(c.Profiles) != 1 || c.Profiles[0].SchedulerName != scheduling.DefaultSchedulerName {
		t.Fatalf("profiles: %+v", c.Profiles)
	}
	cfgDiffLists(t, "default profile", cfgListsOf(scheduling.DefaultProfile()), cfgListsOf(c.Profiles[0]))
	want := map[string]int64{config.TaintTolerationName: 3, config.NodeAffinityName: 2, config.NodeResourcesFitName: 1,
		config.VolumeBindingName: 1, config.PodTopologySpreadName: 2, config.InterPodAffinityName: 2, config.DynamicResourcesName: 2,
		config.NodeResourcesBalancedAllocationName: 1, config.ImageLocalityName: 1}
	if d := cmp.Diff(want, c.Profiles[0].Weights); d != "" {
		t.Errorf("weights (-want +got):\n%s", d)
	}
	if c.Parallelism != 16 || c.PercentageOfNodesToScore != 0 || c.PodInitialBackoffSeconds != 1 || c.PodMaxBackoffSeconds != 10 {
		t.Errorf("scheduler-wide defaults: %+v", c)
	}
	// Default args are added for the enabled plugins that take args.
	wantArgs := map[string]any{
		config.NodeResourcesFitName:                noderesources.DefaultNodeResourcesFitArgs(),
		config.NodeResourcesBalancedAllocationName: noderesources.DefaultNodeResourcesBalancedAllocationArgs(),
		config.PodTopologySpreadName:               podtopologyspread.DefaultPodTopologySpreadArgs(),
		config.InterPodAffinityName:                interpodaffinity.DefaultInterPodAffinityArgs(),
		config.NodeAffinityName:                    nodeaffinity.DefaultNodeAffinityArgs(),
		config.DefaultPreemptionName:               defaultpreemption.DefaultDefaultPreemptionArgs(),
		config.VolumeBindingName:                   volumebinding.DefaultVolumeBindingArgs().ForKubeVersion(framework.DefaultKubeVersion),
		config.DynamicResourcesName:                dynamicresources.DefaultDynamicResourcesArgs(),
	}
	if d := cmp.Diff(wantArgs, c.Profiles[0].Args, cmpopts.EquateEmpty()); d != "" {
		t.Errorf("args (-want +got):\n%s", d)
	}
	// The profile runs.
	if _, err := runtime.NewFramework(c.Registry(), c.Profiles[0]); err != nil {
		t.Fatal(err)
	}
}

// TestConfigSeed004ScoreCustom: disabling PodTopologySpread at score and
// enabling two custom score plugins: PodTopologySpread leaves Score (but
// stays at PreScore, PreFilter and Filter, which the file does not touch);
// the custom plugins run after the defaults with weights 2 and 1.
func TestConfigSeed004ScoreCustom(t *testing.T) {
	specs := append(scheduling.DefaultPlugins(), cfgTSpec("MyCustomPluginA", "score"), cfgTSpec("MyCustomPluginB", "score"))
	c := cfgLoadTestdata(t, "seed004_score_custom.yaml", WithPlugins(specs...))
	want := cfgListsOf(scheduling.DefaultProfile())
	want.Score = []string{config.TaintTolerationName, config.NodeAffinityName, config.NodeResourcesFitName,
		config.VolumeBindingName, config.InterPodAffinityName, config.DynamicResourcesName, config.NodeResourcesBalancedAllocationName,
		config.ImageLocalityName, "MyCustomPluginA", "MyCustomPluginB"}
	want.Weights = map[string]int64{config.TaintTolerationName: 3, config.NodeAffinityName: 2, config.NodeResourcesFitName: 1,
		config.VolumeBindingName: 1, config.InterPodAffinityName: 2, config.DynamicResourcesName: 2,
		config.NodeResourcesBalancedAllocationName: 1, config.ImageLocalityName: 1, "MyCustomPluginA": 2, "MyCustomPluginB": 1}
	cfgDiffLists(t, "profile", want, cfgListsOf(c.Profiles[0]))
}

// TestConfigSeed004Profiles: two profiles; the second has no PreScore and no
// Score plugins at all ('*' disabled there), the first is the default.
func TestConfigSeed004Profiles(t *testing.T) {
	c := cfgLoadTestdata(t, "seed004_profiles.yaml")
	if len(c.Profiles) != 2 || c.Profiles[0].SchedulerName != "default-scheduler" || c.Profiles[1].SchedulerName != "no-scoring-scheduler" {
		t.Fatalf("profiles: %q, %q", c.Profiles[0].SchedulerName, c.Profiles[1].SchedulerName)
	}
	cfgDiffLists(t, "default-scheduler", cfgListsOf(scheduling.DefaultProfile()), cfgListsOf(c.Profiles[0]))
	want := cfgListsOf(scheduling.DefaultProfile())
	want.PreScore, want.Score, want.Weights = nil, nil, nil
	cfgDiffLists(t, "no-scoring-scheduler", want, cfgListsOf(c.Profiles[1]))
	for _, p := range c.Profiles {
		if _, err := runtime.NewFramework(c.Registry(), p); err != nil {
			t.Fatal(err)
		}
	}
}

// TestConfigSeed004MultiPoint: enabling MyPlugin (preScore, score,
// preFilter, filter) through multiPoint equals enabling it at each of those
// points (seed 004 says the two files are equivalent); in both it runs
// after the default plugins (§4.1). Disabling '*' at preScore and score
// empties those points, the default plugins included.
func TestConfigSeed004MultiPoint(t *testing.T) {
	specs := WithPlugins(append(scheduling.DefaultPlugins(), cfgTSpec("MyPlugin", "four"))...)
	def := cfgListsOf(scheduling.DefaultProfile())
	want := def
	want.PreFilter = cfgAppend(def.PreFilter, "MyPlugin")
	want.Filter = cfgAppend(def.Filter, "MyPlugin")
	want.PreScore = cfgAppend(def.PreScore, "MyPlugin")
	want.Score = cfgAppend(def.Score, "MyPlugin")
	want.Weights = map[string]int64{"MyPlugin": 1}
	for k, v := range def.Weights {
		want.Weights[k] = v
	}
	mp := cfgLoadTestdata(t, "seed004_multipoint.yaml", specs)
	cfgDiffLists(t, "multiPoint", want, cfgListsOf(mp.Profiles[0]))
	nmp := cfgLoadTestdata(t, "seed004_non_multipoint.yaml", specs)
	cfgDiffLists(t, "per point", want, cfgListsOf(nmp.Profiles[0]))

	ns := cfgLoadTestdata(t, "seed004_multipoint_no_score.yaml", specs)
	want.PreScore, want.Score, want.Weights = nil, nil, nil
	cfgDiffLists(t, "multiPoint without score", want, cfgListsOf(ns.Profiles[0]))
}

// cfgSeedHierarchyPlugins are seed 004's hypothetical plugins with the
// extension points its table gives, plus a binder; the defaults are
// DefaultQueueSort, DefaultPlugin1, DefaultPlugin2 (weight 1 each, as the
// text says of default score plugins) and the binder.
func cfgSeedHierarchyPlugins() []Option {
	return []Option{
		WithPlugins(
			cfgTSpec("DefaultQueueSort", "queueSort"), cfgTSpec("CustomQueueSort", "queueSort"),
			cfgTSpec("DefaultPlugin1", "filter+score"), cfgTSpec("DefaultPlugin2", "score"),
			cfgTSpec("CustomPlugin1", "filter+score"), cfgTSpec("CustomPlugin2", "filter+score"),
			cfgTSpec("Binder", "bind")),
		WithDefaultPlugins([]scheduling.WeightedPlugin{{Name: "DefaultQueueSort"}, {Name: "DefaultPlugin1"}, {Name: "DefaultPlugin2"}, {Name: "Binder"}}),
	}
}

// TestConfigSeed004Hierarchy: seed 004's precedence example. As the text
// says: CustomQueueSort replaces DefaultQueueSort; DefaultPlugin1 is
// disabled only at filter; DefaultPlugin2, listed at score, runs first
// there; CustomPlugin1 gets weight 3. Where the text says the custom plugins
// "run first for all their extension points", kube's code (and §4.1, checked
// against the binary) disagree: at score the default DefaultPlugin1 runs
// before them (multiPoint expansion keeps the merged order, defaults first).
func TestConfigSeed004Hierarchy(t *testing.T) {
	c := cfgLoadTestdata(t, "seed004_hierarchy.yaml", cfgSeedHierarchyPlugins()...)
	want := cfgLists{
		QueueSort: []string{"CustomQueueSort"},
		Filter:    []string{"CustomPlugin1", "CustomPlugin2"},
		Score:     []string{"DefaultPlugin2", "DefaultPlugin1", "CustomPlugin1", "CustomPlugin2"},
		Bind:      []string{"Binder"},
		Weights:   map[string]int64{"DefaultPlugin2": 1, "DefaultPlugin1": 1, "CustomPlugin1": 3, "CustomPlugin2": 1},
	}
	cfgDiffLists(t, "profile", want, cfgListsOf(c.Profiles[0]))
}

// TestConfigSeed004HierarchyV1beta2: the v1beta2 file seed 004 calls
// equivalent loads as far as decoding, but its filter list names
// DefaultPlugin2, which the seed's own table gives only a Score extension
// point: building the profile fails, as kube's would.
func TestConfigSeed004HierarchyV1beta2(t *testing.T) {
	_, err := LoadFile(filepath.Join("testdata", "config", "seed004_hierarchy_v1beta2.yaml"), cfgSeedHierarchyPlugins()...)
	if err == nil || !strings.Contains(err.Error(), `plugins.filter: plugin "DefaultPlugin2" does not extend filter`) {
		t.Fatalf("error %v", err)
	}
}

// TestConfigSeed004ReorderScore: listing the default DefaultScore2 at score
// with weight 5 moves it in front of DefaultScore1 and sets its weight,
// without listing every plugin.
func TestConfigSeed004ReorderScore(t *testing.T) {
	c := cfgLoadTestdata(t, "seed004_reorder_score.yaml",
		WithPlugins(cfgTSpec("Sort", "queueSort"), cfgTSpec("DefaultScore1", "score"), cfgTSpec("DefaultScore2", "score"), cfgTSpec("Binder", "bind")),
		WithDefaultPlugins([]scheduling.WeightedPlugin{{Name: "Sort"}, {Name: "DefaultScore1", Weight: 1}, {Name: "DefaultScore2", Weight: 1}, {Name: "Binder"}}))
	want := cfgLists{QueueSort: []string{"Sort"}, Score: []string{"DefaultScore2", "DefaultScore1"}, Bind: []string{"Binder"},
		Weights: map[string]int64{"DefaultScore2": 5, "DefaultScore1": 1}}
	cfgDiffLists(t, "profile", want, cfgListsOf(c.Profiles[0]))
}

// TestConfigSeed004MostAllocated: seed 004's v1beta2 migration example
// (NodeResourcesFit with a MostAllocated scoringStrategy over cpu) loads;
// the single unnamed profile becomes default-scheduler.
func TestConfigSeed004MostAllocated(t *testing.T) {
	c := cfgLoadTestdata(t, "seed004_v1beta2_mostallocated.yaml")
	want := noderesources.NodeResourcesFitArgs{ScoringStrategy: &noderesources.ScoringStrategy{Type: noderesources.MostAllocated,
		Resources: []config.ResourceSpec{{Name: "cpu", Weight: 1}}}}
	if d := cmp.Diff(want, c.Profiles[0].Args[config.NodeResourcesFitName], cmpopts.EquateEmpty()); d != "" {
		t.Errorf("NodeResourcesFit args (-want +got):\n%s", d)
	}
	cfgDiffLists(t, "profile", cfgListsOf(scheduling.DefaultProfile()), cfgListsOf(c.Profiles[0]))
}

// TestConfigSeed000LoadAware: seed 000's koord-scheduler profile: the
// LoadAwareScheduling args as written (nodeMetricExpirationSeconds 300,
// usage thresholds cpu 75 / memory 85, prod thresholds 55 / 65, scaling
// factors 80 / 70, p99 aggregation with thresholds 65 / 75), defaulted by
// Koordinator's rules (enableScheduleWhenNodeMetricsExpired false); the
// plugin runs after the defaults at filter and score (weight 1) and alone at
// reserve.
func TestConfigSeed000LoadAware(t *testing.T) {
	c := cfgLoadTestdata(t, "seed000_loadaware.yaml")
	p := c.Profiles[0]
	if p.SchedulerName != "koord-scheduler" {
		t.Fatalf("schedulerName %q", p.SchedulerName)
	}
	def := cfgListsOf(scheduling.DefaultProfile())
	want := def
	want.Filter = cfgAppend(def.Filter, config.LoadAwareSchedulingName)
	want.Score = cfgAppend(def.Score, config.LoadAwareSchedulingName)
	want.Reserve = cfgAppend(def.Reserve, config.LoadAwareSchedulingName)
	want.Weights = map[string]int64{config.LoadAwareSchedulingName: 1}
	for k, v := range def.Weights {
		want.Weights[k] = v
	}
	cfgDiffLists(t, "profile", want, cfgListsOf(p))
	tr, fa := true, false
	secs := int64(300)
	wantArgs := config.LoadAwareSchedulingArgs{
		FilterExpiredNodeMetrics:             &tr,
		EnableScheduleWhenNodeMetricsExpired: &fa,
		NodeMetricExpirationSeconds:          &secs,
		ResourceWeights:                      map[resource.Name]int64{resource.CPU: 1, resource.Memory: 1},
		UsageThresholds:                      map[resource.Name]int64{resource.CPU: 75, resource.Memory: 85},
		ProdUsageThresholds:                  map[resource.Name]int64{resource.CPU: 55, resource.Memory: 65},
		ScoreAccordingProdUsage:              true,
		EstimatedScalingFactors:              map[resource.Name]int64{resource.CPU: 80, resource.Memory: 70},
		Aggregated: &config.LoadAwareSchedulingAggregatedArgs{
			UsageThresholds:      map[resource.Name]int64{resource.CPU: 65, resource.Memory: 75},
			UsageAggregationType: "p99",
			ScoreAggregationType: "p99",
		},
	}
	if d := cmp.Diff(wantArgs, p.Args[config.LoadAwareSchedulingName], cmpopts.EquateEmpty()); d != "" {
		t.Errorf("LoadAwareScheduling args (-want +got):\n%s", d)
	}
	if _, err := runtime.NewFramework(c.Registry(), p); err != nil {
		t.Fatal(err)
	}
}

// TestConfigSimulateExample: examples/simulate/config.yaml loads into its
// three profiles: the default one, bin-packing (NodeResourcesFit first at
// score, weight 5, MostAllocated) and load-aware (LoadAwareScheduling after
// the defaults at each of its points, weight 2); each builds a framework.
func TestConfigSimulateExample(t *testing.T) {
	c, err := LoadFile(filepath.Join("..", "..", "examples", "simulate", "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Profiles) != 3 || c.Parallelism != 4 {
		t.Fatalf("%d profiles, parallelism %d", len(c.Profiles), c.Parallelism)
	}
	def := cfgListsOf(scheduling.DefaultProfile())
	cfgDiffLists(t, "default-scheduler", def, cfgListsOf(c.Profiles[0]))

	bp := def
	bp.Score = append([]string{config.NodeResourcesFitName}, slicesWithout(def.Score, config.NodeResourcesFitName)...)
	bp.Weights = map[string]int64{}
	for k, v := range def.Weights {
		bp.Weights[k] = v
	}
	bp.Weights[config.NodeResourcesFitName] = 5
	cfgDiffLists(t, "bin-packing", bp, cfgListsOf(c.Profiles[1]))
	if got := c.Profiles[1].Args[config.NodeResourcesFitName].(noderesources.NodeResourcesFitArgs).ScoringStrategy.Type; got != noderesources.MostAllocated {
		t.Errorf("bin-packing strategy %q", got)
	}

	la := config.LoadAwareSchedulingName
	lw := def
	lw.PreFilter, lw.Filter = cfgAppend(def.PreFilter, la), cfgAppend(def.Filter, la)
	lw.PreScore, lw.Score, lw.Reserve = cfgAppend(def.PreScore, la), cfgAppend(def.Score, la), cfgAppend(def.Reserve, la)
	lw.Weights = map[string]int64{la: 2}
	for k, v := range def.Weights {
		lw.Weights[k] = v
	}
	cfgDiffLists(t, "load-aware", lw, cfgListsOf(c.Profiles[2]))
	for _, p := range c.Profiles {
		if _, err := runtime.NewFramework(c.Registry(), p); err != nil {
			t.Fatal(err)
		}
	}
}
