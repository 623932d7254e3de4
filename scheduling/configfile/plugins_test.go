package configfile

import (
	"context"
	"github.com/schedkit/schedkit/scoring/trimaran"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/filter/coscheduling"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

// TestGangSchedulingFromConfig: a KubeSchedulerConfiguration enabling
// GangScheduling at permit only loads; with the workload features the
// scheduler built from it places a gang whole; without them it runs, and
// the pods' schedulingGroup goes unseen (TestLoadedConfigRuns).
// (config_workload_test.go loads it through the gates and multiPoint.)
func TestGangSchedulingFromConfig(t *testing.T) {
	cfg, err := Load([]byte(cfgHead + "profiles:\n- plugins:\n    permit:\n      enabled: [{name: GangScheduling}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if p := cfg.Profiles[0]; !contains(p.Permit, config.GangSchedulingName) {
		t.Fatalf("GangScheduling not at Permit: %v", p.Permit)
	}
	pods := []*api.Pod{gsPod("ns", "a", "job"), gsPod("ns", "b", "job")}
	c, _ := cluster.NewFrom([]*api.Node{csNode("n0")}, pods)
	if err := c.AddWorkloadPodGroup(gsGang("ns", "job", 2)); err != nil {
		t.Fatal(err)
	}
	s, err := scheduling.New(c, cfg.Registry(), cfg.Profiles, append(cfg.SchedulerOptions(), scheduling.WithClock(framework.NewFakeClock(csNow)), scheduling.WithWorkloadFeatures(gsFeatures))...)
	if err != nil {
		t.Fatal(err)
	}
	s.RunUntilIdle(context.Background())
	if _, _, bound := c.NumPods(); bound != 2 {
		t.Errorf("%d bound, want the gang's 2", bound)
	}
}

// TestTrimaranConfig: scheduler-plugins' Trimaran args load from a
// KubeSchedulerConfiguration (watcherAddress and metricProvider accepted),
// defaults fill what is absent, and bad values name the field.
func TestTrimaranConfig(t *testing.T) {
	in := cfgHead + `profiles:
- plugins:
    multiPoint:
      enabled:
      - name: TargetLoadPacking
      - name: LoadVariationRiskBalancing
  pluginConfig:
  - name: TargetLoadPacking
    args:
      watcherAddress: http://127.0.0.1:2020
      targetUtilization: 60
      defaultRequests: {cpu: 500m}
  - name: LoadVariationRiskBalancing
    args:
      metricProvider: {type: Prometheus, address: http://prometheus:9090}
      safeVarianceSensitivity: 2
`
	cfg, err := Load([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	p := cfg.Profiles[0]
	tlp := trimaran.DefaultTargetLoadPackingArgs()
	tlp.WatcherAddress, tlp.TargetUtilization = "http://127.0.0.1:2020", 60
	tlp.DefaultRequests = resource.List{resource.CPU: resource.MustParse("500m")}
	if diff := cmp.Diff(tlp, p.Args[config.TargetLoadPackingName], cmp.Comparer(func(a, b resource.Quantity) bool { return a.Equal(b) })); diff != "" {
		t.Errorf("TargetLoadPacking args (-want +got):\n%s", diff)
	}
	lv := trimaran.DefaultLoadVariationRiskBalancingArgs()
	lv.SetDefaults()
	yes := true
	lv.MetricProvider = trimaran.MetricProviderSpec{Type: trimaran.Prometheus, Address: "http://prometheus:9090", InsecureSkipVerify: &yes}
	lv.SafeVarianceSensitivity = 2
	if diff := cmp.Diff(lv, p.Args[config.LoadVariationRiskBalancingName]); diff != "" {
		t.Errorf("LoadVariationRiskBalancing args (-want +got):\n%s", diff)
	}
	for _, name := range []string{config.TargetLoadPackingName, config.LoadVariationRiskBalancingName} {
		if !contains(p.Score, name) || !contains(p.PreScore, name) {
			t.Errorf("%s not enabled at PreScore and Score: %v / %v", name, p.PreScore, p.Score)
		}
	}
	if !contains(p.PostBind, config.TargetLoadPackingName) {
		t.Errorf("TargetLoadPacking not at PostBind: %v", p.PostBind)
	}
	for _, bad := range []struct{ args, want string }{
		{"{targetUtilization: 150}", "args.targetUtilization: 150: must be within (0, 100]"},
		{"{defaultRequestsMultiplier: x}", `args.defaultRequestsMultiplier: "x": want a finite number`},
		{"{metricProvider: {type: Datadog}}", `args.metricProvider.type: "Datadog": invalid`},
		{"{targetUtilisation: 50}", `unknown field "targetUtilisation"`},
	} {
		_, err := Load([]byte(cfgHead + "profiles:\n- plugins: {multiPoint: {enabled: [{name: TargetLoadPacking}]}}\n  pluginConfig:\n  - name: TargetLoadPacking\n    args: " + bad.args + "\n"))
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("args %s: err = %v, want it to mention %s", bad.args, err, bad.want)
		}
	}
}

// TestCoschedulingConfig: Coscheduling's args load from a
// KubeSchedulerConfiguration, absent fields keeping scheduler-plugins'
// defaults, and the plugin takes QueueSort in PrioritySort's place.
func TestCoschedulingConfig(t *testing.T) {
	cfg, err := Load([]byte(cfgHead + "profiles:\n- plugins:\n    multiPoint:\n      enabled: [{name: Coscheduling}]\n      disabled: [{name: PrioritySort}]\n  pluginConfig:\n  - name: Coscheduling\n    args: {permitWaitingTimeSeconds: 10}\n"))
	if err != nil {
		t.Fatal(err)
	}
	got := cfg.Profiles[0].Args[config.CoschedulingName].(coscheduling.CoschedulingArgs)
	if want := (coscheduling.CoschedulingArgs{PermitWaitingTimeSeconds: 10, PodGroupBackoffSeconds: 0, PodGroupRejectPercentage: 10}); got != want {
		t.Errorf("loaded args %+v, want %+v: absent fields must keep their defaults", got, want)
	}
	if q := cfg.Profiles[0].QueueSort; len(q) != 1 || q[0] != config.CoschedulingName {
		t.Errorf("QueueSort = %v", q)
	}
}
