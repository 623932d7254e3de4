package api

import (
	"fmt"
	"math"
)

// Load metric types and operators, as paypal/load-watcher's watcher package
// (the metrics source of scheduler-plugins' Trimaran plugins).
const (
	// LoadMetricCPU and LoadMetricMemory are the metric types Trimaran reads.
	LoadMetricCPU    = "CPU"
	LoadMetricMemory = "Memory"
	// LoadOperatorAverage is the mean over the window, LoadOperatorStd its
	// standard deviation, LoadOperatorLatest the latest sample.
	LoadOperatorAverage = "AVG"
	LoadOperatorStd     = "STD"
	LoadOperatorLatest  = "Latest"
)

// NodeLoad is one node's measured load as load-watcher reports it to
// scheduler-plugins' Trimaran plugins (TargetLoadPacking,
// LoadVariationRiskBalancing): metrics in percent of the node's capacity
// over a measurement window. Like NodeMetric it is named after its node.
// The JSON field names of Window and Metrics follow load-watcher's
// WatcherMetrics (pkg/watcher/watcher.go), which reports one window for all
// nodes; here each node carries its own.
type NodeLoad struct {
	ObjectMeta `json:"metadata"`
	// Window is the measurement window; TargetLoadPacking counts pods bound
	// less than 60 s before its end (or after it) as load the metrics do
	// not show yet.
	Window LoadWindow `json:"window,omitzero"`
	// Metrics are the node's metrics. Each Value is a percentage of
	// capacity.
	Metrics []LoadMetric `json:"metrics,omitempty"`
}

// LoadWindow is a measurement window in Unix seconds, as load-watcher's
// Window.
type LoadWindow struct {
	Duration string `json:"duration,omitempty"`
	Start    int64  `json:"start,omitempty"`
	End      int64  `json:"end,omitempty"`
}

// LoadMetric is one metric of a node, as load-watcher's Metric: its Type
// (LoadMetricCPU, LoadMetricMemory, or another the plugins ignore), its
// Operator (LoadOperatorAverage, LoadOperatorStd, LoadOperatorLatest or
// empty) and its Value in percent.
type LoadMetric struct {
	Name     string  `json:"name,omitempty"`
	Type     string  `json:"type"`
	Operator string  `json:"operator,omitempty"`
	Rollup   string  `json:"rollup,omitempty"`
	Value    float64 `json:"value"`
}

// Validate checks what no load calculation can accept: an empty name, a
// metric without a type, and a value that is negative, NaN or infinite.
// The error names the node, the metric and the value.
func (l *NodeLoad) Validate() error {
	if l == nil {
		return fmt.Errorf("NodeLoad: nil")
	}
	if l.Name == "" {
		return fmt.Errorf("NodeLoad: metadata.name is empty (it must name the node)")
	}
	for i, m := range l.Metrics {
		if m.Type == "" {
			return fmt.Errorf("NodeLoad %q: metrics[%d].type is empty", l.Name, i)
		}
		if math.IsNaN(m.Value) || math.IsInf(m.Value, 0) || m.Value < 0 {
			return fmt.Errorf("NodeLoad %q: metrics[%d] (%s %s).value=%v: must be a finite percentage ≥ 0", l.Name, i, m.Type, m.Operator, m.Value)
		}
	}
	return nil
}

// Stat returns the mean and standard deviation (in percent) of the metrics
// of type typ, as Trimaran's GetResourceData (pkg/trimaran/resourcestats.go):
// an AVG metric gives the mean; a Latest or operator-less metric gives it
// only while no AVG metric has been seen before it in the list; an STD
// metric gives the deviation (0 when absent). ok reports whether any metric
// of that type exists.
func (l *NodeLoad) Stat(typ string) (avg, std float64, ok bool) {
	avgFound := false
	for _, m := range l.Metrics {
		if m.Type != typ {
			continue
		}
		switch {
		case m.Operator == LoadOperatorAverage:
			avg, avgFound = m.Value, true
		case m.Operator == LoadOperatorStd:
			std = m.Value
		case (m.Operator == "" || m.Operator == LoadOperatorLatest) && !avgFound:
			avg = m.Value
		}
		ok = true
	}
	return avg, std, ok
}

// Latest returns the value TargetLoadPacking reads as the node's cpu
// utilization: the last metric of type typ whose operator is AVG or Latest
// (ok false when there is none), as its Score loop.
func (l *NodeLoad) Latest(typ string) (float64, bool) {
	v, ok := 0.0, false
	for _, m := range l.Metrics {
		if m.Type == typ && (m.Operator == LoadOperatorAverage || m.Operator == LoadOperatorLatest) {
			v, ok = m.Value, true
		}
	}
	return v, ok
}
