package loadaware

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/estimator"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/runtime"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/resource"
)

var laNow = time.Date(2026, 7, 24, 12, 0, 0, 0, time.UTC)

func laM(cpu, mem string) map[string]string { return map[string]string{"cpu": cpu, "memory": mem} }

func laFramework(t testing.TB, args config.LoadAwareSchedulingArgs, reg *estimator.Registry) (*runtime.Framework, *LoadAwareScheduling) {
	t.Helper()
	r := framework.NewRegistry()
	if err := r.Register(config.LoadAwareSchedulingName, FactoryWith(WithEstimators(reg))); err != nil {
		t.Fatal(err)
	}
	name := config.LoadAwareSchedulingName
	f, err := runtime.NewFramework(r, framework.Profile{
		SchedulerName: "koord-scheduler",
		PreFilter:     []string{name}, Filter: []string{name}, PreScore: []string{name}, Score: []string{name}, Reserve: []string{name},
		Weights: map[string]int64{name: 1},
		Args:    map[string]any{name: args},
	}, runtime.WithClock(framework.NewFakeClock(laNow)))
	if err != nil {
		t.Fatal(err)
	}
	pl, _ := f.Plugin(name)
	return f, pl.(*LoadAwareScheduling)
}

// A whole cycle through the framework: the loaded node is filtered, the
// least used one wins; Reserve makes the next identical pod see the first
// pod's estimate before any NodeMetric reports it.
func TestLoadAwareSchedulingCycle(t *testing.T) {
	f, la := laFramework(t, config.LoadAwareSchedulingArgs{}, nil)
	nodes := []*api.Node{
		st.MakeNode().Name("busy").Capacity(laM("32", "128Gi")).Obj(),
		st.MakeNode().Name("warm").Capacity(laM("32", "128Gi")).Obj(),
		st.MakeNode().Name("cool").Capacity(laM("32", "128Gi")).Obj(),
	}
	for name, cpu := range map[string]string{"busy": "24", "warm": "12", "cool": "10"} {
		if err := la.Cache().UpdateNodeMetric(st.MakeNodeMetric(name).UpdateTime(laNow).Usage(laM(cpu, "16Gi")).Obj()); err != nil {
			t.Fatal(err)
		}
	}
	snap := framework.MustSnapshot(nodes, nil)
	pod := framework.MustPodInfo(st.MakePod().Name("web-0").Req(laM("4", "8Gi")).Obj()) // estimate 3.4 CPU / 5.6Gi
	res, err := f.Schedule(context.Background(), nil, snap, pod, runtime.CycleOptions{Rand: rand.New(rand.NewPCG(1, 2))})
	if err != nil {
		t.Fatal(err)
	}
	// busy: (24+3.4)/32 = 85.6 → 86 > 65. warm: cpu (32−15.4)/32 → 51, mem (128−21.6)/128 → 83 → 67.
	// cool: cpu (32−13.4)/32 → 58, mem 83 → 70.
	if res.SelectedNode() != "cool" {
		t.Fatalf("selected %q, want cool\n%s", res.SelectedNode(), res)
	}
	for _, v := range res.NodeVerdicts() {
		if v.Node == "busy" && (len(v.Reasons) != 1 || v.Reasons[0] != "node(s) cpu usage exceed threshold") {
			t.Errorf("busy verdict %+v", v)
		}
	}
	totals := map[string]int64{}
	for _, ns := range res.Scores() {
		totals[ns.Node] = ns.Total
	}
	if totals["warm"] != 67 || totals["cool"] != 70 {
		t.Errorf("totals = %v, want warm 67, cool 70", totals)
	}
	cs := framework.NewCycleState()
	if s := f.Reserve(context.Background(), cs, pod, "cool"); !s.IsSuccess() {
		t.Fatal(s)
	}
	// cool now carries the reserved estimate: cpu (32−16.8)/32 → 47, mem (128−27.2)/128 → 78 → 62 < warm's 67.
	next := framework.MustPodInfo(st.MakePod().Name("web-1").Req(laM("4", "8Gi")).Obj())
	res, err = f.Schedule(context.Background(), nil, snap, next, runtime.CycleOptions{Rand: rand.New(rand.NewPCG(1, 2))})
	if err != nil {
		t.Fatal(err)
	}
	if res.SelectedNode() != "warm" {
		t.Errorf("after Reserve selected %q, want warm\n%s", res.SelectedNode(), res)
	}
	f.RunReservePluginsUnreserve(context.Background(), cs, pod, "cool")
	if s, _ := la.Cache().NodeState("cool"); len(s.Pods) != 0 {
		t.Errorf("Unreserve left %+v", s.Pods)
	}
}

