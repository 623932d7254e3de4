package scheduling

import (
	"context"
	"testing"
	"time"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

// TestFailedPreemptionMessage: after a failed preemption the FitError text
// ends in the PostFilter message as it is. kube-scheduler v1.36's
// FitError.Error() (pkg/scheduler/framework/types.go) appends it with
// " %v" (the reasons histogram gets " %v."), and DefaultPreemption's
// message already ends in a full stop, so the text ends in one ".", not
// "..".
func TestFailedPreemptionMessage(t *testing.T) {
	nodes := []*api.Node{
		st.MakeNode().Name("n1").Capacity(map[string]string{"cpu": "1", "memory": "4Gi", "pods": "10"}).Obj(),
		st.MakeNode().Name("n2").Capacity(map[string]string{"cpu": "1", "memory": "4Gi", "pods": "10"}).Obj(),
	}
	pods := []*api.Pod{
		ppPod("a").Node("n1").Priority(10).Req(map[string]string{"cpu": "1"}).StartTime(ppEpoch).Obj(),
		ppPod("b").Node("n2").Priority(10).Req(map[string]string{"cpu": "1"}).StartTime(ppEpoch).Obj(),
	}
	c, err := cluster.NewFrom(nodes, pods)
	if err != nil {
		t.Fatal(err)
	}
	var log []Decision
	s, err := New(c, ppRegistry(), []framework.Profile{ppProfile()}, WithClock(framework.NewFakeClock(ppEpoch.Add(time.Hour))), WithSeed(1),
		WithDecisionHandler(func(d Decision) { log = append(log, d) }))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AddPod(ppPod("low").Priority(10).Req(map[string]string{"cpu": "1"}).Obj()); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.ScheduleOne(context.Background()); !ok {
		t.Fatal("nothing to schedule")
	}
	want := "0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod."
	if len(log) != 1 || log[0].Message != want {
		t.Fatalf("decisions = %+v\nwant message %q", log, want)
	}
}
