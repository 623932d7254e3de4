package trimaran

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/resource"
)

// trimaranNode is the node of scheduler-plugins' Trimaran tests:
// st.MakeNode().Name("node-1").Capacity({cpu: 1000m, memory: 1Gi}).
func trimaranNode() *api.Node {
	return st.MakeNode().Name("node-1").Capacity(map[string]string{"cpu": "1000m", "memory": "1Gi"}).Obj()
}

// trimaranPod is scheduler-plugins' getPodWithContainersAndOverhead
// (loadvariationriskbalancing_test.go): one init container with the given
// requests, containers whose requests and limits are equal, a cpu overhead.
func trimaranPod(overheadMilli, initMilli, initMem int64, cpuMilli, mem []int64) *api.Pod {
	p := st.MakePod().Name("p").Obj()
	p.Spec.Overhead = resource.List{resource.CPU: resource.NewMilliQuantity(overheadMilli, resource.DecimalSI)}
	p.Spec.InitContainers = []api.Container{{Name: "test-init", Resources: api.ResourceRequirements{Requests: resource.List{
		resource.CPU: resource.NewMilliQuantity(initMilli, resource.DecimalSI), resource.Memory: resource.NewQuantity(initMem, resource.DecimalSI)}}}}
	for i := range cpuMilli {
		l := resource.List{resource.CPU: resource.NewMilliQuantity(cpuMilli[i], resource.DecimalSI)}
		if mem != nil {
			l[resource.Memory] = resource.NewQuantity(mem[i], resource.DecimalSI)
		}
		p.Spec.Containers = append(p.Spec.Containers, api.Container{Name: "c", Resources: api.ResourceRequirements{Requests: l, Limits: l.Clone()}})
	}
	return p
}

func loadOf(metrics ...api.LoadMetric) NodeLoads {
	return NodeLoads{"node-1": &api.NodeLoad{ObjectMeta: api.ObjectMeta{Name: "node-1"}, Metrics: metrics}}
}

func scoreOnce(t *testing.T, pl framework.ScorePlugin, pod *api.Pod, node *api.Node, pods ...*api.Pod) int64 {
	t.Helper()
	snap := framework.MustSnapshot([]*api.Node{node}, pods)
	cs := framework.NewCycleState()
	cs.SetSnapshot(snap)
	pi := framework.MustPodInfo(pod)
	if ps, ok := pl.(framework.PreScorePlugin); ok {
		if s := ps.PreScore(context.Background(), cs, pi, snap.Nodes()); !s.IsSuccess() {
			t.Fatalf("PreScore: %v", s)
		}
	}
	score, s := pl.Score(context.Background(), cs, pi, snap.Nodes()[0])
	if !s.IsSuccess() {
		t.Fatalf("Score: %v", s)
	}
	return score
}

// TestTargetLoadPackingScoring ports scheduler-plugins'
// pkg/trimaran/targetloadpacking/targetloadpacking_test.go
// TestTargetLoadPackingScoring, case by case (default args: target 40 %).
func TestTargetLoadPackingScoring(t *testing.T) {
	cpu := func(op string, v float64) api.LoadMetric {
		return api.LoadMetric{Type: api.LoadMetricCPU, Operator: op, Value: v}
	}
	tests := []struct {
		name  string
		pod   *api.Pod
		loads NodeLoads
		want  int64
	}{
		{"new node", st.MakePod().Name("p").Obj(), loadOf(cpu(api.LoadOperatorLatest, 0)), DefaultTargetUtilizationPercent},
		{"hot node", st.MakePod().Name("p").Obj(), loadOf(cpu(api.LoadOperatorLatest, float64(DefaultTargetUtilizationPercent+10))), 33},
		// getPodWithContainersAndOverhead(0, 1000) of targetloadpacking_test.go.
		{"excess utilization returns min score", trimaranPod(0, 0, 0, []int64{1000}, nil), loadOf(cpu(api.LoadOperatorLatest, 30)), framework.MinNodeScore},
		{"404 resp from watcher", st.MakePod().Name("p").Obj(), NodeLoads{}, framework.MinNodeScore},
		// Beyond the anchor's table, hand-computed:
		// 20 % of 1000m + 100m × 1.5 = 350m → U = 35 → round(40 + 60·35/40) = 93.
		{"burstable pod predicted at 1.5× its request", st.MakePod().Name("p").Req(map[string]string{"cpu": "100m"}).Obj(), loadOf(cpu(api.LoadOperatorAverage, 20)), 93},
		// The last AVG/Latest CPU metric counts; STD and Memory do not.
		{"last cpu metric wins", st.MakePod().Name("p").Obj(), loadOf(cpu(api.LoadOperatorAverage, 90), cpu(api.LoadOperatorStd, 5), cpu(api.LoadOperatorLatest, 0),
			api.LoadMetric{Type: api.LoadMetricMemory, Operator: api.LoadOperatorLatest, Value: 99}), 40},
		{"no cpu metric", st.MakePod().Name("p").Obj(), loadOf(api.LoadMetric{Type: api.LoadMetricMemory, Operator: api.LoadOperatorLatest, Value: 10}), framework.MinNodeScore},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl, err := newTargetLoadPacking(nil, tt.loads)
			if err != nil {
				t.Fatal(err)
			}
			if got := scoreOnce(t, pl, tt.pod, trimaranNode()); got != tt.want {
				t.Errorf("score = %d, want %d", got, tt.want)
			}
		})
	}
}

