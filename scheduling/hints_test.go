package scheduling

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/scheduling/cluster"
	"github.com/schedkit/schedkit/scheduling/internal/queue"
)

// TestWorthRequeuing ports kube-scheduler v1.36.4's Test_isPodWorthRequeuing
// (backend/queue/scheduling_queue_test.go): which hints run for a pod and
// an event, and what their verdicts make of it.
func TestWorthRequeuing(t *testing.T) {
	count := 0
	hint := func(h framework.QueueingHint, err error) framework.QueueingHintFn {
		return func(*framework.Snapshot, *framework.PodInfo, any, any) (framework.QueueingHint, error) {
			count++
			return h, err
		}
	}
	queueHint, skip, fail := hint(framework.Queue, nil), hint(framework.QueueSkip, nil), hint(framework.QueueSkip, errors.New("unexpected error"))
	nodeAdd := framework.ClusterEvent{Resource: framework.ResourceNode, ActionType: framework.Add}
	pod := framework.MustPodInfo(builder.MakePod().Name("pod1").Namespace("ns1").UID("1").Obj())
	node := builder.MakeNode().Name("n").Obj()
	for _, tc := range []struct {
		name             string
		unsched, pending []string
		event            framework.ClusterEvent
		newObj           any
		hints            []queue.HintFn
		want             queue.Strategy
		wantCount        int
	}{
		{name: "return Queue when no queueing hint function is registered for the event", unsched: []string{"fooPlugin1"},
			event: nodeAdd, newObj: node, want: queue.Skip,
			hints: []queue.HintFn{{Event: framework.EventAssignedPodAdd, Plugin: "fooPlugin1", Fn: queueHint}}},
		{name: "Treat the event as Queue when QueueHintFn returns error", unsched: []string{"fooPlugin1"},
			event: nodeAdd, newObj: node, want: queue.AfterBackoff, wantCount: 1,
			hints: []queue.HintFn{{Event: nodeAdd, Plugin: "fooPlugin1", Fn: fail}}},
		{name: "return Queue when the event is wildcard", unsched: []string{"fooPlugin1"},
			event: framework.EventUnschedulableTimeout, want: queue.AfterBackoff},
		{name: "return Queue when the event is wildcard and the wildcard targets the pod to be requeued right now", unsched: []string{"fooPlugin1"},
			event: framework.EventForceActivate, newObj: pod, want: queue.AfterBackoff},
		{name: "return Skip when the event is wildcard, but the wildcard targets a different pod", unsched: []string{"fooPlugin1"},
			event: framework.EventForceActivate, newObj: framework.MustPodInfo(builder.MakePod().Name("pod-different").Namespace("ns2").UID("2").Obj()), want: queue.Skip},
		{name: "interprets Queue from the Pending plugin as queueImmediately", unsched: []string{"fooPlugin1", "fooPlugin3"}, pending: []string{"fooPlugin2"},
			event: nodeAdd, newObj: node, want: queue.Immediately, wantCount: 2,
			hints: []queue.HintFn{{Event: nodeAdd, Plugin: "fooPlugin1", Fn: queueHint}, {Event: nodeAdd, Plugin: "fooPlugin2", Fn: queueHint},
				{Event: nodeAdd, Plugin: "fooPlugin3", Fn: queueHint}, {Event: nodeAdd, Plugin: "fooPlugin4", Fn: fail}}},
		{name: "interprets Queue from the Unschedulable plugin as queueAfterBackoff", unsched: []string{"fooPlugin1", "fooPlugin2"},
			event: nodeAdd, newObj: node, want: queue.AfterBackoff, wantCount: 2,
			hints: []queue.HintFn{{Event: nodeAdd, Plugin: "fooPlugin1", Fn: skip}, {Event: nodeAdd, Plugin: "fooPlugin2", Fn: queueHint}}},
		{name: "Queueing hint function that isn't from the plugin in UnschedulablePlugins/PendingPlugins is ignored", unsched: []string{"fooPlugin1", "fooPlugin2"},
			event: nodeAdd, newObj: node, want: queue.Skip, wantCount: 2,
			hints: []queue.HintFn{{Event: nodeAdd, Plugin: "fooPlugin1", Fn: skip}, {Event: nodeAdd, Plugin: "fooPlugin2", Fn: skip},
				{Event: nodeAdd, Plugin: "fooPlugin3", Fn: queueHint}}},
		{name: "If event is specific Node update event, queueing hint function for NodeUpdate/UpdateNodeLabel is also executed", unsched: []string{"fooPlugin1", "fooPlugin2"},
			event: framework.ClusterEvent{Resource: framework.ResourceNode, ActionType: framework.UpdateNodeLabel}, newObj: node, want: queue.AfterBackoff, wantCount: 1,
			hints: []queue.HintFn{
				{Event: framework.ClusterEvent{Resource: framework.ResourceNode, ActionType: framework.UpdateNodeLabel}, Plugin: "fooPlugin1", Fn: queueHint},
				{Event: framework.ClusterEvent{Resource: framework.ResourceNode, ActionType: framework.UpdateNodeLabel}, Plugin: "fooPlugin2", Fn: queueHint},
				{Event: framework.ClusterEvent{Resource: framework.ResourceNode, ActionType: framework.Update}, Plugin: "fooPlugin1", Fn: queueHint},
				{Event: nodeAdd, Plugin: "fooPlugin1", Fn: queueHint}}},
		{name: "If event with '*' Resource, queueing hint function for specified Resource is also executed", unsched: []string{"fooPlugin1"},
			event: nodeAdd, newObj: node, want: queue.AfterBackoff, wantCount: 1,
			hints: []queue.HintFn{{Event: framework.ClusterEvent{Resource: framework.ResourceWildCard, ActionType: framework.Add}, Plugin: "fooPlugin1", Fn: queueHint}}},
		{name: "If event is a wildcard one, queueing hint function for all kinds of events is executed", unsched: []string{"fooPlugin1"},
			event: framework.ClusterEvent{Resource: framework.ResourceNode, ActionType: framework.UpdateNodeLabel | framework.UpdateNodeTaint}, newObj: node,
			want: queue.AfterBackoff, wantCount: 1,
			hints: []queue.HintFn{{Event: framework.ClusterEvent{Resource: framework.ResourceWildCard, ActionType: framework.All}, Plugin: "fooPlugin1", Fn: queueHint}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			count = 0
			q := queue.New(framework.NewFakeClock(scT0), nil, QueueOptions{}.config())
			q.Hints = &queue.Hints{ByProfile: map[string][]queue.HintFn{DefaultSchedulerName: tc.hints}}
			q.Snapshot = func() *framework.Snapshot { return nil }
			p := &queue.QueuedPod{QueuedPodInfo: framework.QueuedPodInfo{PodInfo: pod}, Key: pod.Pod.Key(), UnschedulablePlugins: tc.unsched, PendingPlugins: tc.pending}
			if got := q.WorthRequeuing(p, &queue.Event{ClusterEvent: tc.event, New: tc.newObj}); got != tc.want {
				t.Errorf("strategy %v, want %v", got, tc.want)
			}
			if count != tc.wantCount {
				t.Errorf("hints ran %d times, want %d", count, tc.wantCount)
			}
		})
	}
}

