package framework

import (
	"encoding/json"
	"fmt"
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

// Validate checks a NodeMetric for input no usage calculation can accept:
// an empty name, a negative report interval, a duplicated or negative
// aggregation duration, an unknown aggregation type, or a negative quantity
// anywhere in the usages. The error names the field and the value, e.g.
// `NodeMetric "n1": status.nodeMetric.nodeUsage["cpu"]=-1: must not be negative`.
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
	seen := make(map[time.Duration]bool, len(aggs))
	for i, a := range aggs {
		p := fmt.Sprintf("%s[%d]", path, i)
		if a.Duration.Duration < 0 {
			return fmt.Errorf("%s: %s.duration=%s: must not be negative", prefix, p, a.Duration.Duration)
		}
		if seen[a.Duration.Duration] {
			return fmt.Errorf("%s: %s.duration=%s: duplicated", prefix, p, a.Duration.Duration)
		}
		seen[a.Duration.Duration] = true
		for t, rm := range a.Usage {
			if !IsAggregationType(t) {
				return fmt.Errorf("%s: %s.usage[%q]: unknown aggregation type (want avg, p50, p90, p95 or p99)", prefix, p, t)
			}
			if err := nmCheckMap(prefix, fmt.Sprintf("%s.usage[%q]", p, t), rm); err != nil {
				return err
			}
		}
	}
	return nil
}

func nmCheckMap(prefix, path string, rm ResourceMap) error {
	for _, n := range rm.Resources.Names() {
		if q := rm.Resources[n]; q.Sign() < 0 {
			return fmt.Errorf("%s: %s[%q]=%s: must not be negative", prefix, path, n, q.String())
		}
	}
	return nil
}