// TestTargetLoadPackingMissing checks that pods bound shortly before the end
// of the load window (or after it) count as predicted load, as
// scheduler-plugins' ScheduledPodsCache loop in Score, and stop counting
// when they leave the node.
func TestTargetLoadPackingMissing(t *testing.T) {
	now := time.Unix(10_000, 0)
	clock := framework.NewFakeClock(now)
	node := trimaranNode()
	bound := st.MakePod().Name("b").Node("node-1").Lim(map[string]string{"cpu": "200m"}, map[string]string{"cpu": "200m"}).Obj()
	tests := []struct {
		name      string
		windowEnd int64
		onNode    bool
		want      int64
	}{
		// util 10 % → 100m; + 200m missing = 30 % → round(40 + 60·30/40) = 85.
		{"bound after the window", now.Unix() - 1, true, 85},
		{"bound 59 s before the window's end", now.Unix() + 59, true, 85},
		// 60 s before: the metrics show it; 10 % → round(40 + 60·10/40) = 55.
		{"bound 60 s before the window's end", now.Unix() + 60, true, 55},
		{"bound then deleted", now.Unix() - 1, false, 55},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			loads := NodeLoads{"node-1": &api.NodeLoad{ObjectMeta: api.ObjectMeta{Name: "node-1"}, Window: api.LoadWindow{End: tt.windowEnd},
				Metrics: []api.LoadMetric{{Type: api.LoadMetricCPU, Operator: api.LoadOperatorLatest, Value: 10}}}}
			pl, err := newTargetLoadPacking(clockHandle(clock), loads)
			if err != nil {
				t.Fatal(err)
			}
			pl.PostBind(context.Background(), nil, framework.MustPodInfo(bound), "node-1")
			var pods []*api.Pod
			if tt.onNode {
				pods = append(pods, bound)
			}
			if got := scoreOnce(t, pl, st.MakePod().Name("p").Obj(), node, pods...); got != tt.want {
				t.Errorf("score = %d, want %d", got, tt.want)
			}
		})
	}
}

// clockHandle is a Handle with clock c.
func clockHandle(c framework.Clock) framework.Handle {
	return framework.NewHandle(c, 1, framework.DefaultKubeVersion)
}

// TestLoadVariationRiskBalancingScore ports scheduler-plugins'
// pkg/trimaran/loadvariationriskbalancing/loadvariationriskbalancing_test.go
// TestScore, case by case (default args: margin 1, sensitivity 1).
func TestLoadVariationRiskBalancingScore(t *testing.T) {
	const mega = 1024 * 1024
	m := func(typ, op string, v float64) api.LoadMetric {
		return api.LoadMetric{Type: typ, Operator: op, Value: v}
	}
	cpu, mem, avg, std := api.LoadMetricCPU, api.LoadMetricMemory, api.LoadOperatorAverage, api.LoadOperatorStd
	tests := []struct {
		name  string
		pod   *api.Pod
		loads NodeLoads
		want  int64
	}{
		{"new node", st.MakePod().Name("p").Obj(), loadOf(m(cpu, avg, 50)), 75},
		{"hot node", st.MakePod().Name("p").Obj(), loadOf(m(cpu, avg, 100)), 50},
		{"average and stDev metrics", trimaranPod(0, 0, 0, []int64{200}, []int64{256 * mega}), loadOf(m(cpu, avg, 30), m(cpu, std, 16)), 67},
		{"CPU and Memory metrics", trimaranPod(0, 0, 0, []int64{100}, []int64{512 * mega}),
			loadOf(m(cpu, avg, 40), m(cpu, std, 16), m(mem, avg, 50), m(mem, std, 10)), 45},
		{"pick worst case: CPU or Memory", trimaranPod(0, 0, 0, []int64{100}, []int64{512 * mega}),
			loadOf(m(cpu, avg, 80), m(cpu, std, 20), m(mem, avg, 25), m(mem, std, 15)), 45},
		{"404 resp from watcher", st.MakePod().Name("p").Obj(), NodeLoads{}, framework.MinNodeScore},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pl, err := newLoadVariationRiskBalancing(nil, tt.loads)
			if err != nil {
				t.Fatal(err)
			}
			if got := scoreOnce(t, pl, tt.pod, trimaranNode()); got != tt.want {
				t.Errorf("score = %d, want %d", got, tt.want)
			}
		})
	}
}

