package scheduling

import (
	"context"
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

// With observed eviction, preemption names its victims but leaves them in
// the cluster until DeletePod reports them gone; the preemptor waits on
// its nominated node meanwhile and is placed once the victim has left. A
// fork's preemption still deletes its victims there.
func TestObservedEviction(t *testing.T) {
	c, err := cluster.New()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddNode(st.MakeNode().Name("node1").Capacity(ppOnePod).Obj()); err != nil {
		t.Fatal(err)
	}
	if err := c.AddPod(ppPod("low").Priority(ppLow).Node("node1").Obj()); err != nil {
		t.Fatal(err)
	}
	var decisions []Decision
	clock := framework.NewFakeClock(ppEpoch)
	s, err := New(c, NewDefaultRegistry(), []framework.Profile{DefaultProfile()}, WithObservedEviction(), WithClock(clock),
		WithDecisionHandler(func(d Decision) { decisions = append(decisions, d) }))
	if err != nil {
		t.Fatal(err)
	}
	f, err := s.Fork()
	if err != nil {
		t.Fatal(err)
	}
	d, err := f.SchedulePod(context.Background(), ppPod("what-if").Priority(ppHigh).Obj())
	if err != nil {
		t.Fatal(err)
	}
	if _, still := f.Cluster().Pod("default", "low"); still || len(d.Victims) != 1 {
		t.Errorf("fork: victims %v, victim still in the fork's cluster: %v", d.Victims, still)
	}
	if err := f.Revert(); err != nil {
		t.Fatal(err)
	}
	decisions = nil

	if err := s.AddPod(ppPod("high").Priority(ppHigh).Obj()); err != nil {
		t.Fatal(err)
	}
	s.RunUntilIdle(context.Background())
	if len(decisions) == 0 || decisions[0].NominatedNode != "node1" || len(decisions[0].Victims) != 1 {
		t.Fatalf("decisions %+v: want a preemption nominating node1 with one victim", decisions)
	}
	if r, ok := c.Pod("default", "low"); !ok || r.State != cluster.StateBound {
		t.Fatalf("victim left before its deletion was observed: %v %v", r, ok)
	}
	if r, _ := c.Pod("default", "high"); r.State != cluster.StatePending {
		t.Fatalf("preemptor %v before the victim left", r.State)
	}
	if err := s.DeletePod("default", "low"); err != nil {
		t.Fatal(err)
	}
	// The deletion moves the preemptor; it is placed after its backoff.
	bound := func() bool { r, _ := c.Pod("default", "high"); return r.State == cluster.StateBound }
	for range 30 {
		if s.RunUntilIdle(context.Background()); bound() {
			break
		}
		if next, ok := s.NextWakeup(); ok {
			_ = clock.AdvanceTo(next)
		}
	}
	if !bound() {
		t.Fatalf("preemptor not bound after the victim left")
	}
	if r, _ := c.Pod("default", "high"); r.Pod.Spec.NodeName != "node1" {
		t.Errorf("preemptor on %q", r.Pod.Spec.NodeName)
	}
	preemptions := 0
	for _, d := range decisions {
		if len(d.Victims) > 0 {
			preemptions++
		}
	}
	if preemptions != 1 {
		t.Errorf("%d preemptions, want 1: %+v", preemptions, decisions)
	}
}
