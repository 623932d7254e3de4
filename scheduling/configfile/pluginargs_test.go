package configfile

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/filter/defaultpreemption"
	"github.com/schedkit/schedkit/filter/interpodaffinity"
	"github.com/schedkit/schedkit/filter/noderesources"
	"github.com/schedkit/schedkit/resource"
)

// TestDecodePluginArgs: one plugin's v1 args decode, default and validate
// as they do inside a KubeSchedulerConfiguration.
func TestDecodePluginArgs(t *testing.T) {
	got, err := DecodePluginArgs(config.LoadAwareSchedulingName, []byte(`
apiVersion: kubescheduler.config.k8s.io/v1
kind: LoadAwareSchedulingArgs
usageThresholds: {cpu: 70}
aggregated:
  usageAggregationType: p95
  usageAggregatedDuration: 5m
`))
	if err != nil {
		t.Fatal(err)
	}
	la, ok := got.(config.LoadAwareSchedulingArgs)
	if !ok {
		t.Fatalf("got %T", got)
	}
	if la.Aggregated == nil || la.Aggregated.UsageAggregatedDuration != 5*time.Minute || la.Aggregated.UsageAggregationType != "p95" {
		t.Errorf("aggregated %+v", la.Aggregated)
	}
	if d := cmp.Diff(map[resource.Name]int64{"cpu": 70}, la.UsageThresholds); d != "" {
		t.Errorf("usageThresholds (-want +got):\n%s", d)
	}
	if la.NodeMetricExpirationSeconds == nil || *la.NodeMetricExpirationSeconds != 180 {
		t.Errorf("nodeMetricExpirationSeconds not defaulted: %v", la.NodeMetricExpirationSeconds)
	}

	// The same args inside a whole configuration give the same value.
	c, err := Load([]byte(cfgHead + "profiles:\n- plugins:\n    multiPoint:\n      enabled:\n      - name: LoadAwareScheduling\n" +
		"  pluginConfig:\n  - name: LoadAwareScheduling\n    args:\n      usageThresholds: {cpu: 70}\n      aggregated: {usageAggregationType: p95, usageAggregatedDuration: 5m}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(c.Profiles[0].Args[config.LoadAwareSchedulingName], got); d != "" {
		t.Errorf("args differ from Load's (-config +decoded):\n%s", d)
	}

	// Empty data: the defaults; JSON works too.
	if got, err := DecodePluginArgs(config.DefaultPreemptionName, nil); err != nil || !cmp.Equal(got, defaultpreemption.DefaultDefaultPreemptionArgs()) {
		t.Errorf("DefaultPreemption defaults: %v, %v", got, err)
	}
	if got, err := DecodePluginArgs(config.InterPodAffinityName, []byte(`{"hardPodAffinityWeight": 0}`)); err != nil || !cmp.Equal(got, interpodaffinity.InterPodAffinityArgs{}) {
		t.Errorf("InterPodAffinity from JSON: %v, %v", got, err)
	}
	// A plugin without args.
	if got, err := DecodePluginArgs(config.NodeNameName, []byte("{}")); err != nil || got != nil {
		t.Errorf("NodeName: %v, %v", got, err)
	}

	for _, tc := range []struct{ plugin, in, want string }{
		{config.LoadAwareSchedulingName, "usageThresholds: {cpu: 120}", "configfile: LoadAwareScheduling args: args.usageThresholds.cpu: 120"},
		{config.LoadAwareSchedulingName, "usageTresholds: {cpu: 70}", `args.usageTresholds: unknown field "usageTresholds"`},
		{config.LoadAwareSchedulingName, "aggregated: {usageAggregatedDuration: 5}", `args.aggregated.usageAggregatedDuration: 5: must be a duration string`},
		{config.NodeResourcesFitName, "scoringStrategy: {type: Fancy}", `args.scoringStrategy.type: "Fancy"`},
		{config.NodeResourcesFitName, "kind: PodTopologySpreadArgs", `args.kind: "PodTopologySpreadArgs": args of plugin "NodeResourcesFit" must be of kind "NodeResourcesFitArgs"`},
		{config.NodeNameName, "x: 1", `plugin "NodeName" takes no args`},
		{"Nope", "", `name: "Nope": unknown plugin`},
		{config.PodTopologySpreadName, "[1]", "must be an object"},
	} {
		_, err := DecodePluginArgs(tc.plugin, []byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %q: error %v, want %q", tc.plugin, tc.in, err, tc.want)
		}
	}
}

// DecodePluginArgs reads one plugin's args as they sit in a
// KubeSchedulerConfiguration, with the defaults filled in.
func ExampleDecodePluginArgs() {
	args, err := DecodePluginArgs("NodeResourcesFit", []byte(`
scoringStrategy:
  type: MostAllocated
  resources: [{name: cpu, weight: 2}, {name: memory}]
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fit := args.(noderesources.NodeResourcesFitArgs)
	fmt.Println(fit.ScoringStrategy.Type, fit.ScoringStrategy.Resources)

	_, err = DecodePluginArgs("NodeResourcesFit", []byte("scoringStrategy: {type: MostAllocated, resources: [{name: cpu, weight: 200}]}"))
	fmt.Println(err)
	// Output:
	// MostAllocated [{cpu 2} {memory 1}]
	// configfile: NodeResourcesFit args: args.scoringStrategy.resources[0].weight: 200: resource weight of cpu not in valid range (0, 100]
}