// TestLoadRiskScore ports scheduler-plugins'
// pkg/trimaran/loadvariationriskbalancing/analysis_test.go TestComputeScore
// (each case rounded as the test rounds).
func TestLoadRiskScore(t *testing.T) {
	rs := func(c, req, avg, std float64) ResourceStats {
		return ResourceStats{Capacity: c, Req: req, UsedAvg: avg, UsedStdev: std}
	}
	tests := []struct {
		name                string
		margin, sensitivity float64
		rs                  ResourceStats
		want                int64
	}{
		{"valid data", 1, 1, rs(100, 10, 40, 36), 57},
		{"zero capacity", 1, 2, rs(0, 10, 40, 36), 0},
		{"negative usedAvg", 1, 2, rs(100, 10, -40, 36), 65},
		{"large usedAvg", 1, 2, rs(100, 10, 200, 36), 20},
		{"negative usedStdev", 1, 2, rs(100, 10, 40, -36), 75},
		{"large usedStdev", 1, 2, rs(100, 10, 40, 120), 25},
		{"negative margin", -1, 1, rs(100, 10, 40, 36), 75},
		{"negative sensitivity", 1, -1, rs(100, 10, 40, 36), 57},
		{"zero sensitivity", 1, 0, rs(100, 10, 40, 36), 75},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := int64(math.Round(LoadRiskScore(tt.rs, tt.margin, tt.sensitivity))); got != tt.want {
				t.Errorf("LoadRiskScore = %d, want %d", got, tt.want)
			}
		})
	}
}

// TestTrimaranRequests ports scheduler-plugins' pkg/trimaran/resourcestats_test.go
// TestGetResourceRequested.
func TestTrimaranRequests(t *testing.T) {
	tests := []struct {
		pod           *api.Pod
		milli, memory int64
	}{
		{trimaranPod(10, 100, 512, []int64{1000, 500}, []int64{2048, 1024}), 1510, 3072},
		{trimaranPod(10, 2000, 4096, []int64{1000, 500}, []int64{2048, 1024}), 2010, 4096},
		{trimaranPod(0, 0, 0, []int64{0, 0, 1000}, []int64{0, 200 * 1024 * 1024, 400 * 1024 * 1024}), 1000, 600 * 1024 * 1024},
	}
	for i, tt := range tests {
		if c, m := Requests(tt.pod); c != tt.milli || m != tt.memory {
			t.Errorf("case %d: Requests = (%d, %d), want (%d, %d)", i, c, m, tt.milli, tt.memory)
		}
	}
}

