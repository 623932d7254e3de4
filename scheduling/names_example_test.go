package scheduling_test

import (
	"fmt"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/scheduling"
)

// A pod of a Cluster goes from StatePending through StateAssumed to
// StateBound. (framework.StatePending, a different thing, is the pod's
// status.phase.)
func ExamplePodState() {
	n := builder.MakeNode().Name("n1").Capacity(map[string]string{"cpu": "4"}).Obj()
	cluster, _ := scheduling.NewClusterFrom([]*api.Node{n}, nil)
	_ = cluster.AddPod(builder.MakePod().Name("web").Obj())
	state := func() scheduling.PodState { return cluster.Pods()[0].State }
	fmt.Println(state(), state() == scheduling.StatePending)
	_ = cluster.Assume("default", "web", "n1")
	fmt.Println(state(), state() == scheduling.StateAssumed)
	_ = cluster.Bind("default", "web", "n1")
	fmt.Println(state(), state() == scheduling.StateBound)
	// Output:
	// Pending true
	// Assumed true
	// Bound true
}
