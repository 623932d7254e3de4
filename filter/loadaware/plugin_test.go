package loadaware

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/estimator"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/resource"
)

type laCase struct {
	name       string
	args       config.LoadAwareSchedulingArgs
	annotation *estimator.CustomUsageThresholds
	rawAnnot   string
	metric     *api.NodeMetric
	pods       []*api.Pod // assigned to the node, PodScheduled now − 10 s
	pod        *api.Pod   // nil: an empty pod (batch, 250m / 200Mi)
	node       *api.Node  // nil: 96 CPU / 512Gi
	want       string     // "" = pass
	wantCode   framework.Code
}

func laRun(t *testing.T, tt laCase) *framework.Status {
	t.Helper()
	p, err := newLoadAwareScheduling(tt.args, st.LAHandle(framework.NewFakeClock(laNow)))
	if err != nil {
		t.Fatal(err)
	}
	la := p
	node := tt.node
	if node == nil {
		w := st.MakeNode().Name("test-node-1").Capacity(map[string]string{"cpu": "96", "memory": "512Gi"})
		if tt.annotation != nil {
			b, _ := json.Marshal(tt.annotation)
			w = w.Annotation(estimator.AnnotationCustomUsageThresholds, string(b))
		}
		if tt.rawAnnot != "" {
			w = w.Annotation(estimator.AnnotationCustomUsageThresholds, tt.rawAnnot)
		}
		node = w.Obj()
	}
	for _, pod := range tt.pods {
		pod.Spec.NodeName = node.Name
		pod.Status.Conditions = append(pod.Status.Conditions, api.PodCondition{Type: api.PodScheduled, Status: api.ConditionTrue, LastTransitionTime: laNow.Add(-10 * time.Second)})
		if err := la.Cache().AddPod(pod); err != nil {
			t.Fatal(err)
		}
	}
	if tt.metric != nil {
		if err := la.Cache().UpdateNodeMetric(tt.metric); err != nil {
			t.Fatal(err)
		}
	}
	pod := tt.pod
	if pod == nil {
		pod = st.MakePod().Name("test-pod").Obj()
	}
	ni, err := framework.NewNodeInfo(node)
	if err != nil {
		t.Fatal(err)
	}
	pi := framework.MustPodInfo(pod)
	cs := framework.NewCycleState()
	if _, s := la.PreFilter(context.Background(), cs, pi, nil); !s.IsSuccess() {
		t.Fatalf("PreFilter: %v", s)
	}
	got := la.Filter(context.Background(), cs, pi, ni)
	// VictimRemoval's promise: the verdict does not read the node's pods,
	// so a NodeInfo holding the assigned pods gets the same one.
	var pis []*framework.PodInfo
	for _, pod := range tt.pods {
		pis = append(pis, framework.MustPodInfo(pod))
	}
	full, err := framework.NewNodeInfo(node, pis...)
	if err != nil {
		t.Fatal(err)
	}
	if withPods := la.Filter(context.Background(), cs, pi, full); !withPods.Equal(got) {
		t.Errorf("Filter with the node's pods = %v, without them %v: VictimRemoval says removing pods leaves it unchanged", withPods, got)
	}
	return got
}

func laCheck(t *testing.T, tt laCase) {
	t.Helper()
	got := laRun(t, tt)
	if tt.want == "" {
		if !got.IsSuccess() {
			t.Errorf("Filter = %v, want success", got)
		}
		return
	}
	code := tt.wantCode
	if code == framework.Success {
		code = framework.Unschedulable
	}
	if got.Code() != code || got.Message() != tt.want {
		t.Errorf("Filter = %v, want %v: %q", got, code, tt.want)
	}
}

func laMetric() *st.NodeMetricWrapper {
	return st.MakeNodeMetric("test-node-1").ReportInterval(60).UpdateTime(laNow)
}

func laFalse() *bool { f := false; return &f }

const (
	laCPUReason    = "node(s) cpu usage exceed threshold"
	laMemReason    = "node(s) memory usage exceed threshold"
	laCPUAggReason = "node(s) cpu aggregated usage exceed threshold"
)

