package config

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/schedkit/schedkit/resource"
)

func laPtr[T any](v T) *T { return &v }

// Defaults of Koordinator pkg/scheduler/apis/config/v1/defaults.go
// (SetDefaults_LoadAwareSchedulingArgs) and defaults_test.go.
func TestLoadAwareSchedulingArgsDefaults(t *testing.T) {
	tests := []struct {
		name string
		in   LoadAwareSchedulingArgs
		want LoadAwareSchedulingArgs
	}{
		{
			name: "empty args",
			want: LoadAwareSchedulingArgs{
				FilterExpiredNodeMetrics:             laPtr(true),
				EnableScheduleWhenNodeMetricsExpired: laPtr(false),
				NodeMetricExpirationSeconds:          laPtr(int64(180)),
				ResourceWeights:                      map[resource.Name]int64{"cpu": 1, "memory": 1},
				UsageThresholds:                      map[resource.Name]int64{"cpu": 65, "memory": 95},
				EstimatedScalingFactors:              map[resource.Name]int64{"cpu": 85, "memory": 70},
			},
		},
		{
			name: "dominantResourceWeight set: no default resource weights",
			in:   LoadAwareSchedulingArgs{DominantResourceWeight: 10},
			want: LoadAwareSchedulingArgs{
				FilterExpiredNodeMetrics:             laPtr(true),
				EnableScheduleWhenNodeMetricsExpired: laPtr(false),
				NodeMetricExpirationSeconds:          laPtr(int64(180)),
				DominantResourceWeight:               10,
				UsageThresholds:                      map[resource.Name]int64{"cpu": 65, "memory": 95},
				EstimatedScalingFactors:              map[resource.Name]int64{"cpu": 85, "memory": 70},
			},
		},
		{
			name: "given values kept; factors completed per key",
			in: LoadAwareSchedulingArgs{
				FilterExpiredNodeMetrics:             laPtr(false),
				EnableScheduleWhenNodeMetricsExpired: laPtr(true),
				NodeMetricExpirationSeconds:          laPtr(int64(300)),
				ResourceWeights:                      map[resource.Name]int64{"cpu": 3},
				UsageThresholds:                      map[resource.Name]int64{"memory": 0},
				EstimatedScalingFactors:              map[resource.Name]int64{"cpu": 50, "nvidia.com/gpu": 100},
			},
			want: LoadAwareSchedulingArgs{
				FilterExpiredNodeMetrics:             laPtr(false),
				EnableScheduleWhenNodeMetricsExpired: laPtr(true),
				NodeMetricExpirationSeconds:          laPtr(int64(300)),
				ResourceWeights:                      map[resource.Name]int64{"cpu": 3},
				UsageThresholds:                      map[resource.Name]int64{"memory": 0},
				EstimatedScalingFactors:              map[resource.Name]int64{"cpu": 50, "memory": 70, "nvidia.com/gpu": 100},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.in.withDefaults()
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("withDefaults (-want +got):\n%s", diff)
			}
			if err := got.Validate(); err != nil {
				t.Errorf("defaulted args invalid: %v", err)
			}
		})
	}
	// The caller's maps are not modified.
	in := LoadAwareSchedulingArgs{EstimatedScalingFactors: map[resource.Name]int64{"cpu": 50}}
	_ = in.withDefaults()
	if len(in.EstimatedScalingFactors) != 1 {
		t.Errorf("withDefaults modified the input map: %v", in.EstimatedScalingFactors)
	}
	if diff := cmp.Diff(LoadAwareSchedulingArgs{}.withDefaults(), DefaultLoadAwareSchedulingArgs()); diff != "" {
		t.Error(diff)
	}
}

