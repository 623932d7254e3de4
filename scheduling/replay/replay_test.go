package replay

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/scheduling"
)

func rpNode(name, cpu string) *api.Node {
	return st.MakeNode().Name(name).Capacity(map[string]string{"cpu": cpu, "memory": "16Gi", "pods": "10"}).Obj()
}

// TestReplayScenario is worked by hand with ScFit and ScLeast (free cpu
// share after placing, in %):
//
//	t=0   a(1) n1 50, n2 80 → n2;  b(1) n1 50, n2 60 → n2
//	t=1s  c(1) n1 50, n2 40 → n1
//	t=2s  d(2) n1 no room, n2 20 → n2
//	t=3s  e(3) no room → pending;  f names an unknown scheduler → rejected
//	t=4s  h(10) → pending
//	t=10s a completes → e, h retried, still no room
//	t=20s n3(4) added → e → n3; h: 0/3 nodes fit
//	t=30s n1 removed → c evicted; the pod and node deletions retry h (the
//	      test plugins register no events: every event retries their
//	      rejections): 0/2 nodes fit
func TestReplayScenario(t *testing.T) {
	w := &Scenario{
		Nodes: []*api.Node{rpNode("n1", "2"), rpNode("n2", "5")},
		Arrivals: []PodArrival{
			{At: 0, Duration: 10 * time.Second, Pod: scPod("a", "1").Obj()},
			{At: 0, Pod: scPod("b", "1").Obj()},
			{At: time.Second, Pod: scPod("c", "1").Obj()},
			{At: 2 * time.Second, Pod: scPod("d", "2").Obj()},
			{At: 3 * time.Second, Pod: scPod("e", "3").Obj()},
			{At: 3 * time.Second, Pod: scPod("f", "1").SchedulerName("other").Obj()},
			{At: 4 * time.Second, Pod: scPod("h", "10").Obj()},
		},
		NodeEvents: []NodeEvent{
			{At: 20 * time.Second, Action: NodeAdd, Node: rpNode("n3", "4")},
			{At: 30 * time.Second, Action: NodeRemove, Name: "n1"},
		},
	}
	var progress []int
	res, err := Replay(context.Background(), w, Options{Registry: scRegistry(&scRecorder{}), Profiles: []framework.Profile{rpProfile()}, Seed: 7,
		Progress: func(done, total int) { progress = append(progress, done) }})
	if err != nil {
		t.Fatal(err)
	}
	want := []PodOutcome{
		{Pod: "default/a", Fate: FateCompleted, Node: "n2"},
		{Pod: "default/b", Fate: FateRunning, Node: "n2"},
		{Pod: "default/c", Fate: FateEvicted, Node: "n1", Reason: "node n1 removed"},
		{Pod: "default/d", Fate: FateRunning, Node: "n2"},
		{Pod: "default/e", Fate: FateRunning, Node: "n3"},
		{Pod: "default/f", Fate: FateRejected, Reason: `scheduling: pod default/f: unknown schedulerName "other" (profiles: [default-scheduler])`},
		{Pod: "default/h", Fate: FatePending, Reason: "0/2 nodes are available: 2 Insufficient cpu."},
	}
	if diff := cmp.Diff(want, res.Pods); diff != "" {
		t.Errorf("outcomes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{2, 3, 4, 6, 7}, progress); diff != "" {
		t.Errorf("progress (-want +got):\n%s", diff)
	}
	var log bytes.Buffer
	if err := res.WriteLog(&log); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	if want := "+0.000000s #1 default/a Scheduled node=n2 total=80 margin=30 runner-up=n1 evaluated=2 feasible=2 start=0 attempt=1"; lines[0] != want {
		t.Errorf("first line\n got %s\nwant %s", lines[0], want)
	}
	if !strings.HasPrefix(lines[len(lines)-1], "+30.000000s") || !strings.Contains(lines[len(lines)-1], "default/h Unschedulable") {
		t.Errorf("last line %s", lines[len(lines)-1])
	}
	if res.End != res.Start.Add(30*time.Second) {
		t.Errorf("end %v", res.End.Sub(res.Start))
	}
	// At the last arrival (4 s): n1 1/2 cpu, n2 4/5 → mean 0.65, sd 0.15.
	// At the end: n2 3/5, n3 3/4 → mean 0.675, sd 0.075; memory is unused,
	// so the imbalance is the mean cpu utilization.
	closeTo := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-9 {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	closeTo("loaded cpu mean", res.Metrics.CPU.Mean, 0.65)
	closeTo("loaded cpu sd", res.Metrics.CPU.StdDev, 0.15)
	closeTo("final cpu mean", res.Final.CPU.Mean, 0.675)
	closeTo("final cpu sd", res.Final.CPU.StdDev, 0.075)
	closeTo("final imbalance", res.Final.Imbalance, 0.675)
	if res.PendingAtLastArrival != 2 {
		t.Errorf("pending at last arrival = %d, want 2 (e, h)", res.PendingAtLastArrival)
	}
}

// TestReplayResubmitAndPreemption: with Resubmit, an evicted pod is
// created again and placed elsewhere; a preempted pod too.
func TestReplayResubmit(t *testing.T) {
	w := &Scenario{
		Nodes: []*api.Node{rpNode("n1", "2"), rpNode("n2", "2")},
		Arrivals: []PodArrival{
			{At: 0, Pod: scPod("a", "2").Obj()},
		},
		NodeEvents: []NodeEvent{{At: time.Second, Action: NodeRemove, Name: "n2"}, {At: time.Second, Action: NodeRemove, Name: "n1"},
			{At: 2 * time.Second, Action: NodeAdd, Node: rpNode("n3", "2")}},
	}
	res, err := Replay(context.Background(), w, Options{Registry: scRegistry(&scRecorder{}), Profiles: []framework.Profile{rpProfile()}, Resubmit: true})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]PodOutcome{{Pod: "default/a", Fate: FateRunning, Node: "n3"}}, res.Pods); diff != "" {
		t.Errorf("outcomes (-want +got):\n%s", diff)
	}
}

