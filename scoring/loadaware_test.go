package scoring

import (
	"context"
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

var laNow = time.Date(2026, 7, 24, 12, 0, 0, 0, time.UTC)

func laM(cpu, mem string) map[string]string { return map[string]string{"cpu": cpu, "memory": mem} }

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
	p, err := NewLoadAware(tt.args, st.LAHandle(framework.NewFakeClock(laNow)))
	if err != nil {
		t.Fatal(err)
	}
	la := p.(*LoadAware)
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

func laMetric() *st.NodeMetricWrapper {
	return st.MakeNodeMetric("test-node-1").ReportInterval(60).UpdateTime(laNow)
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
		if got := LeastUsedScore(tt.used, tt.capacity); got != tt.want {
			t.Errorf("LeastUsedScore(%d, %d) = %d, want %d", tt.used, tt.capacity, got, tt.want)
		}
	}
	z := []int64{0, 0}
	if got := LoadAwareScore([]int64{0, 0}, 0, z, z, z, []int64{1, 1}); got != 0 {
		t.Errorf("zero weights: %d", got)
	}
}

func TestLoadAwareScoreMisc(t *testing.T) {
	p, _ := NewLoadAware(config.LoadAwareSchedulingArgs{}, nil)
	la := p.(*LoadAware)
	if la.Name() != "LoadAwareScheduling" || la.ScoreExtensions() != nil {
		t.Error("name / extensions")
	}
	pi := framework.MustPodInfo(st.MakePod().Name("p").Obj())
	if _, s := la.Score(context.Background(), framework.NewCycleState(), pi, &framework.NodeInfo{}); s.Code() != framework.Error || s.Message() != "node not found" {
		t.Errorf("nil node: %v", s)
	}
	if _, err := NewLoadAware(config.LoadAwareSchedulingArgs{DominantResourceWeight: 101}, nil); err == nil ||
		err.Error() != "loadaware: dominantResourceWeight=101: must be within [0,100]" {
		t.Errorf("invalid args: %v", err)
	}
	// Reserve/Unreserve on the score half update its cache too.
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
	p, _ := NewLoadAware(config.LoadAwareSchedulingArgs{DominantResourceWeight: 5, ResourceWeights: map[resource.Name]int64{"cpu": 1, "memory": 2}}, st.LAHandle(framework.NewFakeClock(laNow)))
	la := p.(*LoadAware)
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
		p, err := NewLoadAware(args, st.LAHandle(framework.NewFakeClock(laNow)))
		if err != nil {
			rt.Fatal(err)
		}
		la := p.(*LoadAware)
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