// TestFilterUsage of koordinator-sh/koordinator
// pkg/scheduler/plugins/loadaware/load_aware_test.go, in schedkit's types:
// node 96 CPU / 512Gi, report interval 60 s, metric updated now, assigned
// pods scheduled 10 s ago, filterExpiredNodeMetrics false, default
// thresholds 65/95 unless stated; the worked percentages are in each name.
func TestLoadAwareFilterUsage(t *testing.T) {
	noExp := config.LoadAwareSchedulingArgs{FilterExpiredNodeMetrics: laFalse()}
	with := func(f func(a *config.LoadAwareSchedulingArgs)) config.LoadAwareSchedulingArgs {
		a := noExp
		f(&a)
		return a
	}
	prodPod := func(name string) *st.PodWrapper {
		return st.MakePod().Name(name).Priority(estimator.PriorityProdValueMax)
	}
	p95 := &estimator.CustomAggregatedUsage{
		UsageThresholds: map[resource.Name]int64{"cpu": 60}, UsageAggregationType: "p95",
		UsageAggregatedDuration: &api.MetricDuration{Duration: 5 * time.Minute},
	}
	reported := func(m *st.NodeMetricWrapper) *st.NodeMetricWrapper {
		return m.Pod("default", "prod-pod-1", "koord-prod", laM("30", "200Gi")).Pod("default", "prod-pod-2", "koord-prod", laM("33", "300Gi"))
	}
	prodPods := func() []*api.Pod {
		return []*api.Pod{prodPod("prod-pod-1").Obj(), prodPod("prod-pod-2").Obj()}
	}
	tests := []laCase{
		{name: "normal usage: (60+0.25)/96 = 62.8 → 63 ≤ 65", args: noExp, metric: laMetric().Usage(laM("60", "256Gi")).Obj()},
		{name: "missing NodeMetric passes", args: noExp},
		{name: "exceed cpu: 70.25/96 = 73 > 65", args: noExp, metric: laMetric().Usage(laM("70", "256Gi")).Obj(), want: laCPUReason},
		{
			name: "exceed p95 cpu (args): 70.25/96 = 73 > 60",
			args: with(func(a *config.LoadAwareSchedulingArgs) {
				a.Aggregated = &config.LoadAwareSchedulingAggregatedArgs{UsageThresholds: map[resource.Name]int64{"cpu": 60}, UsageAggregationType: "p95", UsageAggregatedDuration: 5 * time.Minute}
			}),
			metric: laMetric().Usage(laM("30", "100Gi")).Aggregated(5*time.Minute, "p95", laM("70", "256Gi")).Obj(),
			want:   laCPUAggReason,
		},
		{name: "exceed memory: (500Gi+200Mi)/512Gi = 97.7 → 98 > 95", args: noExp, metric: laMetric().Usage(laM("30", "500Gi")).Obj(), want: laMemReason},
		{
			name: "node annotation {memory: 60} replaces the map (cpu unchecked): 316.2/512 = 62 > 60",
			args: noExp, annotation: &estimator.CustomUsageThresholds{UsageThresholds: map[resource.Name]int64{"memory": 60}},
			metric: laMetric().Usage(laM("30", "316Gi")).Obj(), want: laMemReason,
		},
		{
			name: "p95 via node annotation", args: noExp, annotation: &estimator.CustomUsageThresholds{AggregatedUsage: p95},
			metric: laMetric().Usage(laM("30", "100Gi")).Aggregated(5*time.Minute, "p95", laM("70", "256Gi")).Obj(),
			want:   laCPUAggReason,
		},
		{
			name:   "thresholds {memory: 0}: every threshold zero, pass",
			args:   with(func(a *config.LoadAwareSchedulingArgs) { a.UsageThresholds = map[resource.Name]int64{"memory": 0} }),
			metric: laMetric().Usage(laM("30", "500Gi")).Obj(),
		},
		{
			name: "prod filter off by default: 66 and 98 ≤ 100",
			args: with(func(a *config.LoadAwareSchedulingArgs) {
				a.UsageThresholds = map[resource.Name]int64{"cpu": 100, "memory": 100}
			}),
			metric: reported(laMetric().Usage(laM("63", "500Gi"))).Obj(), pods: prodPods(),
		},
		{
			name: "prod cpu: prod usage (30+33+0.25)/96 = 66 > 50",
			args: with(func(a *config.LoadAwareSchedulingArgs) {
				a.UsageThresholds = map[resource.Name]int64{"cpu": 100, "memory": 100}
				a.ProdUsageThresholds = map[resource.Name]int64{"cpu": 50, "memory": 100}
			}),
			metric: reported(laMetric().Usage(laM("63", "500Gi"))).Obj(), pods: prodPods(),
			pod: prodPod("prod-pod-3").Obj(), want: laCPUReason,
		},
		{
			name: "prod memory: (500Gi+200Mi)/512Gi = 98 > 50",
			args: with(func(a *config.LoadAwareSchedulingArgs) {
				a.UsageThresholds = map[resource.Name]int64{"cpu": 100, "memory": 100}
				a.ProdUsageThresholds = map[resource.Name]int64{"cpu": 100, "memory": 50}
			}),
			metric: reported(laMetric().Usage(laM("63", "500Gi"))).Obj(), pods: prodPods(),
			pod: prodPod("prod-pod-3").Obj(), want: laMemReason,
		},
		{
			name: "prod memory via node annotation",
			args: with(func(a *config.LoadAwareSchedulingArgs) {
				a.UsageThresholds = map[resource.Name]int64{"cpu": 100, "memory": 100}
				a.ProdUsageThresholds = map[resource.Name]int64{"cpu": 100, "memory": 100}
			}),
			annotation: &estimator.CustomUsageThresholds{ProdUsageThresholds: map[resource.Name]int64{"cpu": 100, "memory": 50}},
			metric:     reported(laMetric().Usage(laM("63", "500Gi"))).Obj(), pods: prodPods(),
			pod: prodPod("prod-pod-3").Obj(), want: laMemReason,
		},
		{
			name: "DaemonSet-owned pod passes", args: noExp, metric: laMetric().Usage(laM("70", "256Gi")).Obj(),
			pod: st.MakePod().Name("ds").Owner("", "DaemonSet", "agent").Obj(),
		},
		{
			name:   "prod pod requesting 20 CPU / 100Gi: (53+17)/96 = 72.9 → 73 > 60",
			args:   with(func(a *config.LoadAwareSchedulingArgs) { a.ProdUsageThresholds = map[resource.Name]int64{"cpu": 60} }),
			metric: laMetric().Usage(laM("60", "300Gi")).Pod("default", "prod-pod-1", "koord-prod", laM("53", "300Gi")).Obj(),
			pods:   []*api.Pod{prodPod("prod-pod-1").Obj()},
			pod:    st.MakePod().Name("p").Req(laM("20", "100Gi")).Obj(), want: laCPUReason,
		},
		{
			name:   "mid pod mid-cpu 12k: (53+10.2)/96 = 65.8 → 66 > 65",
			args:   noExp,
			metric: laMetric().Usage(laM("53", "100Gi")).Obj(),
			pod: st.MakePod().Name("mid").Priority(estimator.PriorityMidValueDefault).
				Req(map[string]string{"kubernetes.io/mid-cpu": "12k", "kubernetes.io/mid-memory": "100Gi"}).Obj(),
			want: laCPUReason,
		},
		{
			name:   "prod pod 1 CPU / 165Gi: (300+115.5)/512 = 81.2 → 81 > 80",
			args:   with(func(a *config.LoadAwareSchedulingArgs) { a.ProdUsageThresholds = map[resource.Name]int64{"memory": 80} }),
			metric: laMetric().Usage(laM("10", "300Gi")).Pod("default", "prod-pod-1", "koord-prod", laM("5", "300Gi")).Obj(),
			pods:   []*api.Pod{prodPod("prod-pod-1").Obj()},
			pod:    st.MakePod().Name("p").Req(laM("1", "165Gi")).Obj(), want: laMemReason,
		},
		{
			name:   "mid pod mid-memory 200Gi: (300+140)/512 = 85.9 → 86 > 85",
			args:   with(func(a *config.LoadAwareSchedulingArgs) { a.UsageThresholds = map[resource.Name]int64{"memory": 85} }),
			metric: laMetric().Usage(laM("10", "300Gi")).Obj(),
			pod: st.MakePod().Name("mid").Priority(estimator.PriorityMidValueDefault).
				Req(map[string]string{"kubernetes.io/mid-cpu": "1k", "kubernetes.io/mid-memory": "200Gi"}).Obj(),
			want: laMemReason,
		},
		{
			name:   "assigned unreported prod pod plus the same incoming: (100+140+140)/512 = 74.2 → 74 > 70",
			args:   with(func(a *config.LoadAwareSchedulingArgs) { a.ProdUsageThresholds = map[resource.Name]int64{"memory": 70} }),
			metric: laMetric().Usage(laM("10", "100Gi")).Pod("default", "prod-pod-1", "koord-prod", laM("5", "100Gi")).Obj(),
			pods:   []*api.Pod{prodPod("prod-pod-1").Obj(), st.MakePod().Name("prod-pod-2").Req(laM("1", "200Gi")).Obj()},
			pod:    st.MakePod().Name("prod-pod-3").Req(laM("1", "200Gi")).Obj(), want: laMemReason,
		},
		{
			name:   "assigned unreported mid pod plus the same incoming: (33+17+17)/96 = 69.8 → 70 > 65",
			args:   noExp,
			metric: laMetric().Usage(laM("33", "100Gi")).Obj(),
			pods: []*api.Pod{st.MakePod().Name("mid-1").Priority(estimator.PriorityMidValueDefault).
				Req(map[string]string{"kubernetes.io/mid-cpu": "20k"}).Obj()},
			pod: st.MakePod().Name("mid-2").Priority(estimator.PriorityMidValueDefault).
				Req(map[string]string{"kubernetes.io/mid-cpu": "20k"}).Obj(),
			want: laCPUReason,
		},
		// Derived cases.
		{
			name: "aggregated profile replaces the usage thresholds: usage 90 CPU but p95 50 passes",
			args: with(func(a *config.LoadAwareSchedulingArgs) {
				a.Aggregated = &config.LoadAwareSchedulingAggregatedArgs{UsageThresholds: map[resource.Name]int64{"cpu": 60}, UsageAggregationType: "p95"}
			}),
			metric: laMetric().Usage(laM("90", "100Gi")).Aggregated(5*time.Minute, "p95", laM("50", "100Gi")).Obj(),
		},
		{
			name: "aggregate of a duration not reported: full estimates of assigned pods (nodeEstimated)",
			args: with(func(a *config.LoadAwareSchedulingArgs) {
				a.Aggregated = &config.LoadAwareSchedulingAggregatedArgs{UsageThresholds: map[resource.Name]int64{"cpu": 10}, UsageAggregationType: "p95", UsageAggregatedDuration: time.Hour}
			}),
			// nodeEstimated = 8.5 (reported at 1 but fully counted) + incoming 0.25 = 8.75/96 = 9.1 → 9 ≤ 10
			metric: laMetric().Usage(laM("90", "100Gi")).Aggregated(5*time.Minute, "p95", laM("90", "100Gi")).Pod("default", "a", "koord-prod", laM("1", "1Gi")).Obj(),
			pods:   []*api.Pod{st.MakePod().Name("a").Req(laM("10", "1Gi")).Obj()},
		},
		{
			name:     "malformed node annotation falls back to the args thresholds",
			args:     noExp,
			rawAnnot: `{"usageThresholds":{"cpu":`,
			metric:   laMetric().Usage(laM("70", "256Gi")).Obj(), want: laCPUReason,
		},
		{
			name: "annotation aggregate without type is ignored; its usage map still replaces",
			args: noExp, annotation: &estimator.CustomUsageThresholds{
				UsageThresholds: map[resource.Name]int64{"cpu": 90},
				AggregatedUsage: &estimator.CustomAggregatedUsage{UsageThresholds: map[resource.Name]int64{"cpu": 1}},
			},
			metric: laMetric().Usage(laM("70", "256Gi")).Obj(),
		},
		{
			name:   "no metric body passes",
			args:   noExp,
			metric: laMetric().NoBody().Obj(),
		},
		{
			name:   "zero capacity resource is skipped",
			args:   noExp,
			node:   st.MakeNode().Name("test-node-1").Capacity(map[string]string{"memory": "512Gi"}).Obj(),
			metric: laMetric().Usage(laM("70", "256Gi")).Obj(),
		},
		{
			name:   "raw-allocatable capacity: 70/100 = 70 > 65 though allocatable is 200",
			args:   noExp,
			node:   st.MakeNode().Name("test-node-1").Capacity(laM("200", "512Gi")).Annotation(estimator.AnnotationNodeRawAllocatable, `{"cpu":"100"}`).Obj(),
			metric: laMetric().Usage(laM("70", "256Gi")).Obj(), want: laCPUReason,
		},
		{
			name:   "first failing resource in name order: cpu before memory",
			args:   noExp,
			metric: laMetric().Usage(laM("90", "511Gi")).Obj(), want: laCPUReason,
		},
		{
			// One check of usage + the incoming pod's estimate (Koordinator
			// load_aware.go Filter → filterNodeUsage): cpu (60+3.4)/96 = 66
			// and memory (490+0.7)/512 = 96 are both over; cpu comes first
			// in the resource-vector order, though memory alone was over
			// before the pod.
			name: "usage and incoming pod checked once: cpu (66 > 65) named before memory (96 > 95, over even without the pod)",
			args: noExp, metric: laMetric().Usage(laM("60", "490Gi")).Obj(),
			pod: st.MakePod().Name("p").Req(laM("4", "1Gi")).Obj(), want: laCPUReason,
		},
		{
			name: "node without name in the cache but metric for a different node: pass", args: noExp,
			metric: st.MakeNodeMetric("other").UpdateTime(laNow).Usage(laM("96", "512Gi")).Obj(),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { laCheck(t, tt) })
	}
}

