package scheduling

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/scheduling/cluster"
	"github.com/schedkit/schedkit/scheduling/internal/queue"
)

// TestSchedulerRevertDropsBranchPods: a pod SchedulePod could not place
// inside a fork leaves the unschedulable pool on Revert, as the cluster no
// longer has it; kept there, it would come back from every AddNode as an
// Error decision ("assume: unknown pod").
func TestSchedulerRevertDropsBranchPods(t *testing.T) {
	ctx := context.Background()
	e := newScEnv(t, scNodes("1"), nil)
	f := mustFork(t, e.s)
	d, err := f.SchedulePod(ctx, scPod("big", "4").Obj())
	if err != nil || d.Outcome != OutcomeUnschedulable {
		t.Fatalf("what-if: %+v %v", d, err)
	}
	if err := f.Revert(); err != nil {
		t.Fatal(err)
	}
	if a, b, u := e.s.QueueLengths(); a+b+u != 0 {
		t.Errorf("queue after Revert: active %d, backoff %d, unschedulable %d; want empty", a, b, u)
	}
	big := scNodes("8")[0]
	big.Name = "big-node"
	if err := e.s.AddNode(big); err != nil {
		t.Fatal(err)
	}
	e.decisions = nil
	e.s.RunUntilIdle(ctx)
	if err := e.clock.Advance(time.Minute); err != nil {
		t.Fatal(err)
	}
	e.s.RunUntilIdle(ctx)
	for _, d := range e.decisions {
		t.Errorf("decision after Revert for a pod the cluster does not have: %s %s %s", d.Pod, d.Outcome, d.Message)
	}
}

// TestSchedulerRevertRequeuesPlacedPods: a pod queued before Fork and
// placed by ScheduleOne inside the fork is Pending again after Revert and
// back in the queue, so that it is scheduled again.
func TestSchedulerRevertRequeuesPlacedPods(t *testing.T) {
	ctx := context.Background()
	e := newScEnv(t, scNodes("4"), nil)
	e.add(t, scPod("p", "1").Obj())
	f := mustFork(t, e.s)
	if d, ok := f.ScheduleOne(ctx); !ok || d.Outcome != OutcomeScheduled {
		t.Fatalf("in the fork: %+v %v", d, ok)
	}
	if err := f.Revert(); err != nil {
		t.Fatal(err)
	}
	if r, ok := e.s.Cluster().Pod("default", "p"); !ok || r.State != cluster.StatePending {
		t.Fatalf("after Revert: %+v %v, want Pending", r, ok)
	}
	if a, _, _ := e.s.QueueLengths(); a != 1 {
		t.Errorf("active queue after Revert = %d, want 1 (the pod placed in the branch)", a)
	}
	d, ok := e.s.ScheduleOne(ctx)
	if !ok || d.Pod != "default/p" || d.Outcome != OutcomeScheduled || d.Attempt != 1 {
		t.Errorf("after Revert: %+v %v, want default/p Scheduled on its first attempt", d, ok)
	}
}

