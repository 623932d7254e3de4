package scheduling

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
)

// wgWorkload is two 4-cpu nodes, kube gang a (4 pods of 1 cpu, 60 s,
// minCount 4) at 0 s and kube gang b (6 pods of 1 cpu, 60 s, minCount 6)
// at 1 s, read from a workload file.
const wgWorkload = `{
 "workloadGroups": [
  {"podGroup": {"metadata": {"name": "a"}, "spec": {"schedulingPolicy": {"gang": {"minCount": 4}}}}, "count": 4, "arrival": "0s", "duration": "60s",
   "pod": {"spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}}},
  {"podGroup": {"metadata": {"name": "b"}, "spec": {"schedulingPolicy": {"gang": {"minCount": 6}}}}, "count": 6, "arrival": "1s", "duration": "60s",
   "pod": {"spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}}}]
}`

var wgFeatures = WorkloadFeatures{GenericWorkload: true, GangScheduling: true}

// TestReplayWorkloadGroups: kube's PodGroups declared in a workload file,
// replayed with the pod group cycle but no GangScheduling (the cycle then
// places what fits, pod by pod: b binds 4 of its 6 pods at 1 s, which hold
// their cpu idle until a finishes at 60 s, 4 × 59 = 236 wasted
// pod-seconds) and with GangScheduling (b waits unbound and wastes
// nothing). Both become whole at 60 s; the outcomes are marked Kube.
func TestReplayWorkloadGroups(t *testing.T) {
	w := Workload{Nodes: rgNodes(2, "4")}
	if err := ReadWorkload(strings.NewReader(wgWorkload), "kube-gangs.json", &w); err != nil {
		t.Fatal(err)
	}
	if p := w.Arrivals[0].Pod; api.WorkloadPodGroupKey(p) != "default/a" || p.Name != "a-0" {
		t.Fatalf("first pod %s names group %q", p.Key(), api.WorkloadPodGroupKey(p))
	}
	start := time.Unix(0, 0).UTC()
	want := func(b float64) []GangOutcome {
		return []GangOutcome{
			{Group: "default/a", MinMember: 4, Pods: 4, Kube: true, Whole: true, Arrival: start, Start: start, MaxBound: 4},
			{Group: "default/b", MinMember: 6, Pods: 6, Kube: true, Whole: true, Arrival: start.Add(time.Second), Start: start.Add(60 * time.Second),
				Wait: 59 * time.Second, MaxBound: 6, WastedPodSeconds: b},
		}
	}
	for _, tt := range []struct {
		name    string
		profile framework.Profile
		want    []GangOutcome
	}{
		{"default profile", DefaultProfile(), want(236)},
		{"GangScheduling", EnableWorkloadScheduling(DefaultProfile(), wgFeatures), want(0)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Replay(context.Background(), &w, ReplayOptions{Profiles: []framework.Profile{tt.profile},
				SchedulerOptions: []Option{WithWorkloadFeatures(wgFeatures)}})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, res.Gangs); diff != "" {
				t.Errorf("gangs (-want +got):\n%s", diff)
			}
			if got := res.Count()[FateCompleted]; got != 10 {
				t.Errorf("%d pods completed, want 10", got)
			}
			if len(res.EventErrors) != 0 {
				t.Errorf("event errors %v", res.EventErrors)
			}
		})
	}
}

// TestReadWorkloadGroupErrors: bad kube PodGroups in a workload file are
// errors naming the group and the field before anything runs.
func TestReadWorkloadGroupErrors(t *testing.T) {
	for _, b := range []struct{ in, want string }{
		{`{"workloadGroups": [{"podGroup": {"metadata": {"name": "g"}, "spec": {"schedulingPolicy": {"gang": {"minCount": 0}}}}, "count": 1, "pod": {}}]}`,
			"PodGroup default/g: spec.schedulingPolicy.gang.minCount=0: must be at least 1"},
		{`{"workloadGroups": [{"podGroup": {"metadata": {"name": "g"}, "spec": {"schedulingPolicy": {}}}, "count": 1, "pod": {}}]}`, "got neither"},
		{`{"workloadGroups": [{"podGroup": {"metadata": {"name": "g"}, "spec": {"schedulingPolicy": {"basic": {}}, "disruptionMode": "Node"}}, "count": 1, "pod": {}}]}`,
			`spec.disruptionMode="Node": must be "Pod" or "PodGroup"`},
		{`{"workloadGroups": [{"podGroup": {"metadata": {"name": "g"}, "spec": {"schedulingPolicy": {"basic": {}}}}, "count": -1, "pod": {}}]}`, "count=-1"},
		{`{"workloadGroups": [{"podGroup": {"metadata": {"name": "g"}, "spec": {"schedulingPolicy": {"basic": {}}}}, "count": 1, "arrival": "-1s", "pod": {}}]}`, "arrival=-1s"},
		{`{"workloadGroups": [{"podGroup": {"metadata": {"name": "g", "namespace": "a"}, "spec": {"schedulingPolicy": {"basic": {}}}}, "count": 1, "pod": {"metadata": {"namespace": "b"}}}]}`,
			`must be the PodGroup's namespace "a"`},
		{`{"workloadGroups": [{"podGroup": {"metadata": {"name": "g"}, "spec": {"schedulingPolicy": {"basic": {}}}}}, {"podGroup": {"metadata": {"name": "g"}, "spec": {"schedulingPolicy": {"basic": {}}}}}]}`,
			"PodGroup default/g: duplicate kube PodGroup"},
		{`{"workloadGroups": [{"podGroup": {"metadata": {"name": "g"}, "spec": {"schedulingPolicy": {"basic": {}}}}, "count": 1, "pod": {}, "extra": 1}]}`, "extra"},
	} {
		w := Workload{Nodes: rgNodes(1, "4")}
		err := ReadWorkload(strings.NewReader(b.in), "w.json", &w)
		if err == nil {
			_, err = Replay(context.Background(), &w, ReplayOptions{})
		}
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%s: err = %v, want it to mention %q", b.in, err, b.want)
		}
	}
}

