package scheduling

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/scheduling/cluster"
	"github.com/schedkit/schedkit/scheduling/defaultbinder"
	"github.com/schedkit/schedkit/scheduling/internal/testplugins"
	"github.com/schedkit/schedkit/scoring/queuesort"
)

// The test plugins (testplugins): a cpu/pod-count fit filter, a
// least-allocated cpu score, and recording Reserve/Permit/PreBind/PostBind
// plugins whose behaviour is driven by pod labels.
type scRecorder = testplugins.Recorder

// scEnv is a scheduler over a small cluster with the test plugins.
type scEnv struct {
	s         *Scheduler
	clock     *framework.FakeClock
	rec       *scRecorder
	decisions []Decision
}

var scT0 = testplugins.T0

func scRegistry(rec *scRecorder) *framework.Registry {
	reg := framework.NewRegistry()
	must := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	must(testplugins.Register(reg, rec))
	must(reg.Register(config.PrioritySortName, func(any, framework.Handle) (framework.Plugin, error) { return &queuesort.PrioritySort{}, nil }))
	must(reg.Register(config.DefaultBinderName, defaultbinder.New))
	return reg
}

func scProfile(name string) framework.Profile {
	return framework.Profile{
		SchedulerName: name,
		QueueSort:     []string{config.PrioritySortName},
		Filter:        []string{"ScFit"},
		Score:         []string{"ScLeast"},
		Weights:       map[string]int64{"ScLeast": 1},
		Reserve:       []string{"A", "B"},
		Permit:        []string{"A", "B"},
		PreBind:       []string{"A"},
		Bind:          []string{config.DefaultBinderName},
		PostBind:      []string{"A"},
	}
}

