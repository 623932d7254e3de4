package config

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/schedkit/schedkit/resource"
)

// LoadAwareSchedulingName is the name of Koordinator's LoadAwareScheduling
// plugin (filter/loadaware).
const LoadAwareSchedulingName = "LoadAwareScheduling"

// LoadAwareCompatibility selects which Koordinator version's LoadAware
// semantics to reproduce.
type LoadAwareCompatibility string

const (
	// LoadAwareCompatLatest (the empty value, the default) is current
	// Koordinator main (≥ v1.7): the filter compares reported usage plus the
	// estimated deltas of assigned-but-unreported pods plus the incoming
	// pod's estimate, rejects when round(usage%) > threshold (equal passes),
	// rejects expired NodeMetrics unless enableScheduleWhenNodeMetricsExpired,
	// and the estimator applies the scaling factor to the limit.
	LoadAwareCompatLatest LoadAwareCompatibility = ""
	// LoadAwareCompatKoordinatorV15 reproduces Koordinator ≤ v1.5 as seed 000
	// describes it: the filter compares the raw reported usage only (no
	// estimates) and rejects when round(usage%) >= threshold; a node whose
	// NodeMetric is expired passes the filter; a resource whose limit
	// exceeds its request is estimated at its full limit. Scoring is the
	// current formula with that estimator.
	LoadAwareCompatKoordinatorV15 LoadAwareCompatibility = "Koordinator<=1.5"
)

// Defaults of LoadAwareSchedulingArgs (Koordinator pkg/scheduler/apis/config/v1/defaults.go).
const (
	DefaultNodeMetricExpirationSeconds int64 = 180
)

// DefaultLoadAwareResourceWeights returns {cpu: 1, memory: 1}.
func DefaultLoadAwareResourceWeights() map[resource.Name]int64 {
	return map[resource.Name]int64{resource.CPU: 1, resource.Memory: 1}
}

// DefaultLoadAwareUsageThresholds returns {cpu: 65, memory: 95} (percent).
func DefaultLoadAwareUsageThresholds() map[resource.Name]int64 {
	return map[resource.Name]int64{resource.CPU: 65, resource.Memory: 95}
}

// DefaultLoadAwareScalingFactors returns {cpu: 85, memory: 70} (percent).
func DefaultLoadAwareScalingFactors() map[resource.Name]int64 {
	return map[resource.Name]int64{resource.CPU: 85, resource.Memory: 70}
}