// TestFilterExpiredNodeMetric and TestEnableScheduleWhenNodeMetricsExpired of
// load_aware_test.go: defaults (expiry filter on, 180 s).
func TestLoadAwareFilterExpired(t *testing.T) {
	enable := true
	allow := config.LoadAwareSchedulingArgs{EnableScheduleWhenNodeMetricsExpired: &enable}
	expired := "node(s) nodeMetric expired"
	tests := []laCase{
		{name: "fresh metric", metric: laMetric().NoBody().Obj()},
		{name: "nil updateTime", metric: st.MakeNodeMetric("test-node-1").NoBody().Obj(), want: expired},
		{name: "age 180 s (≥ 180)", metric: st.MakeNodeMetric("test-node-1").UpdateTime(laNow.Add(-180 * time.Second)).NoBody().Obj(), want: expired},
		{name: "age 179 s", metric: st.MakeNodeMetric("test-node-1").UpdateTime(laNow.Add(-179 * time.Second)).NoBody().Obj()},
		{name: "nil updateTime, enableScheduleWhenNodeMetricsExpired", args: allow, metric: st.MakeNodeMetric("test-node-1").NoBody().Obj()},
		{name: "age 180 s, enableScheduleWhenNodeMetricsExpired", args: allow, metric: st.MakeNodeMetric("test-node-1").UpdateTime(laNow.Add(-180 * time.Second)).NoBody().Obj()},
		{
			name:   "all thresholds zero pass before the expiry check",
			args:   config.LoadAwareSchedulingArgs{UsageThresholds: map[resource.Name]int64{"cpu": 0}},
			metric: st.MakeNodeMetric("test-node-1").Obj(),
		},
		{
			name:   "filterExpiredNodeMetrics false: stale usage is used",
			args:   config.LoadAwareSchedulingArgs{FilterExpiredNodeMetrics: laFalse()},
			metric: st.MakeNodeMetric("test-node-1").UpdateTime(laNow.Add(-time.Hour)).Usage(laM("70", "1Gi")).Obj(), want: laCPUReason,
		},
		{
			name:   "Koordinator<=1.5: an expired metric passes",
			args:   config.LoadAwareSchedulingArgs{CompatibilityMode: config.LoadAwareCompatKoordinatorV15},
			metric: st.MakeNodeMetric("test-node-1").Usage(laM("96", "512Gi")).Obj(),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { laCheck(t, tt) })
	}
}