// hintEnv is the default profile on one full 1-cpu node with a pod asking
// 2 cpu that NodeResourcesFit rejects.
func hintEnv(t *testing.T, hints bool) *scEnv {
	t.Helper()
	full := builder.MakeNode().Name("n1").Label("zone", "a").Capacity(map[string]string{"cpu": "1", "memory": "16Gi", "pods": "10"}).Obj()
	c, err := cluster.NewFrom([]*api.Node{full}, nil)
	if err != nil {
		t.Fatal(err)
	}
	e := &scEnv{clock: framework.NewFakeClock(scT0)}
	e.s, err = New(c, NewDefaultRegistry(), []framework.Profile{DefaultProfile()}, WithClock(e.clock),
		WithQueueOptions(QueueOptions{DisableQueueingHints: !hints}), WithDecisionHandler(func(d Decision) { e.decisions = append(e.decisions, d) }))
	if err != nil {
		t.Fatal(err)
	}
	e.add(t, builder.MakePod().Name("big").Req(map[string]string{"cpu": "2"}).Obj())
	if d, ok := e.s.ScheduleOne(context.Background()); !ok || d.Outcome != OutcomeUnschedulable || d.Plugin != "" && d.Plugin != "NodeResourcesFit" {
		t.Fatalf("first attempt: %+v", d)
	}
	if _, _, u := e.s.QueueLengths(); u != 1 {
		t.Fatalf("pod not in the unschedulable pool")
	}
	return e
}

