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

// scheduler-plugins' Coscheduling on kube's default profile: two nodes of
// 4 cpu, a gang "train" of three 2-cpu pods and, created a minute later,
// a gang "big" of two 2-cpu pods. Coscheduling sorts the older gang first:
// train takes 6 of the 8 cpu; big's first pod takes the last 2 and waits
// at Permit, its second fits nowhere, so PostFilter rejects the waiting
// one and big holds nothing. Without Coscheduling big's first pod binds
// and holds 2 cpu for a job that cannot run.
func ExampleEnableCoscheduling() {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	run := func(profile framework.Profile) *cluster.Cluster {
		cluster, _ := cluster.NewFrom([]*api.Node{exNode("n1", "4"), exNode("n2", "4")}, nil)
		s, err := scheduling.New(cluster, scheduling.NewDefaultRegistry(), []framework.Profile{profile},
			scheduling.WithClock(framework.NewFakeClock(t0.Add(time.Hour))), scheduling.WithSeed(1))
		if err != nil {
			fmt.Println(err)
			return nil
		}
		for i, g := range []struct {
			name string
			pods int
		}{{"train", 3}, {"big", 2}} {
			_ = s.AddPodGroup(&api.PodGroup{ObjectMeta: api.ObjectMeta{Namespace: "default", Name: g.name, CreationTimestamp: t0.Add(time.Duration(i) * time.Minute)},
				Spec: api.PodGroupSpec{MinMember: int32(g.pods)}})
			for j := range g.pods {
				_ = s.AddPod(builder.MakePod().Name(fmt.Sprintf("%s-%d", g.name, j)).Label(api.PodGroupLabel, g.name).
					Req(map[string]string{"cpu": "2"}).Obj())
			}
		}
		s.RunUntilIdle(context.Background())
		return cluster
	}
	cluster := run(scheduling.EnableCoscheduling(scheduling.DefaultProfile(), nil))
	for _, r := range cluster.Pods() {
		fmt.Println(r.Pod.Name, r.State)
	}
	cluster = run(scheduling.DefaultProfile())
	for _, name := range []string{"big-0", "big-1"} {
		r, _ := cluster.Pod("default", name)
		fmt.Println("without Coscheduling:", name, r.State)
	}
	// Output:
	// big-0 Pending
	// big-1 Pending
	// train-0 Bound
	// train-1 Bound
	// train-2 Bound
	// without Coscheduling: big-0 Bound
	// without Coscheduling: big-1 Pending
}