// LoadAwareSchedulingArgs are the arguments of Koordinator's
// LoadAwareScheduling plugin (pkg/scheduler/apis/config/types.go, current
// main), plus CompatibilityMode. The zero value is usable: SetDefaults (which
// every constructor applies) fills what is absent exactly as Koordinator's
// SetDefaults_LoadAwareSchedulingArgs.
type LoadAwareSchedulingArgs struct {
	// FilterExpiredNodeMetrics makes the filter check NodeMetric expiry
	// (default true; deprecated in Koordinator but still honoured). With
	// false the filter uses stale metrics as they are.
	FilterExpiredNodeMetrics *bool `json:"filterExpiredNodeMetrics,omitempty"`
	// EnableScheduleWhenNodeMetricsExpired lets a node whose NodeMetric is
	// expired pass the filter (default false: it is rejected with
	// "node(s) nodeMetric expired").
	EnableScheduleWhenNodeMetricsExpired *bool `json:"enableScheduleWhenNodeMetricsExpired,omitempty"`
	// NodeMetricExpirationSeconds is the age at which a NodeMetric counts as
	// expired (default 180; must be > 0 when set). Expired metrics score 0.
	NodeMetricExpirationSeconds *int64 `json:"nodeMetricExpirationSeconds,omitempty"`
	// ResourceWeights weight each resource's least-used score (each 1..100).
	// Default {cpu: 1, memory: 1}, but only when it is empty and
	// DominantResourceWeight is 0.
	ResourceWeights map[resource.Name]int64 `json:"resourceWeights,omitempty"`
	// DominantResourceWeight (0..100) weights the lowest per-resource score
	// (Dominant Resource Fairness); 0 disables it.
	DominantResourceWeight int64 `json:"dominantResourceWeight,omitempty"`
	// UsageThresholds are the node usage limits in percent (0..100; 0 turns
	// a resource's check off). Default {cpu: 65, memory: 95} when empty.
	UsageThresholds map[resource.Name]int64 `json:"usageThresholds,omitempty"`
	// ProdUsageThresholds limit the usage of prod pods (plus the incoming
	// prod pod) for prod pods; absent or all zero: off.
	ProdUsageThresholds map[resource.Name]int64 `json:"prodUsageThresholds,omitempty"`
	// ProdUsageIncludeSys adds the node's system usage to the prod usage.
	ProdUsageIncludeSys bool `json:"prodUsageIncludeSys,omitempty"`
	// ScoreAccordingProdUsage scores prod pods by prod usage only.
	ScoreAccordingProdUsage bool `json:"scoreAccordingProdUsage,omitempty"`
	// Estimator names the usage estimator in the estimator.Registry; empty
	// or unknown means the default estimator (Koordinator's fallback).
	Estimator string `json:"estimator,omitempty"`
	// EstimatedScalingFactors are the percentages (1..100) of a pod's
	// limit-or-request the default estimator predicts it uses. Default
	// {cpu: 85, memory: 70}; a given map is completed with missing cpu and
	// memory keys.
	EstimatedScalingFactors map[resource.Name]int64 `json:"estimatedScalingFactors,omitempty"`
	// EstimatedSecondsAfterPodScheduled and EstimatedSecondsAfterInitialized
	// force an assigned pod's estimate into its node's usage for that many
	// seconds after its PodScheduled / Initialized condition (nil or ≤ 0:
	// off).
	EstimatedSecondsAfterPodScheduled *int64 `json:"estimatedSecondsAfterPodScheduled,omitempty"`
	EstimatedSecondsAfterInitialized  *int64 `json:"estimatedSecondsAfterInitialized,omitempty"`
	// AllowCustomizeEstimation honours the pod annotations
	// scheduling.koordinator.sh/load-estimated-scaling-factors and
	// …/load-estimated-seconds-after-{pod-scheduled,initialized}.
	AllowCustomizeEstimation bool `json:"allowCustomizeEstimation,omitempty"`
	// Aggregated filters and scores on percentile usages; nil: off.
	Aggregated *LoadAwareSchedulingAggregatedArgs `json:"aggregated,omitempty"`
	// SupportedResources are extra resources to vectorize, for resources
	// that appear only in node annotations (cpu, memory and every key of the
	// maps above are always vectorized).
	SupportedResources []resource.Name `json:"supportedResources,omitempty"`
	// CompatibilityMode selects the Koordinator version reproduced: ""
	// (LoadAwareCompatLatest, default) or "Koordinator<=1.5"
	// (LoadAwareCompatKoordinatorV15).
	CompatibilityMode LoadAwareCompatibility `json:"compatibilityMode,omitempty"`
}

// LoadAwareSchedulingAggregatedArgs configure percentile-based filtering and
// scoring. A duration of 0 means the longest duration the NodeMetric reports
// with a non-empty usage.
type LoadAwareSchedulingAggregatedArgs struct {
	// UsageThresholds (0..100) replace the plain usage thresholds for
	// non-prod pods when they are non-empty and UsageAggregationType is set.
	UsageThresholds map[resource.Name]int64 `json:"usageThresholds,omitempty"`
	// UsageAggregationType is avg, p50, p90, p95 or p99.
	UsageAggregationType string `json:"usageAggregationType,omitempty"`
	// UsageAggregatedDuration selects the aggregation period (≥ 0).
	UsageAggregatedDuration time.Duration `json:"usageAggregatedDuration,omitempty"`
	// ScoreAggregationType, when set, scores non-prod pods on that aggregate.
	ScoreAggregationType string `json:"scoreAggregationType,omitempty"`
	// ScoreAggregatedDuration selects the scoring period (≥ 0).
	ScoreAggregatedDuration time.Duration `json:"scoreAggregatedDuration,omitempty"`
}

// DefaultLoadAwareSchedulingArgs returns the args with every default filled
// in: filterExpiredNodeMetrics true, enableScheduleWhenNodeMetricsExpired
// false, nodeMetricExpirationSeconds 180, resourceWeights {cpu 1, memory 1},
// usageThresholds {cpu 65, memory 95}, estimatedScalingFactors {cpu 85,
// memory 70}.
func DefaultLoadAwareSchedulingArgs() LoadAwareSchedulingArgs {
	return LoadAwareSchedulingArgs{}.withDefaults()
}

