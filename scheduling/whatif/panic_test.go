package whatif

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

// wpPanicky is a Filter plugin that panics on the pods whose name starts
// with "boom" (a capacity question's replicas too).
type wpPanicky struct{}

func (wpPanicky) Name() string { return "Panicky" }

func (wpPanicky) Filter(_ context.Context, _ *framework.CycleState, pod *framework.PodInfo, _ *framework.NodeInfo) *framework.Status {
	if strings.HasPrefix(pod.Pod.Name, "boom") {
		panic("Panicky: boom")
	}
	return nil
}

// A question whose cycle panics still closes its fork: once the panic is
// recovered, another goroutine's live calls go on at once, the cluster is
// as before the question, and the next question is answered.
func TestQuestionPanicClosesTheFork(t *testing.T) {
	ctx := context.Background()
	bound := []*api.Pod{wiPod("boom", "1").Node("n1").Obj()}
	bound[0].OwnerReferences = []api.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs", UID: "rs", Controller: true}}
	fits, fitsNone := []*api.Pod{wiPod("boom", "1").Obj()}, []*api.Pod{wiPod("boom", "4").Obj()}
	for _, tc := range []struct {
		name string
		pods []*api.Pod
		ask  func(w *WhatIf)
	}{
		{"Place", nil, func(w *WhatIf) { _, _ = w.Place(ctx, wiPod("boom", "1").Obj()) }},
		{"PlacePending", fits, func(w *WhatIf) { _, _ = w.PlacePending(ctx, "default", "boom") }},
		{"Capacity", nil, func(w *WhatIf) { _, _ = w.Capacity(ctx, wiPod("boom", "1").Obj(), CapacityOptions{}) }},
		{"Drain", bound, func(w *WhatIf) { _, _ = w.Drain(ctx, []string{"n1"}, DrainOptions{}) }},
		{"ScaleUp", fitsNone, func(w *WhatIf) { _, _ = w.ScaleUp(ctx, wiNode("t", "8").Obj(), ScaleUpOptions{}) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := cluster.NewFrom([]*api.Node{wiNode("n1", "2").Obj(), wiNode("n2", "2").Obj()}, tc.pods)
			if err != nil {
				t.Fatal(err)
			}
			reg := scheduling.NewDefaultRegistry()
			if err := reg.Register("Panicky", func(any, framework.Handle) (framework.Plugin, error) { return wpPanicky{}, nil }); err != nil {
				t.Fatal(err)
			}
			p := scheduling.DefaultProfile()
			p.Filter = append(p.Filter, "Panicky")
			w, err := New(c, reg, []framework.Profile{p}, scheduling.WithForkWait(50*time.Millisecond))
			if err != nil {
				t.Fatal(err)
			}
			before := wiCapture(w)
			func() {
				defer func() {
					if recover() == nil {
						t.Fatal("the question did not panic")
					}
				}()
				tc.ask(w)
			}()
			done := make(chan error, 1)
			go func() { _, err := w.Scheduler().State(); done <- err }()
			if err := <-done; errors.Is(err, scheduling.ErrForkNotClosed) {
				t.Errorf("after the panic the question's fork is still open: %v", err)
			} else if err != nil {
				t.Fatal(err)
			}
			wiUnchanged(t, w, before)
			if ans, err := w.Place(ctx, wiPod("next", "1").Obj()); err != nil || !ans.Placed() {
				t.Errorf("the next question: %+v, %v; want the pod placed", ans, err)
			}
		})
	}
}
