package estimator

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
)

// Annotations Koordinator's LoadAwareScheduling reads.
const (
	// AnnotationCustomUsageThresholds on a node replaces the plugin's
	// threshold maps for that node (JSON CustomUsageThresholds).
	AnnotationCustomUsageThresholds = "scheduling.koordinator.sh/usage-thresholds"
	// AnnotationNodeRawAllocatable on a node is its un-amplified
	// allocatable (JSON resource list), used as its capacity.
	AnnotationNodeRawAllocatable = "node.koordinator.sh/raw-allocatable"
	// AnnotationCustomEstimatedScalingFactors on a pod overrides the scaling
	// factors per resource (JSON map name → percent) when customization is
	// allowed.
	AnnotationCustomEstimatedScalingFactors = "scheduling.koordinator.sh/load-estimated-scaling-factors"
	// AnnotationCustomEstimatedSecondsAfterPodScheduled on a pod forces its
	// estimation for this many seconds after it was scheduled (base-10
	// integer) when customization is allowed.
	AnnotationCustomEstimatedSecondsAfterPodScheduled = "scheduling.koordinator.sh/load-estimated-seconds-after-pod-scheduled"
	// AnnotationCustomEstimatedSecondsAfterInitialized is the same, counted
	// from the pod's Initialized condition.
	AnnotationCustomEstimatedSecondsAfterInitialized = "scheduling.koordinator.sh/load-estimated-seconds-after-initialized"
	// AnnotationReservePod marks a reservation placeholder pod ("true"),
	// which the assign cache ignores.
	AnnotationReservePod = "scheduling.koordinator.sh/reserve-pod"
)

// Vectorizer is the sorted list of resource names load-aware scheduling
// works on; a usage vector holds one amount per name in this order
// (Koordinator's ResourceVectorizer). Names compare as strings, so cpu comes
// before memory.
type Vectorizer []resource.Name

// NewVectorizer returns the sorted, de-duplicated names, always including
// cpu and memory (Koordinator adds them for the node-annotation
// thresholds). Empty names are dropped.
func NewVectorizer(names ...resource.Name) Vectorizer {
	v := Vectorizer{resource.CPU, resource.Memory}
	for _, n := range names {
		if n != "" {
			v = append(v, n)
		}
	}
	slices.Sort(v)
	return slices.Compact(v)
}

// Index returns the position of name, or -1 when it is not vectorized.
func (v Vectorizer) Index(name resource.Name) int {
	i, ok := slices.BinarySearch(v, name)
	if !ok {
		return -1
	}
	return i
}

// Amount converts q to the vector unit of name: milli-cores for cpu,
// Value() (rounded up) for everything else.
func Amount(name resource.Name, q resource.Quantity) int64 {
	if name == resource.CPU {
		return q.MilliValue()
	}
	return q.Value()
}

// FromList vectorizes a resource list; names not in v are ignored, as in
// Koordinator.
func (v Vectorizer) FromList(l resource.List) []int64 {
	out := make([]int64, len(v))
	for i, n := range v {
		if q, ok := l[n]; ok {
			out[i] = Amount(n, q)
		}
	}
	return out
}

// FromAmounts vectorizes a map already in vector units (an estimate, a
// threshold or a weight map); names not in v are ignored.
func (v Vectorizer) FromAmounts(m map[resource.Name]int64) []int64 {
	out := make([]int64, len(v))
	for i, n := range v {
		out[i] = m[n]
	}
	return out
}

// ToAmounts is the inverse of FromAmounts (nil for a nil vector).
func (v Vectorizer) ToAmounts(vec []int64) map[resource.Name]int64 {
	if vec == nil {
		return nil
	}
	m := make(map[resource.Name]int64, len(v))
	for i, n := range v {
		m[n] = vec[i]
	}
	return m
}

// CustomUsageThresholds is the JSON of the node annotation
// scheduling.koordinator.sh/usage-thresholds (Koordinator's
// extension.CustomUsageThresholds).
type CustomUsageThresholds struct {
	UsageThresholds     map[resource.Name]int64 `json:"usageThresholds,omitempty"`
	ProdUsageThresholds map[resource.Name]int64 `json:"prodUsageThresholds,omitempty"`
	AggregatedUsage     *CustomAggregatedUsage  `json:"aggregatedUsage,omitempty"`
}

// CustomAggregatedUsage is the aggregated part of CustomUsageThresholds.
type CustomAggregatedUsage struct {
	UsageThresholds         map[resource.Name]int64 `json:"usageThresholds,omitempty"`
	UsageAggregationType    string                  `json:"usageAggregationType,omitempty"`
	UsageAggregatedDuration *api.MetricDuration     `json:"usageAggregatedDuration,omitempty"`
}

