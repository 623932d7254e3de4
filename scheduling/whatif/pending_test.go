package whatif

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

// pendingCluster: node a (4 cpu, 1 used) and node b (2 cpu); pending pods
// big (4 cpu: fits nowhere), small (1 cpu) and gated (held by a
// scheduling gate). The scheduler's clock is a fake one.
func pendingCluster(t *testing.T) *WhatIf {
	nodes := []*api.Node{wiNode("a", "4").Obj(), wiNode("b", "2").Obj()}
	gated := wiPod("gated", "1").Obj()
	gated.Spec.SchedulingGates = []api.PodSchedulingGate{{Name: "example.com/quota"}}
	pods := []*api.Pod{wiPod("web-1", "1").Node("a").Obj(), wiPod("big", "4").Obj(), wiPod("small", "1").Obj(), gated}
	c, err := cluster.NewFrom(nodes, pods)
	if err != nil {
		t.Fatal(err)
	}
	w, err := New(c, scheduling.NewDefaultRegistry(), []framework.Profile{scheduling.DefaultProfile()},
		scheduling.WithSeed(7), scheduling.WithClock(framework.NewFakeClock(time.Unix(0, 0))))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// PlacePending explains the next cycle of a pod the cluster holds as
// pending, which Place refuses: "big" fits no node (both lack cpu), and
// the cluster, the queue included, is as before.
func TestPlacePendingUnschedulable(t *testing.T) {
	w := pendingCluster(t)
	before := wiCapture(w)
	ctx := context.Background()
	big, _ := w.Cluster().Pod("default", "big")
	_, err := w.Place(ctx, big.Pod)
	if err == nil || !strings.Contains(err.Error(), `PlacePending("default", "big")`) {
		t.Errorf("Place of a pod pending in the cluster: error %v, want one pointing to PlacePending", err)
	}
	ans, err := w.PlacePending(ctx, "default", "big")
	if err != nil {
		t.Fatal(err)
	}
	wiUnchanged(t, w, before)
	if ans.Placed() || ans.FitError == nil {
		t.Fatalf("big placed on %q (FitError %v), want unschedulable", ans.Decision.Node, ans.FitError)
	}
	// 4 cpu asked; a has 3 free, b 2: both reject for cpu.
	if msg := ans.FitError.Error(); !strings.HasPrefix(msg, "0/2 nodes are available: 2 Insufficient cpu.") {
		t.Errorf("FitError %q, want 0/2 nodes with 2 Insufficient cpu", msg)
	}
	if ans.Decision.Pod != "default/big" || ans.Decision.Attempt != 1 {
		t.Errorf("decision for %s attempt %d, want default/big's first attempt", ans.Decision.Pod, ans.Decision.Attempt)
	}
	var b strings.Builder
	if err := ans.Write(&b, ExplainOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "pod default/big (profile default-scheduler): unschedulable: 0/2 nodes are available") {
		t.Errorf("written answer:\n%s", b.String())
	}
}

// PlacePending runs the cycle the scheduler itself would run when it pops
// the pod: the same decision as ScheduleOne on a fork, from whichever
// queue the pod waits in (active at first; unschedulable after a failed
// attempt, when the next attempt's number is 2).
func TestPlacePendingMatchesScheduleOne(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		prepare func(t *testing.T, w *WhatIf) // before the question
		pod     string
		attempt int
	}{
		{"active", nil, "small", 1},
		{"unschedulable after an attempt", func(t *testing.T, w *WhatIf) {
			// The queue pops big first (queued before small): it fails and
			// waits in the unschedulable pool.
			d, ok := w.Scheduler().ScheduleOne(ctx)
			if !ok || d.Pod != "default/big" || d.Outcome != scheduling.OutcomeUnschedulable {
				t.Fatalf("first cycle %+v, want default/big unschedulable", d)
			}
		}, "big", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := pendingCluster(t)
			if tc.prepare != nil {
				tc.prepare(t, w)
			}
			before := wiCapture(w)
			ans, err := w.PlacePending(ctx, "default", tc.pod)
			if err != nil {
				t.Fatal(err)
			}
			wiUnchanged(t, w, before)
			// What the scheduler does when it pops the pod: make it the only
			// pod the queue can pop, on a fork.
			s := w.Scheduler()
			if tc.attempt > 1 {
				// The unschedulable pool lets the pod go once it has waited
				// MaxInUnschedulablePods (at kube's next leftover flush).
				if err := s.Clock().(*framework.FakeClock).Advance(scheduling.DefaultPodMaxInUnschedulablePods + time.Minute); err != nil {
					t.Fatal(err)
				}
			}
			f := mustFork(t, s)
			for _, other := range []string{"big", "small", "gated"} {
				if other != tc.pod {
					if err := f.DeletePod("default", other); err != nil {
						t.Fatal(err)
					}
				}
			}
			d, ok := f.ScheduleOne(ctx)
			if err := f.Revert(); err != nil {
				t.Fatal(err)
			}
			if !ok || d.Pod != "default/"+tc.pod {
				t.Fatalf("ScheduleOne popped %q (%v), want default/%s", d.Pod, ok, tc.pod)
			}
			got := ans.Decision
			if got.Node != d.Node || got.Outcome != d.Outcome || got.Message != d.Message || got.Attempt != d.Attempt || got.Attempt != tc.attempt {
				t.Errorf("PlacePending: %s %q on %q, attempt %d; ScheduleOne: %s %q on %q, attempt %d (want attempt %d)",
					got.Outcome, got.Message, got.Node, got.Attempt, d.Outcome, d.Message, d.Node, d.Attempt, tc.attempt)
			}
		})
	}
}

// PlacePending refuses, naming the pod and why, a pod the cluster does not
// hold, a pod already on a node, and a pod its scheduling gates hold.
func TestPlacePendingErrors(t *testing.T) {
	w := pendingCluster(t)
	before := wiCapture(w)
	for _, tc := range []struct{ name, want string }{
		{"nope", "unknown pod default/nope"},
		{"web-1", `pod default/web-1 is Bound on node "a", not pending`},
		{"gated", "pod default/gated is gated"},
	} {
		_, err := w.PlacePending(context.Background(), "default", tc.name)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("PlacePending(default, %s): error %v, want one containing %q", tc.name, err, tc.want)
		}
		wiUnchanged(t, w, before)
	}
}