// withDefaults returns a copy of a with Koordinator's defaults filled in
// where a leaves them absent (a's maps are not modified; the result owns
// its maps):
//   - filterExpiredNodeMetrics true, enableScheduleWhenNodeMetricsExpired
//     false, nodeMetricExpirationSeconds 180 when nil;
//   - resourceWeights {cpu 1, memory 1} only when empty and
//     dominantResourceWeight is 0;
//   - usageThresholds {cpu 65, memory 95} when empty;
//   - estimatedScalingFactors {cpu 85, memory 70} when nil, otherwise the
//     missing cpu and memory keys are added.
func (a LoadAwareSchedulingArgs) withDefaults() LoadAwareSchedulingArgs {
	if a.FilterExpiredNodeMetrics == nil {
		t := true
		a.FilterExpiredNodeMetrics = &t
	} else {
		v := *a.FilterExpiredNodeMetrics
		a.FilterExpiredNodeMetrics = &v
	}
	if a.EnableScheduleWhenNodeMetricsExpired == nil {
		f := false
		a.EnableScheduleWhenNodeMetricsExpired = &f
	} else {
		v := *a.EnableScheduleWhenNodeMetricsExpired
		a.EnableScheduleWhenNodeMetricsExpired = &v
	}
	if a.NodeMetricExpirationSeconds == nil {
		s := DefaultNodeMetricExpirationSeconds
		a.NodeMetricExpirationSeconds = &s
	} else {
		v := *a.NodeMetricExpirationSeconds
		a.NodeMetricExpirationSeconds = &v
	}
	if len(a.ResourceWeights) == 0 && a.DominantResourceWeight == 0 {
		a.ResourceWeights = DefaultLoadAwareResourceWeights()
	} else {
		a.ResourceWeights = maps.Clone(a.ResourceWeights)
	}
	if len(a.UsageThresholds) == 0 {
		a.UsageThresholds = DefaultLoadAwareUsageThresholds()
	} else {
		a.UsageThresholds = maps.Clone(a.UsageThresholds)
	}
	if a.EstimatedScalingFactors == nil {
		a.EstimatedScalingFactors = DefaultLoadAwareScalingFactors()
	} else {
		f := maps.Clone(a.EstimatedScalingFactors)
		for k, v := range DefaultLoadAwareScalingFactors() {
			if _, ok := f[k]; !ok {
				f[k] = v
			}
		}
		a.EstimatedScalingFactors = f
	}
	a.ProdUsageThresholds = maps.Clone(a.ProdUsageThresholds)
	a.SupportedResources = slices.Clone(a.SupportedResources)
	if a.Aggregated != nil {
		agg := *a.Aggregated
		agg.UsageThresholds = maps.Clone(agg.UsageThresholds)
		a.Aggregated = &agg
	}
	for _, p := range []**int64{&a.EstimatedSecondsAfterPodScheduled, &a.EstimatedSecondsAfterInitialized} {
		if *p != nil {
			v := **p
			*p = &v
		}
	}
	return a
}