// The derived boundary example of reference Part A: 100 CPU, usage 65 CPU,
// an empty (batch) pod, threshold 65. Current: (65 + 0.25)/100 = 65.25 → 65
// ≤ 65 passes. ≤ v1.5: raw 65 ≥ 65 rejects.
func TestLoadAwareFilterBoundaryBothModes(t *testing.T) {
	node := st.MakeNode().Name("test-node-1").Capacity(laM("100", "512Gi")).Obj()
	metric := func() *api.NodeMetric { return laMetric().Usage(laM("65", "1Gi")).Obj() }
	laCheck(t, laCase{name: "current", node: node, metric: metric()})
	laCheck(t, laCase{
		name: "v1.5", node: node, metric: metric(), want: laCPUReason,
		args: config.LoadAwareSchedulingArgs{CompatibilityMode: config.LoadAwareCompatKoordinatorV15},
	})
}

// Koordinator v1.8.0 load_aware.go, Filter →
// filterNodeUsage, adds the incoming pod's estimate to the node's estimated
// usage and checks the thresholds once, naming the first resource over in
// its resource-vector order. Node 8 cpu / 100Gi, NodeMetric 30 s old with
// usage cpu 5 / memory 96Gi, default args (65 / 95), incoming pod 1 cpu /
// 1Gi (estimate 850m / 0.7Gi): cpu 5.85/8 = 73 > 65 and memory 96.7/100 =
// 97 > 95, so cpu is named (memory alone was over before the pod). ≤ v1.5
// compares raw usage without the pod: cpu 5/8 = 63 < 65, memory 96 ≥ 95.
func TestLoadAwareFilterReasonIncludesIncomingPod(t *testing.T) {
	node := st.MakeNode().Name("test-node-1").Capacity(laM("8", "100Gi")).Obj()
	metric := func() *api.NodeMetric {
		return st.MakeNodeMetric("test-node-1").ReportInterval(60).UpdateTime(laNow.Add(-30 * time.Second)).Usage(laM("5", "96Gi")).Obj()
	}
	pod := func() *api.Pod { return st.MakePod().Name("p").Req(laM("1", "1Gi")).Obj() }
	laCheck(t, laCase{name: "current", node: node, metric: metric(), pod: pod(), want: laCPUReason})
	laCheck(t, laCase{
		name: "v1.5", node: node, metric: metric(), pod: pod(), want: laMemReason,
		args: config.LoadAwareSchedulingArgs{CompatibilityMode: config.LoadAwareCompatKoordinatorV15},
	})
}

// A NodeMetric with an odd aggregated entry is still read
// (Koordinator v1.8.0 pod_assign_cache.go, nodeInfo.AddOrUpdateNodeMetric),
// so an overloaded node is still rejected, and a node annotation naming an
// aggregation type outside avg…p99 selects that entry (generateUsage-
// ThresholdsFilterProfile does not validate the annotation).
func TestLoadAwareFilterOddNodeMetricEntries(t *testing.T) {
	noExp := config.LoadAwareSchedulingArgs{FilterExpiredNodeMetrics: laFalse()}
	odd := func() *api.NodeMetric {
		m := laMetric().Usage(laM("90", "100Gi")).Obj()
		u := func(cpu string) map[string]api.ResourceMap {
			return map[string]api.ResourceMap{"p42": {Resources: resource.MustParseList(laM(cpu, "1Gi"))}}
		}
		m.Status.NodeMetric.AggregatedNodeUsages = []api.AggregatedUsage{
			{Duration: api.MetricDuration{Duration: 10 * time.Minute}, Usage: u("1")},
			{Duration: api.MetricDuration{Duration: 10 * time.Minute}, Usage: u("70")},
		}
		return m
	}
	// 90.25/96 = 94 > 65.
	laCheck(t, laCase{name: "usage thresholds", args: noExp, metric: odd(), want: laCPUReason})
	// The later p42/10m entry wins: 70.25/96 = 73 > 60.
	laCheck(t, laCase{
		name: "annotation naming p42", args: noExp, metric: odd(), want: laCPUAggReason,
		annotation: &estimator.CustomUsageThresholds{AggregatedUsage: &estimator.CustomAggregatedUsage{
			UsageThresholds: map[resource.Name]int64{"cpu": 60}, UsageAggregationType: "p42",
			UsageAggregatedDuration: &api.MetricDuration{Duration: 10 * time.Minute},
		}},
	})
}

