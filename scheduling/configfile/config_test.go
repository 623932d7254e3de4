package configfile

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/filter/defaultpreemption"
	"github.com/schedkit/schedkit/filter/interpodaffinity"
	"github.com/schedkit/schedkit/filter/noderesources"
	"github.com/schedkit/schedkit/filter/podtopologyspread"
	"github.com/schedkit/schedkit/filter/volumebinding"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/runtime"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/cluster"
	"github.com/schedkit/schedkit/scheduling/extender"
)

const cfgHead = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"

// cfgSortSpecs adds a second queue-sort plugin to the default plugins.
func cfgSortSpecs() Option {
	return WithPlugins(append(scheduling.DefaultPlugins(), cfgTSpec("OtherSort", "queueSort"))...)
}

// TestConfigErrors: decoding, validation and build errors name the field
// path and the value.
func TestConfigErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		opts []Option
		want []string
	}{
		{name: "empty", in: "", want: []string{"must be an object"}},
		{name: "not yaml", in: "a: [", want: []string{"decoding"}},
		{name: "no apiVersion", in: "kind: KubeSchedulerConfiguration\n", want: []string{"apiVersion: required"}},
		{name: "bad apiVersion", in: "apiVersion: kubescheduler.config.k8s.io/v9\nkind: KubeSchedulerConfiguration\n",
			want: []string{`apiVersion: "kubescheduler.config.k8s.io/v9": not supported`}},
		{name: "bad kind", in: "apiVersion: kubescheduler.config.k8s.io/v1\nkind: Pod\n", want: []string{`kind: "Pod": must be KubeSchedulerConfiguration`}},
		{name: "unknown top-level field", in: cfgHead + "paralelism: 3\n",
			want: []string{`paralelism: unknown field "paralelism" (known fields: apiVersion, clientConnection,`}},
		{name: "field names are case-sensitive", in: cfgHead + "Parallelism: 3\n", want: []string{`Parallelism: unknown field`}},
		{name: "unknown plugin field", in: cfgHead + "profiles:\n- plugins:\n    score:\n      enabled:\n      - nmae: ImageLocality\n",
			want: []string{`profiles[0].plugins.score.enabled[0].nmae: unknown field "nmae" (known fields: name, weight)`}},
		{name: "unknown extension point", in: cfgHead + "profiles:\n- plugins:\n    scores: {}\n",
			want: []string{`profiles[0].plugins.scores: unknown field "scores" (known fields: bind, filter, multiPoint,`}},
		{name: "duplicate key", in: cfgHead + "parallelism: 2\nparallelism: 3\n", want: []string{"decoding", "parallelism"}},
		{name: "weight beyond int32", in: cfgHead + "profiles:\n- plugins:\n    score:\n      enabled:\n      - name: ImageLocality\n        weight: 3000000000\n",
			want: []string{"profiles[0].plugins.score.enabled[0].weight: 3000000000: out of range of int32"}},
		{name: "weight not an integer", in: cfgHead + "profiles:\n- plugins:\n    score:\n      enabled:\n      - name: ImageLocality\n        weight: 1.5\n",
			want: []string{"profiles[0].plugins.score.enabled[0].weight: 1.5: must be an integer"}},
		{name: "string for number", in: cfgHead + "parallelism: many\n", want: []string{`parallelism: "many": must be an integer`}},
		{name: "unknown plugin", in: cfgHead + "profiles:\n- plugins:\n    filter:\n      enabled:\n      - name: Foo\n",
			want: []string{`profiles[0].plugins.filter.enabled[0].name: "Foo": unknown plugin (known: AzureDiskLimits, CinderLimits, Coscheduling, DefaultBinder, DefaultPreemption, DynamicResources, EBSLimits, GCEPDLimits, GangScheduling,`}},
		{name: "unmodelled kube plugin", in: cfgHead + "profiles:\n- plugins:\n    filter:\n      enabled:\n      - name: NodeDeclaredFeatures\n",
			want: []string{`"NodeDeclaredFeatures": kube-scheduler plugin that this registry does not offer`}},
		{name: "removed kube plugin", in: cfgHead + "profiles:\n- plugins:\n    filter:\n      enabled:\n      - name: EBSLimits\n",
			want: []string{`profiles[0].plugins.filter.enabled[0].name: "EBSLimits": was invalid in version "kubescheduler.config.k8s.io/v1"`}},
		{name: "unknown disabled plugin", in: cfgHead + "profiles:\n- plugins:\n    filter:\n      disabled:\n      - name: NodeNmae\n",
			want: []string{`profiles[0].plugins.filter.disabled[0].name: "NodeNmae": unknown plugin`}},
		{name: "plugin at a point it does not implement", in: cfgHead + "profiles:\n- plugins:\n    score:\n      enabled:\n      - name: NodeName\n",
			want: []string{`profiles[0] (schedulerName "default-scheduler"): plugins.score: plugin "NodeName" does not extend score`}},
		{name: "plugin twice at a point", in: cfgHead + "profiles:\n- plugins:\n    filter:\n      enabled:\n      - name: NodeName\n      - name: NodeName\n",
			want: []string{`plugins.filter: plugin "NodeName" already registered at filter`}},
		{name: "plugin twice in multiPoint", in: cfgHead + "profiles:\n- plugins:\n    multiPoint:\n      enabled:\n      - name: LoadAwareScheduling\n      - name: LoadAwareScheduling\n",
			want: []string{`plugins.multiPoint: plugin "LoadAwareScheduling" already registered at preFilter`}},
		{name: "no queue sort", in: cfgHead + "profiles:\n- plugins:\n    multiPoint:\n      disabled:\n      - name: PrioritySort\n",
			want: []string{"exactly one queue sort plugin is required, got 0"}},
		{name: "two queue sorts", in: cfgHead + "profiles:\n- plugins:\n    queueSort:\n      enabled:\n      - name: PrioritySort\n      - name: OtherSort\n",
			opts: []Option{cfgSortSpecs()}, want: []string{"profiles[0].plugins.queueSort.enabled: 2: only one queue sort plugin can be enabled"}},
		{name: "no bind", in: cfgHead + "profiles:\n- plugins:\n    bind:\n      disabled:\n      - name: '*'\n",
			want: []string{"at least one bind plugin is needed"}},
		{name: "negative weight turning the total negative", in: cfgHead + "profiles:\n- plugins:\n    multiPoint:\n      enabled:\n      - name: TaintToleration\n        weight: -100\n",
			want: []string{`plugin "TaintToleration" weight -100 is negative and takes the total of Score weights below zero, which kube-scheduler refuses`,
				`(its overflow check for plugin "NodeAffinity" weight 2, running total -10000, wraps around)`}},
		{name: "duplicate schedulerName", in: cfgHead + "profiles:\n- schedulerName: a\n- schedulerName: a\n",
			want: []string{`profiles[1].schedulerName: "a": duplicate value (profiles[0].schedulerName)`}},
		{name: "schedulerName required with several profiles", in: cfgHead + "profiles:\n- schedulerName: a\n- {}\n",
			want: []string{"profiles[1].schedulerName: required (every profile needs one when there are several)"}},
		{name: "empty schedulerName of a single profile", in: cfgHead + "profiles:\n- schedulerName: ''\n",
			want: []string{`profiles[0].schedulerName: required (an empty value is not defaulted; omit the field for "default-scheduler")`}},
		{name: "queueSort differs", opts: []Option{cfgSortSpecs()},
			in:   cfgHead + "profiles:\n- schedulerName: a\n- schedulerName: b\n  plugins:\n    queueSort:\n      enabled:\n      - name: OtherSort\n      disabled:\n      - name: '*'\n",
			want: []string{`profiles[1].plugins.queueSort: {enabled: ["OtherSort"], disabled: ["*"]}: must be the same for all profiles`}},
		{name: "queueSort through multiPoint differs", opts: []Option{cfgSortSpecs()},
			in:   cfgHead + "profiles:\n- schedulerName: a\n- schedulerName: b\n  plugins:\n    multiPoint:\n      enabled:\n      - name: OtherSort\n      disabled:\n      - name: PrioritySort\n",
			want: []string{`profiles[1]: queue sort ["OtherSort"] (with its args) differs from profiles[0]'s ["PrioritySort"]`}},
		{name: "duplicate pluginConfig", in: cfgHead + "profiles:\n- pluginConfig:\n  - name: NodeAffinity\n  - name: NodeAffinity\n",
			want: []string{`profiles[0].pluginConfig[1]: "NodeAffinity": duplicate value`}},
		{name: "pluginConfig for unknown plugin", in: cfgHead + "profiles:\n- pluginConfig:\n  - name: NodeResourceFit\n    args: {}\n",
			want: []string{`profiles[0].pluginConfig[0].name: "NodeResourceFit": unknown plugin (known:`}},
		{name: "args for a plugin without args", in: cfgHead + "profiles:\n- pluginConfig:\n  - name: ImageLocality\n    args: {x: 1}\n",
			want: []string{`profiles[0].pluginConfig[0].args: plugin "ImageLocality" takes no args`}},
		{name: "args of another kind", in: cfgHead + "profiles:\n- pluginConfig:\n  - name: NodeAffinity\n    args:\n      kind: InterPodAffinityArgs\n",
			want: []string{`profiles[0].pluginConfig[0].args.kind: "InterPodAffinityArgs": args of plugin "NodeAffinity" must be of kind "NodeAffinityArgs"`}},
		{name: "unknown args field", in: cfgHead + "profiles:\n- pluginConfig:\n  - name: InterPodAffinity\n    args:\n      hardPodAffinityWieght: 3\n",
			want: []string{`profiles[0].pluginConfig[0].args.hardPodAffinityWieght: unknown field "hardPodAffinityWieght" (known fields: hardPodAffinityWeight, ignorePreferredTermsOfExistingPods)`}},
		{name: "hardPodAffinityWeight out of range", in: cfgHead + "profiles:\n- pluginConfig:\n  - name: InterPodAffinity\n    args:\n      hardPodAffinityWeight: 101\n",
			want: []string{"profiles[0].pluginConfig[0].args.hardPodAffinityWeight: 101: not in valid range [0, 100]"}},
		{name: "LoadAware threshold", in: cfgHead + "profiles:\n- plugins:\n    multiPoint:\n      enabled:\n      - name: LoadAwareScheduling\n  pluginConfig:\n  - name: NodeAffinity\n  - name: LoadAwareScheduling\n    args:\n      usageThresholds:\n        cpu: 120\n",
			want: []string{"profiles[0].pluginConfig[1].args.usageThresholds.cpu: 120: must be within [0,100]"}},
		{name: "LoadAware threshold of a dotted resource", in: cfgHead + "profiles:\n- plugins:\n    multiPoint:\n      enabled:\n      - name: LoadAwareScheduling\n  pluginConfig:\n  - name: LoadAwareScheduling\n    args:\n      usageThresholds:\n        nvidia.com/gpu: -1\n",
			want: []string{"profiles[0].pluginConfig[0].args.usageThresholds[nvidia.com/gpu]: -1: must be within [0,100]"}},
		{name: "LoadAware duration", in: cfgHead + "profiles:\n- pluginConfig:\n  - name: LoadAwareScheduling\n    args:\n      aggregated:\n        usageAggregatedDuration: 5\n",
			want: []string{`profiles[0].pluginConfig[0].args.aggregated.usageAggregatedDuration: 5: must be a duration string such as "15s"`}},
		{name: "NodeResourcesFit without type, enabled", in: cfgHead + "profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args:\n      scoringStrategy:\n        resources:\n        - name: cpu\n",
			want: []string{`profiles[0].pluginConfig[0].args.scoringStrategy.type: "": supported values: "LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"`}},
		{name: "NodeResourcesFit weight", in: cfgHead + "profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args:\n      scoringStrategy:\n        type: MostAllocated\n        resources:\n        - name: cpu\n          weight: 101\n",
			want: []string{"profiles[0].pluginConfig[0].args.scoringStrategy.resources[0].weight: 101: resource weight of cpu not in valid range (0, 100]"}},
		{name: "PodTopologySpread System with constraints", in: cfgHead + "profiles:\n- pluginConfig:\n  - name: PodTopologySpread\n    args:\n      defaultConstraints:\n      - maxSkew: 1\n        topologyKey: zone\n        whenUnsatisfiable: ScheduleAnyway\n",
			want: []string{`profiles[0].pluginConfig[0].args.defaultingType: "System": invalid when defaultConstraints are not empty`}},
		{name: "BalancedAllocation weight", in: cfgHead + "profiles:\n- pluginConfig:\n  - name: NodeResourcesBalancedAllocation\n    args:\n      resources:\n      - name: cpu\n        weight: 2\n",
			want: []string{"profiles[0].pluginConfig[0].args.resources[0].weight: 2: must be 1"}},
		{name: "DefaultPreemption both zero", in: cfgHead + "profiles:\n- pluginConfig:\n  - name: DefaultPreemption\n    args:\n      minCandidateNodesPercentage: 0\n      minCandidateNodesAbsolute: 0\n",
			want: []string{"profiles[0].pluginConfig[0].args.minCandidateNodesPercentage: 0: cannot be zero at the same time as minCandidateNodesAbsolute",
				"profiles[0].pluginConfig[0].args.minCandidateNodesAbsolute: 0: cannot be zero at the same time as minCandidateNodesPercentage"}},
		{name: "DefaultPreemption percentage", in: cfgHead + "profiles:\n- pluginConfig:\n  - name: DefaultPreemption\n    args:\n      minCandidateNodesPercentage: 101\n",
			want: []string{"profiles[0].pluginConfig[0].args.minCandidateNodesPercentage: 101: not in valid range [0, 100]"}},
		{name: "parallelism", in: cfgHead + "parallelism: 0\n", want: []string{"parallelism: 0: should be an integer value greater than zero"}},
		{name: "percentageOfNodesToScore", in: cfgHead + "percentageOfNodesToScore: 101\nprofiles:\n- percentageOfNodesToScore: -1\n",
			want: []string{"percentageOfNodesToScore: 101: not in valid range [0-100]", "profiles[0].percentageOfNodesToScore: -1: not in valid range [0-100]"}},
		{name: "backoff", in: cfgHead + "podInitialBackoffSeconds: 5\npodMaxBackoffSeconds: 4\n",
			want: []string{"podMaxBackoffSeconds: 4: must be greater than or equal to podInitialBackoffSeconds"}},
		{name: "initial backoff", in: cfgHead + "podInitialBackoffSeconds: 0\n", want: []string{"podInitialBackoffSeconds: 0: must be greater than 0"}},
		{name: "backoffs beyond a Duration", in: cfgHead + "podInitialBackoffSeconds: 10000000000\npodMaxBackoffSeconds: 10000000000\n",
			want: []string{"podInitialBackoffSeconds: 10000000000: must be at most 9223372036 (the longest time.Duration, in seconds)",
				"podMaxBackoffSeconds: 10000000000: must be at most 9223372036 (the longest time.Duration, in seconds)"}},
		{name: "max backoff beyond a Duration", in: cfgHead + "podMaxBackoffSeconds: 20000000000\n",
			want: []string{"podMaxBackoffSeconds: 20000000000: must be at most 9223372036 (the longest time.Duration, in seconds)"}},
		{name: "leader election lock", in: cfgHead + "leaderElection:\n  resourceLock: endpoints\n", want: []string{`leaderElection.resourceLock: "endpoints": resourceLock value must be "leases"`}},
		{name: "leader election duration", in: cfgHead + "leaderElection:\n  leaseDuration: 5s\n", want: []string{"leaderElection.leaseDuration: 10s: LeaseDuration must be greater than RenewDeadline"}},
		{name: "bad duration", in: cfgHead + "leaderElection:\n  leaseDuration: soon\n", want: []string{`leaderElection.leaseDuration: "soon": not a valid duration`}},
		{name: "v1beta2 multiPoint", in: "apiVersion: kubescheduler.config.k8s.io/v1beta2\nkind: KubeSchedulerConfiguration\nprofiles:\n- plugins:\n    multiPoint: {}\n",
			want: []string{"profiles[0].plugins.multiPoint: not a field of kubescheduler.config.k8s.io/v1beta2"}},
		{name: "v1beta2 healthz", in: "apiVersion: kubescheduler.config.k8s.io/v1beta2\nkind: KubeSchedulerConfiguration\nhealthzBindAddress: 0.0.0.0:10251\n",
			want: []string{"healthzBindAddress: field of kubescheduler.config.k8s.io/v1beta2 that kube-scheduler removed in v1beta3"}},
		{name: "v1beta3 profile percentage", in: "apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\nprofiles:\n- percentageOfNodesToScore: 5\n",
			want: []string{"profiles[0].percentageOfNodesToScore: not a field of kubescheduler.config.k8s.io/v1beta3"}},
		{name: "preEnqueue", in: cfgHead + "profiles:\n- plugins:\n    preEnqueue:\n      enabled:\n      - name: PrioritySort\n",
			want: []string{`plugins.preEnqueue: plugin "PrioritySort" does not extend preEnqueue`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load([]byte(tc.in), tc.opts...)
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error:\n%v\nwant it to contain:\n%s", err, w)
				}
			}
		})
	}
}

