package framework_test

import (
	"fmt"
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/scheduling"
)

// BenchmarkIncrementalFill places replicas one by one with Incremental on
// 5,000 nodes of 1 CPU each (4 zones) until the cluster is full, then
// starts over on a fresh copy: the late cycles of a capacity question,
// where most nodes are full and the filter walk goes round the whole
// cluster to find kube's adaptive sample. "spread" is a 500m template
// with a soft zone spread (node-local filters only: 10,000 replicas fill
// the cluster); "one-per-node" adds a required hostname anti-affinity on
// its own app (a non-local filter after the node-local ones: 5,000
// replicas); "spread-preferred" makes that anti-affinity preferred (two
// non-local Score plugins, as the capacity questions' soft-spread
// template). One op is one replica's cycle and its placement.
func BenchmarkIncrementalFill(b *testing.B) {
	const n = 5000
	var nodes []*framework.Node
	for i := range n {
		nodes = append(nodes, builder.MakeNode().Name(fmt.Sprintf("n%04d", i)).Label("zone", fmt.Sprintf("z%d", i%4)).
			Label("kubernetes.io/hostname", fmt.Sprintf("n%04d", i)).
			Allocatable(map[string]string{"cpu": "1", "memory": "8Gi", "pods": "110"}).Obj())
	}
	base, err := framework.NewSnapshot(nodes, nil)
	if err != nil {
		b.Fatal(err)
	}
	fw, err := framework.NewFramework(scheduling.NewDefaultRegistry(), scheduling.DefaultProfile())
	if err != nil {
		b.Fatal(err)
	}
	web := &framework.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	spread := func() *builder.PodWrapper { // a new wrapper each time: the affinity methods change it
		return builder.MakePod().Name("web").Label("app", "web").Req(map[string]string{"cpu": "500m", "memory": "256Mi"}).
			SpreadConstraint(framework.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: framework.ScheduleAnyway, LabelSelector: web})
	}
	for _, tc := range []struct {
		name string
		pod  *framework.Pod
	}{
		{"spread", spread().Obj()},
		{"spread-preferred", spread().PodAntiAffinityIn("app", "kubernetes.io/hostname", []string{"web"}, builder.PodAntiAffinityWithPreferredReq).Obj()},
		{"one-per-node", spread().PodAntiAffinityIn("app", "kubernetes.io/hostname", []string{"web"}, builder.PodAntiAffinityWithRequiredReq).Obj()},
	} {
		tmpl, err := framework.NewPodInfo(tc.pod)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(tc.name, func(b *testing.B) { benchFill(b, fw, base, tmpl) })
	}
}
