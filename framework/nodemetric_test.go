package framework

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/resource"
)

// A NodeMetric manifest in Koordinator's JSON shape decodes field for field.
func TestNodeMetricJSON(t *testing.T) {
	const manifest = `{
  "metadata": {"name": "node-1"},
  "spec": {"metricCollectPolicy": {"aggregateDurationSeconds": 300, "reportIntervalSeconds": 90,
    "nodeAggregatePolicy": {"durations": ["5m0s", "10m0s"]}}},
  "status": {
    "updateTime": "2026-07-24T12:00:00Z",
    "nodeMetric": {
      "nodeUsage": {"resources": {"cpu": "7500m", "memory": "30Gi"}},
      "aggregatedNodeUsages": [{"duration": "5m0s", "usage": {"p95": {"resources": {"cpu": "9"}}}}],
      "systemUsage": {"resources": {"cpu": "500m"}}
    },
    "podsMetric": [{"namespace": "default", "name": "web-0", "priority": "koord-prod", "qos": "LS",
      "podUsage": {"resources": {"cpu": "2", "memory": "4Gi"}}}]
  }
}`
	var m NodeMetric
	if err := json.Unmarshal([]byte(manifest), &m); err != nil {
		t.Fatal(err)
	}
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	if m.Name != "node-1" || m.ReportInterval() != 90*time.Second {
		t.Errorf("name %q interval %v", m.Name, m.ReportInterval())
	}
	if !m.Status.UpdateTime.Equal(time.Date(2026, 7, 24, 12, 0, 0, 0, time.UTC)) {
		t.Errorf("updateTime %v", m.Status.UpdateTime)
	}
	u := m.Status.NodeMetric.NodeUsage.Resources
	if q := u[resource.CPU]; q.MilliValue() != 7500 {
		t.Errorf("nodeUsage cpu %v", q)
	}
	a := m.Status.NodeMetric.AggregatedNodeUsages[0]
	if q := a.Usage["p95"].Resources[resource.CPU]; a.Duration.Duration != 5*time.Minute || q.Value() != 9 {
		t.Errorf("aggregated %+v", a)
	}
	if p := m.Status.PodsMetric[0]; p.Priority != "koord-prod" || p.QoS != "LS" || p.Namespace != "default" {
		t.Errorf("podsMetric %+v", p)
	}
	if d := m.Spec.CollectPolicy.NodeAggregatePolicy.Durations; len(d) != 2 || d[1].Duration != 10*time.Minute {
		t.Errorf("durations %v", d)
	}
	out, err := json.Marshal(&m)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`"duration":"5m0s"`, `"nodeUsage":{"resources":{`, `"metricCollectPolicy":{`, `"reportIntervalSeconds":90`} {
		if !strings.Contains(string(out), s) {
			t.Errorf("encoding lacks %s: %s", s, out)
		}
	}
	var back NodeMetric
	if err := json.Unmarshal(out, &back); err != nil || back.ReportInterval() != 90*time.Second {
		t.Errorf("round trip: %v", err)
	}
	if (&NodeMetric{}).ReportInterval() != DefaultNodeMetricReportInterval {
		t.Error("default report interval")
	}
	if err := json.Unmarshal([]byte(`{"metadata":{"name":"n"},"status":{"nodeMetric":{"aggregatedNodeUsages":[{"duration":300}]}}}`), &back); err == nil ||
		!strings.Contains(err.Error(), `duration 300: want a string such as "5m0s"`) {
		t.Errorf("numeric duration: %v", err)
	}
}

func TestNodeMetricValidate(t *testing.T) {
	neg := int64(-1)
	tests := []struct {
		m    *NodeMetric
		want string
	}{
		{&NodeMetric{}, "NodeMetric: metadata.name is empty (it must name the node)"},
		{&NodeMetric{ObjectMeta: ObjectMeta{Name: "n"}, Spec: NodeMetricSpec{CollectPolicy: &NodeMetricCollectPolicy{ReportIntervalSeconds: &neg}}},
			`NodeMetric "n": spec.metricCollectPolicy.reportIntervalSeconds=-1: must not be negative`},
		{&NodeMetric{ObjectMeta: ObjectMeta{Name: "n"}, Status: NodeMetricStatus{NodeMetric: &NodeMetricInfo{
			SystemUsage: ResourceMap{Resources: resource.MustParseList(map[string]string{"memory": "-5Mi"})}}}},
			`NodeMetric "n": status.nodeMetric.systemUsage["memory"]=-5Mi: must not be negative`},
		{&NodeMetric{ObjectMeta: ObjectMeta{Name: "n"}, Status: NodeMetricStatus{NodeMetric: &NodeMetricInfo{
			AggregatedNodeUsages: []AggregatedUsage{{Duration: MetricDuration{time.Minute}}, {Duration: MetricDuration{time.Minute}}}}}},
			`NodeMetric "n": status.nodeMetric.aggregatedNodeUsages[1].duration=1m0s: duplicated`},
		{&NodeMetric{ObjectMeta: ObjectMeta{Name: "n"}, Status: NodeMetricStatus{NodeMetric: &NodeMetricInfo{
			AggregatedNodeUsages: []AggregatedUsage{{Duration: MetricDuration{-time.Minute}}}}}},
			`NodeMetric "n": status.nodeMetric.aggregatedNodeUsages[0].duration=-1m0s: must not be negative`},
	}
	for _, tt := range tests {
		if err := tt.m.Validate(); err == nil || err.Error() != tt.want {
			t.Errorf("Validate = %v, want %q", err, tt.want)
		}
	}
	var nilMetric *NodeMetric
	if err := nilMetric.Validate(); err == nil {
		t.Error("nil metric accepted")
	}
	ok := &NodeMetric{ObjectMeta: ObjectMeta{Name: "n"}, Status: NodeMetricStatus{PodsMetric: []*PodMetricInfo{nil}}}
	if err := ok.Validate(); err != nil {
		t.Errorf("nil pod entry must be skipped: %v", err)
	}
}
