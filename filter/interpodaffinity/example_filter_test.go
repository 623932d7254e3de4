package interpodaffinity_test

import (
	"context"
	"fmt"

	"github.com/schedkit/schedkit/filter/interpodaffinity"
	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
)

// A web pod must not share a zone with another web pod (required
// anti-affinity) and must run in a zone with a cache pod (required
// affinity).
func ExampleInterPodAffinity_Filter() {
	nodes := []*api.Node{
		builder.MakeNode().Name("a1").Label("zone", "a").Obj(),
		builder.MakeNode().Name("b1").Label("zone", "b").Obj(),
		builder.MakeNode().Name("c1").Label("zone", "c").Obj(),
		builder.MakeNode().Name("x1").Obj(), // no zone label
	}
	pods := []*api.Pod{
		builder.MakePod().Name("web-0").Label("app", "web").Node("a1").Obj(),
		builder.MakePod().Name("cache-a").Label("app", "cache").Node("a1").Obj(),
		builder.MakePod().Name("cache-b").Label("app", "cache").Node("b1").Obj(),
	}
	snap := fw.MustSnapshot(nodes, pods)
	pod := fw.MustPodInfo(builder.MakePod().Name("web-1").Label("app", "web").
		PodAntiAffinityIn("app", "zone", []string{"web"}, builder.PodAntiAffinityWithRequiredReq).
		PodAffinityIn("app", "zone", []string{"cache"}, builder.PodAffinityWithRequiredReq).Obj())

	pl, err := interpodaffinity.New(interpodaffinity.DefaultInterPodAffinityArgs(), nil)
	if err != nil {
		panic(err)
	}
	ipa := pl.(*interpodaffinity.InterPodAffinity)
	state := fw.NewCycleState()
	state.SetSnapshot(snap)
	ctx := context.Background()
	state.SetAllNodes(true)
	if _, s := ipa.PreFilter(ctx, state, pod, snap.Nodes()); !s.IsSuccess() {
		fmt.Println("PreFilter:", s)
		return
	}
	for _, ni := range snap.Nodes() {
		fmt.Printf("%s: %v\n", ni.Name(), ipa.Filter(ctx, state, pod, ni))
	}
	// Output:
	// a1: Unschedulable: node(s) didn't match pod anti-affinity rules
	// b1: Success
	// c1: UnschedulableAndUnresolvable: node(s) didn't match pod affinity rules
	// x1: UnschedulableAndUnresolvable: node(s) didn't match pod affinity rules
}