// Validate checks the args as Koordinator's ValidateLoadAwareSchedulingArgs
// (after defaulting) and returns every problem joined, each naming the field
// and value, e.g. `loadaware: usageThresholds["cpu"]=120: must be within
// [0,100]`:
//   - nodeMetricExpirationSeconds > 0 when set;
//   - resourceWeights values in [1,100]; dominantResourceWeight in [0,100];
//   - usageThresholds and aggregated.usageThresholds values in [0,100];
//   - estimatedScalingFactors values in [1,100];
//   - every resourceWeights key must have an estimatedScalingFactors entry
//     (the first missing one in name order is reported, as the anchor
//     reports one);
//   - aggregation types, when set, one of avg, p50, p90, p95, p99, and
//     aggregation durations ≥ 0.
//
// Beyond the anchor (which accepts them silently): prodUsageThresholds
// values must be in [0,100], estimated-seconds windows must not be
// negative, supportedResources must not hold an empty name, and
// compatibilityMode must be "" or "Koordinator<=1.5".
func (a LoadAwareSchedulingArgs) Validate() error {
	var errs []error
	add := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("loadaware: "+format, args...))
	}
	rangeCheck := func(field string, m map[resource.Name]int64, lo, hi int64) {
		for _, n := range slices.Sorted(maps.Keys(m)) {
			if n == "" {
				add("%s: empty resource name", field)
				continue
			}
			if v := m[n]; v < lo || v > hi {
				add("%s[%q]=%d: must be within [%d,%d]", field, n, v, lo, hi)
			}
		}
	}
	if s := a.NodeMetricExpirationSeconds; s != nil && *s <= 0 {
		add("nodeMetricExpirationSeconds=%d: must be greater than 0", *s)
	}
	rangeCheck("resourceWeights", a.ResourceWeights, 1, 100)
	if d := a.DominantResourceWeight; d < 0 || d > 100 {
		add("dominantResourceWeight=%d: must be within [0,100]", d)
	}
	rangeCheck("usageThresholds", a.UsageThresholds, 0, 100)
	rangeCheck("prodUsageThresholds", a.ProdUsageThresholds, 0, 100)
	rangeCheck("estimatedScalingFactors", a.EstimatedScalingFactors, 1, 100)
	for _, n := range slices.Sorted(maps.Keys(a.ResourceWeights)) {
		if _, ok := a.EstimatedScalingFactors[n]; !ok {
			add("resourceWeights[%q]: no estimatedScalingFactors[%q] to estimate it with", n, n)
			break
		}
	}
	for _, p := range []struct {
		field string
		v     *int64
	}{
		{"estimatedSecondsAfterPodScheduled", a.EstimatedSecondsAfterPodScheduled},
		{"estimatedSecondsAfterInitialized", a.EstimatedSecondsAfterInitialized},
	} {
		if p.v != nil && *p.v < 0 {
			add("%s=%d: must not be negative", p.field, *p.v)
		}
	}
	if agg := a.Aggregated; agg != nil {
		rangeCheck("aggregated.usageThresholds", agg.UsageThresholds, 0, 100)
		for _, t := range []struct{ field, v string }{
			{"aggregated.usageAggregationType", agg.UsageAggregationType},
			{"aggregated.scoreAggregationType", agg.ScoreAggregationType},
		} {
			if t.v != "" && !laIsAggregationType(t.v) {
				add("%s=%q: must be one of avg, p50, p90, p95, p99", t.field, t.v)
			}
		}
		for _, d := range []struct {
			field string
			v     time.Duration
		}{
			{"aggregated.usageAggregatedDuration", agg.UsageAggregatedDuration},
			{"aggregated.scoreAggregatedDuration", agg.ScoreAggregatedDuration},
		} {
			if d.v < 0 {
				add("%s=%s: must not be negative", d.field, d.v)
			}
		}
	}
	for i, n := range a.SupportedResources {
		if n == "" {
			add("supportedResources[%d]: empty resource name", i)
		}
	}
	switch a.CompatibilityMode {
	case LoadAwareCompatLatest, LoadAwareCompatKoordinatorV15:
	default:
		add("compatibilityMode=%q: must be %q or %q", a.CompatibilityMode, LoadAwareCompatLatest, LoadAwareCompatKoordinatorV15)
	}
	return errors.Join(errs...)
}

func laIsAggregationType(t string) bool {
	switch t {
	case "avg", "p50", "p90", "p95", "p99":
		return true
	}
	return false
}

// VectorizedResources returns every resource the args name — cpu, memory,
// the keys of usageThresholds, prodUsageThresholds,
// aggregated.usageThresholds, resourceWeights and estimatedScalingFactors,
// and supportedResources — sorted and de-duplicated (Koordinator's
// NewResourceVectorizerFromArgs).
func (a LoadAwareSchedulingArgs) VectorizedResources() []resource.Name {
	set := map[resource.Name]bool{resource.CPU: true, resource.Memory: true}
	for _, m := range []map[resource.Name]int64{a.UsageThresholds, a.ProdUsageThresholds, a.ResourceWeights, a.EstimatedScalingFactors} {
		for k := range m {
			set[k] = true
		}
	}
	if a.Aggregated != nil {
		for k := range a.Aggregated.UsageThresholds {
			set[k] = true
		}
	}
	for _, n := range a.SupportedResources {
		set[n] = true
	}
	delete(set, "")
	return slices.Sorted(maps.Keys(set))
}

// LoadAwareSchedulingArgsFrom converts the args a framework.Factory
// receives — nil (all defaults), a LoadAwareSchedulingArgs or a
// *LoadAwareSchedulingArgs — into defaulted, validated args; any other type
// is an error naming it.
func LoadAwareSchedulingArgsFrom(args any) (LoadAwareSchedulingArgs, error) {
	a, err := ArgsFrom("loadaware", args, func() LoadAwareSchedulingArgs { return LoadAwareSchedulingArgs{} })
	if err != nil {
		return LoadAwareSchedulingArgs{}, err
	}
	a = a.withDefaults()
	if err := a.Validate(); err != nil {
		return LoadAwareSchedulingArgs{}, err
	}
	return a, nil
}

// SetDefaults fills in Koordinator's defaults where a leaves them absent
// (SetDefaults_LoadAwareSchedulingArgs): resourceWeights and
// usageThresholds only when empty, estimatedScalingFactors completed with
// the missing cpu and memory keys; see withDefaults. Afterwards a owns its
// maps (the caller's are not modified).
func (a *LoadAwareSchedulingArgs) SetDefaults() { *a = a.withDefaults() }