// ParseUsageThresholdsAnnotation decodes the node's
// scheduling.koordinator.sh/usage-thresholds annotation: (nil, nil) when it
// is absent, an error naming the node and the annotation when it is not
// valid JSON. The LoadAware filter treats an error as "no annotation" (the
// anchor's fallback); call this (and Validate) to surface it.
func ParseUsageThresholdsAnnotation(node *api.Node) (*CustomUsageThresholds, error) {
	s, ok := node.Annotations[AnnotationCustomUsageThresholds]
	if !ok {
		return nil, nil
	}
	c := &CustomUsageThresholds{}
	if err := json.Unmarshal([]byte(s), c); err != nil {
		return nil, fmt.Errorf("node %q: annotation %s=%q: %w", node.Name, AnnotationCustomUsageThresholds, s, err)
	}
	return c, nil
}

// Validate reports thresholds Koordinator accepts without complaint but that
// cannot mean anything: a value outside [0,100] or an unknown aggregation
// type. The filter does not call it (the anchor uses the values as given).
func (c *CustomUsageThresholds) Validate() error {
	check := func(field string, m map[resource.Name]int64) error {
		for _, n := range slices.Sorted(maps.Keys(m)) {
			if v := m[n]; v < 0 || v > 100 {
				return fmt.Errorf("%s[%q]=%d: must be within [0,100]", field, n, v)
			}
		}
		return nil
	}
	if err := check("usageThresholds", c.UsageThresholds); err != nil {
		return err
	}
	if err := check("prodUsageThresholds", c.ProdUsageThresholds); err != nil {
		return err
	}
	if a := c.AggregatedUsage; a != nil {
		if err := check("aggregatedUsage.usageThresholds", a.UsageThresholds); err != nil {
			return err
		}
		if a.UsageAggregationType != "" && !api.IsAggregationType(a.UsageAggregationType) {
			return fmt.Errorf("aggregatedUsage.usageAggregationType=%q: must be one of avg, p50, p90, p95, p99", a.UsageAggregationType)
		}
		if d := a.UsageAggregatedDuration; d != nil && d.Duration < 0 {
			return fmt.Errorf("aggregatedUsage.usageAggregatedDuration=%s: must not be negative", d.Duration)
		}
	}
	return nil
}

// ParseScalingFactorsAnnotation decodes the pod's
// scheduling.koordinator.sh/load-estimated-scaling-factors annotation:
// (nil, nil) when absent or empty; an error naming the pod and the value when
// it is not a JSON object of integers or holds a negative factor. The
// default estimator ignores an annotation that fails to parse (Koordinator
// ignores invalid JSON; schedkit also ignores negative factors, which
// Koordinator would apply).
func ParseScalingFactorsAnnotation(pod *api.Pod) (map[resource.Name]int64, error) {
	s := pod.Annotations[AnnotationCustomEstimatedScalingFactors]
	if s == "" {
		return nil, nil
	}
	m := map[resource.Name]int64{}
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return nil, fmt.Errorf("pod %s: annotation %s=%q: %w", pod.Key(), AnnotationCustomEstimatedScalingFactors, s, err)
	}
	for _, n := range slices.Sorted(maps.Keys(m)) {
		if m[n] < 0 {
			return nil, fmt.Errorf("pod %s: annotation %s: factor[%q]=%d: must not be negative", pod.Key(), AnnotationCustomEstimatedScalingFactors, n, m[n])
		}
	}
	return m, nil
}

// ParseEstimatedSecondsAnnotation reads one of the force-estimation window
// annotations (AnnotationCustomEstimatedSecondsAfterPodScheduled or
// …AfterInitialized) of pod: the base-10 integer, or −1 ("unset") when the
// annotation is absent, empty or invalid — Koordinator's fallback. The error
// reports an invalid value for callers that want to surface it.
func ParseEstimatedSecondsAnnotation(pod *api.Pod, key string) (int64, error) {
	s := pod.Annotations[key]
	if s == "" {
		return -1, nil
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return -1, fmt.Errorf("pod %s: annotation %s=%q: want a base-10 integer", pod.Key(), key, s)
	}
	return v, nil
}

// ParseRawAllocatableAnnotation decodes the node's
// node.koordinator.sh/raw-allocatable annotation: (nil, nil) when absent; an
// error naming the node and the value when it is not a JSON resource list.
// The default estimator falls back to plain allocatable on error, as
// Koordinator does.
func ParseRawAllocatableAnnotation(node *api.Node) (resource.List, error) {
	s, ok := node.Annotations[AnnotationNodeRawAllocatable]
	if !ok {
		return nil, nil
	}
	l := resource.List{}
	if err := json.Unmarshal([]byte(s), &l); err != nil {
		return nil, fmt.Errorf("node %q: annotation %s=%q: %w", node.Name, AnnotationNodeRawAllocatable, s, err)
	}
	return l, nil
}
