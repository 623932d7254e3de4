package replay

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/filter/noderesources"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/scheduling"
)

// TestPropHintsChangeNothingWithoutUnschedulablePods: on scenarios where
// every pod fits when it arrives (big nodes, small pods; node updates,
// NodeMetric reports, node additions and completions interleaved), the
// decision log with queueing hints is byte-identical to the log without
// them — hints only decide which unschedulable pods an event moves — and
// byte-identical across parallelism.
func TestPropHintsChangeNothingWithoutUnschedulablePods(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := &Scenario{}
		node := func(i int, label string) *api.Node {
			return builder.MakeNode().Name(fmt.Sprintf("n%02d", i)).Label("zone", fmt.Sprintf("z%d", i%3)).Label("kind", label).
				Label("kubernetes.io/hostname", fmt.Sprintf("n%02d", i)).
				Capacity(map[string]string{"cpu": "64", "memory": "256Gi", "pods": "110"}).Obj()
		}
		nodes := rapid.IntRange(1, 8).Draw(t, "nodes")
		for i := range nodes {
			w.Nodes = append(w.Nodes, node(i, "a"))
		}
		for i := range rapid.IntRange(1, 40).Draw(t, "pods") {
			p := builder.MakePod().Name(fmt.Sprintf("p%02d", i)).Label("app", fmt.Sprintf("a%d", rapid.IntRange(0, 2).Draw(t, "app"))).
				Container(fmt.Sprintf("img%d", rapid.IntRange(0, 3).Draw(t, "img")),
					map[string]string{"cpu": fmt.Sprintf("%dm", 100*rapid.IntRange(1, 20).Draw(t, "cpu")), "memory": fmt.Sprintf("%dMi", 64*rapid.IntRange(1, 16).Draw(t, "mem"))})
			if rapid.Bool().Draw(t, "prio") {
				p = p.Priority(100)
			}
			w.Arrivals = append(w.Arrivals, PodArrival{At: time.Duration(rapid.IntRange(0, 60).Draw(t, "at")) * time.Second,
				Duration: time.Duration(rapid.IntRange(0, 40).Draw(t, "dur")) * time.Second, Pod: p.Obj()})
		}
		for range rapid.IntRange(0, 20).Draw(t, "events") {
			at := time.Duration(rapid.IntRange(0, 70).Draw(t, "evAt")) * time.Second
			switch rapid.IntRange(0, 2).Draw(t, "evKind") {
			case 0:
				w.NodeEvents = append(w.NodeEvents, NodeEvent{At: at, Action: NodeUpdate, Node: node(rapid.IntRange(0, nodes-1).Draw(t, "upd"), rapid.SampledFrom([]string{"a", "b"}).Draw(t, "label"))})
			case 1:
				m := builder.MakeNodeMetric(fmt.Sprintf("n%02d", rapid.IntRange(0, nodes-1).Draw(t, "metric"))).UpdateTime(scT0.Add(at)).
					Usage(map[string]string{"cpu": fmt.Sprintf("%d", rapid.IntRange(0, 8).Draw(t, "use"))}).Obj()
				w.NodeEvents = append(w.NodeEvents, NodeEvent{At: at, Action: NodeMetricUpdate, Metric: m})
			default:
				w.NodeEvents = append(w.NodeEvents, NodeEvent{At: at, Action: NodeAdd, Node: node(nodes, "a")})
				nodes++
			}
		}
		seed := rapid.Uint64().Draw(t, "seed")
		run := func(hints bool, par int) string {
			res, err := Replay(context.Background(), w, Options{Seed: seed, Parallelism: par, Start: scT0,
				SchedulerOptions: []scheduling.Option{scheduling.WithQueueOptions(scheduling.QueueOptions{DisableQueueingHints: !hints})}})
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			if err := res.WriteLog(&b); err != nil {
				t.Fatal(err)
			}
			for _, d := range res.Decisions {
				if d.Outcome != scheduling.OutcomeScheduled {
					t.Fatalf("precondition: a pod was not placed at once: %s", b.String())
				}
			}
			return b.String()
		}
		want := run(false, 1)
		if got := run(true, 1); got != want {
			t.Fatalf("with hints (-without +with):\n%s", cmp.Diff(want, got))
		}
		if got := run(true, 3); got != want {
			t.Fatalf("with hints at parallelism 3 (-1 +3):\n%s", cmp.Diff(want, got))
		}
	})
}