func newScEnv(t testing.TB, nodes []*api.Node, profiles []framework.Profile, opts ...Option) *scEnv {
	t.Helper()
	c, err := cluster.NewFrom(nodes, nil)
	if err != nil {
		t.Fatal(err)
	}
	e := &scEnv{clock: framework.NewFakeClock(scT0), rec: &scRecorder{}}
	if profiles == nil {
		profiles = []framework.Profile{scProfile("")}
	}
	opts = append([]Option{WithClock(e.clock), WithSeed(1), WithDecisionHandler(func(d Decision) { e.decisions = append(e.decisions, d) })}, opts...)
	e.s, err = New(c, scRegistry(e.rec), profiles, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func scNodes(cpus ...string) []*api.Node {
	var out []*api.Node
	for i, c := range cpus {
		out = append(out, st.MakeNode().Name(fmt.Sprintf("n%d", i+1)).Capacity(map[string]string{"cpu": c, "memory": "16Gi", "pods": "10"}).Obj())
	}
	return out
}

func scPod(name, cpu string) *st.PodWrapper {
	return st.MakePod().Name(name).Req(map[string]string{"cpu": cpu})
}

func (e *scEnv) add(t testing.TB, pods ...*api.Pod) {
	t.Helper()
	for _, p := range pods {
		if err := e.s.AddPod(p); err != nil {
			t.Fatal(err)
		}
	}
}

func (e *scEnv) placement(ns, name string) (string, cluster.PodState) {
	r, ok := e.s.Cluster().Pod(ns, name)
	if !ok {
		return "<none>", 0
	}
	return r.Pod.Spec.NodeName, r.State
}

// TestSchedulerPlacesPods: three nodes of 2, 4 and 8 cpu; ScLeast scores
// the cpu left free after placing, as a percentage. Worked by hand:
//   - "big" (priority 10, 5 cpu) goes first: only n3 fits → n3 (8−5=3 left).
//   - "a" (2 cpu): n1 (2−0−2)/2=0, n2 (4−2)/4=50, n3 (3−2)/8=12 → n2.
//   - "b" (2 cpu): n1 0, n2 (2−2)/4=0, n3 12 → n3 (1 left).
//   - "c" (1 cpu): n1 (2−1)/2=50, n2 (2−1)/4=25, n3 (1−1)/8=0 → n1.
//   - "d" (4 cpu): n1 1 left, n2 2 left, n3 0 left → no node: Unschedulable.
//
// Equal priorities go in arrival order (PrioritySort, then queue order).
func TestSchedulerPlacesPods(t *testing.T) {
	e := newScEnv(t, scNodes("2", "4", "8"), nil)
	e.add(t, scPod("a", "2").Obj(), scPod("b", "2").Obj(), scPod("c", "1").Obj(), scPod("d", "4").Obj(),
		scPod("big", "5").Priority(10).Obj())
	if n := e.s.RunUntilIdle(context.Background()); n != 5 {
		t.Fatalf("cycles = %d, want 5", n)
	}
	want := map[string]string{"big": "n3", "a": "n2", "b": "n3", "c": "n1", "d": ""}
	for name, node := range want {
		got, state := e.placement("default", name)
		if got != node {
			t.Errorf("pod %s on %q (%s), want %q", name, got, state, node)
		}
	}
	var got []string
	for _, d := range e.decisions {
		got = append(got, fmt.Sprintf("%s %s %s", d.Pod, d.Outcome, d.Node))
	}
	wantLog := []string{
		"default/big Scheduled n3", "default/a Scheduled n2", "default/b Scheduled n3",
		"default/c Scheduled n1", "default/d Unschedulable ",
	}
	if diff := cmp.Diff(wantLog, got); diff != "" {
		t.Errorf("decisions (-want +got):\n%s", diff)
	}
	last := e.decisions[4]
	if want := "0/3 nodes are available: 3 Insufficient cpu."; last.Message != want {
		t.Errorf("message = %q, want %q", last.Message, want)
	}
	if r := e.s.PendingReason("default", "d"); r != last.Message {
		t.Errorf("pending reason = %q", r)
	}
	// "a": n2 total 50, runner-up n3 12 → margin 38; all three feasible.
	if d := e.decisions[1]; d.Margin != 38 || d.FeasibleNodes != 3 || d.EvaluatedNodes != 3 || d.Top[0].Name != "n2" {
		t.Errorf("decision a = %+v", d)
	}
	// "big": one feasible node → no scoring.
	if d := e.decisions[0]; d.FastPath != "one-feasible" || d.EvaluatedNodes != 3 {
		t.Errorf("decision big = %+v", d)
	}
}

func TestSchedulerProfilesBySchedulerName(t *testing.T) {
	p2 := scProfile("packer")
	p2.Score = nil
	p2.Weights = nil
	e := newScEnv(t, scNodes("2", "4", "8"), []framework.Profile{scProfile(""), p2})
	err := e.s.AddPod(scPod("x", "1").SchedulerName("nope").Obj())
	if err == nil || !strings.Contains(err.Error(), "default/x") || !strings.Contains(err.Error(), `"nope"`) {
		t.Fatalf("unknown schedulerName: err = %v", err)
	}
	if _, ok := e.s.Cluster().Pod("default", "x"); ok {
		t.Errorf("pod with an unknown schedulerName was added")
	}
	// Without score plugins the packer profile is first-fit from the
	// round-robin start (0): n1.
	e.add(t, scPod("p", "1").SchedulerName("packer").Obj(), scPod("q", "1").Obj())
	e.s.RunUntilIdle(context.Background())
	if n, _ := e.placement("default", "p"); n != "n1" {
		t.Errorf("packer pod on %q, want n1", n)
	}
	if e.decisions[0].Profile != "packer" || e.decisions[0].EvaluatedNodes != 1 {
		t.Errorf("decision = %+v", e.decisions[0])
	}
	// The first-fit cycle evaluated one node, so the start moved to 1 and
	// the default profile's pod starts at n2; ScLeast: n2 (4−1)/4=75,
	// n3 (8−1)/8=87, n1 (2−1−1)/2=0 → n3.
	if d := e.decisions[1]; d.StartIndex != 1 || d.Node != "n3" {
		t.Errorf("decision = %+v", d)
	}
}

func TestNewSchedulerErrors(t *testing.T) {
	c, _ := cluster.New()
	reg := scRegistry(&scRecorder{})
	noBind := scProfile("")
	noBind.Bind = nil
	otherSort := scProfile("b")
	otherSort.QueueSort = nil
	pct := int32(101)
	badPct := scProfile("")
	badPct.PercentageOfNodesToScore = &pct
	for _, tc := range []struct {
		name     string
		profiles []framework.Profile
		opts     []Option
		want     string
	}{
		{"no profiles", nil, nil, "no profiles"},
		{"duplicate", []framework.Profile{scProfile("x"), scProfile("x")}, nil, `duplicate schedulerName "x"`},
		{"no bind", []framework.Profile{noBind}, nil, "at least one Bind plugin"},
		{"queue sort differs", []framework.Profile{scProfile("a"), otherSort}, nil, "QueueSort"},
		{"profile pct", []framework.Profile{badPct}, nil, "percentageOfNodesToScore=101"},
		{"global pct", []framework.Profile{scProfile("")}, []Option{WithPercentageOfNodesToScore(-1)}, "percentageOfNodesToScore=-1"},
		{"unknown plugin", []framework.Profile{{Filter: []string{"Nope"}, Bind: []string{config.DefaultBinderName}}}, nil, `unknown plugin "Nope"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(c, reg, tc.profiles, tc.opts...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
	if _, err := New(nil, reg, []framework.Profile{scProfile("")}); err == nil {
		t.Errorf("nil cluster accepted")
	}
}

// TestReserveFailureRollsBack: B fails at Reserve, so Unreserve runs on B
// then A (reverse order), the pod is forgotten (its node is empty again)
// and requeued; with "reject-B" the failure is Unschedulable, with
// "fail-B" an Error.
func TestReserveFailureRollsBack(t *testing.T) {
	for _, label := range []string{"reject-B", "fail-B"} {
		t.Run(label, func(t *testing.T) {
			e := newScEnv(t, scNodes("4"), nil)
			e.add(t, scPod("p", "1").Label(label, "").Obj())
			d, ok := e.s.ScheduleOne(context.Background())
			if !ok {
				t.Fatal("nothing scheduled")
			}
			want := []string{"Reserve A p n1", "Reserve B p n1", "Unreserve B p n1", "Unreserve A p n1"}
			if diff := cmp.Diff(want, e.rec.Calls()); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
			if node, state := e.placement("default", "p"); node != "" || state != cluster.StatePending {
				t.Errorf("pod on %q state %s, want pending", node, state)
			}
			ni, _ := e.s.Cluster().NodeInfo("n1")
			if len(ni.Pods) != 0 || ni.Requested.MilliCPU != 0 {
				t.Errorf("node keeps %d pods, %dm cpu", len(ni.Pods), ni.Requested.MilliCPU)
			}
			if d.Stage != "Reserve" || d.Plugin != "B" {
				t.Errorf("decision = %+v", d)
			}
			active, backoff, unsched := e.s.QueueLengths()
			if label == "reject-B" {
				if d.Outcome != OutcomeUnschedulable || d.Message != "0/1 nodes are available: 1 B says no." || unsched != 1 {
					t.Errorf("decision %+v, queues %d/%d/%d", d, active, backoff, unsched)
				}
			} else if d.Outcome != OutcomeError || backoff != 1 {
				t.Errorf("decision %+v, queues %d/%d/%d", d, active, backoff, unsched)
			}
		})
	}
}

// TestPermit covers wait-then-allow, reject, timeout (on the fake clock,
// capped at 15 minutes) and a Permit rejection in the scheduling cycle.
func TestPermit(t *testing.T) {
	ctx := context.Background()
	t.Run("wait then allow", func(t *testing.T) {
		e := newScEnv(t, scNodes("4"), nil)
		e.add(t, scPod("p", "1").Label("wait-A", "10s").Label("wait-B", "20s").Obj())
		d, _ := e.s.ScheduleOne(ctx)
		if d.Outcome != OutcomeWaiting || d.Node != "n1" {
			t.Fatalf("decision = %+v", d)
		}
		w, ok := e.s.WaitingPod("default", "p")
		if !ok || w.Node() != "n1" || !cmp.Equal(w.PendingPlugins(), []string{"A", "B"}) {
			t.Fatalf("waiting pod = %v %v", w, ok)
		}
		if _, st := e.placement("default", "p"); st != cluster.StateAssumed {
			t.Errorf("state %s, want Assumed while waiting", st)
		}
		w.Allow("A")
		if e.s.ProcessBindings(ctx) != 0 {
			t.Errorf("bound after one of two allows")
		}
		w.Allow("B")
		if n := e.s.ProcessBindings(ctx); n != 1 {
			t.Fatalf("ProcessBindings = %d", n)
		}
		if node, st := e.placement("default", "p"); node != "n1" || st != cluster.StateBound {
			t.Errorf("pod on %q %s", node, st)
		}
		if last := e.decisions[len(e.decisions)-1]; last.Outcome != OutcomeBound {
			t.Errorf("last decision = %+v", last)
		}
		if e.clock.PendingTimers() != 0 {
			t.Errorf("%d timers left", e.clock.PendingTimers())
		}
	})
	t.Run("reject", func(t *testing.T) {
		e := newScEnv(t, scNodes("4"), nil)
		e.add(t, scPod("p", "1").Label("wait-A", "10s").Obj())
		e.s.ScheduleOne(ctx)
		w, _ := e.s.WaitingPod("default", "p")
		w.Reject("A", "not now")
		e.s.ProcessBindings(ctx)
		last := e.decisions[len(e.decisions)-1]
		if last.Outcome != OutcomeUnschedulable || last.Stage != "WaitOnPermit" || last.Message != "0/1 nodes are available: 1 not now." {
			t.Errorf("decision = %+v", last)
		}
		if node, st := e.placement("default", "p"); node != "" || st != cluster.StatePending {
			t.Errorf("pod on %q %s", node, st)
		}
		calls := e.rec.Calls()
		if want := []string{"Unreserve B p n1", "Unreserve A p n1"}; !cmp.Equal(calls[len(calls)-2:], want) {
			t.Errorf("calls = %v", calls)
		}
		if _, _, unsched := e.s.QueueLengths(); unsched != 1 {
			t.Errorf("pod not in the unschedulable pool")
		}
	})
	t.Run("timeout", func(t *testing.T) {
		e := newScEnv(t, scNodes("4"), nil)
		e.add(t, scPod("p", "1").Label("wait-A", "10s").Label("wait-B", "1h").Obj())
		e.s.ScheduleOne(ctx)
		_ = e.clock.Advance(9 * time.Second)
		if e.s.ProcessBindings(ctx) != 0 {
			t.Fatalf("resolved before the 10 s timeout")
		}
		_ = e.clock.Advance(time.Second)
		e.s.ProcessBindings(ctx)
		last := e.decisions[len(e.decisions)-1]
		if want := "0/1 nodes are available: 1 rejected due to timeout after waiting 10s at plugin A."; last.Message != want || last.Plugin != "A" {
			t.Errorf("decision = %+v, want message %q", last, want)
		}
		if e.clock.PendingTimers() != 0 {
			t.Errorf("B's timer still pending")
		}
	})
	t.Run("timeout capped at 15 minutes", func(t *testing.T) {
		e := newScEnv(t, scNodes("4"), nil)
		e.add(t, scPod("p", "1").Label("wait-B", "1h").Obj())
		e.s.ScheduleOne(ctx)
		if dl, _ := e.clock.NextDeadline(); !dl.Equal(scT0.Add(15 * time.Minute)) {
			t.Errorf("deadline %v, want %v", dl, scT0.Add(15*time.Minute))
		}
	})
	t.Run("rejected in the scheduling cycle", func(t *testing.T) {
		e := newScEnv(t, scNodes("4"), nil)
		e.add(t, scPod("p", "1").Label("deny-B", "").Obj())
		d, _ := e.s.ScheduleOne(ctx)
		if d.Stage != "Permit" || d.Plugin != "B" || d.Outcome != OutcomeUnschedulable || d.Message != "0/1 nodes are available: 1 B denies." {
			t.Fatalf("decision = %+v", d)
		}
		want := []string{"Reserve A p n1", "Reserve B p n1", "Unreserve B p n1", "Unreserve A p n1"}
		if diff := cmp.Diff(want, e.rec.Calls()); diff != "" {
			t.Errorf("calls (-want +got):\n%s", diff)
		}
		if node, st := e.placement("default", "p"); node != "" || st != cluster.StatePending {
			t.Errorf("pod on %q %s", node, st)
		}
	})
}

// TestBindingFailures: PreBind errors go to backoff; with async binding the
// goroutine reports the same.
func TestBindingFailures(t *testing.T) {
	ctx := context.Background()
	// Without A at Reserve and Permit, "fail-A" fails only at PreBind.
	e2 := newScEnv(t, scNodes("4"), []framework.Profile{func() framework.Profile {
		p := scProfile("")
		p.Reserve, p.Permit = nil, nil
		return p
	}()})
	e2.add(t, scPod("p", "1").Label("fail-A", "").Obj())
	d, _ := e2.s.ScheduleOne(ctx)
	if d.Outcome != OutcomeError || d.Stage != "PreBind" || d.Plugin != "A" {
		t.Fatalf("decision = %+v", d)
	}
	if node, st := e2.placement("default", "p"); node != "" || st != cluster.StatePending {
		t.Errorf("pod on %q %s", node, st)
	}
	if _, backoff, _ := e2.s.QueueLengths(); backoff != 1 {
		t.Errorf("pod not backing off")
	}
}

func TestAsyncBinding(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	var got []string
	c, _ := cluster.NewFrom(scNodes("4", "4"), nil)
	rec := &scRecorder{}
	s, err := New(c, scRegistry(rec), []framework.Profile{scProfile("")}, WithClock(framework.NewFakeClock(scT0)), WithAsyncBinding(),
		WithDecisionHandler(func(d Decision) { mu.Lock(); got = append(got, string(d.Outcome)); mu.Unlock() }))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 6 {
		if err := s.AddPod(scPod(fmt.Sprintf("p%d", i), "1").Obj()); err != nil {
			t.Fatal(err)
		}
	}
	s.RunUntilIdle(ctx)
	s.WaitForBindings()
	_, _, bound := c.NumPods()
	if bound != 6 {
		t.Errorf("bound %d pods, want 6; outcomes %v", bound, got)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 12 {
		t.Errorf("decisions %v: want 6 Assumed and 6 Bound", got)
	}
}

// TestRoundRobinStart: 250 nodes, the odd ones too small. Sampling finds
// 50 − 250/125 = 48% → 120 feasible nodes per cycle; as kube-scheduler
// v1.36's findNodesThatPassFilters (schedule_one.go), filtering stops at
// the 121st feasible node, and the start moves by the 120 feasible nodes
// plus the nodes rejected before the stop (kube-scheduler.md §2.3), worked
// by hand:
//   - cycle 1 starts at 0; the 120th even node is n238, the 121st n240, so
//     the odd nodes 1..239 (120) are rejected first: 240 evaluated, and the
//     next start is 240;
//   - cycle 2 starts at 240: evens 240..248 (5), then 0..228 (115), the
//     121st is n230; odds 241..249 (5) and 1..229 (115) rejected: 240
//     evaluated; next start (240+240) mod 250 = 230.
func TestRoundRobinStart(t *testing.T) {
	var nodes []*api.Node
	for i := range 250 {
		cpu := "4"
		if i%2 == 1 {
			cpu = "500m"
		}
		nodes = append(nodes, st.MakeNode().Name(fmt.Sprintf("n%03d", i)).Capacity(map[string]string{"cpu": cpu, "pods": "10"}).Obj())
	}
	e := newScEnv(t, nodes, nil)
	e.add(t, scPod("a", "1").Obj(), scPod("b", "1").Obj(), scPod("c", "1").Obj())
	e.s.RunUntilIdle(context.Background())
	type got struct{ Start, Evaluated, Feasible int }
	var gotList []got
	for _, d := range e.decisions {
		gotList = append(gotList, got{d.StartIndex, d.EvaluatedNodes, d.FeasibleNodes})
	}
	// Cycle 3 starts at 230: evens 230..248 (10), then 0..218 (110), the
	// 121st is n220; odds 231..249 (10) and 1..219 (110) rejected: 240
	// evaluated.
	want := []got{{0, 240, 120}, {240, 240, 120}, {230, 240, 120}}
	if diff := cmp.Diff(want, gotList); diff != "" {
		t.Errorf("cycles (-want +got):\n%s", diff)
	}
}

// TestNominatedNodeFastPath: a pod nominated to n1 takes it without
// scoring (ScLeast would prefer n3) and without moving the round-robin
// start; when the nominated node no longer fits, the full cycle runs.
func TestNominatedNodeFastPath(t *testing.T) {
	e := newScEnv(t, scNodes("2", "4", "8"), nil)
	p := scPod("p", "1").Obj()
	p.Status.NominatedNodeName = "n1"
	e.add(t, p)
	e.add(t, scPod("q", "1").Obj())
	e.s.RunUntilIdle(context.Background())
	d := e.decisions[0]
	if d.Node != "n1" || d.FastPath != "nominated" || d.EvaluatedNodes != 1 {
		t.Errorf("nominated decision = %+v", d)
	}
	if e.decisions[1].StartIndex != 0 {
		t.Errorf("start moved to %d by the nominated fast path", e.decisions[1].StartIndex)
	}
	if r, _ := e.s.Cluster().Pod("default", "p"); r.Pod.Status.NominatedNodeName != "" {
		t.Errorf("nomination kept after binding: %q", r.Pod.Status.NominatedNodeName)
	}
	// n1 has 1 cpu left: a 2-cpu pod nominated there falls back to a full
	// cycle (3 nodes evaluated: the start moves by 3).
	big := scPod("big", "2").Obj()
	big.Status.NominatedNodeName = "n1"
	e.add(t, big)
	e.s.RunUntilIdle(context.Background())
	d = e.decisions[2]
	if d.FastPath != "" || d.EvaluatedNodes != 3 || d.Node != "n3" {
		t.Errorf("fallback decision = %+v", d)
	}
}

// TestSchedulerWhatIf: SchedulePod inside Fork/Revert places a pod, and
// Revert restores the cluster, the round-robin start and the random
// source, so later decisions are those of a run without the what-if.
func TestSchedulerWhatIf(t *testing.T) {
	ctx := context.Background()
	run := func(whatIf bool) []string {
		// Identical nodes: every placement is a random tie-break.
		e := newScEnv(t, scNodes("4", "4", "4", "4"), []framework.Profile{rpProfile()})
		if whatIf {
			f := mustFork(t, e.s)
			d, err := f.SchedulePod(ctx, scPod("probe", "3").Obj())
			if err != nil || d.Outcome != OutcomeScheduled {
				t.Fatalf("what-if: %+v %v", d, err)
			}
			if r, ok := f.Cluster().Pod("default", "probe"); !ok || r.State != cluster.StateBound {
				t.Fatalf("probe not bound in the branch")
			}
			if err := f.Revert(); err != nil {
				t.Fatal(err)
			}
			if _, ok := e.s.Cluster().Pod("default", "probe"); ok {
				t.Fatalf("probe survived Revert")
			}
		}
		for i := range 6 {
			e.add(t, scPod(fmt.Sprintf("p%d", i), "1").Obj())
		}
		var out []string
		for {
			d, ok := e.s.ScheduleOne(ctx)
			if !ok {
				break
			}
			out = append(out, d.Node)
		}
		return out
	}
	if diff := cmp.Diff(run(false), run(true)); diff != "" {
		t.Errorf("decisions after a reverted what-if differ (-plain +what-if):\n%s", diff)
	}
	e := newScEnv(t, scNodes("4"), nil)
	f := mustFork(t, e.s)
	if err := f.Revert(); err != nil {
		t.Fatal(err)
	}
	if err := f.Revert(); err == nil {
		t.Errorf("a second Revert of one fork accepted")
	}
	if _, err := e.s.SchedulePod(ctx, scPod("x", "1").Node("n1").Obj()); err == nil {
		t.Errorf("SchedulePod accepted a pod that names its node")
	}
}

// TestSchedulerZeroValue: a Scheduler not built by New answers instead of
// panicking: ScheduleOne has nothing to schedule, events are errors naming
// the cause, queries are empty.
func TestSchedulerZeroValue(t *testing.T) {
	ctx := context.Background()
	for _, s := range []*Scheduler{nil, {}} {
		if d, ok := s.ScheduleOne(ctx); ok {
			t.Errorf("ScheduleOne on %v: %+v", s, d)
		}
		if n := s.RunUntilIdle(ctx); n != 0 {
			t.Errorf("RunUntilIdle = %d", n)
		}
		if a, b, u := s.QueueLengths(); a+b+u != 0 {
			t.Errorf("QueueLengths = %d %d %d", a, b, u)
		}
		if _, ok := s.NextWakeup(); ok {
			t.Errorf("NextWakeup reported a wakeup")
		}
		node := scNodes("1")[0]
		for name, err := range map[string]error{
			"AddPod":           s.AddPod(scPod("p", "1").Obj()),
			"DeletePod":        s.DeletePod("default", "p"),
			"AddNode":          s.AddNode(node),
			"UpdateNode":       s.UpdateNode(node),
			"UpdateNodeMetric": s.UpdateNodeMetric(&api.NodeMetric{ObjectMeta: api.ObjectMeta{Name: "n1"}}),
		} {
			if err == nil || !strings.Contains(err.Error(), "not built by New") {
				t.Errorf("%s: err = %v", name, err)
			}
		}
		if _, err := s.RemoveNode("n1"); err == nil {
			t.Errorf("RemoveNode accepted")
		}
		if _, err := s.SchedulePod(ctx, scPod("p", "1").Obj()); err == nil {
			t.Errorf("SchedulePod accepted")
		}
	}
}

// TestScheduleOneDoneContext: ScheduleOne with a context already done pops
// nothing (the pod stays queued for its first attempt).
func TestScheduleOneDoneContext(t *testing.T) {
	e := newScEnv(t, scNodes("4"), nil)
	e.add(t, scPod("p", "1").Obj())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if d, ok := e.s.ScheduleOne(ctx); ok {
		t.Fatalf("ScheduleOne with a cancelled context: %+v", d)
	}
	if d, ok := e.s.ScheduleOne(context.Background()); !ok || d.Pod != "default/p" || d.Attempt != 1 || d.Outcome != OutcomeScheduled {
		t.Errorf("next ScheduleOne: %+v %v", d, ok)
	}
}

// rpProfile is scProfile without the recording plugins: filter, score and
// bind only.
func rpProfile() framework.Profile {
	p := scProfile("")
	p.Reserve, p.Permit, p.PreBind, p.PostBind = nil, nil, nil, nil
	return p
}
