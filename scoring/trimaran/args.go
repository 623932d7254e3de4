package trimaran

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/resource"
)

// Defaults of the Trimaran args, as scheduler-plugins'
// apis/config/v1/defaults.go.
const (
	// DefaultTrimaranRequestsMilliCores is the cpu TargetLoadPacking
	// predicts for a container without cpu request or limit.
	DefaultTrimaranRequestsMilliCores int64 = 1000
	// DefaultTrimaranRequestsMultiplier scales the cpu request of a
	// container without cpu limit.
	DefaultTrimaranRequestsMultiplier = "1.5"
	// DefaultTargetUtilizationPercent is TargetLoadPacking's target.
	DefaultTargetUtilizationPercent int64 = 40
	// DefaultSafeVarianceMargin and DefaultSafeVarianceSensitivity make
	// LoadVariationRiskBalancing's risk (mean + deviation) / 2.
	DefaultSafeVarianceMargin      = 1.0
	DefaultSafeVarianceSensitivity = 1.0
)

var (
	_ config.Args = (*TargetLoadPackingArgs)(nil)
	_ config.Args = (*LoadVariationRiskBalancingArgs)(nil)
)

// MetricProviderType names a load-watcher metrics provider.
type MetricProviderType string

// Metric providers scheduler-plugins accepts (apis/config/types.go).
const (
	KubernetesMetricsServer MetricProviderType = "KubernetesMetricsServer"
	Prometheus              MetricProviderType = "Prometheus"
	SignalFx                MetricProviderType = "SignalFx"
)

// MetricProviderSpec is where load-watcher reads metrics from.
type MetricProviderSpec struct {
	Type               MetricProviderType `json:"type,omitempty"`
	Address            string             `json:"address,omitempty"`
	Token              string             `json:"token,omitempty"`
	InsecureSkipVerify *bool              `json:"insecureSkipVerify,omitempty"`
}

// TrimaranSpec holds the fields every Trimaran plugin's args share. schedkit
// reads node load from api.NodeLoad objects, not from load-watcher, so
// these fields are accepted, defaulted and validated as scheduler-plugins
// does (a configuration written for it loads unchanged) but not used.
type TrimaranSpec struct {
	MetricProvider MetricProviderSpec `json:"metricProvider,omitzero"`
	WatcherAddress string             `json:"watcherAddress,omitempty"`
}

func (s *TrimaranSpec) setDefaults() {
	if s.WatcherAddress == "" && s.MetricProvider.Type == "" {
		s.MetricProvider.Type = KubernetesMetricsServer
	}
	if s.MetricProvider.Type == Prometheus && s.MetricProvider.InsecureSkipVerify == nil {
		t := true
		s.MetricProvider.InsecureSkipVerify = &t
	}
}

// validate is scheduler-plugins' checkSpecs (pkg/trimaran/collector.go):
// without a watcher address the provider type must be a known one.
func (s *TrimaranSpec) validate(plugin string) error {
	if s.WatcherAddress != "" {
		return nil
	}
	switch s.MetricProvider.Type {
	case KubernetesMetricsServer, Prometheus, SignalFx:
		return nil
	}
	return fmt.Errorf("%s: metricProvider.type=%q: invalid (want %s, %s or %s, or set watcherAddress)",
		plugin, s.MetricProvider.Type, KubernetesMetricsServer, Prometheus, SignalFx)
}

// TargetLoadPackingArgs are the arguments of Trimaran's TargetLoadPacking:
// pack nodes up to TargetUtilization percent of cpu, predicting each
// container's cpu as its limit, else its request × DefaultRequestsMultiplier,
// else DefaultRequests' cpu.
//
// The zero value is not the default: start from
// DefaultTargetLoadPackingArgs (SetDefaults fills what is absent).
type TargetLoadPackingArgs struct {
	TrimaranSpec `json:",inline"`
	// DefaultRequests' cpu is the prediction for a container with neither
	// cpu request nor limit; default 1 cpu.
	DefaultRequests resource.List `json:"defaultRequests,omitempty"`
	// DefaultRequestsMultiplier (a decimal number as text) scales a cpu
	// request without limit; default "1.5".
	DefaultRequestsMultiplier string `json:"defaultRequestsMultiplier,omitempty"`
	// TargetUtilization is the target cpu percentage, in (0, 100]; a value
	// ≤ 0 means the default 40, as scheduler-plugins' defaulting.
	TargetUtilization int64 `json:"targetUtilization,omitempty"`
}

// DefaultTargetLoadPackingArgs returns scheduler-plugins' defaults: 1 cpu,
// multiplier 1.5, target 40 % (SetDefaults picks the metric provider, which
// depends on watcherAddress).
func DefaultTargetLoadPackingArgs() TargetLoadPackingArgs {
	return TargetLoadPackingArgs{
		DefaultRequests:           resource.List{resource.CPU: resource.NewMilliQuantity(DefaultTrimaranRequestsMilliCores, resource.DecimalSI)},
		DefaultRequestsMultiplier: DefaultTrimaranRequestsMultiplier,
		TargetUtilization:         DefaultTargetUtilizationPercent,
	}
}

// SetDefaults is scheduler-plugins' SetDefaults_TargetLoadPackingArgs: an
// absent defaultRequests or defaultRequestsMultiplier, and a
// targetUtilization ≤ 0, take the defaults.
func (a *TargetLoadPackingArgs) SetDefaults() {
	a.TrimaranSpec.setDefaults()
	if a.DefaultRequests == nil {
		a.DefaultRequests = resource.List{resource.CPU: resource.NewMilliQuantity(DefaultTrimaranRequestsMilliCores, resource.DecimalSI)}
	}
	if a.DefaultRequestsMultiplier == "" {
		a.DefaultRequestsMultiplier = DefaultTrimaranRequestsMultiplier
	}
	if a.TargetUtilization <= 0 {
		a.TargetUtilization = DefaultTargetUtilizationPercent
	}
}

