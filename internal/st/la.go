package st

import (
	"sync"
	"time"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/resource"
)

// NodeMetricWrapper builds a framework.NodeMetric (Koordinator's
// NodeMetric) for LoadAwareScheduling tests.
type NodeMetricWrapper struct{ m fw.NodeMetric }

// MakeNodeMetric starts a NodeMetric for node name, with an empty body
// (status.nodeMetric non-nil) and no update time.
func MakeNodeMetric(name string) *NodeMetricWrapper {
	w := &NodeMetricWrapper{}
	w.m.Name = name
	w.m.Status.NodeMetric = &fw.NodeMetricInfo{}
	return w
}

// Obj returns the metric.
func (w *NodeMetricWrapper) Obj() *fw.NodeMetric { m := w.m; return &m }

// UpdateTime sets status.updateTime.
func (w *NodeMetricWrapper) UpdateTime(t time.Time) *NodeMetricWrapper {
	w.m.Status.UpdateTime = &t
	return w
}

// ReportInterval sets spec.metricCollectPolicy.reportIntervalSeconds.
func (w *NodeMetricWrapper) ReportInterval(seconds int64) *NodeMetricWrapper {
	if w.m.Spec.CollectPolicy == nil {
		w.m.Spec.CollectPolicy = &fw.NodeMetricCollectPolicy{}
	}
	w.m.Spec.CollectPolicy.ReportIntervalSeconds = &seconds
	return w
}

// NoBody sets status.nodeMetric to nil.
func (w *NodeMetricWrapper) NoBody() *NodeMetricWrapper {
	w.m.Status.NodeMetric = nil
	return w
}

func (w *NodeMetricWrapper) body() *fw.NodeMetricInfo {
	if w.m.Status.NodeMetric == nil {
		w.m.Status.NodeMetric = &fw.NodeMetricInfo{}
	}
	return w.m.Status.NodeMetric
}

// Usage sets status.nodeMetric.nodeUsage.
func (w *NodeMetricWrapper) Usage(m map[string]string) *NodeMetricWrapper {
	w.body().NodeUsage = fw.ResourceMap{Resources: resource.MustParseList(m)}
	return w
}

// SystemUsage sets status.nodeMetric.systemUsage.
func (w *NodeMetricWrapper) SystemUsage(m map[string]string) *NodeMetricWrapper {
	w.body().SystemUsage = fw.ResourceMap{Resources: resource.MustParseList(m)}
	return w
}

// Aggregated adds an aggregated usage of type t over d (nil m: an empty
// usage list).
func (w *NodeMetricWrapper) Aggregated(d time.Duration, t string, m map[string]string) *NodeMetricWrapper {
	b := w.body()
	for i := range b.AggregatedNodeUsages {
		if b.AggregatedNodeUsages[i].Duration.Duration == d {
			b.AggregatedNodeUsages[i].Usage[t] = fw.ResourceMap{Resources: resource.MustParseList(m)}
			return w
		}
	}
	b.AggregatedNodeUsages = append(b.AggregatedNodeUsages, fw.AggregatedUsage{
		Duration: fw.MetricDuration{Duration: d},
		Usage:    map[string]fw.ResourceMap{t: {Resources: resource.MustParseList(m)}},
	})
	return w
}

// Pod adds a pod usage entry with koordlet's priority class string.
func (w *NodeMetricWrapper) Pod(namespace, name, priority string, m map[string]string) *NodeMetricWrapper {
	w.m.Status.PodsMetric = append(w.m.Status.PodsMetric, &fw.PodMetricInfo{
		Namespace: namespace, Name: name, Priority: priority,
		PodUsage: fw.ResourceMap{Resources: resource.MustParseList(m)},
	})
	return w
}

// LAClock is a settable fake clock, safe for concurrent use.
type LAClock struct {
	mu  sync.Mutex
	now time.Time
}

// NewLAClock returns a clock reading now.
func NewLAClock(now time.Time) *LAClock { return &LAClock{now: now} }

// Now returns the clock's time.
func (c *LAClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

// Set moves the clock to t.
func (c *LAClock) Set(t time.Time) { c.mu.Lock(); c.now = t; c.mu.Unlock() }

// LAHandle is a minimal framework.Handle with a given clock.
type LAHandle struct{ C fw.Clock }

// Clock returns the handle's clock.
func (h LAHandle) Clock() fw.Clock { return h.C }

// Parallelism returns 1.
func (h LAHandle) Parallelism() int { return 1 }
