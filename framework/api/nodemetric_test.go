package api

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
			AggregatedNodeUsages: []AggregatedUsage{{Duration: MetricDuration{time.Minute}, Usage: map[string]ResourceMap{"p95": nmUsage("cpu", "-1")}}}}}},
			`NodeMetric "n": status.nodeMetric.aggregatedNodeUsages[0].usage["p95"]["cpu"]=-1: must not be negative`},
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

func nmUsage(kv ...string) ResourceMap {
	m := map[string]string{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return ResourceMap{Resources: resource.MustParseList(m)}
}

// Entries Koordinator keeps but ignores or reads only on
// request (v1.8.0 pkg/scheduler/plugins/loadaware/pod_assign_cache.go,
// nodeInfo.AddOrUpdateNodeMetric: aggregated usages stored by (type,
// duration) in list order, the last non-empty one winning, duration 0
// overwritten by the longest; podUsages by namespace/name, the last one
// winning) do not make the metric invalid; Warnings names each.
func TestNodeMetricWarnings(t *testing.T) {
	agg := func(d time.Duration, kv ...any) AggregatedUsage {
		a := AggregatedUsage{Duration: MetricDuration{d}, Usage: map[string]ResourceMap{}}
		for i := 0; i < len(kv); i += 2 {
			a.Usage[kv[i].(string)] = kv[i+1].(ResourceMap)
		}
		return a
	}
	cpu := nmUsage("cpu", "1")
	const path = "status.nodeMetric.aggregatedNodeUsages"
	tests := []struct {
		name string
		aggs []AggregatedUsage
		pods []*PodMetricInfo
		want []NodeMetricWarning
	}{
		{name: "ordinary metric", aggs: []AggregatedUsage{agg(5*time.Minute, "p95", cpu, "avg", cpu), agg(time.Hour, "p95", cpu)}},
		{
			name: "duplicated duration: the earlier entry is ignored per type",
			aggs: []AggregatedUsage{agg(5*time.Minute, "p95", cpu, "avg", cpu), agg(5*time.Minute, "p95", cpu)},
			want: []NodeMetricWarning{{path + `[0].usage["p95"]`, "ignored: type p95 for duration 5m0s is reported again at " + path + "[1], which is used"}},
		},
		{
			name: "a later empty list does not shadow",
			aggs: []AggregatedUsage{agg(5*time.Minute, "p95", cpu), agg(5*time.Minute, "p95", ResourceMap{})},
		},
		{
			name: "unknown type is kept, selectable by annotation only",
			aggs: []AggregatedUsage{agg(5*time.Minute, "p42", cpu)},
			want: []NodeMetricWarning{{path + `[0].usage["p42"]`, `unknown aggregation type (not avg, p50, p90, p95 or p99): kept, but only a node's usage-thresholds annotation naming "p42" can select it`}},
		},
		{
			name: "negative duration",
			aggs: []AggregatedUsage{agg(-time.Minute, "avg", cpu)},
			want: []NodeMetricWarning{{path + `[0].usage["avg"]`, "negative duration -1m0s: kept, but never taken as the longest duration; only a node's usage-thresholds annotation naming -1m0s can select it"}},
		},
		{
			name: "duration 0 beside a positive one",
			aggs: []AggregatedUsage{agg(0, "p50", cpu, "p90", cpu), agg(10*time.Minute, "p50", cpu)},
			want: []NodeMetricWarning{{path + `[0].usage["p50"]`, "ignored: duration 0 stands for the longest duration of type p50, 10m0s at " + path + "[1]"}},
		},
		{
			name: "pod listed twice",
			pods: []*PodMetricInfo{{Namespace: "ns", Name: "a", PodUsage: cpu}, nil, {Namespace: "ns", Name: "b", PodUsage: cpu}, {Namespace: "ns", Name: "a", PodUsage: cpu}, {Namespace: "ns", Name: "a"}},
			want: []NodeMetricWarning{{"status.podsMetric[0](ns/a)", "ignored: the pod is listed again at status.podsMetric[3], whose usage is used"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &NodeMetric{ObjectMeta: ObjectMeta{Name: "n"}, Status: NodeMetricStatus{NodeMetric: &NodeMetricInfo{AggregatedNodeUsages: tt.aggs}, PodsMetric: tt.pods}}
			if err := m.Validate(); err != nil {
				t.Fatalf("Validate: %v", err)
			}
			got := m.Warnings()
			if len(got) != len(tt.want) {
				t.Fatalf("Warnings = %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("Warnings[%d] = %q, want %q", i, got[i], tt.want[i])
				}
			}
		})
	}
	if (*NodeMetric)(nil).Warnings() != nil {
		t.Error("nil metric has warnings")
	}
}