// Koordinator ≤ v1.5 (seed 000): raw reported usage only, ≥ rejects.
func TestLoadAwareFilterV15(t *testing.T) {
	v15 := func(f func(a *config.LoadAwareSchedulingArgs)) config.LoadAwareSchedulingArgs {
		a := config.LoadAwareSchedulingArgs{CompatibilityMode: config.LoadAwareCompatKoordinatorV15}
		if f != nil {
			f(&a)
		}
		return a
	}
	mid := func(n string) *api.Pod {
		return st.MakePod().Name(n).Priority(estimator.PriorityMidValueDefault).Req(map[string]string{"kubernetes.io/mid-cpu": "20k"}).Obj()
	}
	tests := []laCase{
		{
			name: "assigned and incoming estimates ignored: raw 33/96 = 34 < 65",
			args: v15(nil), metric: laMetric().Usage(laM("33", "100Gi")).Obj(), pods: []*api.Pod{mid("mid-1")}, pod: mid("mid-2"),
		},
		{name: "raw 62.4/96 = 65 ≥ 65 rejects", args: v15(nil), metric: laMetric().Usage(laM("62400m", "100Gi")).Obj(), want: laCPUReason},
		{name: "raw 62.3/96 = 64.9 → 65 ≥ 65 rejects", args: v15(nil), metric: laMetric().Usage(laM("62300m", "100Gi")).Obj(), want: laCPUReason},
		{name: "raw 61.9/96 = 64.5 → 64 (half away: 64.48) passes", args: v15(nil), metric: laMetric().Usage(laM("61900m", "100Gi")).Obj()},
		{
			name:   "prod pod: reported prod usage (30+33)/96 = 66 ≥ 50",
			args:   v15(func(a *config.LoadAwareSchedulingArgs) { a.ProdUsageThresholds = map[resource.Name]int64{"cpu": 50} }),
			metric: laMetric().Usage(laM("63", "100Gi")).Pod("default", "a", "koord-prod", laM("30", "1Gi")).Pod("default", "b", "koord-prod", laM("33", "1Gi")).Obj(),
			pods:   []*api.Pod{st.MakePod().Name("a").Req(laM("1", "1Gi")).Obj(), st.MakePod().Name("b").Req(laM("1", "1Gi")).Obj()},
			pod:    st.MakePod().Name("c").Req(laM("1", "1Gi")).Obj(), want: laCPUReason,
		},
		{
			name:   "prod pod, metric without pods: pass",
			args:   v15(func(a *config.LoadAwareSchedulingArgs) { a.ProdUsageThresholds = map[resource.Name]int64{"cpu": 1} }),
			metric: laMetric().Usage(laM("90", "100Gi")).Obj(),
			pod:    st.MakePod().Name("c").Req(laM("1", "1Gi")).Obj(),
		},
		{
			name:   "prod map of zeros still selects the prod path (len > 0): pass",
			args:   v15(func(a *config.LoadAwareSchedulingArgs) { a.ProdUsageThresholds = map[resource.Name]int64{"cpu": 0} }),
			metric: laMetric().Usage(laM("90", "100Gi")).Pod("default", "x", "koord-prod", laM("1", "1Gi")).Obj(),
			pod:    st.MakePod().Name("c").Req(laM("1", "1Gi")).Obj(),
		},
		{
			name: "aggregate missing: pass (no fallback to node usage)",
			args: v15(func(a *config.LoadAwareSchedulingArgs) {
				a.Aggregated = &config.LoadAwareSchedulingAggregatedArgs{UsageThresholds: map[resource.Name]int64{"cpu": 60}, UsageAggregationType: "p95"}
			}),
			metric: laMetric().Usage(laM("90", "100Gi")).Obj(),
		},
		{
			name: "aggregate duration 0 picks the longest: 10m p95 58/96 = 60 ≥ 60",
			args: v15(func(a *config.LoadAwareSchedulingArgs) {
				a.Aggregated = &config.LoadAwareSchedulingAggregatedArgs{UsageThresholds: map[resource.Name]int64{"cpu": 60}, UsageAggregationType: "p95"}
			}),
			metric: laMetric().Usage(laM("10", "100Gi")).Aggregated(5*time.Minute, "p95", laM("1", "1Gi")).Aggregated(10*time.Minute, "p95", laM("58", "1Gi")).Obj(),
			want:   laCPUAggReason,
		},
		{name: "no metric body: pass", args: v15(nil), metric: laMetric().NoBody().Obj()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { laCheck(t, tt) })
	}
}

func TestLoadAwareFilterConstruction(t *testing.T) {
	if _, err := newLoadAwareScheduling(config.LoadAwareSchedulingArgs{UsageThresholds: map[resource.Name]int64{"cpu": 120}}, nil); err == nil ||
		err.Error() != `loadaware: usageThresholds["cpu"]=120: must be within [0,100]` {
		t.Errorf("invalid args: %v", err)
	}
	// A shared source must vectorize every resource the args name.
	est, _ := estimator.NewDefaultEstimator(estimator.Options{})
	src, _ := estimator.NewAssignCache(est, estimator.CacheOptions{})
	_, err := newLoadAwareScheduling(config.LoadAwareSchedulingArgs{UsageThresholds: map[resource.Name]int64{"nvidia.com/gpu": 80}}, nil, WithSource(src))
	if err == nil || err.Error() != `loadaware: resource "nvidia.com/gpu" named in the args is not vectorized by the usage source (it vectorizes [cpu memory])` {
		t.Errorf("unvectorized resource: %v", err)
	}
	if _, err := newLoadAwareScheduling(config.LoadAwareSchedulingArgs{}, nil, WithSource(nil)); err == nil {
		t.Error("nil source accepted")
	}
	p, err := newLoadAwareScheduling(config.LoadAwareSchedulingArgs{}, nil, WithSource(src))
	if err != nil || p.Name() != "LoadAwareScheduling" || p.Cache() != src || p.Args().UsageThresholds["cpu"] != 65 {
		t.Errorf("newLoadAwareScheduling(WithSource(src)) = %v, %v", p, err)
	}
	// A NodeInfo without a node is an Error status.
	if s := p.Filter(context.Background(), framework.NewCycleState(), framework.MustPodInfo(st.MakePod().Name("p").Obj()), &framework.NodeInfo{}); s.Code() != framework.Error || s.Message() != "node not found" {
		t.Errorf("nil node: %v", s)
	}
}

// Reserve records the pod (the next pod sees its estimate); Unreserve
// removes it. Filter without PreFilter estimates lazily.
func TestLoadAwareFilterReserve(t *testing.T) {
	p, _ := newLoadAwareScheduling(config.LoadAwareSchedulingArgs{}, st.LAHandle(framework.NewFakeClock(laNow)))
	la := p
	node := st.MakeNode().Name("n").Capacity(laM("10", "100Gi")).Obj()
	ni, _ := framework.NewNodeInfo(node)
	if err := la.Cache().UpdateNodeMetric(st.MakeNodeMetric("n").UpdateTime(laNow).Usage(laM("3", "1Gi")).Obj()); err != nil {
		t.Fatal(err)
	}
	big := framework.MustPodInfo(st.MakePod().Name("big").Req(laM("3", "1Gi")).Obj()) // estimate 2.55
	ctx := context.Background()
	if s := la.Filter(ctx, framework.NewCycleState(), big, ni); !s.IsSuccess() { // (3+2.55)/10 = 56 ≤ 65
		t.Fatalf("first: %v", s)
	}
	if s := la.Reserve(ctx, nil, big, "n"); !s.IsSuccess() {
		t.Fatal(s)
	}
	other := framework.MustPodInfo(st.MakePod().Name("other").Req(laM("3", "1Gi")).Obj())
	if s := la.Filter(ctx, framework.NewCycleState(), other, ni); s.Message() != laCPUReason { // (3+2.55+2.55)/10 = 81
		t.Errorf("after Reserve: %v", s)
	}
	la.Unreserve(ctx, nil, big, "n")
	if s := la.Filter(ctx, framework.NewCycleState(), other, ni); !s.IsSuccess() {
		t.Errorf("after Unreserve: %v", s)
	}
}