// TestSchedulerRevertWaitingPods: a pod held at Permit before the Fork and
// allowed (and bound) inside it waits again after Revert, with its
// original timeout; a pod that began waiting inside the fork is dropped
// (its timer stopped), and a nested Commit keeps the outer fork's view.
func TestSchedulerRevertWaitingPods(t *testing.T) {
	ctx := context.Background()
	e := newScEnv(t, scNodes("4", "4"), nil)
	e.add(t, scPod("w", "1").Label("wait-A", "30s").Obj())
	if d, _ := e.s.ScheduleOne(ctx); d.Outcome != OutcomeWaiting {
		t.Fatalf("w: %+v", d)
	}
	if err := e.clock.Advance(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	outer := mustFork(t, e.s)
	inner, err := outer.Fork()
	if err != nil {
		t.Fatal(err)
	}
	w, ok := e.s.WaitingPod("default", "w")
	if !ok {
		t.Fatal("w is not waiting")
	}
	w.Allow("A")
	inner.ProcessBindings(ctx)
	if _, st := e.placement("default", "w"); st != cluster.StateBound {
		t.Fatalf("w in the fork: %v, want Bound", st)
	}
	if err := inner.Commit(); err != nil { // still inside the outer fork
		t.Fatal(err)
	}
	if _, err := outer.SchedulePod(ctx, scPod("x", "1").Label("wait-A", "5s").Obj()); err != nil {
		t.Fatal(err)
	}
	if err := outer.Revert(); err != nil {
		t.Fatal(err)
	}
	var waiting []string
	for _, w := range e.s.WaitingPods() {
		waiting = append(waiting, w.Pod().Name+" "+strings.Join(w.PendingPlugins(), ","))
	}
	if d := cmp.Diff([]string{"w A"}, waiting); d != "" {
		t.Errorf("waiting pods after Revert (-want +got):\n%s", d)
	}
	if _, st := e.placement("default", "w"); st != cluster.StateAssumed {
		t.Errorf("w after Revert: %v, want Assumed", st)
	}
	if n := e.clock.PendingTimers(); n != 1 {
		t.Errorf("timers after Revert = %d, want 1 (w's timeout; x's stopped)", n)
	}
	// w's timeout is still 30 s after it began waiting: 20 s from now.
	if err := e.clock.Advance(19 * time.Second); err != nil {
		t.Fatal(err)
	}
	if _, ok := e.s.WaitingPod("default", "w"); !ok {
		t.Fatal("w timed out early")
	}
	if err := e.clock.Advance(time.Second); err != nil {
		t.Fatal(err)
	}
	e.decisions = nil
	e.s.ProcessBindings(ctx)
	if len(e.decisions) != 1 || e.decisions[0].Outcome != OutcomeUnschedulable || e.decisions[0].Stage != "WaitOnPermit" {
		t.Errorf("after the timeout: %+v", e.decisions)
	}
}

// TestSchedulerRevertAsyncWaitingPod: with asynchronous binding, a pod held
// at Permit before the Fork and allowed inside it is not bound behind the
// branch's back: Revert makes it wait again; allowed after the Revert it
// binds.
func TestSchedulerRevertAsyncWaitingPod(t *testing.T) {
	ctx := context.Background()
	e := newScEnv(t, scNodes("4"), nil, WithAsyncBinding())
	e.add(t, scPod("w", "1").Label("wait-A", "1h").Obj())
	if d, _ := e.s.ScheduleOne(ctx); d.Outcome != OutcomeWaiting {
		t.Fatalf("w: %+v", d)
	}
	f := mustFork(t, e.s)
	w, _ := e.s.WaitingPod("default", "w")
	w.Allow("A")
	if _, st := e.placement("default", "w"); st != cluster.StateAssumed {
		t.Errorf("w bound inside the fork by its pre-fork goroutine: %v", st)
	}
	if err := f.Revert(); err != nil {
		t.Fatal(err)
	}
	w, ok := e.s.WaitingPod("default", "w")
	if !ok {
		t.Fatal("w is not waiting after Revert")
	}
	w.Allow("A")
	e.s.WaitForBindings()
	if _, st := e.placement("default", "w"); st != cluster.StateBound {
		t.Errorf("w after Allow: %v, want Bound", st)
	}
}

// fkOp is one step of TestPropSchedulerForkRevert.
type fkOp struct {
	kind  string
	name  string
	cpu   string
	prio  int32
	label string
	n     int
}

func (o fkOp) String() string {
	return fmt.Sprintf("%s(%s %s p%d %s %d)", o.kind, o.name, o.cpu, o.prio, o.label, o.n)
}

// fkDrawOp draws an operation; inFork restricts it to what a what-if does
// (no clock moves) and names pods and nodes apart.
func fkDrawOp(t *rapid.T, i int, inFork bool) fkOp {
	kinds := []string{"addPod", "addPod", "addNode", "removeNode", "scheduleOne", "scheduleOne", "deletePod", "allow", "bindings"}
	if inFork {
		kinds = append(kinds, "schedulePod", "schedulePod")
	} else {
		kinds = append(kinds, "advance")
	}
	o := fkOp{kind: rapid.SampledFrom(kinds).Draw(t, "kind")}
	prefix := "p"
	if inFork {
		prefix = "f"
	}
	switch o.kind {
	case "addPod", "schedulePod":
		o.name = fmt.Sprintf("%s%d", prefix, i)
		o.cpu = rapid.SampledFrom([]string{"1", "2", "3"}).Draw(t, "cpu")
		o.prio = rapid.Int32Range(0, 2).Draw(t, "prio")
		o.label = rapid.SampledFrom([]string{"", "", "wait-A", "reject-B", "wait-B"}).Draw(t, "label")
	case "addNode":
		o.name = fmt.Sprintf("%sn%d", prefix, i)
		o.cpu = rapid.SampledFrom([]string{"2", "4"}).Draw(t, "cpu")
	case "deletePod", "allow", "removeNode":
		o.n = rapid.IntRange(0, 100).Draw(t, "pick")
	case "advance":
		o.n = rapid.IntRange(1, 20).Draw(t, "seconds")
	}
	return o
}

// scOps are the event methods a live Scheduler and a Fork share.
type scOps interface {
	AddPod(*api.Pod) error
	DeletePod(namespace, name string) error
	AddNode(*api.Node) error
	RemoveNode(string) ([]*api.Pod, error)
	UpdateNodeMetric(*api.NodeMetric) error
	UpdateNodeLoad(*api.NodeLoad) error
	SchedulePod(context.Context, *api.Pod) (Decision, error)
	ScheduleOne(context.Context) (Decision, bool)
	ProcessBindings(context.Context) int
	Cluster() *cluster.Cluster
}

var (
	_ scOps = (*Scheduler)(nil)
	_ scOps = (*Fork)(nil)
)

// mustFork opens a fork of s.
func mustFork(t interface{ Fatal(...any) }, s *Scheduler) *Fork {
	f, err := s.Fork()
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// fkApply runs o on e through on (e's scheduler, or a fork of it).
func fkApply(t *rapid.T, e *scEnv, on scOps, o fkOp) {
	ctx := context.Background()
	pod := func() *api.Pod {
		w := scPod(o.name, o.cpu).Priority(o.prio)
		if o.label != "" {
			w = w.Label(o.label, "20s")
		}
		return w.Obj()
	}
	switch o.kind {
	case "addPod":
		if err := on.AddPod(pod()); err != nil {
			t.Fatalf("%v: %v", o, err)
		}
	case "schedulePod":
		if _, err := on.SchedulePod(ctx, pod()); err != nil {
			t.Fatalf("%v: %v", o, err)
		}
	case "addNode":
		n := scNodes(o.cpu)[0]
		n.Name = o.name
		if err := on.AddNode(n); err != nil {
			t.Fatalf("%v: %v", o, err)
		}
	case "removeNode":
		if nodes := on.Cluster().Snapshot().Nodes(); len(nodes) > 1 {
			if _, err := on.RemoveNode(nodes[o.n%len(nodes)].Name()); err != nil {
				t.Fatalf("%v: %v", o, err)
			}
		}
	case "scheduleOne":
		on.ScheduleOne(ctx)
	case "bindings":
		on.ProcessBindings(ctx)
	case "deletePod":
		pods := on.Cluster().Pods()
		if len(pods) > 0 {
			p := pods[o.n%len(pods)].Pod
			if err := on.DeletePod(p.Namespace, p.Name); err != nil {
				t.Fatalf("%v: %v", o, err)
			}
		}
	case "allow":
		if ws := e.s.WaitingPods(); len(ws) > 0 {
			w := ws[o.n%len(ws)]
			w.Allow(w.PendingPlugins()[0])
		}
	case "advance":
		if err := e.clock.Advance(time.Duration(o.n) * time.Second); err != nil {
			t.Fatal(err)
		}
	}
}

func fkEnv(t *rapid.T, nodes []string) *scEnv {
	c, err := cluster.NewFrom(scNodes(nodes...), nil)
	if err != nil {
		t.Fatal(err)
	}
	e := &scEnv{clock: framework.NewFakeClock(scT0), rec: &scRecorder{}}
	prof := framework.Profile{
		QueueSort:  []string{config.PrioritySortName},
		PreFilter:  []string{config.NodeResourcesFitName},
		Filter:     []string{config.NodeResourcesFitName},
		PostFilter: []string{config.DefaultPreemptionName},
		Score:      []string{"ScLeast"},
		Weights:    map[string]int64{"ScLeast": 1},
		Reserve:    []string{"A", "B"},
		Permit:     []string{"A", "B"},
		PreBind:    []string{"A"},
		Bind:       []string{config.DefaultBinderName},
	}
	e.s, err = New(c, ppRegistry(), []framework.Profile{prof}, WithClock(e.clock), WithSeed(3),
		WithDecisionHandler(func(d Decision) { e.decisions = append(e.decisions, d) }))
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// fkView is everything a scheduler holds, in a form go-cmp compares: the
// cluster (pods, each node's pod order and requests), the queue (every
// record, the pop order of each sub-queue, the counters), nominations,
// pending reasons, pods held at Permit with their deadlines, ready
// bindings, the round-robin index, the cycle counter and the random
// source.
type fkView struct {
	Pods                []string
	Nodes               []string
	Queue               []string
	Active, Backoff     []string
	ErrBackoff, Unsched []string
	Seq, Moves          uint64
	Nominated           map[string][]string
	Reasons             map[string]string
	Waiting             []string
	Ready               []string
	Timers              int
	NextStart           int
	Cycle               int64
	Rand                []uint64
}

func fkViewOf(t *rapid.T, e *scEnv) fkView {
	s := e.s
	var v fkView
	for _, r := range s.Cluster().Pods() {
		v.Pods = append(v.Pods, fmt.Sprintf("%s %s node=%q nominated=%q", r.Pod.Key(), r.State, r.Pod.Spec.NodeName, r.Pod.Status.NominatedNodeName))
	}
	for _, ni := range s.Cluster().Snapshot().Nodes() {
		var keys []string
		for _, pi := range ni.Pods {
			keys = append(keys, pi.Pod.Key())
		}
		v.Nodes = append(v.Nodes, fmt.Sprintf("%s %v cpu=%d", ni.Name(), keys, ni.Requested.MilliCPU))
	}
	q := s.queue
	for _, key := range slices.Sorted(maps.Keys(q.Pods)) {
		p := q.Pods[key]
		init := "-"
		if p.InitialAttemptTimestamp != nil {
			init = p.InitialAttemptTimestamp.Sub(scT0).String()
		}
		v.Queue = append(v.Queue, fmt.Sprintf("%s where=%d attempts=%d ts=%v init=%s seq=%d unsched=%v pending=%v moveSeen=%d nominated=%q",
			key, p.Where, p.Attempts, p.Timestamp.Sub(scT0), init, p.Seq, p.UnschedulablePlugins, p.PendingPlugins, p.MoveSeen, p.Pod.Status.NominatedNodeName))
		if pi, _, ok := s.cluster.PodInfo(key); p.Where != queue.InFlight && (!ok || pi != p.PodInfo) {
			t.Fatalf("queue record of %s holds another pod object than the cluster", key)
		}
	}
	order := func(h *queue.Heap) []string {
		items := slices.Clone(h.Items)
		sort.Slice(items, func(i, j int) bool { return h.LessFn(items[i], items[j]) })
		var out []string
		for _, p := range items {
			out = append(out, p.Key)
		}
		return out
	}
	v.Active, v.Backoff, v.ErrBackoff = order(q.ActiveQ), order(q.BackoffQ), order(q.ErrorBackoffQ)
	v.Unsched = slices.Sorted(maps.Keys(q.UnschedulableQ))
	v.Seq, v.Moves = q.Seq, q.Moves
	v.Nominated = map[string][]string{}
	for node, list := range s.nominator.ByNode {
		for _, pi := range list {
			v.Nominated[node] = append(v.Nominated[node], pi.Pod.Key())
		}
	}
	for key, node := range s.nominator.NodeOf {
		if !slices.ContainsFunc(s.nominator.ByNode[node], func(pi *framework.PodInfo) bool { return pi.Pod.Key() == key }) {
			t.Fatalf("nominator: %s → %s but not in the node's list", key, node)
		}
	}
	v.Reasons = maps.Clone(s.reasons)
	for _, w := range s.WaitingPods() {
		var ds []string
		for i, pw := range w.waits {
			ds = append(ds, fmt.Sprintf("%s@%v", pw.Plugin, w.deadlines[i].Sub(scT0)))
		}
		v.Waiting = append(v.Waiting, fmt.Sprintf("%s on %s pending=%v deadlines=%v", w.Pod().Key(), w.Node(), w.PendingPlugins(), ds))
	}
	for _, b := range s.ready {
		v.Ready = append(v.Ready, b.qp.Key+" "+b.status.Message())
	}
	v.Timers = e.clock.PendingTimers()
	v.NextStart, v.Cycle = s.nextStart, s.cycle
	r := *s.pcg
	for range 4 {
		v.Rand = append(v.Rand, r.Uint64())
	}
	return v
}

// fkCheckQueued: every pod the cluster has Pending is in the queue (in a
// sub-queue or in flight), and the queue holds no pod the cluster lacks.
func fkCheckQueued(t *rapid.T, e *scEnv) {
	for _, r := range e.s.Cluster().Pods() {
		p, ok := e.s.queue.Get(r.Pod.Key())
		if r.State == cluster.StatePending && (!ok || p.Where == queue.Nowhere) {
			t.Fatalf("pod %s is Pending but not queued", r.Pod.Key())
		}
	}
	for key := range e.s.queue.Pods {
		if _, _, ok := e.s.cluster.PodInfo(key); !ok {
			t.Fatalf("queue holds %s, which the cluster does not have", key)
		}
	}
}

func fkDecisions(ds []Decision) []string {
	var out []string
	for _, d := range ds {
		out = append(out, fmt.Sprintf("%d %v %s %s#%d %s node=%s nominated=%s victims=%v %s", d.Cycle, d.Time.Sub(scT0), d.Pod, d.Outcome, d.Attempt, d.Stage, d.Node, d.NominatedNode, d.Victims, d.Message))
	}
	return out
}

// fkBranch forks s, runs op on the fork for each of 1..maxSteps steps
// (opening a nested fork at a random step, on which the later steps run,
// committed or reverted at the end), and reverts.
func fkBranch(t *rapid.T, s *Scheduler, maxSteps int, op func(f *Fork, i int)) {
	outer := mustFork(t, s)
	f := outer
	for i := range rapid.IntRange(1, maxSteps).Draw(t, "branch") {
		if f == outer && rapid.IntRange(0, 5).Draw(t, "nest") == 0 {
			var err error
			if f, err = outer.Fork(); err != nil {
				t.Fatal(err)
			}
		}
		op(f, i)
	}
	if f != outer {
		if rapid.Bool().Draw(t, "commitInner") {
			if err := f.Commit(); err != nil {
				t.Fatal(err)
			}
		} else if err := f.Revert(); err != nil {
			t.Fatal(err)
		}
	}
	if err := outer.Revert(); err != nil {
		t.Fatal(err)
	}
}

// fkRunBoth runs both schedulers until idle, rounds times, moving their
// clocks by step after each round.
func fkRunBoth(t *rapid.T, a, b *scEnv, rounds int, step time.Duration) {
	for range rounds {
		for _, e := range []*scEnv{a, b} {
			e.s.RunUntilIdle(context.Background())
			if err := e.clock.Advance(step); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestPropSchedulerForkRevert: after any sequence of AddPod, AddNode,
// ScheduleOne, SchedulePod, DeletePod, Allow and ProcessBindings inside a
// fork (nested forks committed into it included), Revert leaves the
// scheduler equal to one that never forked — cluster, queue, nominations,
// reasons, pods held at Permit, random source — and both then make the
// same decisions. Every Pending pod is queued throughout.
func TestPropSchedulerForkRevert(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nodes := rapid.SliceOfN(rapid.SampledFrom([]string{"1", "2", "4"}), 1, 3).Draw(t, "nodes")
		forked, plain := fkEnv(t, nodes), fkEnv(t, nodes)
		for i := range rapid.IntRange(0, 12).Draw(t, "prefix") {
			o := fkDrawOp(t, i, false)
			fkApply(t, forked, forked.s, o)
			fkApply(t, plain, plain.s, o)
		}
		fkCheckQueued(t, forked)
		before := fkViewOf(t, forked)
		if d := cmp.Diff(fkViewOf(t, plain), before); d != "" {
			t.Fatalf("the two schedulers differ before the fork:\n%s", d)
		}
		fkBranch(t, forked.s, 12, func(f *Fork, i int) {
			fkApply(t, forked, f, fkDrawOp(t, i, true))
			fkCheckQueued(t, forked)
		})
		fkCheckQueued(t, forked)
		if d := cmp.Diff(before, fkViewOf(t, forked)); d != "" {
			t.Fatalf("after Revert (-before +after):\n%s", d)
		}
		// The same future: more pods, the clock moving, scheduling to idle.
		mark, markPlain := len(forked.decisions), len(plain.decisions)
		for i := range rapid.IntRange(0, 4).Draw(t, "suffix") {
			o := fkDrawOp(t, 100+i, false)
			o.name = "s" + o.name
			fkApply(t, forked, forked.s, o)
			fkApply(t, plain, plain.s, o)
		}
		fkRunBoth(t, forked, plain, 4, 15*time.Second)
		if d := cmp.Diff(fkDecisions(plain.decisions[markPlain:]), fkDecisions(forked.decisions[mark:])); d != "" {
			t.Fatalf("decisions after Revert (-never forked +forked):\n%s", d)
		}
	})
}

// BenchmarkSchedulerForkRevert: Fork, SchedulePod one what-if pod, Revert
// on 1,000 nodes, with an empty queue and with 10,000 pods waiting in it:
// the queue journals only what the branch changes, so the cost does not
// grow with the queue.
func BenchmarkSchedulerForkRevert(b *testing.B) {
	for _, pending := range []int{0, 10000} {
		b.Run(fmt.Sprintf("pending=%d", pending), func(b *testing.B) {
			c, err := cluster.NewFrom(scBenchNodes(1000), nil)
			if err != nil {
				b.Fatal(err)
			}
			s, err := New(c, NewDefaultRegistry(), []framework.Profile{scResourceProfile()}, WithClock(framework.NewFakeClock(scT0)))
			if err != nil {
				b.Fatal(err)
			}
			for _, p := range scBenchPods(pending) {
				if err := s.AddPod(p); err != nil {
					b.Fatal(err)
				}
			}
			probe := scPod("what-if", "1").Obj()
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				f := mustFork(b, s)
				if d, err := f.SchedulePod(ctx, probe); err != nil || d.Outcome != OutcomeScheduled {
					b.Fatalf("%+v %v", d, err)
				}
				if err := f.Revert(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