// The plugin accepts a custom estimator registry: a history estimator
// that knows the workload uses far less than it requests.
func TestLoadAwareSchedulingCustomEstimator(t *testing.T) {
	h, _ := estimator.NewMemoryHistory(10)
	for range 5 {
		_ = h.Record("default/ReplicaSet/web", map[resource.Name]int64{resource.CPU: 500, resource.Memory: 1 << 30})
	}
	reg := estimator.NewRegistry()
	if err := reg.Register(estimator.HistoryEstimatorName, estimator.HistoryFactory(estimator.HistoryOptions{History: h, Percentile: 95, MinSamples: 3})); err != nil {
		t.Fatal(err)
	}
	_, la := laFramework(t, config.LoadAwareSchedulingArgs{Estimator: estimator.HistoryEstimatorName}, reg)
	if name := la.Cache().Estimator().Name(); name != estimator.HistoryEstimatorName {
		t.Fatalf("estimator %q", name)
	}
	_ = la.Cache().UpdateNodeMetric(st.MakeNodeMetric("n").UpdateTime(laNow).Usage(laM("20", "16Gi")).Obj())
	ni, _ := framework.NewNodeInfo(st.MakeNode().Name("n").Capacity(laM("32", "128Gi")).Obj())
	pod := framework.MustPodInfo(st.MakePod().Name("web-x").Owner("", "ReplicaSet", "web").Req(laM("8", "8Gi")).Obj())
	cs := framework.NewCycleState()
	la.PreFilter(context.Background(), cs, pod, nil)
	// Default estimate 6.8 CPU would give (20+6.8)/32 = 84 > 65; history says 0.5 CPU: 64 ≤ 65.
	if s := la.Filter(context.Background(), cs, pod, ni); !s.IsSuccess() {
		t.Errorf("Filter = %v, want success with the history estimate", s)
	}
	if _, err := newLoadAwareScheduling(config.LoadAwareSchedulingArgs{UsageThresholds: map[resource.Name]int64{"cpu": 101}}, nil); err == nil {
		t.Error("invalid args accepted")
	}
}

// With parallel filtering and scoring the explanation equals the
// sequential one (and the shared state is race-free under -race).
func TestLoadAwareSchedulingParallelEqualsSequential(t *testing.T) {
	var results []string
	for _, par := range []int{1, 4} {
		r := framework.NewRegistry()
		name := config.LoadAwareSchedulingName
		_ = r.Register(name, New)
		f, err := runtime.NewFramework(r, framework.Profile{
			PreFilter: []string{name}, Filter: []string{name}, PreScore: []string{name}, Score: []string{name},
			Weights: map[string]int64{name: 1},
		}, runtime.WithClock(framework.NewFakeClock(laNow)), runtime.WithParallelism(par))
		if err != nil {
			t.Fatal(err)
		}
		pl, _ := f.Plugin(name)
		cache := pl.(*LoadAwareScheduling).Cache()
		var nodes []*api.Node
		for i := range 200 {
			n := fmt.Sprintf("n%03d", i)
			nodes = append(nodes, st.MakeNode().Name(n).Capacity(laM("32", "128Gi")).Obj())
			if i%7 != 0 {
				_ = cache.UpdateNodeMetric(st.MakeNodeMetric(n).UpdateTime(laNow).Usage(laM(fmt.Sprint(i%30), fmt.Sprintf("%dGi", i%120))).Obj())
			}
		}
		res, err := f.Schedule(context.Background(), nil, framework.MustSnapshot(nodes, nil),
			framework.MustPodInfo(st.MakePod().Name("p").Req(laM("2", "4Gi")).Obj()), runtime.CycleOptions{Rand: rand.New(rand.NewPCG(7, 7))})
		if err != nil {
			t.Fatal(err)
		}
		results = append(results, res.String())
	}
	if results[0] != results[1] {
		t.Errorf("parallel result differs:\n%s\nvs\n%s", results[0], results[1])
	}
}