// TestHintsMoveOnlyWhatHelps: with hints, events NodeResourcesFit's hints
// call irrelevant leave its rejected pod in the pool, and the one that can
// help (allocatable up to fit) moves it; without hints every event moves
// it.
func TestHintsMoveOnlyWhatHelps(t *testing.T) {
	n1 := func() *builder.NodeWrapper { return builder.MakeNode().Name("n1").Label("zone", "a") }
	events := []struct {
		name string
		do   func(*Scheduler) error
		help bool
	}{
		{"same node again", func(s *Scheduler) error {
			return s.UpdateNode(n1().Capacity(map[string]string{"cpu": "1", "memory": "16Gi", "pods": "10"}).Obj())
		}, false},
		{"label change", func(s *Scheduler) error {
			return s.UpdateNode(n1().Label("extra", "x").Capacity(map[string]string{"cpu": "1", "memory": "16Gi", "pods": "10"}).Obj())
		}, false},
		{"node metric", func(s *Scheduler) error {
			return s.UpdateNodeMetric(builder.MakeNodeMetric("n1").UpdateTime(scT0).Usage(map[string]string{"cpu": "100m"}).Obj())
		}, false},
		{"small node added", func(s *Scheduler) error {
			return s.AddNode(builder.MakeNode().Name("n2").Capacity(map[string]string{"cpu": "1", "memory": "16Gi", "pods": "10"}).Obj())
		}, false},
		{"bound pod added", func(s *Scheduler) error {
			return s.AddPod(builder.MakePod().Name("other").Node("n1").Req(map[string]string{"cpu": "100m"}).Obj())
		}, false},
		{"allocatable up to fit", func(s *Scheduler) error {
			return s.UpdateNode(n1().Capacity(map[string]string{"cpu": "4", "memory": "16Gi", "pods": "10"}).Obj())
		}, true},
	}
	for _, hints := range []bool{true, false} {
		for _, ev := range events {
			t.Run(ev.name, func(t *testing.T) {
				e := hintEnv(t, hints)
				if err := ev.do(e.s); err != nil {
					t.Fatal(err)
				}
				_, _, u := e.s.QueueLengths()
				if moved, want := u == 0, ev.help || !hints; moved != want {
					t.Errorf("hints=%v: moved %v, want %v", hints, moved, want)
				}
			})
		}
	}
}

// TestHintsPluginWithoutHints: a filter without EnqueueExtensions registers
// every event, so any event retries the pods it rejected.
func TestHintsPluginWithoutHints(t *testing.T) {
	e := newScEnv(t, scNodes("1"), nil)
	e.add(t, scPod("p", "2").Obj())
	if d, _ := e.s.ScheduleOne(context.Background()); d.Outcome != OutcomeUnschedulable {
		t.Fatalf("first attempt: %+v", d)
	}
	if err := e.s.UpdateNodeMetric(builder.MakeNodeMetric("n1").UpdateTime(scT0).Obj()); err != nil {
		t.Fatal(err)
	}
	if _, _, u := e.s.QueueLengths(); u != 0 {
		t.Errorf("a NodeMetric update left the pod of a plugin without hints in the pool")
	}
}

// TestHintsNodeAddAlsoRegistersTaintUpdate: in kube-scheduler v1.36 a
// plugin registering Node/Add without UpdateNodeTaint gets UpdateNodeTaint
// with Queue (buildQueueingHintMap, kubernetes/kubernetes#109437); v1.37.2's
// buildQueueingHintMap dropped that workaround.
func TestHintsNodeAddAlsoRegistersTaintUpdate(t *testing.T) {
	for _, v := range framework.KubeVersions() {
		s, err := New(mustCluster(t), NewDefaultRegistry(), []framework.Profile{DefaultProfileFor(v)}, WithKubeVersion(v))
		if err != nil {
			t.Fatal(err)
		}
		taint := framework.ClusterEvent{Resource: framework.ResourceNode, ActionType: framework.UpdateNodeTaint}
		got := map[string]bool{}
		for _, h := range s.queue.Hints.ByProfile[DefaultSchedulerName] {
			if h.Event == taint && h.Fn == nil {
				got[h.Plugin] = true
			}
		}
		// NodeName, NodePorts, NodeResourcesFit, NodeAffinity and
		// InterPodAffinity register Node/Add without UpdateNodeTaint.
		want := !v.AtLeast(framework.KubeV137)
		for _, pl := range []string{"NodeName", "NodePorts", "NodeResourcesFit", "NodeAffinity", "InterPodAffinity"} {
			if got[pl] != want {
				t.Errorf("%s: %s: default UpdateNodeTaint registration %v, want %v", v, pl, got[pl], want)
			}
		}
		for _, pl := range []string{"TaintToleration", "NodeUnschedulable", "PodTopologySpread"} {
			if got[pl] {
				t.Errorf("%s: %s registers UpdateNodeTaint itself: no default one expected", v, pl)
			}
		}
	}
}

