package scheduling

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

var wgFeatures = framework.WorkloadFeatures{GenericWorkload: true, GangScheduling: true}

// TestPropWorkloadGroupForkRevert: any sequence of kube PodGroup and
// Workload events (add, status update, delete), gang pods arriving and
// scheduling inside a fork (the clock moving before it) is undone exactly by
// Revert: the cluster (its PodGroups, Workloads and gang index included)
// and the scheduler's queue, nominations and pods held at Permit equal
// those before the Fork, and the scheduler then makes the same decisions
// as one that never forked.
func TestPropWorkloadGroupForkRevert(t *testing.T) {
	type env struct {
		s         *Scheduler
		clock     *framework.FakeClock
		decisions []Decision
	}
	mk := func(t *rapid.T) *env {
		c, err := cluster.NewFrom([]*api.Node{csNode("n0"), csNode("n1")}, nil)
		if err != nil {
			t.Fatal(err)
		}
		e := &env{clock: framework.NewFakeClock(scT0)}
		e.s, err = New(c, NewDefaultRegistry(), []framework.Profile{EnableWorkloadScheduling(DefaultProfile(), wgFeatures)}, WithClock(e.clock), WithSeed(7),
			WithWorkloadFeatures(wgFeatures), WithDecisionHandler(func(d Decision) { e.decisions = append(e.decisions, d) }))
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	type op struct {
		kind, group, min, cpu int
		name                  string
	}
	// The clock is the caller's: a branch does not move it (Revert would not
	// move it back).
	draw := func(t *rapid.T, i int, branch bool) op {
		kind := rapid.IntRange(0, 7).Draw(t, "kind")
		if branch && kind == 6 {
			kind = 5
		}
		return op{kind: kind, group: rapid.IntRange(0, 2).Draw(t, "group"), min: rapid.IntRange(1, 3).Draw(t, "min"),
			cpu: rapid.IntRange(1, 3).Draw(t, "cpu"), name: fmt.Sprintf("p%d", i)}
	}
	// on is the scheduler or a fork of it.
	type ops interface {
		AddWorkloadPodGroup(*api.WorkloadPodGroup) error
		UpdateWorkloadPodGroup(*api.WorkloadPodGroup) error
		DeleteWorkloadPodGroup(string, string) error
		AddWorkload(*api.Workload) error
		DeleteWorkload(string, string) error
		AddPod(*api.Pod) error
		RunUntilIdle(context.Context) int
		Cluster() *cluster.Cluster
	}
	apply := func(t *rapid.T, e *env, on ops, o op) {
		g := fmt.Sprintf("g%d", o.group)
		switch o.kind {
		case 0:
			_ = on.AddWorkloadPodGroup(gsGang("ns", g, int32(o.min)))
		case 1:
			_ = on.DeleteWorkloadPodGroup("ns", g)
		case 2:
			if cur, ok := on.Cluster().WorkloadPodGroup("ns", g); ok {
				up := *cur
				up.Status.Conditions = append(up.Status.Conditions[:0:0], api.Condition{Type: "Custom", Status: api.ConditionTrue, Message: o.name})
				if err := on.UpdateWorkloadPodGroup(&up); err != nil {
					t.Fatal(err)
				}
			}
		case 3, 4:
			p := gsPod("ns", o.name, g)
			p.Spec.Containers[0].Resources.Requests = resource.MustParseList(map[string]string{"cpu": fmt.Sprint(o.cpu)})
			if err := on.AddPod(p); err != nil {
				t.Fatal(err)
			}
		case 5:
			on.RunUntilIdle(context.Background())
		case 6:
			if err := e.clock.Advance(time.Duration(o.cpu) * 2 * time.Minute); err != nil {
				t.Fatal(err)
			}
		case 7:
			wl := &api.Workload{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: g}, Spec: api.WorkloadSpec{PodGroupTemplates: []api.PodGroupTemplate{
				{Name: "t", SchedulingPolicy: api.PodGroupSchedulingPolicy{Gang: &api.GangSchedulingPolicy{MinCount: int32(o.min)}}}}}}
			if err := on.AddWorkload(wl); err != nil {
				_ = on.DeleteWorkload("ns", g)
			}
		}
	}
	view := func(t *rapid.T, e *env) any {
		return struct {
			Cluster clusterView
			Sched   fkView
		}{clusterViewOf(e.s.cluster), fkViewOf(t, &scEnv{s: e.s, clock: e.clock})}
	}
	rapid.Check(t, func(t *rapid.T) {
		forked, plain := mk(t), mk(t)
		for i := range rapid.IntRange(0, 10).Draw(t, "prefix") {
			o := draw(t, i, false)
			apply(t, forked, forked.s, o)
			apply(t, plain, plain.s, o)
		}
		before := view(t, forked)
		f := mustFork(t, forked.s)
		for i := range rapid.IntRange(1, 12).Draw(t, "branch") {
			apply(t, forked, f, draw(t, 100+i, true))
		}
		if err := f.Revert(); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(before, view(t, forked), vecCmp); d != "" {
			t.Fatalf("after Revert (-before +after):\n%s", d)
		}
		mark, markPlain := len(forked.decisions), len(plain.decisions)
		for i := range rapid.IntRange(0, 6).Draw(t, "suffix") {
			o := draw(t, 200+i, false)
			apply(t, forked, forked.s, o)
			apply(t, plain, plain.s, o)
		}
		for _, e := range []*env{forked, plain} {
			e.s.RunUntilIdle(context.Background())
		}
		if d := cmp.Diff(fkDecisions(plain.decisions[markPlain:]), fkDecisions(forked.decisions[mark:])); d != "" {
			t.Fatalf("decisions after Revert (-never forked +forked):\n%s", d)
		}
	})
}