// TestPropKubeGangNeverPartlyBound: random kube gangs (some larger than the
// cluster could ever hold, some with minCount below their size, some
// zone-constrained when TopologyAwareWorkloadScheduling is on) replayed
// with GangScheduling: at the end no gang is partly bound (its running pods
// are none or at least minCount), no pod of a gang that never became whole
// was ever bound, and no pod is left reserved at Permit. With
// WorkloadAwarePreemption, gangs of different priorities whose PodGroups
// are disrupted as a whole preempt one another and the same holds.
func TestPropKubeGangNeverPartlyBound(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		feats := WorkloadFeatures{GenericWorkload: true, GangScheduling: true,
			TopologyAwareWorkloadScheduling: rapid.Bool().Draw(t, "tas"), WorkloadAwarePreemption: rapid.Bool().Draw(t, "wap")}
		w := Workload{}
		for i := range rapid.IntRange(1, 4).Draw(t, "nodes") {
			w.Nodes = append(w.Nodes, plZoneNode(fmt.Sprintf("n%d", i), rapid.SampledFrom([]string{"a", "b"}).Draw(t, "zone")))
			w.Nodes[i].Status.Capacity[resource.CPU] = resource.MustParse(fmt.Sprint(rapid.IntRange(1, 8).Draw(t, "cpu")))
			w.Nodes[i].Status.Allocatable = w.Nodes[i].Status.Capacity
		}
		for gi := range rapid.IntRange(1, 5).Draw(t, "gangs") {
			size := rapid.IntRange(1, 10).Draw(t, "size")
			g := gsGang("default", fmt.Sprintf("g%d", gi), int32(rapid.IntRange(1, size).Draw(t, "minCount")))
			if feats.TopologyAwareWorkloadScheduling && rapid.Bool().Draw(t, "zoned") {
				g = plZoned("default", g.Name, g.Spec.SchedulingPolicy.Gang.MinCount)
			}
			if feats.WorkloadAwarePreemption {
				mode, prio := api.DisruptionModePodGroup, int32(rapid.IntRange(0, 2).Draw(t, "priority"))*100
				g.Spec.DisruptionMode, g.Spec.Priority = &mode, &prio
			}
			at := time.Duration(rapid.IntRange(0, 20).Draw(t, "at")) * time.Second
			w.WorkloadGroups = append(w.WorkloadGroups, WorkloadGroupArrival{At: at, Group: g})
			cpu := fmt.Sprintf("%dm", 250*rapid.IntRange(1, 8).Draw(t, "podcpu"))
			for i := range size {
				p := gsPod("default", fmt.Sprintf("%s-%d", g.Name, i), g.Name)
				p.Spec.Containers[0].Resources.Requests = resource.MustParseList(map[string]string{"cpu": cpu})
				if g.Spec.Priority != nil {
					p.Spec.Priority = g.Spec.Priority
				}
				w.Arrivals = append(w.Arrivals, PodArrival{At: at + time.Duration(i)*time.Second/10, Pod: p})
			}
		}
		res, err := Replay(context.Background(), &w, ReplayOptions{Profiles: []framework.Profile{EnableWorkloadScheduling(DefaultProfile(), feats)},
			SchedulerOptions: []Option{WithWorkloadFeatures(feats)}, Until: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		running := map[string]int{}
		for _, o := range res.Pods {
			if o.Fate == FateRunning {
				ns, name, _ := strings.Cut(o.Pod, "/")
				running[ns+"/"+name[:strings.LastIndex(name, "-")]]++
			}
		}
		for _, g := range res.Gangs {
			if !g.Kube {
				t.Fatalf("gang %s not marked Kube", g.Group)
			}
			if n := running[g.Group]; n != 0 && n < g.MinMember {
				t.Fatalf("gang %s partly bound at the end: %d running, minCount %d", g.Group, n, g.MinMember)
			}
			if !g.Whole && g.MaxBound != 0 {
				t.Fatalf("gang %s never whole yet %d of its pods were bound", g.Group, g.MaxBound)
			}
		}
		last := map[string]Outcome{}
		for _, d := range res.Decisions {
			last[d.Pod] = d.Outcome
		}
		for pod, o := range last {
			if o == OutcomeWaiting {
				t.Fatalf("pod %s still reserved at Permit at the end", pod)
			}
		}
	})
}

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
		c, err := NewClusterFrom([]*api.Node{csNode("n0"), csNode("n1")}, nil)
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
		Cluster() *Cluster
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
			Cluster clExact
			Sched   fkView
		}{e.s.cluster.exact(), fkViewOf(t, &scEnv{s: e.s, clock: e.clock})}
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
		if d := cmp.Diff(before, view(t, forked), clVecCmp); d != "" {
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
