package builder

import (
	"slices"

	"github.com/schedkit/schedkit/framework/api"
)

// NodeLoadWrapper builds a api.NodeLoad (a node's measured load, read
// by scheduler-plugins' Trimaran plugins); MakeNodeLoad starts one.
type NodeLoadWrapper struct{ l api.NodeLoad }

// MakeNodeLoad starts the NodeLoad of node name, with no metric and no
// window.
func MakeNodeLoad(name string) *NodeLoadWrapper {
	w := &NodeLoadWrapper{}
	w.l.Name = name
	return w
}

// Obj returns the NodeLoad.
func (w *NodeLoadWrapper) Obj() *api.NodeLoad {
	l := w.l
	l.Metrics = slices.Clone(l.Metrics)
	return &l
}

// Metric adds a metric: its type (api.LoadMetricCPU,
// api.LoadMetricMemory), operator (api.LoadOperatorAverage,
// api.LoadOperatorStd, api.LoadOperatorLatest) and value in
// percent of the node's capacity.
func (w *NodeLoadWrapper) Metric(typ, operator string, value float64) *NodeLoadWrapper {
	w.l.Metrics = append(w.l.Metrics, api.LoadMetric{Type: typ, Operator: operator, Value: value})
	return w
}

// Window sets the measurement window, in Unix seconds: TargetLoadPacking
// counts the pods bound less than 60 s before its end (or after it) as load
// the metrics do not show yet.
func (w *NodeLoadWrapper) Window(start, end int64) *NodeLoadWrapper {
	w.l.Window.Start, w.l.Window.End = start, end
	return w
}
