package scheduling_test

import (
	"context"
	"fmt"
	"time"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

// kube-scheduler v1.36's own gang scheduling (alpha): a PodGroup asking
// for 3 pods in one zone is placed whole in the only zone that holds them
// (b); one asking for 4 is refused whole, and its PodGroupScheduled
// condition says why.
func ExampleEnableWorkloadScheduling() {
	feats := framework.WorkloadFeatures{GenericWorkload: true, GangScheduling: true, TopologyAwareWorkloadScheduling: true}
	zoned := func(name string, minCount int32) *api.WorkloadPodGroup {
		return &api.WorkloadPodGroup{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: name},
			Spec: api.WorkloadPodGroupSpec{
				SchedulingPolicy:      api.PodGroupSchedulingPolicy{Gang: &api.GangSchedulingPolicy{MinCount: minCount}},
				SchedulingConstraints: &api.PodGroupSchedulingConstraints{Topology: []api.TopologyConstraint{{Key: "zone"}}}}}
	}
	var nodes []*api.Node
	for _, n := range []struct{ name, zone, cpu string }{{"a1", "a", "2"}, {"b1", "b", "4"}, {"b2", "b", "2"}} {
		nodes = append(nodes, builder.MakeNode().Name(n.name).Label("zone", n.zone).Capacity(map[string]string{"cpu": n.cpu, "pods": "10"}).Obj())
	}
	cluster, _ := cluster.NewFrom(nodes, nil)
	s, err := scheduling.New(cluster, scheduling.NewDefaultRegistry(),
		[]framework.Profile{scheduling.EnableWorkloadScheduling(scheduling.DefaultProfile(), feats)},
		scheduling.WithWorkloadFeatures(feats), scheduling.WithClock(framework.NewFakeClock(time.Unix(0, 0))))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, g := range []*api.WorkloadPodGroup{zoned("train", 3), zoned("big", 4)} {
		_ = s.AddWorkloadPodGroup(g)
		for i := range g.MinCount() {
			_ = s.AddPod(builder.MakePod().Name(fmt.Sprintf("%s-%d", g.Name, i)).PodGroupName(g.Name).Req(map[string]string{"cpu": "2"}).Obj())
		}
	}
	s.RunUntilIdle(context.Background())
	for _, r := range cluster.Pods() {
		zone := "-"
		if n, ok := cluster.Node(r.Pod.Spec.NodeName); ok {
			zone = n.Labels["zone"]
		}
		fmt.Println(r.Pod.Name, r.State, "zone", zone)
	}
	g, _ := cluster.WorkloadPodGroup("default", "big")
	c := g.Status.Conditions[0]
	fmt.Printf("big: %s=%s %s: %s\n", c.Type, c.Status, c.Reason, c.Message)
	// Output:
	// big-0 Pending zone -
	// big-1 Pending zone -
	// big-2 Pending zone -
	// big-3 Pending zone -
	// train-0 Bound zone b
	// train-1 Bound zone b
	// train-2 Bound zone b
	// big: PodGroupScheduled=False Unschedulable: 0/2 placements are available, first placement status: pod group is unschedulable
}
