package loadaware_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/filter/loadaware"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/framework/runtime"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scoring/queuesort"
)

// ExampleLoadAwareScheduling schedules a pod with Koordinator's
// LoadAwareScheduling: two nodes with the same allocatable, NodeMetrics
// reporting their real usage, and a pod that goes to the less used node
// while the overloaded one is filtered out.
func ExampleLoadAwareScheduling() {
	now := time.Date(2026, 7, 24, 12, 0, 0, 0, time.UTC)
	clock := framework.NewFakeClock(now)
	reg := framework.NewRegistry()
	_ = reg.Register(config.LoadAwareSchedulingName, loadaware.New)
	name := config.LoadAwareSchedulingName
	profile := framework.Profile{Args: map[string]any{name: config.LoadAwareSchedulingArgs{}}} // Koordinator's defaults
	// At every extension point the plugin implements (PreFilter, Filter,
	// PreScore, Score with weight 1, Reserve).
	if err := profile.Enable(reg, name, 1); err != nil {
		panic(err)
	}
	fw, err := runtime.NewFramework(reg, profile, runtime.WithClock(clock))
	if err != nil {
		panic(err)
	}
	pl, _ := fw.Plugin(name)
	cache := pl.(*loadaware.LoadAwareScheduling).Cache()

	var nodes []*api.Node
	for i, used := range []string{"60", "20", "35"} {
		n := fmt.Sprintf("node-%d", i)
		nodes = append(nodes, builder.MakeNode().Name(n).Capacity(map[string]string{"cpu": "64", "memory": "256Gi"}).Obj())
		m := builder.MakeNodeMetric(n).UpdateTime(now).Usage(map[string]string{"cpu": used, "memory": "64Gi"}).Obj()
		if err := cache.UpdateNodeMetric(m); err != nil {
			panic(err)
		}
	}
	pod := framework.MustPodInfo(builder.MakePod().Name("web").Req(map[string]string{"cpu": "8", "memory": "16Gi"}).Obj())
	res, err := fw.Schedule(context.Background(), nil, framework.MustSnapshot(nodes, nil), pod,
		runtime.CycleOptions{Rand: rand.New(rand.NewPCG(1, 2))})
	if err != nil {
		panic(err)
	}
	for _, v := range res.NodeVerdicts() {
		fmt.Println(v.Node, v.Verdict, v.Reasons)
	}
	for _, s := range res.Scores() {
		fmt.Println(s.Node, "score", s.Total)
	}
	fmt.Println("selected", res.SelectedNode())
	// The pod is estimated at 85% × 8 = 6.8 CPU and 70% × 16Gi = 11.2Gi.
	// node-0: (60 + 6.8)/64 = 104% > 65%. node-1: cpu (64 − 26.8)/64 → 58,
	// memory (256 − 75.2)/256 → 70, score 64. node-2: cpu 34, memory 70, 52.

	// Output:
	// node-0 rejected [node(s) cpu usage exceed threshold]
	// node-1 feasible []
	// node-2 feasible []
	// node-1 score 64
	// node-2 score 52
	// selected node-1
}

// The same plugin, three ways: New with typed args, New with nil args (the
// defaults), and by name from the default registry; a plugin without args
// refuses them.
func ExampleNew() {
	args := config.DefaultLoadAwareSchedulingArgs()
	a, _ := loadaware.New(args, nil)
	b, _ := loadaware.New(nil, nil)
	f, _ := scheduling.NewDefaultRegistry().Lookup(config.LoadAwareSchedulingName)
	c, _ := f(&args, nil)
	d, err := queuesort.New("unexpected", nil)
	fmt.Println(a.Name(), b.Name(), c.Name(), d == nil, err)
	// Output: LoadAwareScheduling LoadAwareScheduling LoadAwareScheduling true PrioritySort: takes no args, got string
}