// TestNodeLoadStat ports the metric selection of scheduler-plugins'
// pkg/trimaran/resourcestats_test.go TestCreateResourceStats: an
// operator-less metric before an AVG one, the STD metric, a missing type.
func TestNodeLoadStat(t *testing.T) {
	l := &api.NodeLoad{ObjectMeta: api.ObjectMeta{Name: "node0"}, Metrics: []api.LoadMetric{
		{Name: "no_name", Type: api.LoadMetricCPU, Value: 40},
		{Name: "cpu_running_avg", Type: api.LoadMetricCPU, Operator: api.LoadOperatorAverage, Value: 40},
		{Name: "cpu_running_std", Type: api.LoadMetricCPU, Operator: api.LoadOperatorStd, Value: 36},
		{Name: "mem_running_avg", Type: api.LoadMetricMemory, Operator: api.LoadOperatorAverage, Value: 20},
		{Name: "mem_running_std", Type: api.LoadMetricMemory, Operator: api.LoadOperatorStd, Value: 10},
	}}
	if a, s, ok := l.Stat(api.LoadMetricCPU); !ok || a != 40 || s != 36 {
		t.Errorf("cpu = (%v, %v, %v), want (40, 36, true)", a, s, ok)
	}
	if a, s, ok := l.Stat(api.LoadMetricMemory); !ok || a != 20 || s != 10 {
		t.Errorf("memory = (%v, %v, %v), want (20, 10, true)", a, s, ok)
	}
	missing := &api.NodeLoad{ObjectMeta: l.ObjectMeta, Metrics: l.Metrics[3:]}
	if _, _, ok := missing.Stat(api.LoadMetricCPU); ok {
		t.Error("cpu found among memory metrics")
	}
	// An AVG metric seen before a Latest one keeps the mean.
	first := &api.NodeLoad{ObjectMeta: l.ObjectMeta, Metrics: []api.LoadMetric{
		{Type: api.LoadMetricCPU, Operator: api.LoadOperatorAverage, Value: 30},
		{Type: api.LoadMetricCPU, Operator: api.LoadOperatorLatest, Value: 90}}}
	if a, _, _ := first.Stat(api.LoadMetricCPU); a != 30 {
		t.Errorf("mean = %v, want the AVG metric's 30", a)
	}
}

// TestTrimaranArgs checks scheduler-plugins' defaulting (apis/config/v1/defaults.go)
// and the validation of bad args, each error naming the field and value.
func TestTrimaranArgs(t *testing.T) {
	tlp := DefaultTargetLoadPackingArgs()
	tlp.SetDefaults()
	if tlp.TargetUtilization != 40 || tlp.DefaultRequestsMultiplier != "1.5" || tlp.MetricProvider.Type != KubernetesMetricsServer {
		t.Errorf("TLP defaults = %+v", tlp)
	}
	if q := tlp.DefaultRequests[resource.CPU]; q.MilliValue() != 1000 {
		t.Errorf("TLP default request = %v, want 1000m", q)
	}
	zero, err := TargetLoadPackingArgsFrom(TargetLoadPackingArgs{TargetUtilization: -5})
	if err != nil || zero.TargetUtilization != 40 {
		t.Errorf("targetUtilization -5 → %d, %v; want the default 40", zero.TargetUtilization, err)
	}
	// Negative margin and sensitivity become 1, as the anchor's TestNew
	// ("bad arguments will be substituted by default values").
	lv, err := LoadVariationRiskBalancingArgsFrom(LoadVariationRiskBalancingArgs{SafeVarianceMargin: -5, SafeVarianceSensitivity: -1})
	if err != nil || lv.SafeVarianceMargin != 1 || lv.SafeVarianceSensitivity != 1 {
		t.Errorf("negative margin/sensitivity → %+v, %v", lv, err)
	}
	bad := []struct {
		args any
		want string
	}{
		{TargetLoadPackingArgs{TargetUtilization: 150}, "targetUtilization=150"},
		{TargetLoadPackingArgs{DefaultRequestsMultiplier: "lots"}, `defaultRequestsMultiplier="lots"`},
		{TargetLoadPackingArgs{TrimaranSpec: TrimaranSpec{MetricProvider: MetricProviderSpec{Type: "Datadog"}}}, `metricProvider.type="Datadog"`},
		{LoadVariationRiskBalancingArgs{SafeVarianceMargin: math.Inf(1)}, "safeVarianceMargin=+Inf"},
		{"wrong", "args of type string"},
	}
	for _, b := range bad {
		var err error
		switch b.args.(type) {
		case LoadVariationRiskBalancingArgs:
			_, err = NewLoadVariationRiskBalancing(b.args, nil)
		default:
			_, err = NewTargetLoadPacking(b.args, nil)
		}
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("args %+v: err = %v, want it to mention %q", b.args, err, b.want)
		}
	}
	if _, err := newTLP(DefaultTargetLoadPackingArgs(), nil, WithNodeLoadSource(nil)); err == nil || !strings.Contains(err.Error(), "TargetLoadPacking: WithNodeLoadSource(nil)") {
		t.Errorf("nil source: err = %v", err)
	}
}

