package builder

import (
	"time"

	"github.com/schedkit/schedkit/framework/api"
)

// NodeMetricWrapper builds a api.NodeMetric (Koordinator's NodeMetric,
// read by LoadAwareScheduling); MakeNodeMetric starts one.
type NodeMetricWrapper struct {
	m   api.NodeMetric
	err error // the first malformed quantity
}

// MakeNodeMetric starts the NodeMetric of node name, with an empty usage
// report (status.nodeMetric set, no usage) and no update time: set
// UpdateTime, or LoadAwareScheduling treats the metric as expired.
func MakeNodeMetric(name string) *NodeMetricWrapper {
	w := &NodeMetricWrapper{}
	w.m.Name = name
	w.m.Status.NodeMetric = &api.NodeMetricInfo{}
	return w
}

// Build returns the NodeMetric, or the first malformed quantity given to the
// wrapper as an error naming the metric, the field and the value.
func (w *NodeMetricWrapper) Build() (*api.NodeMetric, error) {
	if w.err != nil {
		return nil, w.err
	}
	m := w.m
	m.Status.PodsMetric = clip(m.Status.PodsMetric)
	return &m, nil
}

func cloneUsage(u map[string]api.ResourceMap) map[string]api.ResourceMap {
	out := make(map[string]api.ResourceMap, len(u))
	for k, v := range u {
		out[k] = v
	}
	return out
}

// Obj returns the NodeMetric. It panics when a quantity given to the
// wrapper was malformed (Build returns the error instead).
func (w *NodeMetricWrapper) Obj() *api.NodeMetric { return must(w.Build()) }

func (w *NodeMetricWrapper) parse(field string, m map[string]string) api.ResourceMap {
	return api.ResourceMap{Resources: parse(&w.err, "NodeMetric", w.m.Name, field, m)}
}

// UpdateTime sets status.updateTime, when the node last reported.
func (w *NodeMetricWrapper) UpdateTime(t time.Time) *NodeMetricWrapper {
	w.m.Status.UpdateTime = &t
	return w
}

// ReportInterval sets spec.metricCollectPolicy.reportIntervalSeconds.
func (w *NodeMetricWrapper) ReportInterval(seconds int64) *NodeMetricWrapper {
	p := api.NodeMetricCollectPolicy{}
	if w.m.Spec.CollectPolicy != nil {
		p = *w.m.Spec.CollectPolicy
	}
	p.ReportIntervalSeconds = &seconds
	w.m.Spec.CollectPolicy = &p
	return w
}

// NoBody sets status.nodeMetric to nil (a metric that reported nothing).
func (w *NodeMetricWrapper) NoBody() *NodeMetricWrapper {
	w.m.Status.NodeMetric = nil
	return w
}

// body returns status.nodeMetric for writing: a copy of the one set before
// (which metrics already built share).
func (w *NodeMetricWrapper) body() *api.NodeMetricInfo {
	b := &api.NodeMetricInfo{}
	if old := w.m.Status.NodeMetric; old != nil {
		*b = *old
	}
	w.m.Status.NodeMetric = b
	return b
}

// Usage sets status.nodeMetric.nodeUsage, the node's measured usage.
func (w *NodeMetricWrapper) Usage(m map[string]string) *NodeMetricWrapper {
	u := w.parse("status.nodeMetric.nodeUsage", m)
	w.body().NodeUsage = u
	return w
}

// SystemUsage sets status.nodeMetric.systemUsage.
func (w *NodeMetricWrapper) SystemUsage(m map[string]string) *NodeMetricWrapper {
	u := w.parse("status.nodeMetric.systemUsage", m)
	w.body().SystemUsage = u
	return w
}

// Aggregated sets the aggregated usage of type t ("avg", "p50", "p90",
// "p95", "p99") over the window d (nil m: an empty usage list).
func (w *NodeMetricWrapper) Aggregated(d time.Duration, t string, m map[string]string) *NodeMetricWrapper {
	u := w.parse("status.nodeMetric.aggregatedNodeUsages["+d.String()+"]["+t+"]", m)
	b := w.body()
	aggs := make([]api.AggregatedUsage, len(b.AggregatedNodeUsages), len(b.AggregatedNodeUsages)+1)
	copy(aggs, b.AggregatedNodeUsages)
	b.AggregatedNodeUsages = aggs
	for i := range aggs {
		if aggs[i].Duration.Duration == d {
			aggs[i].Usage = cloneUsage(aggs[i].Usage)
			aggs[i].Usage[t] = u
			return w
		}
	}
	b.AggregatedNodeUsages = append(aggs, api.AggregatedUsage{
		Duration: api.MetricDuration{Duration: d},
		Usage:    map[string]api.ResourceMap{t: u},
	})
	return w
}

// Pod adds the usage of pod namespace/name, with koordlet's priority class
// string ("koord-prod", "koord-mid", "koord-batch", "koord-free").
func (w *NodeMetricWrapper) Pod(namespace, name, priority string, m map[string]string) *NodeMetricWrapper {
	w.m.Status.PodsMetric = append(w.m.Status.PodsMetric, &api.PodMetricInfo{
		Namespace: namespace, Name: name, Priority: priority,
		PodUsage: w.parse("status.podsMetric["+namespace+"/"+name+"]", m),
	})
	return w
}
