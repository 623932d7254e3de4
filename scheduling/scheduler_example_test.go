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

func exNode(name, cpu string) *api.Node {
	return builder.MakeNode().Name(name).Capacity(map[string]string{"cpu": cpu, "memory": "8Gi", "pods": "10"}).Obj()
}

func exPod(name, cpu string) *api.Pod {
	return builder.MakePod().Name(name).Req(map[string]string{"cpu": cpu, "memory": "1Gi"}).Obj()
}

// A scheduler with kube-scheduler's default profile over a small in-memory
// cluster, on a virtual clock: each cycle's decision says where the pod
// went and why.
func ExampleScheduler() {
	cluster, _ := cluster.NewFrom([]*api.Node{exNode("small", "2"), exNode("large", "8")}, nil)
	s, err := scheduling.New(cluster, scheduling.NewDefaultRegistry(), []framework.Profile{scheduling.DefaultProfile()},
		scheduling.WithClock(framework.NewFakeClock(time.Unix(0, 0))), scheduling.WithSeed(1))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range []*api.Pod{exPod("web", "1"), exPod("huge", "16")} {
		_ = s.AddPod(p)
	}
	for {
		d, ok := s.ScheduleOne(context.Background())
		if !ok {
			break
		}
		if d.Node != "" {
			fmt.Printf("%s: %s on %s\n", d.Pod, d.Outcome, d.Node)
		} else {
			fmt.Printf("%s: %s: %s\n", d.Pod, d.Outcome, d.Message)
		}
	}
	// DefaultPreemption (the default PostFilter) adds its own verdict; the
	// doubled period is kube-scheduler's own format for that message.

	// Output:
	// default/web: Scheduled on large
	// default/huge: Unschedulable: 0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.
}

// Fork opens a what-if branch of the cluster in O(1); Revert puts
// everything back exactly.
func ExampleCluster_Fork() {
	cluster, _ := cluster.NewFrom([]*api.Node{exNode("n1", "4")}, nil)
	cluster.Fork()
	_ = cluster.AddPod(builder.MakePod().Name("what-if").Req(map[string]string{"cpu": "3"}).Node("n1").Obj())
	ni, _ := cluster.NodeInfo("n1")
	fmt.Println("in the branch:", ni.Requested.MilliCPU, "m requested")
	_ = cluster.Revert()
	ni, _ = cluster.NodeInfo("n1")
	fmt.Println("after Revert:", ni.Requested.MilliCPU, "m requested")
	// Output:
	// in the branch: 3000 m requested
	// after Revert: 0 m requested
}
