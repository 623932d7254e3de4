package podtopologyspread_test

import (
	"context"
	"fmt"

	"github.com/schedkit/schedkit/filter/podtopologyspread"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
)

func ptsExampleNode(name, zone string) *api.Node {
	n := builder.MakeNode().Name(name) // labelled kubernetes.io/hostname=name
	if zone != "" {
		n.Label("topology.kubernetes.io/zone", zone)
	}
	return n.Obj()
}

func ptsExampleWebPod(name, node string) *builder.PodWrapper {
	return builder.MakePod().Name(name).Label("app", "web").Node(node)
}

// Three zones hold 2, 1 and 0 pods of app=web. With maxSkew 1 a new web
// pod may only go where the skew stays ≤ 1: count + 1 − min(0) ≤ 1, so only
// zone c qualifies; a node without the zone label can never satisfy the
// constraint.
func ExamplePodTopologySpread() {
	nodes := []*api.Node{
		ptsExampleNode("a1", "a"), ptsExampleNode("b1", "b"), ptsExampleNode("c1", "c"), ptsExampleNode("edge", ""),
	}
	pods := []*api.Pod{
		ptsExampleWebPod("web-1", "a1").Obj(), ptsExampleWebPod("web-2", "a1").Obj(), ptsExampleWebPod("web-3", "b1").Obj(),
	}
	snap := framework.MustSnapshot(nodes, pods)
	pod := framework.MustPodInfo(ptsExampleWebPod("web-4", "").SpreadConstraint(api.TopologySpreadConstraint{
		MaxSkew:           1,
		TopologyKey:       "topology.kubernetes.io/zone",
		WhenUnsatisfiable: api.DoNotSchedule,
		LabelSelector:     &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
	}).Obj())

	pl, err := podtopologyspread.New(podtopologyspread.DefaultPodTopologySpreadArgs(), nil)
	if err != nil {
		panic(err)
	}
	pts := pl.(*podtopologyspread.PodTopologySpread)
	ctx := context.Background()
	state := framework.NewCycleState()
	state.SetSnapshot(snap)
	state.SetAllNodes(true)
	if _, s := pts.PreFilter(ctx, state, pod, snap.Nodes()); !s.IsSuccess() {
		panic(s)
	}
	for _, ni := range snap.Nodes() {
		fmt.Printf("%s: %v\n", ni.Name(), pts.Filter(ctx, state, pod, ni))
	}
	// Output:
	// a1: Unschedulable: node(s) didn't match pod topology spread constraints
	// b1: Unschedulable: node(s) didn't match pod topology spread constraints
	// c1: Success
	// edge: UnschedulableAndUnresolvable: node(s) didn't match pod topology spread constraints (missing required label)
}