// TestTrimaranScenarioFiles: cluster files carry nodeLoads and arrivals
// files "load" node events; the replay's Trimaran plugin reads both, and a
// bad NodeLoad is an error naming it.
func TestTrimaranScenarioFiles(t *testing.T) {
	const clusterJSON = `{
 "nodes": [
  {"metadata": {"name": "a"}, "status": {"capacity": {"cpu": "10", "memory": "10Gi", "pods": "100"}, "allocatable": {"cpu": "10", "memory": "10Gi", "pods": "100"}}},
  {"metadata": {"name": "b"}, "status": {"capacity": {"cpu": "10", "memory": "10Gi", "pods": "100"}, "allocatable": {"cpu": "10", "memory": "10Gi", "pods": "100"}}}],
 "nodeLoads": [
  {"metadata": {"name": "a"}, "metrics": [{"type": "CPU", "operator": "AVG", "value": 10}]},
  {"metadata": {"name": "b"}, "metrics": [{"type": "CPU", "operator": "AVG", "value": 30}]}]
}`
	const arrivalsJSON = `{
 "pods": [
  {"arrival": "0s", "pod": {"metadata": {"name": "p1"}, "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "100m"}}}]}}},
  {"arrival": "20s", "pod": {"metadata": {"name": "p2"}, "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "100m"}}}]}}}],
 "nodeEvents": [
  {"at": "10s", "action": "load", "load": {"metadata": {"name": "b"}, "metrics": [{"type": "CPU", "operator": "AVG", "value": 95}]}}]
}`
	var w Scenario
	if err := ReadCluster(strings.NewReader(clusterJSON), "cluster.json", &w); err != nil {
		t.Fatal(err)
	}
	if err := ReadArrivals(strings.NewReader(arrivalsJSON), "workload.json", &w); err != nil {
		t.Fatal(err)
	}
	p := framework.Profile{QueueSort: []string{config.PrioritySortName}, PreScore: []string{config.TargetLoadPackingName},
		Score: []string{config.TargetLoadPackingName}, Weights: map[string]int64{config.TargetLoadPackingName: 1},
		PostBind: []string{config.TargetLoadPackingName}, Bind: []string{config.DefaultBinderName}}
	res, err := Replay(context.Background(), &w, Options{Profiles: []framework.Profile{p}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, o := range res.Pods {
		got[o.Pod] = o.Node
	}
	if want := map[string]string{"default/p1": "b", "default/p2": "a"}; !cmp.Equal(got, want) {
		t.Errorf("placements %v, want %v", got, want)
	}
	bad := Scenario{Nodes: w.Nodes, NodeLoads: []*api.NodeLoad{{ObjectMeta: api.ObjectMeta{Name: "a"}, Metrics: []api.LoadMetric{{Type: "CPU", Value: -1}}}}}
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), `nodeLoads[0]: NodeLoad "a": metrics[0] (CPU ).value=-1`) {
		t.Errorf("Validate = %v", err)
	}
	ev := Scenario{Nodes: w.Nodes, NodeEvents: []NodeEvent{{Action: NodeLoadUpdate, Load: &api.NodeLoad{ObjectMeta: api.ObjectMeta{Name: "zz"}}}}}
	if err := ev.Validate(); err == nil || !strings.Contains(err.Error(), `node "zz" is never in the cluster`) {
		t.Errorf("Validate = %v", err)
	}
}

// TestReplayDisplaced: a high-priority pod preempts a low-priority one; the
// replay lists the displacement and, with Resubmit, that the victim was
// placed again once room came back.
func TestReplayDisplaced(t *testing.T) {
	w := Scenario{Nodes: []*api.Node{st.MakeNode().Name("n").Capacity(ppCap(map[string]string{"cpu": "1"})).Obj()},
		Arrivals: []PodArrival{
			{At: 0, Pod: st.MakePod().Name("low").Priority(ppLow).Req(map[string]string{"cpu": "1"}).Obj()},
			{At: time.Second, Duration: 10 * time.Second, Pod: st.MakePod().Name("high").Priority(ppHigh).Req(map[string]string{"cpu": "1"}).Obj()},
		}}
	start := time.Unix(0, 0).UTC()
	for _, tt := range []struct {
		resubmit bool
		want     []Displacement
	}{
		{false, []Displacement{{Pod: "default/low", By: "default/high", Node: "n", At: start.Add(time.Second)}}},
		{true, []Displacement{{Pod: "default/low", By: "default/high", Node: "n", At: start.Add(time.Second),
			Placed: true, PlacedNode: "n", PlacedAt: start.Add(11 * time.Second)}}},
	} {
		res, err := Replay(context.Background(), &w, Options{Resubmit: tt.resubmit})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, res.Displaced); diff != "" {
			t.Errorf("resubmit=%v: displaced (-want +got):\n%s", tt.resubmit, diff)
		}
	}
}

