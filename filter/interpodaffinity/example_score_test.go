package interpodaffinity_test

import (
	"context"
	"fmt"

	"github.com/schedkit/schedkit/filter/interpodaffinity"
	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
)

// A pod prefers zones running its backend (weight 10) and prefers to avoid
// hosts running a noisy batch job (weight 4).
func ExampleInterPodAffinity_Score() {
	nodes := []*api.Node{
		builder.MakeNode().Name("a1").Label("zone", "a").Obj(),
		builder.MakeNode().Name("a2").Label("zone", "a").Obj(),
		builder.MakeNode().Name("b1").Label("zone", "b").Obj(),
	}
	pods := []*api.Pod{
		builder.MakePod().Name("backend").Label("app", "backend").Node("a1").Obj(),
		builder.MakePod().Name("batch").Label("app", "batch").Node("a2").Obj(),
	}
	snap := fw.MustSnapshot(nodes, pods)
	pod := fw.MustPodInfo(builder.MakePod().Name("frontend").
		PodAffinityTerm(builder.PodAffinityWithPreferredReq, 10, api.PodAffinityTerm{
			LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"app": "backend"}}, TopologyKey: "zone"}).
		PodAffinityTerm(builder.PodAntiAffinityWithPreferredReq, 4, api.PodAffinityTerm{
			LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"app": "batch"}}, TopologyKey: "kubernetes.io/hostname"}).
		Obj())

	pl, err := interpodaffinity.New(interpodaffinity.DefaultInterPodAffinityArgs(), nil)
	if err != nil {
		panic(err)
	}
	ipa := pl.(*interpodaffinity.InterPodAffinity)
	state := fw.NewCycleState()
	state.SetSnapshot(snap)
	ctx := context.Background()
	if s := ipa.PreScore(ctx, state, pod, snap.Nodes()); !s.IsSuccess() {
		fmt.Println("PreScore:", s)
		return
	}
	var scores fw.NodeScoreList
	for _, ni := range snap.Nodes() {
		v, _ := ipa.Score(ctx, state, pod, ni)
		scores = append(scores, fw.NodeScore{Name: ni.Name(), Score: v})
	}
	fmt.Println("raw:", scores)
	_ = ipa.NormalizeScore(ctx, state, pod, scores)
	fmt.Println("normalized:", scores)
	// Output:
	// raw: [{a1 10} {a2 6} {b1 0}]
	// normalized: [{a1 100} {a2 60} {b1 0}]
}