// TestConfigKubeBehaviour: the behaviour §4.1 of the reference confirms
// against the kube-scheduler v1.36.4 binary, and other cases kube accepts.
func TestConfigKubeBehaviour(t *testing.T) {
	def := cfgListsOf(scheduling.DefaultProfile())
	load := func(t *testing.T, in string) framework.Profile {
		t.Helper()
		c, err := Load([]byte(cfgHead + in))
		if err != nil {
			t.Fatal(err)
		}
		return c.Profiles[0]
	}
	t.Run("re-listing a default without weight resets it to 1", func(t *testing.T) {
		p := load(t, "profiles:\n- plugins:\n    multiPoint:\n      enabled:\n      - name: TaintToleration\n    score:\n      enabled:\n      - name: InterPodAffinity\n")
		if p.Weights[config.TaintTolerationName] != 1 || p.Weights[config.InterPodAffinityName] != 1 {
			t.Errorf("weights %v, want TaintToleration 1 and InterPodAffinity 1", p.Weights)
		}
		// Listed at score, InterPodAffinity moves to the front there only.
		want := append([]string{config.InterPodAffinityName}, slicesWithout(def.Score, config.InterPodAffinityName)...)
		if d := cmp.Diff(want, p.Score); d != "" {
			t.Errorf("score (-want +got):\n%s", d)
		}
		if d := cmp.Diff(def.Filter, p.Filter); d != "" {
			t.Errorf("filter (-want +got):\n%s", d)
		}
	})
	t.Run("weight 0 is 1, a point weight beats multiPoint's", func(t *testing.T) {
		p := load(t, "profiles:\n- plugins:\n    multiPoint:\n      enabled:\n      - name: NodeAffinity\n        weight: 0\n      - name: ImageLocality\n        weight: 4\n    score:\n      enabled:\n      - name: ImageLocality\n        weight: 9\n")
		if p.Weights[config.NodeAffinityName] != 1 || p.Weights[config.ImageLocalityName] != 9 {
			t.Errorf("weights %v", p.Weights)
		}
	})
	t.Run("non-default plugin through multiPoint runs after the defaults", func(t *testing.T) {
		p := load(t, "profiles:\n- plugins:\n    multiPoint:\n      enabled:\n      - name: LoadAwareScheduling\n        weight: 5\n")
		la := config.LoadAwareSchedulingName
		want := def
		want.PreFilter, want.Filter = cfgAppend(def.PreFilter, la), cfgAppend(def.Filter, la)
		want.PreScore, want.Score = cfgAppend(def.PreScore, la), cfgAppend(def.Score, la)
		want.Reserve = cfgAppend(def.Reserve, la)
		want.Weights = map[string]int64{la: 5}
		for k, v := range def.Weights {
			want.Weights[k] = v
		}
		cfgDiffLists(t, "profile", want, cfgListsOf(p))
	})
	t.Run("a lone negative weight is accepted", func(t *testing.T) {
		// ImageLocality is checked last: the total stays positive.
		p := load(t, "profiles:\n- plugins:\n    multiPoint:\n      enabled:\n      - name: ImageLocality\n        weight: -5\n")
		if p.Weights[config.ImageLocalityName] != -5 {
			t.Errorf("weights %v", p.Weights)
		}
	})
	t.Run("hardPodAffinityWeight 0 is kept", func(t *testing.T) {
		p := load(t, "profiles:\n- pluginConfig:\n  - name: InterPodAffinity\n    args:\n      hardPodAffinityWeight: 0\n")
		if d := cmp.Diff(interpodaffinity.InterPodAffinityArgs{}, p.Args[config.InterPodAffinityName]); d != "" {
			t.Errorf("args (-want +got):\n%s", d)
		}
	})
	t.Run("NodeResourcesFit args of a disabled plugin are not checked", func(t *testing.T) {
		p := load(t, "profiles:\n- plugins:\n    multiPoint:\n      disabled:\n      - name: NodeResourcesFit\n  pluginConfig:\n  - name: NodeResourcesFit\n    args:\n      scoringStrategy:\n        type: Fancy\n")
		if slicesContains(p.Filter, config.NodeResourcesFitName) {
			t.Errorf("NodeResourcesFit still enabled: %v", p.Filter)
		}
	})
	t.Run("disabling a plugin schedkit does not model is accepted", func(t *testing.T) {
		p := load(t, "profiles:\n- plugins:\n    multiPoint:\n      disabled:\n      - name: NodeDeclaredFeatures\n")
		cfgDiffLists(t, "profile", def, cfgListsOf(p))
	})
	t.Run("enabled beats disabled in multiPoint", func(t *testing.T) {
		p := load(t, "profiles:\n- plugins:\n    multiPoint:\n      enabled:\n      - name: ImageLocality\n      disabled:\n      - name: ImageLocality\n")
		// ImageLocality is re-appended after the other defaults; its weight is 1.
		if got := p.Score[len(p.Score)-1]; got != config.ImageLocalityName || p.Weights[got] != 1 {
			t.Errorf("score %v weights %v", p.Score, p.Weights)
		}
	})
	t.Run("args carry apiVersion and kind; JSON input", func(t *testing.T) {
		c, err := Load([]byte(`{"apiVersion":"kubescheduler.config.k8s.io/v1","kind":"KubeSchedulerConfiguration","parallelism":4,
			"profiles":[{"schedulerName":"j","percentageOfNodesToScore":30,"pluginConfig":[{"name":"NodeResourcesFit",
			"args":{"apiVersion":"kubescheduler.config.k8s.io/v1","kind":"NodeResourcesFitArgs","ignoredResources":["example.com/foo"]}}]}]}`))
		if err != nil {
			t.Fatal(err)
		}
		p := c.Profiles[0]
		want := noderesources.DefaultNodeResourcesFitArgs()
		want.IgnoredResources = []string{"example.com/foo"}
		if d := cmp.Diff(want, p.Args[config.NodeResourcesFitName]); d != "" {
			t.Errorf("args (-want +got):\n%s", d)
		}
		if c.Parallelism != 4 || p.SchedulerName != "j" || p.PercentageOfNodesToScore == nil || *p.PercentageOfNodesToScore != 30 {
			t.Errorf("configuration %+v / %+v", c, p)
		}
	})
	t.Run("DefaultPreemption args are validated and printed, not passed to an unregistered plugin", func(t *testing.T) {
		c, err := Load([]byte(cfgHead + "profiles:\n- pluginConfig:\n  - name: DefaultPreemption\n    args:\n      minCandidateNodesAbsolute: 0\n"))
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := c.Registry().Lookup(config.DefaultPreemptionName); !ok {
			if _, ok := c.Profiles[0].Args[config.DefaultPreemptionName]; ok {
				t.Errorf("args for the unregistered DefaultPreemption in the profile")
			}
		}
		var b bytes.Buffer
		if err := c.Write(&b); err != nil {
			t.Fatal(err)
		}
		for _, w := range []string{"minCandidateNodesAbsolute: 0", "minCandidateNodesPercentage: 10", "kind: DefaultPreemptionArgs"} {
			if !strings.Contains(b.String(), w) {
				t.Errorf("output lacks %q:\n%s", w, b.String())
			}
		}
	})
}