// TestPropReuseExact: on random clusters of fewer than 100 nodes (every
// node evaluated) with score plugins that do not normalize, replicas of a
// few deployments arriving in bursts get the same placements, attempts
// and failures with pod-signature reuse as without it.
func TestPropReuseExact(t *testing.T) {
	reusedSome := false
	rapid.Check(t, func(t *rapid.T) {
		w := &Scenario{}
		for i := range rapid.IntRange(1, 60).Draw(t, "nodes") {
			w.Nodes = append(w.Nodes, builder.MakeNode().Name(fmt.Sprintf("n%02d", i)).Label("kubernetes.io/hostname", fmt.Sprintf("n%02d", i)).
				Capacity(map[string]string{
					"cpu":    fmt.Sprint(rapid.IntRange(1, 8).Draw(t, "cpu")),
					"memory": fmt.Sprintf("%dGi", rapid.IntRange(2, 32).Draw(t, "mem")),
					"pods":   fmt.Sprint(rapid.IntRange(1, 10).Draw(t, "pods"))}).
				Image(int64(rapid.IntRange(0, 3).Draw(t, "imgSize"))<<28, fmt.Sprintf("img%d", rapid.IntRange(0, 2).Draw(t, "img"))).Obj())
		}
		n := 0
		for d := range rapid.IntRange(1, 6).Draw(t, "deployments") {
			req := map[string]string{"cpu": fmt.Sprintf("%dm", 250*rapid.IntRange(1, 12).Draw(t, "podCPU")), "memory": fmt.Sprintf("%dMi", 256*rapid.IntRange(1, 16).Draw(t, "podMem"))}
			img := fmt.Sprintf("img%d", rapid.IntRange(0, 2).Draw(t, "podImg"))
			at := time.Duration(rapid.IntRange(0, 3).Draw(t, "burst")) * time.Second
			for range rapid.IntRange(1, 25).Draw(t, "replicas") {
				n++
				w.Arrivals = append(w.Arrivals, PodArrival{At: at, Pod: builder.MakePod().Name(fmt.Sprintf("d%d-%03d", d, n)).Label("app", fmt.Sprint(d)).Container(img, req).Obj()})
			}
		}
		profile := resourcesOnlyProfile(rapid.SampledFrom([]noderesources.ScoringStrategyType{noderesources.LeastAllocated, noderesources.MostAllocated}).Draw(t, "strategy"))
		seed := rapid.Uint64().Draw(t, "seed")
		run := func(reuse bool) (*Result, int) {
			res, err := Replay(context.Background(), w, Options{Seed: seed, Profiles: []framework.Profile{profile},
				SchedulerOptions: []scheduling.Option{scheduling.WithSignatureReuse(reuse)}})
			if err != nil {
				t.Fatal(err)
			}
			reused := 0
			for _, d := range res.Decisions {
				if d.FastPath == scheduling.FastPathReused {
					reused++
				}
			}
			return res, reused
		}
		with, reused := run(true)
		without, none := run(false)
		if none != 0 {
			t.Fatalf("%d reused decisions with reuse off", none)
		}
		reusedSome = reusedSome || reused > 0
		if diff := cmp.Diff(without.Pods, with.Pods); diff != "" {
			t.Fatalf("placements differ (-without +with), %d reused:\n%s", reused, diff)
		}
		if len(with.Decisions) != len(without.Decisions) {
			t.Fatalf("%d decisions with reuse, %d without", len(with.Decisions), len(without.Decisions))
		}
		for i := range with.Decisions {
			a, b := with.Decisions[i], without.Decisions[i]
			if a.Pod != b.Pod || a.Node != b.Node || a.Outcome != b.Outcome || a.Attempt != b.Attempt || a.Time != b.Time {
				t.Fatalf("decision %d: %s %s %s (with) vs %s %s %s (without)", i, a.Pod, a.Outcome, a.Node, b.Pod, b.Outcome, b.Node)
			}
		}
	})
	if !reusedSome {
		t.Error("no run reused a ranking: the property tested nothing")
	}
}

