package api

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/schedkit/schedkit/resource"
)

// DefaultNodeMetricReportInterval is the report interval Koordinator's
// scheduler assumes when a NodeMetric states none
// (spec.metricCollectPolicy.reportIntervalSeconds absent): 60 s.
const DefaultNodeMetricReportInterval = 60 * time.Second

// Aggregation types of NodeMetric's aggregated usages, as Koordinator's
// slo/v1alpha1 AggregationType.
const (
	AggregationAvg = "avg"
	AggregationP50 = "p50"
	AggregationP90 = "p90"
	AggregationP95 = "p95"
	AggregationP99 = "p99"
)

// IsAggregationType reports whether t is one of avg, p50, p90, p95, p99.
func IsAggregationType(t string) bool {
	switch t {
	case AggregationAvg, AggregationP50, AggregationP90, AggregationP95, AggregationP99:
		return true
	}
	return false
}

// NodeMetric is the real resource usage of one node and its pods as
// Koordinator's koordlet reports it (slo.koordinator.sh/v1alpha1
// NodeMetric). Field names and JSON tags follow Koordinator, so a NodeMetric
// manifest decodes field for field. Its name is the node's name.
//
// LoadAwareScheduling reads status.updateTime,
// spec.metricCollectPolicy.reportIntervalSeconds, status.nodeMetric.nodeUsage,
// status.nodeMetric.aggregatedNodeUsages, status.nodeMetric.systemUsage and
// status.podsMetric (usage and priority).
type NodeMetric struct {
	ObjectMeta `json:"metadata"`
	Spec       NodeMetricSpec   `json:"spec,omitzero"`
	Status     NodeMetricStatus `json:"status,omitzero"`
}

// NodeMetricSpec is the desired collection policy of a NodeMetric.
type NodeMetricSpec struct {
	CollectPolicy *NodeMetricCollectPolicy `json:"metricCollectPolicy,omitempty"`
}

// NodeMetricCollectPolicy is how koordlet collects and reports metrics.
type NodeMetricCollectPolicy struct {
	// AggregateDurationSeconds is the aggregation period in seconds.
	AggregateDurationSeconds *int64 `json:"aggregateDurationSeconds,omitempty"`
	// ReportIntervalSeconds is the report period in seconds; absent means
	// DefaultNodeMetricReportInterval.
	ReportIntervalSeconds *int64 `json:"reportIntervalSeconds,omitempty"`
	// NodeAggregatePolicy lists the durations of the aggregated usages.
	NodeAggregatePolicy *NodeMetricAggregatePolicy `json:"nodeAggregatePolicy,omitempty"`
	// NodeMemoryCollectPolicy is how memory usage is measured
	// (usageWithHotPageCache, usageWithoutPageCache, usageWithPageCache).
	NodeMemoryCollectPolicy string `json:"nodeMemoryCollectPolicy,omitempty"`
}

// NodeMetricAggregatePolicy lists the aggregation durations.
type NodeMetricAggregatePolicy struct {
	Durations []MetricDuration `json:"durations,omitempty"`
}

// ReportInterval returns spec.metricCollectPolicy.reportIntervalSeconds, or
// DefaultNodeMetricReportInterval when it is absent, as Koordinator's
// getNodeMetricReportInterval.
func (m *NodeMetric) ReportInterval() time.Duration {
	if m.Spec.CollectPolicy == nil || m.Spec.CollectPolicy.ReportIntervalSeconds == nil {
		return DefaultNodeMetricReportInterval
	}
	return time.Duration(*m.Spec.CollectPolicy.ReportIntervalSeconds) * time.Second
}

// NodeMetricStatus is the observed usage.
type NodeMetricStatus struct {
	// UpdateTime is when koordlet last updated the metric; nil means never
	// (the metric counts as expired).
	UpdateTime *time.Time `json:"updateTime,omitempty"`
	// NodeMetric is the node-level usage; nil means the body is missing.
	NodeMetric *NodeMetricInfo `json:"nodeMetric,omitempty"`
	// PodsMetric is the usage of the pods on the node.
	PodsMetric []*PodMetricInfo `json:"podsMetric,omitempty"`
	// ProdReclaimableMetric is the reclaimable prod resource prediction.
	ProdReclaimableMetric *ReclaimableMetric `json:"prodReclaimableMetric,omitempty"`
}

// NodeMetricInfo is the node-level usage.
type NodeMetricInfo struct {
	// NodeUsage is the node's total usage.
	NodeUsage ResourceMap `json:"nodeUsage,omitzero"`
	// AggregatedNodeUsages are percentile/average usages over durations.
	AggregatedNodeUsages []AggregatedUsage `json:"aggregatedNodeUsages,omitempty"`
	// SystemUsage is the usage of daemons and the kernel (node − pods).
	SystemUsage ResourceMap `json:"systemUsage,omitzero"`
	// AggregatedSystemUsages are aggregated system usages.
	AggregatedSystemUsages []AggregatedUsage `json:"aggregatedSystemUsages,omitempty"`
}