// Validation of Koordinator validation_pluginargs.go
// (ValidateLoadAwareSchedulingArgs) and its tests, plus schedkit's extra
// checks. Each case is validated after defaulting.
func TestLoadAwareSchedulingArgsValidate(t *testing.T) {
	tests := []struct {
		name string
		args LoadAwareSchedulingArgs
		want []string // every error line, in order; nil = valid
	}{
		{name: "defaults are valid"},
		{
			name: "nodeMetricExpirationSeconds must be > 0",
			args: LoadAwareSchedulingArgs{NodeMetricExpirationSeconds: laPtr(int64(0))},
			want: []string{"loadaware: nodeMetricExpirationSeconds=0: must be greater than 0"},
		},
		{
			name: "resource weight 0 and 101 invalid, 100 valid",
			args: LoadAwareSchedulingArgs{
				ResourceWeights:         map[resource.Name]int64{"cpu": 0, "memory": 101, "nvidia.com/gpu": 100},
				EstimatedScalingFactors: map[resource.Name]int64{"nvidia.com/gpu": 100},
			},
			want: []string{
				`loadaware: resourceWeights["cpu"]=0: must be within [1,100]`,
				`loadaware: resourceWeights["memory"]=101: must be within [1,100]`,
			},
		},
		{
			name: "dominantResourceWeight negative",
			args: LoadAwareSchedulingArgs{DominantResourceWeight: -1},
			want: []string{"loadaware: dominantResourceWeight=-1: must be within [0,100]"},
		},
		{
			name: "dominantResourceWeight above 100",
			args: LoadAwareSchedulingArgs{DominantResourceWeight: 101},
			want: []string{"loadaware: dominantResourceWeight=101: must be within [0,100]"},
		},
		{
			name: "usage threshold 120",
			args: LoadAwareSchedulingArgs{UsageThresholds: map[resource.Name]int64{"cpu": 120, "memory": -1}},
			want: []string{
				`loadaware: usageThresholds["cpu"]=120: must be within [0,100]`,
				`loadaware: usageThresholds["memory"]=-1: must be within [0,100]`,
			},
		},
		{
			name: "scaling factor 0 and 110",
			args: LoadAwareSchedulingArgs{EstimatedScalingFactors: map[resource.Name]int64{"cpu": 0, "memory": 110}},
			want: []string{
				`loadaware: estimatedScalingFactors["cpu"]=0: must be within [1,100]`,
				`loadaware: estimatedScalingFactors["memory"]=110: must be within [1,100]`,
			},
		},
		{
			name: "weighted resource without factor: first missing key reported",
			args: LoadAwareSchedulingArgs{ResourceWeights: map[resource.Name]int64{"a.io/x": 1, "b.io/y": 1}},
			want: []string{`loadaware: resourceWeights["a.io/x"]: no estimatedScalingFactors["a.io/x"] to estimate it with`},
		},
		{
			name: "aggregated thresholds, types and durations",
			args: LoadAwareSchedulingArgs{Aggregated: &LoadAwareSchedulingAggregatedArgs{
				UsageThresholds:         map[resource.Name]int64{"cpu": 101},
				UsageAggregationType:    "p42",
				ScoreAggregationType:    "max",
				UsageAggregatedDuration: -time.Second,
				ScoreAggregatedDuration: -time.Minute,
			}},
			want: []string{
				`loadaware: aggregated.usageThresholds["cpu"]=101: must be within [0,100]`,
				`loadaware: aggregated.usageAggregationType="p42": must be one of avg, p50, p90, p95, p99`,
				`loadaware: aggregated.scoreAggregationType="max": must be one of avg, p50, p90, p95, p99`,
				`loadaware: aggregated.usageAggregatedDuration=-1s: must not be negative`,
				`loadaware: aggregated.scoreAggregatedDuration=-1m0s: must not be negative`,
			},
		},
		{
			name: "valid aggregated args",
			args: LoadAwareSchedulingArgs{Aggregated: &LoadAwareSchedulingAggregatedArgs{
				UsageThresholds: map[resource.Name]int64{"cpu": 60}, UsageAggregationType: "p95", UsageAggregatedDuration: 5 * time.Minute,
				ScoreAggregationType: "p99",
			}},
		},
		{
			name: "beyond the anchor: prod thresholds, seconds windows, supported resources, compat mode",
			args: LoadAwareSchedulingArgs{
				ProdUsageThresholds:               map[resource.Name]int64{"cpu": 150},
				EstimatedSecondsAfterPodScheduled: laPtr(int64(-2)),
				SupportedResources:                []resource.Name{"x.io/y", ""},
				CompatibilityMode:                 "Koordinator-1.2",
			},
			want: []string{
				`loadaware: prodUsageThresholds["cpu"]=150: must be within [0,100]`,
				`loadaware: estimatedSecondsAfterPodScheduled=-2: must not be negative`,
				`loadaware: supportedResources[1]: empty resource name`,
				`loadaware: compatibilityMode="Koordinator-1.2": must be "" or "Koordinator<=1.5"`,
			},
		},
		{
			name: "compat mode Koordinator<=1.5 is valid",
			args: LoadAwareSchedulingArgs{CompatibilityMode: LoadAwareCompatKoordinatorV15},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.args.withDefaults().Validate()
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Validate = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Validate = nil, want %v", tt.want)
			}
			if diff := cmp.Diff(tt.want, strings.Split(err.Error(), "\n")); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadAwareSchedulingArgsFrom(t *testing.T) {
	a, err := LoadAwareSchedulingArgsFrom(nil)
	if err != nil || a.UsageThresholds["cpu"] != 65 {
		t.Errorf("nil args: %v, %v", a, err)
	}
	a, err = LoadAwareSchedulingArgsFrom(&LoadAwareSchedulingArgs{DominantResourceWeight: 5})
	if err != nil || a.DominantResourceWeight != 5 || len(a.ResourceWeights) != 0 {
		t.Errorf("pointer args: %+v, %v", a, err)
	}
	if _, err = LoadAwareSchedulingArgsFrom(LoadAwareSchedulingArgs{UsageThresholds: map[resource.Name]int64{"cpu": 120}}); err == nil ||
		err.Error() != `loadaware: usageThresholds["cpu"]=120: must be within [0,100]` {
		t.Errorf("invalid args: %v", err)
	}
	if _, err = LoadAwareSchedulingArgsFrom(42); err == nil || err.Error() != "loadaware: args of type int, want config.LoadAwareSchedulingArgs" {
		t.Errorf("wrong type: %v", err)
	}
	got := LoadAwareSchedulingArgs{
		UsageThresholds:    map[resource.Name]int64{"ephemeral-storage": 80},
		SupportedResources: []resource.Name{"x.io/y"},
		Aggregated:         &LoadAwareSchedulingAggregatedArgs{UsageThresholds: map[resource.Name]int64{"a.io/b": 1}},
	}.withDefaults().VectorizedResources()
	if diff := cmp.Diff([]resource.Name{"a.io/b", "cpu", "ephemeral-storage", "memory", "x.io/y"}, got); diff != "" {
		t.Errorf("VectorizedResources (-want +got):\n%s", diff)
	}
}