// TestHintsTaintOnlyUpdateByRelease: a pod rejected only by NodeAffinity
// is retried after a taint-only update of the node in kube-scheduler v1.36
// (the default UpdateNodeTaint registration), and stays unschedulable in
// v1.37, which dropped it.
func TestHintsTaintOnlyUpdateByRelease(t *testing.T) {
	node := func() *builder.NodeWrapper {
		return builder.MakeNode().Name("n1").Label("zone", "a").Capacity(map[string]string{"cpu": "4", "memory": "16Gi", "pods": "10"})
	}
	for _, tc := range []struct {
		v     framework.KubeVersion
		moved bool
	}{{framework.KubeV136, true}, {framework.KubeV137, false}} {
		t.Run(tc.v.String(), func(t *testing.T) {
			c, err := cluster.NewFrom([]*api.Node{node().Obj()}, nil)
			if err != nil {
				t.Fatal(err)
			}
			s, err := New(c, NewDefaultRegistry(), []framework.Profile{DefaultProfileFor(tc.v)}, WithKubeVersion(tc.v), WithClock(framework.NewFakeClock(scT0)))
			if err != nil {
				t.Fatal(err)
			}
			if err := s.AddPod(builder.MakePod().Name("p").Namespace("default").NodeSelector(map[string]string{"zone": "b"}).Obj()); err != nil {
				t.Fatal(err)
			}
			d, _ := s.ScheduleOne(context.Background())
			if d.Outcome != OutcomeUnschedulable || !strings.Contains(d.Message, "didn't match Pod's node affinity/selector") {
				t.Fatalf("first attempt: %s %q", d.Outcome, d.Message)
			}
			if _, _, u := s.QueueLengths(); u != 1 {
				t.Fatalf("pod not in the unschedulable pool: %d", u)
			}
			if err := s.UpdateNode(node().Taint("k", "v", api.TaintEffectPreferNoSchedule).Obj()); err != nil {
				t.Fatal(err)
			}
			if _, _, u := s.QueueLengths(); (u == 0) != tc.moved {
				t.Errorf("moved %v, want %v", u == 0, tc.moved)
			}
		})
	}
}