func TestNodeLoadValidate(t *testing.T) {
	ok := &api.NodeLoad{ObjectMeta: api.ObjectMeta{Name: "n"}, Metrics: []api.LoadMetric{{Type: "CPU", Value: 10}}}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		l    *api.NodeLoad
		want string
	}{
		{nil, "nil"},
		{&api.NodeLoad{}, "metadata.name"},
		{&api.NodeLoad{ObjectMeta: ok.ObjectMeta, Metrics: []api.LoadMetric{{Value: 1}}}, "metrics[0].type"},
		{&api.NodeLoad{ObjectMeta: ok.ObjectMeta, Metrics: []api.LoadMetric{{Type: "CPU", Value: -1}}}, "value=-1"},
		{&api.NodeLoad{ObjectMeta: ok.ObjectMeta, Metrics: []api.LoadMetric{{Type: "CPU", Value: math.NaN()}}}, "value=NaN"},
	} {
		if err := tt.l.Validate(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Validate(%+v) = %v, want it to mention %q", tt.l, err, tt.want)
		}
	}
}

// trimaranNameLoads is a NodeLoadSource for property tests: a load derived
// from the node's name (none for every fifth byte sum).
type trimaranNameLoads struct{}

func (trimaranNameLoads) NodeLoad(node string) (*api.NodeLoad, bool) {
	h := 0
	for _, c := range []byte(node) {
		h = h*31 + int(c)
	}
	if h%5 == 0 {
		return nil, false
	}
	return &api.NodeLoad{ObjectMeta: api.ObjectMeta{Name: node}, Metrics: []api.LoadMetric{
		{Type: api.LoadMetricCPU, Operator: api.LoadOperatorAverage, Value: float64(h % 97)},
		{Type: api.LoadMetricCPU, Operator: api.LoadOperatorStd, Value: float64(h % 13)},
		{Type: api.LoadMetricMemory, Operator: api.LoadOperatorAverage, Value: float64(h % 89)},
	}}, true
}

// trimaranLoadsHandle is a handle whose NodeLoads are loads.
type trimaranLoadsHandle struct {
	framework.Handle
	loads NodeLoads
}

func (h trimaranLoadsHandle) NodeLoads() framework.NodeLoads { return h.loads }

// TestTrimaranLoadSources: each Trimaran plugin reads WithNodeLoadSource's
// loads when given, else its handle's, else none (every node scores the
// minimum).
func TestTrimaranLoadSources(t *testing.T) {
	load := func(avg float64) NodeLoads {
		return loadOf(api.LoadMetric{Type: api.LoadMetricCPU, Operator: api.LoadOperatorAverage, Value: avg},
			api.LoadMetric{Type: api.LoadMetricCPU, Operator: api.LoadOperatorStd, Value: avg / 4})
	}
	h := trimaranLoadsHandle{framework.NewHandle(framework.RealClock{}, 1, framework.DefaultKubeVersion), load(30)}
	ni, err := framework.NewNodeInfo(trimaranNode())
	if err != nil {
		t.Fatal(err)
	}
	pod := framework.MustPodInfo(trimaranPod(0, 0, 0, []int64{100}, []int64{1 << 20}))
	score := func(f framework.Factory, h framework.Handle) int64 {
		pl, err := f(nil, h)
		if err != nil {
			t.Fatal(err)
		}
		cs := framework.NewCycleState()
		if st := pl.(framework.PreScorePlugin).PreScore(context.Background(), cs, pod, []*framework.NodeInfo{ni}); !st.IsSuccess() {
			t.Fatal(st)
		}
		s, st := pl.(framework.ScorePlugin).Score(context.Background(), cs, pod, ni)
		if !st.IsSuccess() {
			t.Fatal(st)
		}
		return s
	}
	for _, tc := range []struct {
		name           string
		plain, withOpt framework.Factory
	}{
		{"TargetLoadPacking", NewTargetLoadPacking, TargetLoadPackingFactoryWith(WithNodeLoadSource(load(80)))},
		{"LoadVariationRiskBalancing", NewLoadVariationRiskBalancing, LoadVariationRiskBalancingFactoryWith(WithNodeLoadSource(load(80)))},
	} {
		none, fromHandle, fromOpt := score(tc.plain, nil), score(tc.plain, h), score(tc.withOpt, h)
		if none == fromHandle || fromHandle == fromOpt {
			t.Errorf("%s: scores without loads %d, with the handle's %d, with the option's %d: want three different", tc.name, none, fromHandle, fromOpt)
		}
		if want := score(tc.plain, trimaranLoadsHandle{h.Handle, load(80)}); fromOpt != want {
			t.Errorf("%s: with the option's loads %d, want %d (the same loads through the handle)", tc.name, fromOpt, want)
		}
	}
}
