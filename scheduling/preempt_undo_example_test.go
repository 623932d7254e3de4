package scheduling_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

// Preempt evicts the victims you choose for a pending pod and nominates
// it; on a fork, Revert puts every victim back on its node. Node n1 (4
// cpu) runs two 2-cpu batch pods; the 3-cpu web pod needs both gone.
func ExampleFork_Preempt() {
	cluster, _ := cluster.NewFrom([]*api.Node{exNode("n1", "4")}, []*api.Pod{
		builder.MakePod().Name("batch-1").Node("n1").Req(map[string]string{"cpu": "2"}).Obj(),
		builder.MakePod().Name("batch-2").Node("n1").Req(map[string]string{"cpu": "2"}).Obj(),
	})
	s, err := scheduling.New(cluster, scheduling.NewDefaultRegistry(), []framework.Profile{scheduling.DefaultProfile()},
		scheduling.WithClock(framework.NewFakeClock(time.Unix(0, 0))))
	if err != nil {
		fmt.Println(err)
		return
	}
	_ = s.AddPod(builder.MakePod().Name("web").Priority(1000).Req(map[string]string{"cpu": "3"}).Obj())
	show := func(when string) {
		var pods []string
		for _, r := range cluster.Pods() {
			p := r.Pod.Name + " " + r.State.String()
			if r.Pod.Spec.NodeName != "" {
				p += " on " + r.Pod.Spec.NodeName
			}
			pods = append(pods, p)
		}
		fmt.Printf("%s: %s\n", when, strings.Join(pods, ", "))
	}
	f, err := s.Fork()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Revert() // closes the fork on every return; after the Revert below it changes nothing
	evicted, err := f.Preempt("default/web", "n1", "default/batch-1", "default/batch-2")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("evicted:", evicted)
	d, _ := f.ScheduleOne(context.Background())
	fmt.Println(d.Pod, d.Outcome, "on", d.Node)
	show("in the fork")
	if err := f.Revert(); err != nil {
		fmt.Println(err)
		return
	}
	show("after Revert")
	// Output:
	// evicted: [default/batch-1 default/batch-2]
	// default/web Scheduled on n1
	// in the fork: web Bound on n1
	// after Revert: batch-1 Bound on n1, batch-2 Bound on n1, web Pending
}