func mustCluster(t *testing.T) *cluster.Cluster {
	t.Helper()
	c, err := cluster.NewFrom(scNodes("1"), nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestHintsInFlightEvents: an event that arrives while a pod is in flight
// counts when the pod fails (kube's determineSchedulingHintForInFlightPod):
// a bound pod's deletion during the attempt sends the Fit-rejected pod to
// backoff, an unrelated event leaves it in the pool.
func TestHintsInFlightEvents(t *testing.T) {
	for _, tc := range []struct {
		name   string
		event  func(e *scEnv)
		inPool bool
	}{
		{"pod deleted while in flight", func(e *scEnv) { _ = e.s.deletePodLocked("default", "filler", "deleted") }, false},
		{"node metric while in flight", func(e *scEnv) {
			e.s.reportEvent(framework.ClusterEvent{Resource: framework.ResourceNodeMetric, ActionType: framework.Add}, nil,
				builder.MakeNodeMetric("n1").UpdateTime(scT0).Obj(), nil, true)
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := hintEnv(t, true)
			e.add(t, builder.MakePod().Name("filler").Node("n1").Req(map[string]string{"cpu": "500m"}).Obj())
			if err := e.clock.AdvanceTo(scT0.Add(5*time.Minute + time.Hour)); err != nil {
				t.Fatal(err)
			}
			q := e.s.queue
			q.Flush(e.clock.Now()) // the leftover flush moves the pod back
			p := q.Pop()
			if p == nil {
				t.Fatal("nothing to pop after the leftover flush")
			}
			tc.event(e)
			q.RequeueFailed(p, []string{"NodeResourcesFit"}, nil, false)
			if _, _, u := q.Lens(); (u == 1) != tc.inPool {
				t.Errorf("in pool %v, want %v", u == 1, tc.inPool)
			}
			if len(q.Flight) != 0 || len(q.FlightEvents) != 0 {
				t.Errorf("in-flight bookkeeping left: %d pods, %d events", len(q.Flight), len(q.FlightEvents))
			}
		})
	}
}

// TestHintsLeftoverFlush: with hints a pod no event helps is still retried
// by the 5-minute leftover flush.
func TestHintsLeftoverFlush(t *testing.T) {
	e := hintEnv(t, true)
	want := scT0.Add(5*time.Minute + 30*time.Second)
	if wake, ok := e.s.NextWakeup(); !ok || !wake.Equal(want) {
		t.Fatalf("wakeup %v, want %v", wake.Sub(scT0), want.Sub(scT0))
	}
	if err := e.clock.AdvanceTo(want); err != nil {
		t.Fatal(err)
	}
	if d, ok := e.s.ScheduleOne(context.Background()); !ok || d.Attempt != 2 {
		t.Fatalf("not retried at the flush tick: %+v %v", d, ok)
	}
}

// TestUpdatePod: a pending pod's own update retries it when a rejecting
// plugin's hint says Queue (a lower request for NodeResourcesFit), not for
// an unrelated change; a bound pod's scale-down is recounted on its node
// and retries the pods Fit rejected; bad updates are errors naming the
// field.
func TestUpdatePod(t *testing.T) {
	ctx := context.Background()
	t.Run("pending pod scaled down", func(t *testing.T) {
		e := hintEnv(t, true)
		if err := e.s.UpdatePod(builder.MakePod().Name("big").Label("x", "y").Req(map[string]string{"cpu": "2"}).Obj()); err != nil {
			t.Fatal(err)
		}
		if _, _, u := e.s.QueueLengths(); u != 1 {
			t.Fatal("a label change moved a pod NodeResourcesFit rejected")
		}
		if err := e.s.UpdatePod(builder.MakePod().Name("big").Req(map[string]string{"cpu": "500m"}).Obj()); err != nil {
			t.Fatal(err)
		}
		if err := e.clock.AdvanceTo(scT0.Add(10 * time.Second)); err != nil {
			t.Fatal(err)
		}
		if d, ok := e.s.ScheduleOne(ctx); !ok || d.Outcome != OutcomeScheduled || d.Node != "n1" {
			t.Fatalf("after scale-down: %+v %v", d, ok)
		}
	})
	t.Run("bound pod scaled down", func(t *testing.T) {
		e := hintEnv(t, true)
		e.add(t, builder.MakePod().Name("small").Req(map[string]string{"cpu": "100m"}).Obj())
		if d, _ := e.s.ScheduleOne(ctx); d.Outcome != OutcomeScheduled {
			t.Fatalf("small: %+v", d)
		}
		e.s.cluster.Fork()
		if err := e.s.UpdatePod(builder.MakePod().Name("small").Node("n1").Req(map[string]string{"cpu": "50m"}).Obj()); err != nil {
			t.Fatal(err)
		}
		ni, _ := e.s.cluster.NodeInfo("n1")
		if ni.Requested.MilliCPU != 50 {
			t.Errorf("requested %dm after the scale-down, want 50m", ni.Requested.MilliCPU)
		}
		if _, _, u := e.s.QueueLengths(); u != 0 {
			t.Error("a bound pod's scale-down left the Fit-rejected pod in the pool")
		}
		if err := e.s.cluster.Revert(); err != nil {
			t.Fatal(err)
		}
		if ni, _ := e.s.cluster.NodeInfo("n1"); ni.Requested.MilliCPU != 100 {
			t.Errorf("requested %dm after Revert, want 100m", ni.Requested.MilliCPU)
		}
	})
	t.Run("errors", func(t *testing.T) {
		e := hintEnv(t, true)
		for _, tc := range []struct {
			pod  *api.Pod
			want string
		}{
			{builder.MakePod().Name("nobody").Obj(), "unknown pod default/nobody"},
			{builder.MakePod().Name("big").Node("n1").Obj(), `spec.nodeName="n1": a pending pod names no node`},
			{builder.MakePod().Name("big").UID("u").Obj(), `uid "big" -> "u": may not change`},
			{builder.MakePod().Name("big").SchedulerName("other").Obj(), `spec.schedulerName "" -> "other": may not change`},
		} {
			if err := e.s.UpdatePod(tc.pod); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("UpdatePod(%s): %v, want %q", tc.pod.Key(), err, tc.want)
			}
		}
		if err := e.s.UpdatePod(nil); err == nil {
			t.Error("nil pod accepted")
		}
		e.add(t, builder.MakePod().Name("bound").Node("n1").Obj())
		for _, tc := range []struct {
			pod  *api.Pod
			want string
		}{
			{builder.MakePod().Name("bound").Obj(), `spec.nodeName="": cannot change (was "n1")`},
			{builder.MakePod().Name("bound").Node("n1").UID("u").Obj(), `metadata.uid="u": cannot change`},
		} {
			if err := e.s.UpdatePod(tc.pod); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("UpdatePod(%s): %v, want %q", tc.pod.Key(), err, tc.want)
			}
		}
	})
}