// The per-node Filter path does not allocate once the state is computed.
func TestLoadAwareFilterNoAllocs(t *testing.T) {
	p, _ := newLoadAwareScheduling(config.LoadAwareSchedulingArgs{}, st.LAHandle(framework.NewFakeClock(laNow)))
	la := p
	annotated := st.MakeNode().Name("a").Capacity(laM("10", "100Gi")).Annotation(estimator.AnnotationCustomUsageThresholds, `{"usageThresholds":{"cpu":10}}`).Obj()
	plain := st.MakeNode().Name("n").Capacity(laM("10", "100Gi")).Obj()
	for _, n := range []string{"a", "n"} {
		_ = la.Cache().UpdateNodeMetric(st.MakeNodeMetric(n).UpdateTime(laNow).Usage(laM("3", "1Gi")).Obj())
	}
	pi := framework.MustPodInfo(st.MakePod().Name("p").Req(laM("1", "1Gi")).Obj())
	cs := framework.NewCycleState()
	la.PreFilter(context.Background(), cs, pi, nil)
	for _, node := range []*api.Node{plain, annotated} {
		ni, _ := framework.NewNodeInfo(node)
		la.Filter(context.Background(), cs, pi, ni) // warm the capacity and annotation memos
		if a := testing.AllocsPerRun(200, func() { la.Filter(context.Background(), cs, pi, ni) }); a != 0 {
			t.Errorf("Filter(%s) allocates %v per call", node.Name, a)
		}
	}
}

// TestPropLoadAwareFilterMonotone: in both modes, if a node passes with
// reported usage u2, it passes with any u1 ≤ u2 (per resource).
func TestPropLoadAwareFilterMonotone(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		mode := rapid.SampledFrom([]config.LoadAwareCompatibility{config.LoadAwareCompatLatest, config.LoadAwareCompatKoordinatorV15}).Draw(rt, "mode")
		args := config.LoadAwareSchedulingArgs{
			CompatibilityMode: mode,
			UsageThresholds: map[resource.Name]int64{
				"cpu":    rapid.Int64Range(0, 100).Draw(rt, "tcpu"),
				"memory": rapid.Int64Range(0, 100).Draw(rt, "tmem"),
			},
		}
		p, err := newLoadAwareScheduling(args, st.LAHandle(framework.NewFakeClock(laNow)))
		if err != nil {
			rt.Fatal(err)
		}
		la := p
		capCPU := rapid.IntRange(1, 256).Draw(rt, "capcpu")
		capMem := rapid.IntRange(1, 1024).Draw(rt, "capmem")
		node := st.MakeNode().Name("n").Capacity(map[string]string{"cpu": fmt.Sprint(capCPU), "memory": fmt.Sprintf("%dGi", capMem)}).Obj()
		ni, _ := framework.NewNodeInfo(node)
		pi := framework.MustPodInfo(st.MakePod().Name("p").Req(map[string]string{"cpu": fmt.Sprintf("%dm", rapid.IntRange(0, 32000).Draw(rt, "req"))}).Obj())
		u1c := rapid.IntRange(0, 300000).Draw(rt, "u1c")
		u1m := rapid.IntRange(0, 1200).Draw(rt, "u1m")
		u2c := u1c + rapid.IntRange(0, 300000).Draw(rt, "du2c")
		u2m := u1m + rapid.IntRange(0, 1200).Draw(rt, "du2m")
		verdict := func(c, m int) bool {
			err := la.Cache().UpdateNodeMetric(st.MakeNodeMetric("n").UpdateTime(laNow).
				Usage(map[string]string{"cpu": fmt.Sprintf("%dm", c), "memory": fmt.Sprintf("%dGi", m)}).Obj())
			if err != nil {
				rt.Fatal(err)
			}
			cs := framework.NewCycleState()
			la.PreFilter(context.Background(), cs, pi, nil)
			return la.Filter(context.Background(), cs, pi, ni).IsSuccess()
		}
		if verdict(u2c, u2m) && !verdict(u1c, u1m) {
			rt.Fatalf("passes at (%dm, %dGi) but not at the lower (%dm, %dGi)", u2c, u2m, u1c, u1m)
		}
	})
}

type laScoreCase struct {
	name   string
	args   config.LoadAwareSchedulingArgs
	metric *api.NodeMetric
	pods   []*api.Pod // assigned; PodScheduled 10 s ago unless they carry one
	pod    *api.Pod   // nil: 16 CPU / 32Gi guaranteed (estimate 13.6 CPU / 22.4Gi)
	node   *api.Node  // nil: 96 CPU / 512Gi
	want   int64
}

func laScore(t *testing.T, tt laScoreCase) int64 {
	t.Helper()
	p, err := newLoadAwareScheduling(tt.args, st.LAHandle(framework.NewFakeClock(laNow)))
	if err != nil {
		t.Fatal(err)
	}
	la := p
	node := tt.node
	if node == nil {
		node = st.MakeNode().Name("test-node-1").Capacity(laM("96", "512Gi")).Obj()
	}
	for _, pod := range tt.pods {
		pod.Spec.NodeName = node.Name
		if pod.Condition(api.PodScheduled) == nil {
			pod.Status.Conditions = append(pod.Status.Conditions, api.PodCondition{Type: api.PodScheduled, Status: api.ConditionTrue, LastTransitionTime: laNow.Add(-10 * time.Second)})
		}
		if err := la.Cache().AddPod(pod); err != nil {
			t.Fatal(err)
		}
	}
	if tt.metric != nil {
		if err := la.Cache().UpdateNodeMetric(tt.metric); err != nil {
			t.Fatal(err)
		}
	}
	pod := tt.pod
	if pod == nil {
		pod = st.MakePod().Name("test-pod-1").Lim(laM("16", "32Gi"), laM("16", "32Gi")).Obj()
	}
	ni, _ := framework.NewNodeInfo(node)
	pi := framework.MustPodInfo(pod)
	cs := framework.NewCycleState()
	if s := la.PreScore(context.Background(), cs, pi, nil); !s.IsSuccess() {
		t.Fatal(s)
	}
	got, s := la.Score(context.Background(), cs, pi, ni)
	if !s.IsSuccess() {
		t.Fatalf("Score status %v", s)
	}
	return got
}