// TestConfigDefaultPreemption: with DefaultPreemption registered and in the
// default multiPoint list after InterPodAffinity (kube v1.36's place), it is
// the PostFilter plugin and its args are defaulted per field (an explicit 0
// stays) into defaultpreemption.DefaultPreemptionArgs.
func TestConfigDefaultPreemption(t *testing.T) {
	specs := scheduling.DefaultPlugins() // DefaultPreemption is a default plugin
	var mp []scheduling.WeightedPlugin
	for _, p := range scheduling.DefaultMultiPoint() {
		if p.Name == config.DefaultPreemptionName {
			continue
		}
		mp = append(mp, p)
		if p.Name == config.InterPodAffinityName {
			mp = append(mp, scheduling.WeightedPlugin{Name: config.DefaultPreemptionName})
		}
	}
	opts := []Option{WithPlugins(specs...), WithDefaultPlugins(mp)}
	c, err := Load([]byte(cfgHead+"profiles:\n- pluginConfig:\n  - name: DefaultPreemption\n    args:\n      minCandidateNodesAbsolute: 0\n"), opts...)
	if err != nil {
		t.Fatal(err)
	}
	p := c.Profiles[0]
	if d := cmp.Diff([]string{config.DefaultPreemptionName, config.DynamicResourcesName}, p.PostFilter); d != "" {
		t.Errorf("postFilter (-want +got):\n%s", d)
	}
	want := defaultpreemption.DefaultPreemptionArgs{MinCandidateNodesPercentage: 10, MinCandidateNodesAbsolute: 0}
	if d := cmp.Diff(want, p.Args[config.DefaultPreemptionName]); d != "" {
		t.Errorf("args (-want +got):\n%s", d)
	}
	if _, err := runtime.NewFramework(c.Registry(), p); err != nil {
		t.Fatal(err)
	}
	c2, err := Load([]byte(cfgWriteString(t, c)), opts...)
	if err != nil {
		t.Fatal(err)
	}
	if d := cfgSame(c, c2); d != "" {
		t.Errorf("round trip (-first +second):\n%s", d)
	}
	// Without a pluginConfig entry, the defaults are added.
	c3, err := Load([]byte(cfgHead), opts...)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(defaultpreemption.DefaultDefaultPreemptionArgs(), c3.Profiles[0].Args[config.DefaultPreemptionName]); d != "" {
		t.Errorf("default args (-want +got):\n%s", d)
	}
}

