package scheduling

import (
	"context"
	"fmt"
	"slices"
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

// TestPreemptionDryRunErrorAggregate: when several examined nodes end in an
// error (here: the preemptor fits once every lower-priority pod is
// reprieved, so the node needs no victims), kube-scheduler v1.36's
// DryRunPreemption (pkg/scheduler/framework/preemption/preemption.go)
// returns utilerrors.NewAggregate of their errors in the order the nodes
// were examined, which prints as "[a, b]" (k8s.io/apimachinery
// pkg/util/errors aggregate.Error). PostFilter then reports it as an Error
// status prefixed "preemption: ".
func TestPreemptionDryRunErrorAggregate(t *testing.T) {
	noVictim := func(node string) string { return `expected at least one victim pod on node "` + node + `"` }
	tests := []struct {
		name   string
		nodes  int
		offset int
		want   string
	}{
		{"one node", 1, 0, noVictim("node1")},
		{"two nodes from the first", 2, 0, "[" + noVictim("node1") + ", " + noVictim("node2") + "]"},
		{"two nodes from the second", 2, 1, "[" + noVictim("node2") + ", " + noVictim("node1") + "]"},
		{"three nodes from the third", 3, 2, "[" + noVictim("node3") + ", " + noVictim("node1") + ", " + noVictim("node2") + "]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var nodes []*api.Node
			var pods []*api.Pod
			for i := 1; i <= tt.nodes; i++ {
				name := fmt.Sprintf("node%d", i)
				nodes = append(nodes, st.MakeNode().Name(name).Capacity(ppCap(ppVeryLarge)).Obj())
				pods = append(pods, ppPod(fmt.Sprintf("p%d", i)).Node(name).Priority(ppLow).Req(ppSmall).StartTime(ppEpoch).Obj())
			}
			e := newPPEnv(t, nodes, pods, nil, ppPod("p").Priority(ppHigh).Req(ppSmall).Obj())
			h, _ := handleFrom(e.state)
			cands, statuses, err := e.pl.dryRun(context.Background(), h, e.state, e.pi, nil, e.state.Snapshot().Nodes(), tt.offset, e.pl.numCandidates(tt.nodes))
			if len(cands) != 0 || len(statuses) != tt.nodes {
				t.Fatalf("dry run: %d candidates, %d statuses; want none and %d", len(cands), len(statuses), tt.nodes)
			}
			if err == nil || err.Error() != tt.want {
				t.Fatalf("dry run error = %v\nwant %s", err, tt.want)
			}
			if tt.nodes != 2 {
				return
			}
			// Through PostFilter the offset is drawn from the scheduler's
			// random source: either order is kube's text.
			statusMap := map[string]framework.Code{"node1": framework.Unschedulable, "node2": framework.Unschedulable}
			_, st := e.pl.PostFilter(context.Background(), e.state, e.pi, ppStatuses(statusMap))
			ok := []string{
				"preemption: [" + noVictim("node1") + ", " + noVictim("node2") + "]",
				"preemption: [" + noVictim("node2") + ", " + noVictim("node1") + "]",
			}
			if st.Code() != framework.Error || !slices.Contains(ok, st.Message()) {
				t.Errorf("PostFilter status = %v %q, want Error and one of %q", st.Code(), st.Message(), ok)
			}
		})
	}
}