// TestScore of koordinator-sh/koordinator
// pkg/scheduler/plugins/loadaware/load_aware_test.go in schedkit's types:
// node 96 CPU / 512Gi, default weights cpu 1 memory 1, incoming pod
// 16 CPU / 32Gi guaranteed (estimate 13.6 CPU / 22.4Gi) unless stated.
func TestLoadAwareScore(t *testing.T) {
	p95 := func(d time.Duration) config.LoadAwareSchedulingArgs {
		return config.LoadAwareSchedulingArgs{Aggregated: &config.LoadAwareSchedulingAggregatedArgs{ScoreAggregationType: "p95", ScoreAggregatedDuration: d}}
	}
	guaranteed16 := func(name string) *api.Pod {
		return st.MakePod().Name(name).Lim(laM("16", "32Gi"), laM("16", "32Gi")).Obj()
	}
	justAssigned := func() *api.Pod { return guaranteed16("assigned-1") }
	tests := []laScoreCase{
		{name: "expired metric (age 180 s): 0", metric: st.MakeNodeMetric("test-node-1").UpdateTime(laNow.Add(-180 * time.Second)).Obj(), want: 0},
		{name: "empty node: cpu 85, memory 95 → 90", metric: laMetric().Obj(), want: 90},
		{name: "missing NodeMetric: 0", want: 0},
		{name: "load node 32 CPU / 10Gi: cpu 52, memory 93 → 72", metric: laMetric().Usage(laM("32", "10Gi")).Obj(), want: 72},
		{
			name: "same load via p95 / 5m", args: p95(5 * time.Minute),
			metric: laMetric().Usage(laM("1", "1Gi")).Aggregated(5*time.Minute, "p95", laM("32", "10Gi")).Obj(), want: 72,
		},
		{
			name: "p95 / 5m configured, no aggregates, no pods: nodeEstimated 0 → 90", args: p95(5 * time.Minute),
			metric: laMetric().Usage(laM("32", "10Gi")).Obj(), want: 90,
		},
		{
			name: "same plus an assigned 16/32Gi pod reported at 1 CPU: its full estimate counts → 27.2 CPU / 44.8Gi → 71, 91 → 81",
			args: p95(5 * time.Minute), metric: laMetric().Usage(laM("32", "10Gi")).Pod("default", "assigned-1", "koord-prod", laM("1", "1Gi")).Obj(),
			pods: []*api.Pod{justAssigned()}, want: 81,
		},
		{
			name:   "just assigned, not reported: 59.2 CPU / 54.8Gi → 38, 89 → 63",
			metric: laMetric().Usage(laM("32", "10Gi")).Obj(), pods: []*api.Pod{justAssigned()}, want: 63,
		},
		{
			name:   "just assigned, reported with an empty usage list (treated as unreported) → 63",
			metric: laMetric().Usage(laM("32", "10Gi")).Pod("default", "assigned-1", "koord-prod", nil).Obj(), pods: []*api.Pod{justAssigned()}, want: 63,
		},
		{
			name:   "scheduled after the metric's update, reported at 1m / 1Mi: estimate − reported → 63",
			metric: laMetric().Usage(laM("32", "10Gi")).Pod("default", "assigned-1", "koord-prod", laM("1m", "1Mi")).Obj(),
			pods: []*api.Pod{st.MakePod().Name("assigned-1").Lim(laM("16", "32Gi"), laM("16", "32Gi")).
				Condition(api.PodScheduled, api.ConditionTrue, laNow.Add(time.Second)).Obj()},
			want: 63,
		},
		{
			name:   "batch pod batch-cpu 16000 / batch-memory 32Gi: 90",
			metric: laMetric().Obj(),
			pod: st.MakePod().Name("batch").Priority(estimator.PriorityBatchValueDefault).Label(estimator.LabelPodQoS, "BE").
				Lim(map[string]string{"kubernetes.io/batch-cpu": "16000", "kubernetes.io/batch-memory": "32Gi"},
					map[string]string{"kubernetes.io/batch-cpu": "16000", "kubernetes.io/batch-memory": "32Gi"}).Obj(),
			want: 90,
		},
		{
			name:   "prod pod, scoreAccordingProdUsage: cpu over capacity → 0; memory (100+22.4)/512 → 76 → 38",
			args:   config.LoadAwareSchedulingArgs{ScoreAccordingProdUsage: true},
			metric: laMetric().Usage(laM("40", "200Gi")).Pod("default", "prod-1", "koord-prod", laM("30", "100Gi")).Obj(),
			pods:   []*api.Pod{st.MakePod().Name("prod-1").Priority(estimator.PriorityProdValueMax).Obj()},
			pod:    st.MakePod().Name("p").Lim(laM("16000", "32Gi"), laM("16000", "32Gi")).Obj(),
			want:   38,
		},
		{
			name:   "request < limit: estimate = factor × limit → 90",
			metric: laMetric().Obj(),
			pod:    st.MakePod().Name("b").Lim(laM("8", "16Gi"), laM("16", "32Gi")).Obj(),
			want:   90,
		},
		{
			name:   "DRF: dominantResourceWeight 10, no resource weights: min(85, 95) = 85",
			args:   config.LoadAwareSchedulingArgs{DominantResourceWeight: 10},
			metric: laMetric().Obj(), want: 85,
		},
		{
			name:   "empty pod 250m / 200Mi: 99 and 99 → 99",
			metric: laMetric().Obj(), pod: st.MakePod().Name("e").Obj(), want: 99,
		},
		// Derived cases.
		{
			name:   "Koordinator<=1.5: request < limit estimated at the full limit: 83, 93 → 88",
			args:   config.LoadAwareSchedulingArgs{CompatibilityMode: config.LoadAwareCompatKoordinatorV15},
			metric: laMetric().Obj(),
			pod:    st.MakePod().Name("b").Lim(laM("8", "16Gi"), laM("16", "32Gi")).Obj(),
			want:   88,
		},
		{
			name: "DRF caveat: a vectorized resource the node lacks forces the dominant score to 0: (85+95+0·10)/12 = 15",
			args: config.LoadAwareSchedulingArgs{
				DominantResourceWeight: 10, ResourceWeights: map[resource.Name]int64{"cpu": 1, "memory": 1},
				SupportedResources: []resource.Name{"nvidia.com/gpu"},
			},
			metric: laMetric().Obj(), want: 15,
		},
		{
			name:   "weights cpu 3 memory 1: (85·3 + 95)/4 = 87",
			args:   config.LoadAwareSchedulingArgs{ResourceWeights: map[resource.Name]int64{"cpu": 3, "memory": 1}},
			metric: laMetric().Obj(), want: 87,
		},
		{name: "no metric body: 0", metric: laMetric().NoBody().Obj(), want: 0},
		{
			name:   "expired even with filterExpiredNodeMetrics false: 0",
			args:   config.LoadAwareSchedulingArgs{FilterExpiredNodeMetrics: func() *bool { f := false; return &f }()},
			metric: st.MakeNodeMetric("test-node-1").Obj(), want: 0,
		},
		{
			name:   "usage above capacity scores 0 for that resource: cpu 0, memory 95 → 47",
			metric: laMetric().Usage(laM("90", "0")).Obj(), want: 47,
		},
		{
			name: "zero capacity (node without memory): memory 0 → (85+0)/2 = 42", metric: laMetric().Obj(),
			node: st.MakeNode().Name("test-node-1").Capacity(map[string]string{"cpu": "96"}).Obj(), want: 42,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := laScore(t, tt); got != tt.want {
				t.Errorf("Score = %d, want %d", got, tt.want)
			}
		})
	}
}