// TestConfigArgsDefaulting: each args kind is defaulted as its anchor's
// versioned SetDefaults: nil fields only, an explicit zero kept where the
// anchor keeps it (kube: hardPodAffinityWeight; NodeResourcesFit turns a
// resource weight of 0 into 1). Koordinator defaults resourceWeights and
// usageThresholds only when empty (a given map is not merged with the
// defaults) but completes estimatedScalingFactors with the missing cpu and
// memory keys (SetDefaults_LoadAwareSchedulingArgs).
func TestConfigArgsDefaulting(t *testing.T) {
	c, err := Load([]byte(cfgHead + `profiles:
- plugins:
    multiPoint:
      enabled:
      - name: LoadAwareScheduling
  pluginConfig:
  - name: LoadAwareScheduling
    args:
      resourceWeights: {cpu: 2}
      usageThresholds: {memory: 80}
      estimatedScalingFactors: {cpu: 50}
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: LeastAllocated
        resources: [{name: cpu, weight: 0}, {name: nvidia.com/gpu, weight: 3}]
  - name: PodTopologySpread
    args: {}
  - name: NodeResourcesBalancedAllocation
    args:
      resources: [{name: cpu}]
`))
	if err != nil {
		t.Fatal(err)
	}
	args := c.Profiles[0].Args
	la := args[config.LoadAwareSchedulingName].(config.LoadAwareSchedulingArgs)
	if d := cmp.Diff(map[resource.Name]int64{"cpu": 2}, la.ResourceWeights); d != "" {
		t.Errorf("resourceWeights (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[resource.Name]int64{"memory": 80}, la.UsageThresholds); d != "" {
		t.Errorf("usageThresholds (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[resource.Name]int64{"cpu": 50, "memory": 70}, la.EstimatedScalingFactors); d != "" {
		t.Errorf("estimatedScalingFactors (-want +got):\n%s", d)
	}
	if *la.NodeMetricExpirationSeconds != 180 || !*la.FilterExpiredNodeMetrics || *la.EnableScheduleWhenNodeMetricsExpired {
		t.Errorf("LoadAware scalar defaults: %+v", la)
	}
	fit := args[config.NodeResourcesFitName].(noderesources.NodeResourcesFitArgs)
	if d := cmp.Diff([]config.ResourceSpec{{Name: "cpu", Weight: 1}, {Name: "nvidia.com/gpu", Weight: 3}}, fit.ScoringStrategy.Resources); d != "" {
		t.Errorf("NodeResourcesFit resources (-want +got):\n%s", d)
	}
	if got := args[config.PodTopologySpreadName].(podtopologyspread.PodTopologySpreadArgs).DefaultingType; got != podtopologyspread.SystemDefaulting {
		t.Errorf("defaultingType %q", got)
	}
	ba := args[config.NodeResourcesBalancedAllocationName].(noderesources.NodeResourcesBalancedAllocationArgs)
	if d := cmp.Diff([]config.ResourceSpec{{Name: "cpu", Weight: 1}}, ba.Resources); d != "" {
		t.Errorf("BalancedAllocation resources (-want +got):\n%s", d)
	}
}

func slicesWithout(s []string, x string) []string {
	var out []string
	for _, v := range s {
		if v != x {
			out = append(out, v)
		}
	}
	return out
}

func slicesContains(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

// TestConfigSchedulerOptions: the scheduler-wide settings reach New.
func TestConfigSchedulerOptions(t *testing.T) {
	c, err := Load([]byte(cfgHead + "parallelism: 3\npercentageOfNodesToScore: 40\npodInitialBackoffSeconds: 2\npodMaxBackoffSeconds: 20\n"))
	if err != nil {
		t.Fatal(err)
	}
	cl, err := cluster.New()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := scheduling.New(cl, c.Registry(), c.Profiles, c.SchedulerOptions()...); err != nil {
		t.Fatal(err)
	}
}

// cfgWriteString prints c.
func cfgWriteString(t interface {
	Helper()
	Fatal(...any)
}, c *Configuration) string {
	t.Helper()
	var b bytes.Buffer
	if err := c.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// cfgSame compares two loaded configurations.
func cfgSame(a, b *Configuration) string { return cmp.Diff(a, b, cfgSameOptions()) }

// cfgSameOptions compare raw plugin args (json.RawMessage) as whole values:
// go-cmp walks a byte slice element by element through its options and
// diffs it as a sequence, which made FuzzLoad's round-trip check
// cost ten times the loading and printing it checks (and stalled the
// fuzzer while it minimised valid inputs).
func cfgSameOptions() cmp.Option {
	return cmp.Options{cmpopts.IgnoreFields(Configuration{}, "specs"), cmpopts.EquateEmpty(),
		// Byte slices (raw args, TLS data) compare whole; both empty is
		// left to EquateEmpty, which would otherwise apply too.
		cmp.FilterValues(func(x, y []byte) bool { return len(x)+len(y) > 0 }, cmp.Comparer(bytes.Equal)),
		cmp.Exporter(func(reflect.Type) bool { return true }),
		cmp.Comparer(func(x, y *extender.Client) bool { return cmp.Equal(x.Config(), y.Config()) })}
}

// TestConfigWriteRoundTrip: for every test file, the printed configuration
// loads back to the same Configuration and prints identically.
func TestConfigWriteRoundTrip(t *testing.T) {
	four := WithPlugins(append(scheduling.DefaultPlugins(), cfgTSpec("MyPlugin", "four"),
		cfgTSpec("MyCustomPluginA", "score"), cfgTSpec("MyCustomPluginB", "score"))...)
	files := map[string][]Option{
		"seed000_loadaware.yaml":             nil,
		"seed004_minimal.yaml":               nil,
		"seed004_score_custom.yaml":          {four},
		"seed004_profiles.yaml":              nil,
		"seed004_multipoint.yaml":            {four},
		"seed004_non_multipoint.yaml":        {four},
		"seed004_multipoint_no_score.yaml":   {four},
		"seed004_hierarchy.yaml":             cfgSeedHierarchyPlugins(),
		"seed004_v1beta2_mostallocated.yaml": nil,
	}
	for name, opts := range files {
		t.Run(name, func(t *testing.T) {
			c1 := cfgLoadTestdata(t, name, opts...)
			out1 := cfgWriteString(t, c1)
			c2, err := Load([]byte(out1), opts...)
			if err != nil {
				t.Fatalf("reloading:\n%s\n%v", out1, err)
			}
			if d := cfgSame(c1, c2); d != "" {
				t.Errorf("reloaded configuration differs (-first +second):\n%s", d)
			}
			if out2 := cfgWriteString(t, c2); out2 != out1 {
				t.Errorf("second print differs:\n%s\n---\n%s", out1, out2)
			}
		})
	}
}

// TestConfigVolumePlugins: a configuration that enables or configures the
// volume plugins and SchedulingGates loads; VolumeBinding's args get
// kube's defaults and validation (a shape only with the
// StorageCapacityScoring gate, WithStorageCapacityScoring, which is
// not a field of the args: kube's VolumeBindingArgs has
// bindTimeoutSeconds and shape only, and its strict decoding refuses
// anything else; SetDefaults_VolumeBindingArgs in
// pkg/scheduler/apis/config/v1/defaults.go reads the gate). The gate is
// off by default in v1.36, which the checks below load as, and on in
// v1.37 (TestConfigVolumeBindingByVersion).
func TestConfigVolumePlugins(t *testing.T) {
	load := func(in string) (*Configuration, error) {
		return Load([]byte(cfgHead+in), WithKubeVersion(framework.KubeV136))
	}
	c, err := load("profiles:\n- plugins:\n    preEnqueue:\n      enabled:\n      - name: SchedulingGates\n    filter:\n      enabled:\n      - name: VolumeZone\n  pluginConfig:\n  - name: VolumeBinding\n    args:\n      bindTimeoutSeconds: 0\n")
	if err != nil {
		t.Fatal(err)
	}
	p := c.Profiles[0]
	if d := cmp.Diff([]string{config.SchedulingGatesName, config.DynamicResourcesName}, p.PreEnqueue); d != "" {
		t.Errorf("preEnqueue (-want +got):\n%s", d)
	}
	if got := p.Args[config.VolumeBindingName]; !cmp.Equal(got, volumebinding.VolumeBindingArgs{BindTimeoutSeconds: 0, StorageCapacityScoring: new(false)}) {
		t.Errorf("VolumeBinding args %#v, want bindTimeoutSeconds 0 kept", got)
	}
	if _, err := runtime.NewFramework(c.Registry(), p, runtime.WithKubeVersion(c.KubeVersion())); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := c.Write(&out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "kind: VolumeBindingArgs") || !strings.Contains(out.String(), "bindTimeoutSeconds: 0") {
		t.Errorf("written configuration lacks the VolumeBinding args:\n%s", out.String())
	}
	// With the gate, VolumeBinding's args (configured or not) get the
	// default shape, and a shape of the file's is kept.
	gate := WithStorageCapacityScoring(true)
	for _, tc := range []struct {
		in   string
		want []config.UtilizationShapePoint
	}{
		{"", []config.UtilizationShapePoint{{Utilization: 0, Score: 10}, {Utilization: 100, Score: 0}}},
		{"profiles:\n- pluginConfig:\n  - name: VolumeBinding\n    args:\n      shape:\n      - utilization: 50\n        score: 4\n",
			[]config.UtilizationShapePoint{{Utilization: 50, Score: 4}}},
	} {
		c, err := Load([]byte(cfgHead+tc.in), gate)
		if err != nil {
			t.Fatal(err)
		}
		want := volumebinding.VolumeBindingArgs{BindTimeoutSeconds: 600, StorageCapacityScoring: new(true), Shape: tc.want}
		if d := cmp.Diff(want, c.Profiles[0].Args[config.VolumeBindingName]); d != "" {
			t.Errorf("args with capacity scoring for %q (-want +got):\n%s", tc.in, d)
		}
	}
	if got, err := DecodePluginArgs(config.VolumeBindingName, nil, gate); err != nil || !got.(volumebinding.VolumeBindingArgs).CapacityScoring() {
		t.Errorf("DecodePluginArgs with the gate: %#v, %v", got, err)
	}
	c, err = load("profiles:\n- plugins:\n    multiPoint:\n      disabled:\n      - name: SchedulingGates\n      - name: DynamicResources\n")
	if err != nil || len(c.Profiles[0].PreEnqueue) != 0 {
		t.Errorf("disabling SchedulingGates: %v, preEnqueue %v", err, c.Profiles[0].PreEnqueue)
	}
	for _, tc := range []struct{ in, want string }{
		{"profiles:\n- pluginConfig:\n  - name: VolumeBinding\n    args:\n      bindTimeoutSeconds: -1\n",
			"profiles[0].pluginConfig[0].args.bindTimeoutSeconds: -1: invalid BindTimeoutSeconds, should not be a negative value"},
		{"profiles:\n- pluginConfig:\n  - name: VolumeBinding\n    args:\n      shape:\n      - utilization: 0\n        score: 5\n",
			"profiles[0].pluginConfig[0].args.shape: [{0 5}]: unexpected field `shape`, remove it or turn on the feature gate StorageCapacityScoring"},
		{"profiles:\n- pluginConfig:\n  - name: VolumeBinding\n    args:\n      storageCapacityScoring: true\n",
			`profiles[0].pluginConfig[0].args.storageCapacityScoring: unknown field "storageCapacityScoring"`},
		{"profiles:\n- pluginConfig:\n  - name: VolumeZone\n    args:\n      foo: 1\n", `plugin "VolumeZone" takes no args`},
		{"profiles:\n- pluginConfig:\n  - name: GCEPDLimits\n", `"GCEPDLimits": was invalid in version "kubescheduler.config.k8s.io/v1"`},
	} {
		if _, err := load(tc.in); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("config:\n%s\nerr = %v, want %q", tc.in, err, tc.want)
		}
	}
	if _, err := Load([]byte(cfgHead+"profiles:\n- pluginConfig:\n  - name: VolumeBinding\n    args:\n      shape:\n      - utilization: 50\n        score: 11\n"), gate); err == nil ||
		!strings.Contains(err.Error(), "profiles[0].pluginConfig[0].args.shape[0].score: 11: not in valid range [0, 10]") {
		t.Errorf("a bad shape with the gate: %v", err)
	}
}

// TestConfigVolumeBindingByVersion: the StorageCapacityScoring gate, and
// with it VolumeBinding's default shape, follows the release loaded as
// (alpha and off in v1.36, beta and on in v1.37: pkg/features
// kube_features.go; SetDefaults_VolumeBindingArgs) unless
// WithStorageCapacityScoring sets it.
func TestConfigVolumeBindingByVersion(t *testing.T) {
	shape := []config.UtilizationShapePoint{{Utilization: 0, Score: 10}, {Utilization: 100, Score: 0}}
	for _, tc := range []struct {
		name string
		opts []Option
		want volumebinding.VolumeBindingArgs
	}{
		{"v1.36", []Option{WithKubeVersion(framework.KubeV136)}, volumebinding.VolumeBindingArgs{BindTimeoutSeconds: 600, StorageCapacityScoring: new(false)}},
		{"v1.37", []Option{WithKubeVersion(framework.KubeV137)}, volumebinding.VolumeBindingArgs{BindTimeoutSeconds: 600, StorageCapacityScoring: new(true), Shape: shape}},
		{"default release", nil, volumebinding.VolumeBindingArgs{BindTimeoutSeconds: 600, StorageCapacityScoring: new(true), Shape: shape}},
		{"v1.37 gate off", []Option{WithKubeVersion(framework.KubeV137), WithStorageCapacityScoring(false)},
			volumebinding.VolumeBindingArgs{BindTimeoutSeconds: 600, StorageCapacityScoring: new(false)}},
		{"v1.36 gate on", []Option{WithStorageCapacityScoring(true), WithKubeVersion(framework.KubeV136)},
			volumebinding.VolumeBindingArgs{BindTimeoutSeconds: 600, StorageCapacityScoring: new(true), Shape: shape}},
	} {
		c, err := Load([]byte(cfgHead), tc.opts...)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if d := cmp.Diff(tc.want, c.Profiles[0].Args[config.VolumeBindingName]); d != "" {
			t.Errorf("%s: VolumeBinding args (-want +got):\n%s", tc.name, d)
		}
	}
}

// TestConfigPodGroupPostFilter: plugins.podGroupPostFilter is a field of
// v1.37's configuration only (kube-scheduler/config/v1 Plugins); schedkit
// does not run that extension point, so it takes the set only empty.
func TestConfigPodGroupPostFilter(t *testing.T) {
	doc := func(set string) []byte {
		return []byte(cfgHead + "profiles:\n- plugins:\n    podGroupPostFilter: " + set + "\n")
	}
	if _, err := Load(doc("{}"), WithKubeVersion(framework.KubeV137)); err != nil {
		t.Errorf("v1.37, empty set: %v", err)
	}
	for _, tc := range []struct {
		v    framework.KubeVersion
		set  string
		want string
	}{
		{framework.KubeV136, "{}", `profiles[0].plugins.podGroupPostFilter: unknown field "podGroupPostFilter"`},
		{framework.KubeV137, "{enabled: [{name: DefaultPreemption}]}", "profiles[0].plugins.podGroupPostFilter: schedkit does not run kube's PodGroupPostFilter extension point"},
	} {
		if _, err := Load(doc(tc.set), WithKubeVersion(tc.v)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s, %s: err = %v, want %q", tc.v, tc.set, err, tc.want)
		}
	}
}
