package framework_test

import (
	"context"
	"fmt"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
)

// evenNodes is a filter plugin that accepts only nodes whose name ends in an
// even digit.
type evenNodes struct{}

func (evenNodes) Name() string { return "EvenNodes" }

var odd = fw.NewStatus(fw.UnschedulableAndUnresolvable, "node(s) are odd")

func (evenNodes) Filter(_ context.Context, _ *fw.CycleState, _ *fw.PodInfo, n *fw.NodeInfo) *fw.Status {
	name := n.Name()
	if (name[len(name)-1]-'0')%2 == 1 {
		return odd
	}
	return nil
}

// mostCPU scores nodes by allocatable cpu, normalized so the largest gets 100.
type mostCPU struct{}

func (mostCPU) Name() string { return "MostCPU" }
func (mostCPU) Score(_ context.Context, _ *fw.CycleState, _ *fw.PodInfo, n *fw.NodeInfo) (int64, *fw.Status) {
	return n.Allocatable.MilliCPU, nil
}
func (mostCPU) ScoreExtensions() fw.ScoreExtensions { return mostCPU{} }
func (mostCPU) NormalizeScore(_ context.Context, _ *fw.CycleState, _ *fw.PodInfo, s fw.NodeScoreList) *fw.Status {
	return fw.DefaultNormalizeScore(fw.MaxNodeScore, false, s)
}

// Enable turns a plugin on at every extension point it implements, with
// its weight, in one call.
func ExampleProfile_Enable() {
	reg := fw.NewRegistry()
	_ = reg.Register("EvenNodes", func(any, fw.Handle) (fw.Plugin, error) { return evenNodes{}, nil })
	_ = reg.Register("MostCPU", func(any, fw.Handle) (fw.Plugin, error) { return mostCPU{}, nil })
	p := fw.Profile{SchedulerName: "even"}
	if err := p.Enable(reg, "EvenNodes", 0); err != nil {
		panic(err)
	}
	if err := p.Enable(reg, "MostCPU", 2); err != nil {
		panic(err)
	}
	fmt.Println("filter:", p.Filter, "score:", p.Score, "weights:", p.Weights)
	err := p.Enable(reg, "EvenNodes", 5)
	fmt.Println(err)
	// Output:
	// filter: [EvenNodes] score: [MostCPU] weights: map[MostCPU:2]
	// framework: profile "even": Enable("EvenNodes"): weight 5 for a plugin that does not implement Score
}

// Disable turns a plugin off at every extension point, or at the points
// named, as a disabled list of kube-scheduler's configuration does.
func ExampleProfile_Disable() {
	p := fw.Profile{SchedulerName: "even",
		Filter: []string{"EvenNodes", "NodeName"}, PreScore: []string{"MostCPU"}, Score: []string{"MostCPU"},
		Weights: map[string]int64{"MostCPU": 2}}
	if err := p.Disable("MostCPU", "score"); err != nil {
		panic(err)
	}
	fmt.Println("preScore:", p.PreScore, "score:", p.Score, "weights:", p.Weights)
	if err := p.Disable("EvenNodes"); err != nil {
		panic(err)
	}
	fmt.Println("filter:", p.Filter)
	fmt.Println(p.Disable("NodeName", "filters"))
	// Output:
	// preScore: [MostCPU] score: [] weights: map[]
	// filter: [NodeName]
	// framework: profile "even": Disable("NodeName"): unknown extension point "filters" (known: preEnqueue, queueSort, preFilter, filter, postFilter, preScore, score, reserve, permit, preBind, bind, postBind, placementGenerate, placementScore)
}

func ExampleDefaultNormalizeScore() {
	scores := fw.NodeScoreList{{Name: "a", Score: 1}, {Name: "b", Score: 3}, {Name: "c", Score: 0}}
	fw.DefaultNormalizeScore(fw.MaxNodeScore, true, scores)
	fmt.Println(scores)
	// Output:
	// [{a 67} {b 0} {c 100}]
}

// A snapshot of two nodes in a fixed order, with the pods bound to them;
// pending and finished pods are left out.
func ExampleNewSnapshot() {
	node := func(name string, images ...string) *api.Node {
		return builder.MakeNode().Name(name).Capacity(map[string]string{"cpu": "4", "memory": "8Gi"}).
			Image(1<<20, images...).Obj()
	}
	pod := func(name, nodeName, cpu string, phase api.PodPhase) *api.Pod {
		return builder.MakePod().Name(name).Node(nodeName).Req(map[string]string{"cpu": cpu}).Phase(phase).Obj()
	}
	snap, err := fw.NewSnapshot(
		[]*api.Node{node("node-b", "nginx:1.27"), node("node-a", "nginx:1.27", "redis:7")},
		[]*api.Pod{
			pod("web-1", "node-a", "500m", api.PodRunning),
			pod("web-2", "node-a", "250m", api.PodRunning),
			pod("batch", "node-b", "2", api.PodSucceeded), // finished: skipped
			pod("queued", "", "1", api.PodPending),        // not bound: skipped
			pod("cache", "node-b", "1", api.PodPending),   // bound, not started yet: counted
		},
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, ni := range snap.Nodes() {
		fmt.Printf("%s: %d pods, requested %dm of %dm cpu, non-zero memory %d\n",
			ni.Name(), len(ni.Pods), ni.Requested.MilliCPU, ni.Allocatable.MilliCPU, ni.NonZeroRequested.Memory)
	}
	fmt.Println("nodes with nginx:1.27:", snap.ImageNumNodes("nginx:1.27"))
	fmt.Println("nodes with redis:7:", snap.ImageNumNodes("redis:7"))

	_, err = fw.NewSnapshot([]*api.Node{node("node-a")}, []*api.Pod{pod("lost", "node-z", "1", api.PodRunning)})
	fmt.Println(err)
	// Output:
	// node-b: 1 pods, requested 1000m of 4000m cpu, non-zero memory 209715200
	// node-a: 2 pods, requested 750m of 4000m cpu, non-zero memory 419430400
	// nodes with nginx:1.27: 2
	// nodes with redis:7: 1
	// framework: snapshot: pod default/lost: node "node-z" not found
}