// TestReplayRejectsBadOptions: invalid replay options are errors naming
// the option and the value.
func TestReplayRejectsBadOptions(t *testing.T) {
	if _, err := Replay(context.Background(), &Scenario{}, Options{Parallelism: -1}); err == nil || !strings.Contains(err.Error(), "Parallelism=-1") {
		t.Fatalf("replay parallelism: %v", err)
	}
	if _, err := Replay(context.Background(), &Scenario{}, Options{Until: -time.Second}); err == nil || !strings.Contains(err.Error(), "Until=-1s") {
		t.Fatalf("replay until: %v", err)
	}
}

// wgArrivals is two 4-cpu nodes, kube gang a (4 pods of 1 cpu, 60 s,
// minCount 4) at 0 s and kube gang b (6 pods of 1 cpu, 60 s, minCount 6)
// at 1 s, read from an arrivals file.
const wgArrivals = `{
 "workloadGroups": [
  {"podGroup": {"metadata": {"name": "a"}, "spec": {"schedulingPolicy": {"gang": {"minCount": 4}}}}, "count": 4, "arrival": "0s", "duration": "60s",
   "pod": {"spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}}},
  {"podGroup": {"metadata": {"name": "b"}, "spec": {"schedulingPolicy": {"gang": {"minCount": 6}}}}, "count": 6, "arrival": "1s", "duration": "60s",
   "pod": {"spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}}}]
}`

// TestReplayWorkloadGroups: kube's PodGroups declared in an arrivals file,
// replayed with the pod group cycle but no GangScheduling (the cycle then
// places what fits, pod by pod: b binds 4 of its 6 pods at 1 s, which hold
// their cpu idle until a finishes at 60 s, 4 × 59 = 236 wasted
// pod-seconds) and with GangScheduling (b waits unbound and wastes
// nothing). Both become whole at 60 s; the outcomes are marked Kube.
func TestReplayWorkloadGroups(t *testing.T) {
	w := Scenario{Nodes: rgNodes(2, "4")}
	if err := ReadArrivals(strings.NewReader(wgArrivals), "kube-gangs.json", &w); err != nil {
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
		{"default profile", scheduling.DefaultProfile(), want(236)},
		{"GangScheduling", scheduling.EnableWorkloadScheduling(scheduling.DefaultProfile(), wgFeatures), want(0)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Replay(context.Background(), &w, Options{Profiles: []framework.Profile{tt.profile},
				SchedulerOptions: []scheduling.Option{scheduling.WithWorkloadFeatures(wgFeatures)}})
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

// TestReadWorkloadGroupErrors: bad kube PodGroups in an arrivals file are
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
		w := Scenario{Nodes: rgNodes(1, "4")}
		err := ReadArrivals(strings.NewReader(b.in), "w.json", &w)
		if err == nil {
			_, err = Replay(context.Background(), &w, Options{})
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
		feats := framework.WorkloadFeatures{GenericWorkload: true, GangScheduling: true,
			TopologyAwareWorkloadScheduling: rapid.Bool().Draw(t, "tas"), WorkloadAwarePreemption: rapid.Bool().Draw(t, "wap")}
		w := Scenario{}
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
		res, err := Replay(context.Background(), &w, Options{Profiles: []framework.Profile{scheduling.EnableWorkloadScheduling(scheduling.DefaultProfile(), feats)},
			SchedulerOptions: []scheduling.Option{scheduling.WithWorkloadFeatures(feats)}, Until: time.Hour})
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
		last := map[string]scheduling.Outcome{}
		for _, d := range res.Decisions {
			last[d.Pod] = d.Outcome
		}
		for pod, o := range last {
			if o == scheduling.OutcomeWaiting {
				t.Fatalf("pod %s still reserved at Permit at the end", pod)
			}
		}
	})
}