// Validate checks the defaulted args: the metric provider (as
// scheduler-plugins' checkSpecs), a multiplier that parses as a finite
// number ≥ 0 (scheduler-plugins fails on one that does not parse) and a
// target utilization in (0, 100] (scheduler-plugins accepts a larger one
// and then returns scores above 100, which its framework rejects at every
// cycle; schedkit refuses it up front).
func (a TargetLoadPackingArgs) Validate() error {
	var errs []error
	if err := a.TrimaranSpec.validate("targetloadpacking"); err != nil {
		errs = append(errs, err)
	}
	if _, err := a.Multiplier(); err != nil {
		errs = append(errs, err)
	}
	if t := a.TargetUtilization; t <= 0 || t > 100 {
		errs = append(errs, fmt.Errorf("targetloadpacking: targetUtilization=%d: must be within (0, 100]", t))
	}
	if q, ok := a.DefaultRequests[resource.CPU]; ok && q.Sign() < 0 {
		errs = append(errs, fmt.Errorf("targetloadpacking: defaultRequests[\"cpu\"]=%s: must not be negative", q.String()))
	}
	return errors.Join(errs...)
}

// Multiplier parses DefaultRequestsMultiplier.
func (a TargetLoadPackingArgs) Multiplier() (float64, error) {
	m, err := strconv.ParseFloat(a.DefaultRequestsMultiplier, 64)
	if err != nil || m < 0 || math.IsNaN(m) || math.IsInf(m, 0) {
		return 0, fmt.Errorf("targetloadpacking: defaultRequestsMultiplier=%q: want a finite number ≥ 0", a.DefaultRequestsMultiplier)
	}
	return m, nil
}

// TargetLoadPackingArgsFrom converts the args a framework.Factory receives
// (nil: the defaults), then defaults and validates them.
func TargetLoadPackingArgsFrom(args any) (TargetLoadPackingArgs, error) {
	a, err := config.ArgsFrom("targetloadpacking", args, DefaultTargetLoadPackingArgs)
	if err != nil {
		return a, err
	}
	a.SetDefaults()
	return a, a.Validate()
}

// LoadVariationRiskBalancingArgs are the arguments of Trimaran's
// LoadVariationRiskBalancing: a node's risk for a resource is
// (μ + margin·σ^(1/sensitivity)) / 2 over its measured mean μ and standard
// deviation σ (as fractions of capacity, the pod's request added to μ).
//
// The zero value is not the default (0 is a valid margin): start from
// DefaultLoadVariationRiskBalancingArgs.
type LoadVariationRiskBalancingArgs struct {
	TrimaranSpec `json:",inline"`
	// SafeVarianceMargin multiplies σ; negative means the default 1.
	SafeVarianceMargin float64 `json:"safeVarianceMargin"`
	// SafeVarianceSensitivity is the root taken of σ; negative means the
	// default 1 (the README recommends 2).
	SafeVarianceSensitivity float64 `json:"safeVarianceSensitivity"`
}

// DefaultLoadVariationRiskBalancingArgs returns scheduler-plugins'
// defaults: margin 1, sensitivity 1 (SetDefaults picks the metric
// provider).
func DefaultLoadVariationRiskBalancingArgs() LoadVariationRiskBalancingArgs {
	return LoadVariationRiskBalancingArgs{SafeVarianceMargin: DefaultSafeVarianceMargin, SafeVarianceSensitivity: DefaultSafeVarianceSensitivity}
}

// SetDefaults is scheduler-plugins' SetDefaults_LoadVariationRiskBalancingArgs
// for values present in the file: a negative margin or sensitivity becomes
// 1 (absent fields keep the defaults when decoding starts from
// DefaultLoadVariationRiskBalancingArgs).
func (a *LoadVariationRiskBalancingArgs) SetDefaults() {
	a.TrimaranSpec.setDefaults()
	if a.SafeVarianceMargin < 0 {
		a.SafeVarianceMargin = DefaultSafeVarianceMargin
	}
	if a.SafeVarianceSensitivity < 0 {
		a.SafeVarianceSensitivity = DefaultSafeVarianceSensitivity
	}
}

// Validate checks the metric provider, as scheduler-plugins' checkSpecs,
// and that margin and sensitivity are finite (JSON cannot carry anything
// else; a Go caller can).
func (a LoadVariationRiskBalancingArgs) Validate() error {
	var errs []error
	if err := a.TrimaranSpec.validate("loadvariationriskbalancing"); err != nil {
		errs = append(errs, err)
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"safeVarianceMargin", a.SafeVarianceMargin}, {"safeVarianceSensitivity", a.SafeVarianceSensitivity}} {
		if math.IsNaN(f.v) || math.IsInf(f.v, 0) {
			errs = append(errs, fmt.Errorf("loadvariationriskbalancing: %s=%v: must be finite", f.name, f.v))
		}
	}
	return errors.Join(errs...)
}

// LoadVariationRiskBalancingArgsFrom converts the args a framework.Factory
// receives (nil: the defaults), then defaults and validates them.
func LoadVariationRiskBalancingArgsFrom(args any) (LoadVariationRiskBalancingArgs, error) {
	a, err := config.ArgsFrom("loadvariationriskbalancing", args, DefaultLoadVariationRiskBalancingArgs)
	if err != nil {
		return a, err
	}
	a.SetDefaults()
	return a, a.Validate()
}
