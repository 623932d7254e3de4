package cluster_test

import (
	"fmt"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

// A pod of a Cluster goes from StatePending through StateAssumed to
// StateBound. (framework.StatePending, a different thing, is the pod's
// status.phase.)
func ExamplePodState() {
	n := builder.MakeNode().Name("n1").Capacity(map[string]string{"cpu": "4"}).Obj()
	c, _ := cluster.NewFrom([]*api.Node{n}, nil)
	_ = c.AddPod(builder.MakePod().Name("web").Obj())
	state := func() cluster.PodState { return c.Pods()[0].State }
	fmt.Println(state(), state() == cluster.StatePending)
	_ = c.Assume("default", "web", "n1")
	fmt.Println(state(), state() == cluster.StateAssumed)
	_ = c.Bind("default", "web", "n1")
	fmt.Println(state(), state() == cluster.StateBound)
	// Output:
	// Pending true
	// Assumed true
	// Bound true
}
