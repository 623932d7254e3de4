package whatif

import (
	"context"
	"testing"

	"github.com/schedkit/schedkit/framework/api"
)

// Questions asked with On run inside the open fork: they see what the fork
// changed, the live scheduler's Fork (which the fork's opener may not
// call) is not needed, and the fork is as before each question.
func TestWhatIfOnFork(t *testing.T) {
	w := wiCluster(t, []*api.Node{wiNode("n1", "2").Obj()}, []*api.Pod{wiPod("a", "1").Node("n1").Obj()})
	before := wiCapture(w)
	f := mustFork(t, w.Scheduler())
	if err := f.AddNode(wiNode("n2", "8").Obj()); err != nil {
		t.Fatal(err)
	}
	on := w.On(f)
	inFork := wiCapture(on)
	ans, err := on.Place(context.Background(), wiPod("big", "4").Obj())
	if err != nil {
		t.Fatal(err)
	}
	if !ans.Placed() || ans.Decision.Node != "n2" {
		t.Fatalf("placed %v on %q; want n2, the node the fork added", ans.Placed(), ans.Decision.Node)
	}
	c, err := on.Capacity(context.Background(), wiPod("r", "1").Obj(), CapacityOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Replicas != 9 {
		t.Errorf("capacity %d, want 9 (1 on n1, 8 on n2)", c.Replicas)
	}
	if _, err := on.Drain(context.Background(), []string{"n1"}, DrainOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := on.ScaleUp(context.Background(), wiNode("t", "4").Obj(), ScaleUpOptions{}); err != nil {
		t.Fatal(err)
	}
	wiUnchanged(t, on, inFork)
	// The live scheduler's own questions are refused to the fork's opener.
	if _, err := w.Place(context.Background(), wiPod("big", "4").Obj()); err == nil {
		t.Error("Place on the live scheduler while its fork is open: no error")
	}
	if err := f.Revert(); err != nil {
		t.Fatal(err)
	}
	wiUnchanged(t, w, before)
	if _, err := (&WhatIf{}).On(f).Place(context.Background(), wiPod("p", "1").Obj()); err == nil {
		t.Error("On of a zero WhatIf answers")
	}
}
