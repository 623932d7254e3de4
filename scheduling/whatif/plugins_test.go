package whatif

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/filter/loadaware"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

// TestWhatIfLeavesPluginStateAsItWas: every question runs on a Scheduler
// fork, which branches the plugins' own state too (no compensation in
// WhatIf): after Place (with a preemption dry run), Capacity, Drain and
// ScaleUp, LoadAware's usage cache is as before, and the next placement
// scores every node as a WhatIf that was never asked anything (Capacity's
// bindings must not drop TargetLoadPacking's record of an older one).
func TestWhatIfLeavesPluginStateAsItWas(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	build := func() (*WhatIf, *framework.FakeClock) {
		// Each node is full by requests but lightly used: its pod was
		// scheduled an hour ago and the NodeMetric reports its usage, so
		// LoadAware lets preemption make room.
		names := []string{"a", "b", "c"}
		var nodes []*api.Node
		var pods []*api.Pod
		for i, n := range names {
			nodes = append(nodes, wiNode(n, "16").Obj())
			pods = append(pods, wiPod("low-"+n, fmt.Sprint(12+i)).Node(n).Priority(0).
				Condition(api.PodScheduled, api.ConditionTrue, now.Add(-time.Hour)).Obj())
		}
		c, err := cluster.NewFrom(nodes, pods)
		if err != nil {
			t.Fatal(err)
		}
		reg := scheduling.NewDefaultRegistry()
		prof := scheduling.DefaultProfile()
		for _, name := range []string{config.LoadAwareSchedulingName, config.TargetLoadPackingName} {
			if err := prof.Enable(reg, name, 1); err != nil {
				t.Fatal(err)
			}
		}
		clock := framework.NewFakeClock(now)
		w, err := New(c, reg, []framework.Profile{prof}, scheduling.WithSeed(7), scheduling.WithClock(clock))
		if err != nil {
			t.Fatal(err)
		}
		// A pod bound 7 minutes ago, which TargetLoadPacking still counts
		// (the loads have no window) and a new binding on its node would
		// drop as too old.
		if d, err := w.Scheduler().SchedulePod(context.Background(), wiPod("old", "1").Obj()); err != nil || d.Node == "" {
			t.Fatalf("old: %+v %v", d, err)
		}
		if err := clock.Advance(7 * time.Minute); err != nil {
			t.Fatal(err)
		}
		for i, n := range names {
			m := st.MakeNodeMetric(n).UpdateTime(clock.Now()).ReportInterval(60).
				Usage(map[string]string{"cpu": fmt.Sprintf("%dm", 1000+500*i), "memory": "2Gi"}).
				Pod("default", "low-"+n, "", map[string]string{"cpu": "1", "memory": "1Gi"}).Obj()
			if err := w.Scheduler().UpdateNodeMetric(m); err != nil {
				t.Fatal(err)
			}
			if err := w.Scheduler().UpdateNodeLoad(fpLoad(n, float64(10*(i+1)))); err != nil {
				t.Fatal(err)
			}
		}
		return w, clock
	}
	asked, _ := build()
	plain, _ := build()
	fw, _ := asked.Scheduler().Framework(scheduling.DefaultSchedulerName)
	pl, _ := fw.Plugin(config.LoadAwareSchedulingName)
	cache := pl.(*loadaware.LoadAwareScheduling).Cache()
	before, usage := wiCapture(asked), cache.States()
	ctx := context.Background()
	check := func(question string) {
		t.Helper()
		wiUnchanged(t, asked, before)
		if d := cmp.Diff(usage, cache.States()); d != "" {
			t.Fatalf("%s changed LoadAware's usage cache (-before +after):\n%s", question, d)
		}
	}
	if _, err := asked.Place(ctx, wiPod("fits", "1").Obj()); err != nil {
		t.Fatal(err)
	}
	check("Place")
	if ans, err := asked.Place(ctx, wiPod("urgent", "5").Priority(100).Obj()); err != nil || ans.Preemption == nil {
		t.Fatalf("Place urgent: %+v %v, want a preemption plan", ans, err)
	}
	check("Place with preemption")
	if ans, err := asked.Capacity(ctx, wiPod("rep", "1").Obj(), CapacityOptions{}); err != nil || ans.Replicas == 0 {
		t.Fatalf("Capacity: %+v %v", ans, err)
	}
	check("Capacity")
	if _, err := asked.Drain(ctx, []string{"c"}, DrainOptions{}); err != nil {
		t.Fatal(err)
	}
	check("Drain")
	if _, err := asked.ScaleUp(ctx, wiNode("new", "8").Obj(), ScaleUpOptions{}); err != nil {
		t.Fatal(err)
	}
	check("ScaleUp")

	var got, want []string
	for _, w := range []*WhatIf{asked, plain} {
		ans, err := w.Place(ctx, wiPod("probe", "1").Obj())
		if err != nil {
			t.Fatal(err)
		}
		lines := fpScores([]scheduling.Decision{ans.Decision})
		if w == asked {
			got = lines
		} else {
			want = lines
		}
	}
	if len(want) == 0 {
		t.Fatal("the probe has no scores")
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("scores after the questions (-never asked +asked):\n%s", d)
	}
}