// AggregatedUsage is the usage aggregated over Duration, by aggregation type
// (avg, p50, p90, p95, p99).
type AggregatedUsage struct {
	Usage    map[string]ResourceMap `json:"usage,omitempty"`
	Duration MetricDuration         `json:"duration,omitzero"`
}

// ResourceMap is a resource list as Koordinator's slo/v1alpha1 ResourceMap
// (devices are not modelled).
type ResourceMap struct {
	Resources resource.List `json:"resources,omitempty"`
}

// PodMetricInfo is one pod's usage.
type PodMetricInfo struct {
	Name      string      `json:"name,omitempty"`
	Namespace string      `json:"namespace,omitempty"`
	PodUsage  ResourceMap `json:"podUsage,omitzero"`
	// Priority is the pod's Koordinator priority class as koordlet saw it
	// ("koord-prod", "koord-mid", "koord-batch", "koord-free" or "").
	Priority string `json:"priority,omitempty"`
	// QoS is the pod's Koordinator QoS class (LSE, LSR, LS, BE, SYSTEM).
	QoS string `json:"qos,omitempty"`
}

// ReclaimableMetric is a reclaimable-resource prediction.
type ReclaimableMetric struct {
	Resource ResourceMap `json:"resource,omitzero"`
}

// MetricDuration is a duration that encodes in JSON as Go duration text
// ("5m0s"), like Kubernetes' metav1.Duration.
type MetricDuration struct {
	time.Duration
}

// MarshalJSON encodes d as a string ("5m0s").
func (d MetricDuration) MarshalJSON() ([]byte, error) {
	return json.Marshal(d.Duration.String())
}

// UnmarshalJSON decodes a duration string with time.ParseDuration; a
// number or an invalid string is an error naming the value.
func (d *MetricDuration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("duration %s: want a string such as \"5m0s\"", strings.TrimSpace(string(b)))
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("duration %q: %w", s, err)
	}
	d.Duration = v
	return nil
}

// Validate checks a NodeMetric for input schedkit refuses: nil, an empty
// name (the API server cannot hold such an object), a negative report
// interval, or a negative quantity anywhere in the usages (Koordinator would
// compute with them; schedkit rejects them as input no usage calculation can
// mean). The error names the field and the value, e.g.
// `NodeMetric "n1": status.nodeMetric.nodeUsage["cpu"]=-1: must not be negative`.
//
// Entries Koordinator keeps but reads differently — an unknown aggregation
// type, a duplicated or negative aggregation duration, a duplicated pod — are
// not errors: see Warnings.
func (m *NodeMetric) Validate() error {
	if m == nil {
		return fmt.Errorf("NodeMetric: nil")
	}
	if m.Name == "" {
		return fmt.Errorf("NodeMetric: metadata.name is empty (it must name the node)")
	}
	prefix := fmt.Sprintf("NodeMetric %q", m.Name)
	if p := m.Spec.CollectPolicy; p != nil && p.ReportIntervalSeconds != nil && *p.ReportIntervalSeconds < 0 {
		return fmt.Errorf("%s: spec.metricCollectPolicy.reportIntervalSeconds=%d: must not be negative", prefix, *p.ReportIntervalSeconds)
	}
	if info := m.Status.NodeMetric; info != nil {
		if err := nmCheckMap(prefix, "status.nodeMetric.nodeUsage", info.NodeUsage); err != nil {
			return err
		}
		if err := nmCheckMap(prefix, "status.nodeMetric.systemUsage", info.SystemUsage); err != nil {
			return err
		}
		if err := nmCheckAggregated(prefix, "status.nodeMetric.aggregatedNodeUsages", info.AggregatedNodeUsages); err != nil {
			return err
		}
		if err := nmCheckAggregated(prefix, "status.nodeMetric.aggregatedSystemUsages", info.AggregatedSystemUsages); err != nil {
			return err
		}
	}
	for i, pm := range m.Status.PodsMetric {
		if pm == nil {
			continue
		}
		if err := nmCheckMap(prefix, fmt.Sprintf("status.podsMetric[%d](%s/%s).podUsage", i, pm.Namespace, pm.Name), pm.PodUsage); err != nil {
			return err
		}
	}
	return nil
}

func nmCheckAggregated(prefix, path string, aggs []AggregatedUsage) error {
	for i, a := range aggs {
		for _, t := range slices.Sorted(maps.Keys(a.Usage)) {
			if err := nmCheckMap(prefix, fmt.Sprintf("%s[%d].usage[%q]", path, i, t), a.Usage[t]); err != nil {
				return err
			}
		}
	}
	return nil
}