func TestLoadAwareScoreFormula(t *testing.T) {
	for _, tt := range []struct {
		used, capacity, want int64
	}{{0, 100, 100}, {100, 100, 0}, {101, 100, 0}, {1, 3, 66}, {5, 0, 0}, {0, -1, 0}} {
		if got := leastUsedScore(tt.used, tt.capacity); got != tt.want {
			t.Errorf("leastUsedScore(%d, %d) = %d, want %d", tt.used, tt.capacity, got, tt.want)
		}
	}
	z := []int64{0, 0}
	if got := usageScore([]int64{0, 0}, 0, z, z, z, []int64{1, 1}); got != 0 {
		t.Errorf("zero weights: %d", got)
	}
}

func TestLoadAwareScoreMisc(t *testing.T) {
	p, _ := newLoadAwareScheduling(config.LoadAwareSchedulingArgs{}, nil)
	la := p
	if la.Name() != "LoadAwareScheduling" || la.ScoreExtensions() != nil {
		t.Error("name / extensions")
	}
	pi := framework.MustPodInfo(st.MakePod().Name("p").Obj())
	if _, s := la.Score(context.Background(), framework.NewCycleState(), pi, &framework.NodeInfo{}); s.Code() != framework.Error || s.Message() != "node not found" {
		t.Errorf("nil node: %v", s)
	}
	if _, err := newLoadAwareScheduling(config.LoadAwareSchedulingArgs{DominantResourceWeight: 101}, nil); err == nil ||
		err.Error() != "loadaware: dominantResourceWeight=101: must be within [0,100]" {
		t.Errorf("invalid args: %v", err)
	}
	// Reserve records the pod in the cache Score reads; Unreserve removes it.
	_ = la.Cache().UpdateNodeMetric(st.MakeNodeMetric("n").UpdateTime(time.Now()).Obj())
	if s := la.Reserve(context.Background(), nil, framework.MustPodInfo(st.MakePod().Name("r").Req(laM("1", "1Gi")).Obj()), "n"); !s.IsSuccess() {
		t.Fatal(s)
	}
	if ns, _ := la.Cache().NodeState("n"); len(ns.Pods) != 1 {
		t.Errorf("Reserve did not record the pod: %+v", ns)
	}
	la.Unreserve(context.Background(), nil, framework.MustPodInfo(st.MakePod().Name("r").Obj()), "n")
	if ns, _ := la.Cache().NodeState("n"); len(ns.Pods) != 0 {
		t.Errorf("Unreserve did not remove the pod: %+v", ns)
	}
}

func TestLoadAwareScoreNoAllocs(t *testing.T) {
	p, _ := newLoadAwareScheduling(config.LoadAwareSchedulingArgs{DominantResourceWeight: 5, ResourceWeights: map[resource.Name]int64{"cpu": 1, "memory": 2}}, st.LAHandle(framework.NewFakeClock(laNow)))
	la := p
	_ = la.Cache().UpdateNodeMetric(st.MakeNodeMetric("n").UpdateTime(laNow).Usage(laM("3", "1Gi")).Obj())
	ni, _ := framework.NewNodeInfo(st.MakeNode().Name("n").Capacity(laM("10", "100Gi")).Obj())
	pi := framework.MustPodInfo(st.MakePod().Name("p").Req(laM("1", "1Gi")).Obj())
	cs := framework.NewCycleState()
	la.PreScore(context.Background(), cs, pi, nil)
	la.Score(context.Background(), cs, pi, ni)
	if a := testing.AllocsPerRun(200, func() { la.Score(context.Background(), cs, pi, ni) }); a != 0 {
		t.Errorf("Score allocates %v per call", a)
	}
}

// TestPropLoadAwareScoreRange: every score is within [0, 100] for any valid
// args, usage, capacity and pods, in both modes.
func TestPropLoadAwareScoreRange(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		args := config.LoadAwareSchedulingArgs{
			DominantResourceWeight:  rapid.Int64Range(0, 100).Draw(rt, "drw"),
			ScoreAccordingProdUsage: rapid.Bool().Draw(rt, "prodScore"),
			CompatibilityMode:       rapid.SampledFrom([]config.LoadAwareCompatibility{"", config.LoadAwareCompatKoordinatorV15}).Draw(rt, "mode"),
		}
		if rapid.Bool().Draw(rt, "weights") {
			args.ResourceWeights = map[resource.Name]int64{"cpu": rapid.Int64Range(1, 100).Draw(rt, "wc"), "memory": rapid.Int64Range(1, 100).Draw(rt, "wm")}
		}
		p, err := newLoadAwareScheduling(args, st.LAHandle(framework.NewFakeClock(laNow)))
		if err != nil {
			rt.Fatal(err)
		}
		la := p
		m := st.MakeNodeMetric("n").UpdateTime(laNow.Add(-time.Duration(rapid.IntRange(0, 200).Draw(rt, "age"))*time.Second)).
			Usage(map[string]string{"cpu": fmt.Sprintf("%dm", rapid.IntRange(0, 200000).Draw(rt, "ucpu")), "memory": fmt.Sprintf("%dMi", rapid.IntRange(0, 600000).Draw(rt, "umem"))}).
			Pod("default", "a0", "koord-prod", map[string]string{"cpu": fmt.Sprintf("%dm", rapid.IntRange(0, 50000).Draw(rt, "pu"))})
		if err := la.Cache().UpdateNodeMetric(m.Obj()); err != nil {
			rt.Fatal(err)
		}
		for i := range rapid.IntRange(0, 4).Draw(rt, "assigned") {
			pod := st.MakePod().Name(fmt.Sprintf("a%d", i)).Node("n").Priority(rapid.SampledFrom([]int32{9500, 7500, 5500, 0}).Draw(rt, "prio")).
				Req(map[string]string{"cpu": fmt.Sprintf("%dm", rapid.IntRange(0, 64000).Draw(rt, "rc"))}).Obj()
			if err := la.Cache().AddPod(pod); err != nil {
				rt.Fatal(err)
			}
		}
		ni, _ := framework.NewNodeInfo(st.MakeNode().Name("n").Capacity(map[string]string{
			"cpu": fmt.Sprintf("%dm", rapid.IntRange(0, 128000).Draw(rt, "ccpu")), "memory": fmt.Sprintf("%dMi", rapid.IntRange(0, 500000).Draw(rt, "cmem")),
		}).Obj())
		pi := framework.MustPodInfo(st.MakePod().Name("in").Priority(rapid.SampledFrom([]int32{9500, 5500, 0}).Draw(rt, "inprio")).
			Lim(map[string]string{"cpu": fmt.Sprintf("%dm", rapid.IntRange(0, 64000).Draw(rt, "ic"))}, map[string]string{"cpu": "64"}).Obj())
		cs := framework.NewCycleState()
		la.PreScore(context.Background(), cs, pi, nil)
		got, s := la.Score(context.Background(), cs, pi, ni)
		if !s.IsSuccess() || got < framework.MinNodeScore || got > framework.MaxNodeScore {
			rt.Fatalf("Score = %d, %v", got, s)
		}
	})
}
