package framework_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/builder"
)

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

// One node's scores, and a table trimmed to the best nodes for a large
// cluster. Nodes of equal cpu tie; the explanation says the seeded
// tie-break chose.
func ExampleResult_WriteTableTop() {
	reg := fw.NewRegistry()
	_ = reg.Register("EvenNodes", func(any, fw.Handle) (fw.Plugin, error) { return evenNodes{}, nil })
	_ = reg.Register("MostCPU", func(any, fw.Handle) (fw.Plugin, error) { return mostCPU{}, nil })
	var p fw.Profile
	_ = p.Enable(reg, "EvenNodes", 0)
	_ = p.Enable(reg, "MostCPU", 1)
	f, err := fw.NewFramework(reg, p)
	if err != nil {
		panic(err)
	}
	var nodes []*fw.Node
	for i := range 20 {
		cpu := fmt.Sprint(1 + i%4)
		nodes = append(nodes, builder.MakeNode().Name(fmt.Sprintf("node-%02d", i)).Capacity(map[string]string{"cpu": cpu}).Obj())
	}
	snap := fw.MustSnapshot(nodes, nil)
	res, err := f.Schedule(context.Background(), nil, snap, fw.MustPodInfo(builder.MakePod().Name("web").Obj()),
		fw.CycleOptions{Rand: rand.New(rand.NewPCG(1, 2))})
	if err != nil {
		panic(err)
	}
	if s, ok := res.ScoresOf("node-02"); ok {
		fmt.Println("node-02:", s.Total, s.Scores[0].Raw, s.Scores[0].Normalized)
	}
	fmt.Println("ties:", res.Ties)
	_ = res.WriteTableTop(os.Stdout, 2)
	// Output:
	// node-02: 100 3000 100
	// ties: 5
	// pod default/web, profile "", 20 nodes
	// selected node-14 (total 100, tied with 4 other nodes; the seeded tie-break chose it)
	//
	// filter:
	//   20 nodes: 10 feasible, 10 rejected (10 node(s) are odd)
	//   NODE     VERDICT   PLUGIN     REASONS
	//   node-01  rejected  EvenNodes  node(s) are odd
	//   node-03  rejected  EvenNodes  node(s) are odd
	//   ... 8 more nodes not feasible
	//
	// score (raw -> normalized x weight = weighted):
	//   NODE     MostCPU                TOTAL
	//   node-14  3000 -> 100 x 1 = 100  100
	//   node-02  3000 -> 100 x 1 = 100  100
	//   ... 8 more feasible nodes
}