// NodeMetricWarning is one entry of a NodeMetric that LoadAwareScheduling
// keeps but reads differently from what its author likely meant; the rest of
// the metric is used as usual.
type NodeMetricWarning struct {
	// Field is the entry's path, e.g.
	// `status.nodeMetric.aggregatedNodeUsages[1].usage["p75"]`.
	Field string
	// Message says what is odd and what the scheduler does with the entry.
	Message string
}

// String returns "field: message".
func (w NodeMetricWarning) String() string { return w.Field + ": " + w.Message }

// Warnings lists, in field order, the entries of m that Koordinator's
// LoadAwareScheduling (v1.8.0 pod_assign_cache.go,
// nodeInfo.AddOrUpdateNodeMetric) keeps while ignoring them, or reads only
// in a way the author may not expect; schedkit's AssignCache reads them the
// same way:
//
//   - an aggregated usage whose type is not avg, p50, p90, p95 or p99 is
//     stored under its own name: the args cannot select it, only a node's
//     usage-thresholds annotation naming that type;
//   - an aggregated usage with a negative duration is stored under that
//     duration: it is never the longest (duration 0), and only an
//     annotation naming that negative duration selects it;
//   - an aggregated usage of a type and duration repeated later in the list
//     is ignored (the last non-empty one wins);
//   - an aggregated usage of duration 0 is ignored when the same type is
//     also reported for a positive duration (duration 0 then means the
//     longest of them);
//   - a podsMetric entry for a pod listed again later is ignored (the last
//     non-empty one wins; a koord-prod priority on either still marks the
//     pod as reported prod).
//
// Empty usage lists are skipped without a warning, as Koordinator skips
// them (a pod without usage is then estimated). aggregatedSystemUsages are
// not read. A nil m has no warnings.
func (m *NodeMetric) Warnings() []NodeMetricWarning {
	if m == nil {
		return nil
	}
	var out []NodeMetricWarning
	if info := m.Status.NodeMetric; info != nil {
		out = nmAggregatedWarnings("status.nodeMetric.aggregatedNodeUsages", info.AggregatedNodeUsages, out)
	}
	type podKey struct{ namespace, name string }
	last := make(map[podKey]int, len(m.Status.PodsMetric))
	for i, pm := range m.Status.PodsMetric {
		if pm != nil && len(pm.PodUsage.Resources) > 0 {
			last[podKey{pm.Namespace, pm.Name}] = i
		}
	}
	for i, pm := range m.Status.PodsMetric {
		if pm == nil || len(pm.PodUsage.Resources) == 0 {
			continue
		}
		if j := last[podKey{pm.Namespace, pm.Name}]; j != i {
			out = append(out, NodeMetricWarning{
				Field:   fmt.Sprintf("status.podsMetric[%d](%s/%s)", i, pm.Namespace, pm.Name),
				Message: fmt.Sprintf("ignored: the pod is listed again at status.podsMetric[%d], whose usage is used", j),
			})
		}
	}
	return out
}

func nmAggregatedWarnings(path string, aggs []AggregatedUsage, out []NodeMetricWarning) []NodeMetricWarning {
	type key struct {
		t string
		d time.Duration
	}
	last := map[key]int{}
	longest := map[string]time.Duration{} // type → its longest positive duration
	for i, a := range aggs {
		d := a.Duration.Duration
		for t, rm := range a.Usage {
			if len(rm.Resources) == 0 {
				continue
			}
			last[key{t, d}] = i
			longest[t] = max(longest[t], d)
		}
	}
	for i, a := range aggs {
		d := a.Duration.Duration
		for _, t := range slices.Sorted(maps.Keys(a.Usage)) {
			if len(a.Usage[t].Resources) == 0 {
				continue
			}
			field := fmt.Sprintf("%s[%d].usage[%q]", path, i, t)
			warn := func(format string, args ...any) {
				out = append(out, NodeMetricWarning{Field: field, Message: fmt.Sprintf(format, args...)})
			}
			if j := last[key{t, d}]; j != i {
				warn("ignored: type %s for duration %s is reported again at %s[%d], which is used", t, d, path, j)
				continue
			}
			if l := longest[t]; d == 0 && l > 0 {
				warn("ignored: duration 0 stands for the longest duration of type %s, %s at %s[%d]", t, l, path, last[key{t, l}])
				continue
			}
			if !IsAggregationType(t) {
				warn("unknown aggregation type (not avg, p50, p90, p95 or p99): kept, but only a node's usage-thresholds annotation naming %q can select it", t)
			}
			if d < 0 {
				warn("negative duration %s: kept, but never taken as the longest duration; only a node's usage-thresholds annotation naming %s can select it", d, d)
			}
		}
	}
	return out
}

func nmCheckMap(prefix, path string, rm ResourceMap) error {
	for _, n := range rm.Resources.Names() {
		if q := rm.Resources[n]; q.Sign() < 0 {
			return fmt.Errorf("%s: %s[%q]=%s: must not be negative", prefix, path, n, q.String())
		}
	}
	return nil
}