// TestReplayRecordsRefusedEvents: an event the cluster refuses at its time
// (an update of a node removed earlier) is recorded, not swallowed.
func TestReplayRecordsRefusedEvents(t *testing.T) {
	w := &Scenario{
		Nodes: []*api.Node{rpNode("n1", "2"), rpNode("n2", "2")},
		NodeEvents: []NodeEvent{{At: time.Second, Action: NodeRemove, Name: "n2"},
			{At: 2 * time.Second, Action: NodeUpdate, Node: rpNode("n2", "4")}},
	}
	res, err := Replay(context.Background(), w, Options{Registry: scRegistry(&scRecorder{}), Profiles: []framework.Profile{rpProfile()}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.EventErrors) != 1 || !strings.Contains(res.EventErrors[0], "update n2") {
		t.Fatalf("EventErrors = %q", res.EventErrors)
	}
}

func TestReplayRejectsBadScenarios(t *testing.T) {
	for _, tc := range []struct {
		name string
		w    Scenario
		want string
	}{
		{"negative duration", Scenario{Arrivals: []PodArrival{{Duration: -time.Second, Pod: scPod("a", "1").Obj()}}}, "pod default/a: duration=-1s: must not be negative"},
		{"negative arrival", Scenario{Arrivals: []PodArrival{{At: -time.Second, Pod: scPod("a", "1").Obj()}}}, "pod default/a: arrival=-1s"},
		{"missing node", Scenario{Arrivals: []PodArrival{{Pod: scPod("a", "1").Node("nope").Obj()}}}, `pod default/a: node "nope" not found`},
		{"initial pod without node", Scenario{Pods: []*api.Pod{scPod("a", "1").Obj()}}, "pod default/a: an initial pod must name its node"},
		{"duplicate pod", Scenario{Arrivals: []PodArrival{{Pod: scPod("a", "1").Obj()}, {Pod: scPod("a", "1").Obj()}}}, "pod default/a: duplicate name"},
		{"duplicate node", Scenario{Nodes: []*api.Node{rpNode("n", "1"), rpNode("n", "1")}}, `node "n": duplicate name`},
		{"bad event", Scenario{NodeEvents: []NodeEvent{{Action: "explode"}}}, `unknown action "explode"`},
		{"remove a node that never exists", Scenario{Nodes: []*api.Node{rpNode("n1", "1")}, NodeEvents: []NodeEvent{{At: time.Second, Action: NodeRemove, Name: "n9"}}},
			`nodeEvents[0] (remove at 1s): node "n9" is never in the cluster`},
		{"misspelt resource", Scenario{Arrivals: []PodArrival{{Pod: scPod("a", "1").Req(map[string]string{"cpus": "2"}).Obj()}}},
			`pod default/a: spec.containers[1].resources.requests["cpus"]: must be a standard resource for containers`},
		{"negative allocatable", Scenario{Nodes: []*api.Node{rpNode("n1", "-1")}}, `node "n1": status.allocatable["cpu"]=-1: must not be negative`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Replay(context.Background(), &tc.w, Options{Registry: scRegistry(&scRecorder{}), Profiles: []framework.Profile{rpProfile()}})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// TestPropReplayLogIndependentOfParallelism: random scenarios (with
// arrivals, durations, priorities, node events and preemption) give a
// byte-identical decision log at parallelism 1 and 4, and every pod ends
// in exactly one fate.
func TestPropReplayLogIndependentOfParallelism(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		w := drawScenario(t, 150, 60, 90)
		seed := rapid.Uint64().Draw(t, "seed")
		resubmit := rapid.Bool().Draw(t, "resubmit")
		run := func(par int) (string, *Result) {
			res, err := Replay(context.Background(), w, Options{Registry: scPropRegistry(), Profiles: []framework.Profile{scPropProfile()},
				Seed: seed, Parallelism: par, Resubmit: resubmit})
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			_ = res.WriteLog(&b)
			return b.String(), res
		}
		log1, res1 := run(1)
		log4, res4 := run(4)
		if log1 != log4 {
			t.Fatalf("logs differ:\n%s", cmp.Diff(log1, log4))
		}
		if diff := cmp.Diff(res1.Pods, res4.Pods); diff != "" {
			t.Fatalf("outcomes differ:\n%s", diff)
		}
		if len(res1.Pods) != len(w.Arrivals) {
			t.Fatalf("%d outcomes for %d pods", len(res1.Pods), len(w.Arrivals))
		}
		for _, p := range res1.Pods {
			if p.Fate == FatePending && p.Reason == "" {
				t.Fatalf("pending pod %s without a reason", p.Pod)
			}
		}
	})
}

// rpStepClock is a stopwatch whose every reading is one second after the
// previous one (its timers are the wall clock's, unused here).
type rpStepClock struct {
	framework.RealClock
	now time.Time
}

func (c *rpStepClock) Now() time.Time {
	c.now = c.now.Add(time.Second)
	return c.now
}

// TestReplayStopwatch: Wall is what the injected stopwatch measured (one
// reading at the start, one at the end), and DecisionsPerSecond follows.
func TestReplayStopwatch(t *testing.T) {
	w := &Scenario{Nodes: []*api.Node{rpNode("n1", "4")}, Arrivals: []PodArrival{{Pod: scPod("a", "1").Obj()}, {At: time.Second, Pod: scPod("b", "1").Obj()}}}
	res, err := Replay(context.Background(), w, Options{Registry: scRegistry(&scRecorder{}), Profiles: []framework.Profile{rpProfile()}, Stopwatch: &rpStepClock{}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Wall != time.Second {
		t.Fatalf("Wall = %v, want 1s from the stopwatch", res.Wall)
	}
	if res.Cycles == 0 || res.DecisionsPerSecond() != float64(res.Cycles) {
		t.Fatalf("DecisionsPerSecond = %v with %d cycles in 1s", res.DecisionsPerSecond(), res.Cycles)
	}
}

// TestReplayExplanationPolicies: ResultsLast keeps the full explanation in
// the last N decisions only; ResultsFailedOnly keeps it in failed cycles
// only (and it explains the failure); a negative ResultsLast is an error.
func TestReplayExplanationPolicies(t *testing.T) {
	w := &Scenario{Nodes: []*api.Node{rpNode("n1", "2"), rpNode("n2", "2")}}
	for i := range 6 {
		w.Arrivals = append(w.Arrivals, PodArrival{At: time.Duration(i) * time.Second, Pod: scPod(fmt.Sprintf("p%d", i), "1").Obj()})
	}
	run := func(o Options) *Result {
		t.Helper()
		o.Registry, o.Profiles = scRegistry(&scRecorder{}), []framework.Profile{rpProfile()}
		res, err := Replay(context.Background(), w, o)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	last := run(Options{ResultsLast: 3})
	for i, d := range last.Decisions {
		if want := i >= len(last.Decisions)-3; (d.Result != nil) != want {
			t.Errorf("ResultsLast=3: decision %d of %d has a Result: %v", i, len(last.Decisions), d.Result != nil)
		}
	}
	failed := run(Options{ResultsFailedOnly: true})
	nFailed := 0
	for i, d := range failed.Decisions {
		isFailed := d.Outcome == scheduling.OutcomeUnschedulable || d.Outcome == scheduling.OutcomeError
		if (d.Result != nil) != isFailed {
			t.Errorf("ResultsFailedOnly: decision %d (%s) has a Result: %v", i, d.Outcome, d.Result != nil)
		}
		if isFailed {
			nFailed++
			if d.Result.FitError() == nil || d.Result.FitError().Error() != d.Message {
				t.Errorf("decision %d: the kept Result does not explain %q", i, d.Message)
			}
		}
	}
	if nFailed == 0 {
		t.Fatal("no failed decision: the scenario should overflow the nodes")
	}
	if _, err := Replay(context.Background(), w, Options{ResultsLast: -1}); err == nil || !strings.Contains(err.Error(), "ResultsLast=-1") {
		t.Errorf("ResultsLast=-1: %v", err)
	}
}

// drawScenario draws a scenario of 1..maxNodes nodes, up to 40 arrivals
// within maxAt seconds lasting up to maxDur seconds, and up to 3 node
// additions or removals within maxAt seconds.
func drawScenario(t *rapid.T, maxNodes, maxAt, maxDur int) *Scenario {
	w := &Scenario{}
	nodes := rapid.IntRange(1, maxNodes).Draw(t, "nodes")
	for i := range nodes {
		w.Nodes = append(w.Nodes, scDrawNode(t, i))
	}
	for i := range rapid.IntRange(0, 40).Draw(t, "arrivals") {
		w.Arrivals = append(w.Arrivals, PodArrival{
			At:       time.Duration(rapid.IntRange(0, maxAt).Draw(t, "at")) * time.Second,
			Duration: time.Duration(rapid.IntRange(0, maxDur).Draw(t, "dur")) * time.Second,
			Pod:      scDrawPod(t, fmt.Sprintf("p%02d", i)),
		})
	}
	for i := range rapid.IntRange(0, 3).Draw(t, "events") {
		at := time.Duration(rapid.IntRange(0, maxAt).Draw(t, "eventAt")) * time.Second
		if rapid.Bool().Draw(t, "add") {
			w.NodeEvents = append(w.NodeEvents, NodeEvent{At: at, Action: NodeAdd, Node: scDrawNode(t, 900+i)})
		} else {
			w.NodeEvents = append(w.NodeEvents, NodeEvent{At: at, Action: NodeRemove, Name: fmt.Sprintf("n%03d", rapid.IntRange(0, nodes-1).Draw(t, "victim"))})
		}
	}
	return w
}

// TestReplayNamespaces: the workload's namespaces reach the replay's
// cluster: a pod whose required pod affinity selects namespaces by label
// finds the pod of a labelled namespace only when the workload carries
// that namespace and its labels.
func TestReplayNamespaces(t *testing.T) {
	for _, labelled := range []bool{false, true} {
		w := &Scenario{
			Nodes: []*api.Node{
				st.MakeNode().Name("n1").Capacity(map[string]string{"cpu": "4", "memory": "8Gi"}).Obj(),
				st.MakeNode().Name("n2").Capacity(map[string]string{"cpu": "4", "memory": "8Gi"}).Obj(),
			},
			Pods: []*api.Pod{st.MakePod().Name("db").Namespace("prod").Label("app", "db").Node("n2").Obj()},
		}
		if labelled {
			w.Namespaces = []api.Namespace{{Name: "prod", Labels: map[string]string{"team": "a"}}}
		}
		term := api.PodAffinityTerm{
			LabelSelector:     &api.LabelSelector{MatchLabels: map[string]string{"app": "db"}},
			NamespaceSelector: &api.LabelSelector{MatchLabels: map[string]string{"team": "a"}},
			TopologyKey:       "kubernetes.io/hostname",
		}
		pod := st.MakePod().Name("web").Req(map[string]string{"cpu": "1"}).
			Affinity(&api.Affinity{PodAffinity: &api.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []api.PodAffinityTerm{term}}}).Obj()
		w.Arrivals = []PodArrival{{Pod: pod}}
		res, err := Replay(context.Background(), w, Options{Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		var got PodOutcome
		for _, o := range res.Pods {
			if o.Pod == "default/web" {
				got = o
			}
		}
		want := PodOutcome{Pod: "default/web", Fate: FatePending}
		if labelled {
			want = PodOutcome{Pod: "default/web", Fate: FateRunning, Node: "n2"}
		}
		if got.Pod != want.Pod || got.Fate != want.Fate || got.Node != want.Node {
			t.Errorf("namespaces labelled %v: web %+v, want %+v", labelled, got, want)
		}
	}
}
