package runtime_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/framework/runtime"
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

func exampleNode(name, cpu string) *api.Node {
	return builder.MakeNode().Name(name).Capacity(map[string]string{"cpu": cpu}).Obj()
}

func ExampleFramework_Schedule() {
	reg := fw.NewRegistry()
	_ = reg.Register("EvenNodes", func(any, fw.Handle) (fw.Plugin, error) { return evenNodes{}, nil })
	_ = reg.Register("MostCPU", func(any, fw.Handle) (fw.Plugin, error) { return mostCPU{}, nil })
	f, err := runtime.NewFramework(reg, fw.Profile{
		Filter:  []string{"EvenNodes"},
		Score:   []string{"MostCPU"},
		Weights: map[string]int64{"MostCPU": 2},
	})
	if err != nil {
		panic(err)
	}
	snap, err := fw.NewSnapshot([]*api.Node{exampleNode("node-1", "8"), exampleNode("node-2", "2"), exampleNode("node-4", "4")}, nil)
	if err != nil {
		panic(err)
	}
	pod := fw.MustPodInfo(builder.MakePod().Name("web").Obj())
	res, err := f.Schedule(context.Background(), nil, snap, pod, runtime.CycleOptions{Rand: rand.New(rand.NewPCG(1, 2))})
	if err != nil {
		panic(err)
	}
	fmt.Println("selected:", res.SelectedNode(), "margin:", res.Margin)
	for _, v := range res.NodeVerdicts() {
		fmt.Println(v.Node, v.Verdict, v.Reasons)
	}
	for _, ns := range res.Scores() {
		s := ns.Scores[0]
		fmt.Printf("%s %s raw=%d normalized=%d weighted=%d total=%d\n", ns.Node, s.Plugin, s.Raw, s.Normalized, s.Weighted, ns.Total)
	}
	// Output:
	// selected: node-4 margin: 100
	// node-1 rejected [node(s) are odd]
	// node-2 feasible []
	// node-4 feasible []
	// node-2 MostCPU raw=2000 normalized=50 weighted=100 total=100
	// node-4 MostCPU raw=4000 normalized=100 weighted=200 total=200
}

func ExampleFitError() {
	reg := fw.NewRegistry()
	_ = reg.Register("EvenNodes", func(any, fw.Handle) (fw.Plugin, error) { return evenNodes{}, nil })
	f, _ := runtime.NewFramework(reg, fw.Profile{Filter: []string{"EvenNodes"}})
	snap, _ := fw.NewSnapshot([]*api.Node{exampleNode("a1", "1"), exampleNode("a3", "1"), exampleNode("a5", "1")}, nil)
	pod := fw.MustPodInfo(builder.MakePod().Name("web").Obj())
	_, err := f.Schedule(context.Background(), nil, snap, pod, runtime.CycleOptions{Rand: rand.New(rand.NewPCG(1, 2))})
	var fe *runtime.FitError
	fmt.Println(errors.As(err, &fe))
	fmt.Println(err)
	// Output:
	// true
	// 0/3 nodes are available: 3 node(s) are odd.
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
	f, err := runtime.NewFramework(reg, p)
	if err != nil {
		panic(err)
	}
	var nodes []*api.Node
	for i := range 20 {
		cpu := fmt.Sprint(1 + i%4)
		nodes = append(nodes, builder.MakeNode().Name(fmt.Sprintf("node-%02d", i)).Capacity(map[string]string{"cpu": cpu}).Obj())
	}
	snap := fw.MustSnapshot(nodes, nil)
	res, err := f.Schedule(context.Background(), nil, snap, fw.MustPodInfo(builder.MakePod().Name("web").Obj()),
		runtime.CycleOptions{Rand: rand.New(rand.NewPCG(1, 2))})
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

// A plugin's own loop over every node (kube's Parallelizer().Until) runs
// on its framework's workers through the handle, each piece writing a
// slot of its own.
func ExampleFramework_Parallelizer() {
	reg := fw.NewRegistry()
	_ = reg.Register("EvenNodes", func(any, fw.Handle) (fw.Plugin, error) { return evenNodes{}, nil })
	f, err := runtime.NewFramework(reg, fw.Profile{Filter: []string{"EvenNodes"}}, runtime.WithParallelism(4))
	if err != nil {
		panic(err)
	}
	defer f.Close()
	var nodes []*api.Node
	for i := range 1000 {
		nodes = append(nodes, exampleNode(fmt.Sprintf("node-%d", i), fmt.Sprint(1+i%8)))
	}
	all := fw.MustSnapshot(nodes, nil).Nodes()
	var h fw.Handle = f // what the plugin's factory was given
	cpu := make([]int64, len(all))
	h.Parallelizer().Until(context.Background(), len(all), func(i int) { cpu[i] = all[i].Allocatable.MilliCPU }, "SumCPU")
	var total int64
	for _, c := range cpu {
		total += c
	}
	fmt.Println(h.Parallelism(), "workers:", total, "millicores")
	// Output: 4 workers: 4500000 millicores
}
