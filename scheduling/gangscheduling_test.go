package scheduling

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/filter/gangscheduling"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/runtime"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/scheduling/cluster"
	"github.com/schedkit/schedkit/scheduling/internal/queue"
)

// gsPod is kube's st.MakePod().Namespace(ns).Name(name).UID(name).PodGroupName(group).
func gsPod(ns, name, group string) *api.Pod {
	p := st.MakePod().Namespace(ns).Name(name).Req(map[string]string{"cpu": "100m"}).Obj()
	if group != "" {
		g := group
		p.Spec.SchedulingGroup = &api.PodSchedulingGroup{PodGroupName: &g}
	}
	return p
}

func gsGang(ns, name string, minCount int32) *api.WorkloadPodGroup {
	return &api.WorkloadPodGroup{ObjectMeta: api.ObjectMeta{Namespace: ns, Name: name},
		Spec: api.WorkloadPodGroupSpec{SchedulingPolicy: api.PodGroupSchedulingPolicy{Gang: &api.GangSchedulingPolicy{MinCount: minCount}}}}
}

func gsBasic(ns, name string) *api.WorkloadPodGroup {
	return &api.WorkloadPodGroup{ObjectMeta: api.ObjectMeta{Namespace: ns, Name: name},
		Spec: api.WorkloadPodGroupSpec{SchedulingPolicy: api.PodGroupSchedulingPolicy{Basic: &api.BasicSchedulingPolicy{}}}}
}

// gsProfile runs GangScheduling at Permit beside the resource filter.
func gsProfile() framework.Profile {
	return framework.Profile{PreEnqueue: []string{config.GangSchedulingName}, QueueSort: []string{config.PrioritySortName}, PreFilter: []string{config.NodeResourcesFitName},
		Filter: []string{config.NodeResourcesFitName}, Permit: []string{config.GangSchedulingName}, Bind: []string{config.DefaultBinderName}}
}

var gsFeatures = framework.WorkloadFeatures{GenericWorkload: true, GangScheduling: true}

// TestGangSchedulingFlow ports kube-scheduler v1.36's
// pkg/scheduler/framework/plugins/gangscheduling/gangscheduling_test.go
// TestGangSchedulingFlow (every case of v1.36.4): PreEnqueue, then the
// pods already waiting at Permit, then the pod's own Permit, in a pod's
// cycle or in a pod group cycle's trial.
func TestGangSchedulingFlow(t *testing.T) {
	pg1, pg2, pg3 := gsGang("ns1", "pg1", 3), gsGang("ns1", "pg2", 4), gsBasic("ns1", "pg3")
	p1, p2, p3 := gsPod("ns1", "p1", "pg1"), gsPod("ns1", "p2", "pg1"), gsPod("ns1", "p3", "pg1")
	p4, p5 := gsPod("ns1", "p4", "pg2"), gsPod("ns1", "p5", "pg2")
	basic, nonGang := gsPod("ns1", "basic-pod", "pg3"), gsPod("ns1", "non-gang", "")
	tests := []struct {
		name          string
		pod           *api.Pod
		initial       []*api.Pod
		groups        []*api.WorkloadPodGroup
		waiting       []*api.Pod
		wantPreEnq    *framework.Status
		wantPermit    *framework.Status
		wantActivated []string
		wantAllowed   []string
		// duringCycle runs tt.pod's Permit in a pod group cycle's trial: the
		// pod is assumed in the trial, not in the cluster.
		duringCycle bool
	}{
		{name: "non-gang pod succeeds immediately", pod: nonGang, groups: []*api.WorkloadPodGroup{pg1, pg2, pg3}},
		{name: "basic policy pod succeeds immediately", pod: basic, groups: []*api.WorkloadPodGroup{pg1, pg2, pg3}},
		{name: "gang pod fails PreEnqueue when pod group is not yet created", pod: p1, initial: []*api.Pod{p2, p3, p4, p5},
			wantPreEnq: framework.NewStatus(framework.UnschedulableAndUnresolvable, `waiting for pods's pod group "pg1" to appear in scheduling queue`)},
		{name: "gang pod fails PreEnqueue when quorum is not met", pod: p1, initial: []*api.Pod{p2, p4, p5}, groups: []*api.WorkloadPodGroup{pg1, pg2},
			wantPreEnq: framework.NewStatus(framework.UnschedulableAndUnresolvable, "waiting for minCount pods from a gang to appear in scheduling queue")},
		{name: "gang pod passes PreEnqueue, but waits at Permit", pod: p1, initial: []*api.Pod{p2, p3, p4, p5}, groups: []*api.WorkloadPodGroup{pg1, pg2},
			waiting: []*api.Pod{p2, p4, p5}, wantPermit: framework.NewStatus(framework.Wait, "waiting for minCount pods from a gang to be scheduled"),
			wantActivated: []string{"ns1/p3"}},
		{name: "final gang pod arrives at Permit and allows all waiting pods from a gang", pod: p1, initial: []*api.Pod{p2, p3, p4, p5},
			groups: []*api.WorkloadPodGroup{pg1, pg2}, waiting: []*api.Pod{p2, p3, p4, p5}, wantAllowed: []string{"ns1/p2", "ns1/p3"}},
		{name: "final gang pod arrives at Permit during pod group scheduling cycle", pod: p1, initial: []*api.Pod{p2, p3, p4, p5},
			groups: []*api.WorkloadPodGroup{pg1, pg2}, waiting: []*api.Pod{p2, p3, p4, p5}, wantAllowed: []string{"ns1/p2", "ns1/p3"}, duringCycle: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := cluster.NewFrom([]*api.Node{csNode("some-node")}, append(append([]*api.Pod(nil), tt.initial...), tt.pod))
			if err != nil {
				t.Fatal(err)
			}
			for _, g := range tt.groups {
				if err := c.AddWorkloadPodGroup(g); err != nil {
					t.Fatal(err)
				}
			}
			clock := framework.NewFakeClock(csNow)
			s, err := New(c, NewDefaultRegistry(), []framework.Profile{gsProfile()}, WithClock(clock), WithWorkloadFeatures(gsFeatures))
			if err != nil {
				t.Fatal(err)
			}
			fw, _ := s.Framework(DefaultSchedulerName)
			plugin, _ := fw.Plugin(config.GangSchedulingName)
			pl := plugin.(*gangscheduling.GangScheduling)
			if got := pl.PreEnqueue(context.Background(), tt.pod); !statusEqual(got, tt.wantPreEnq) {
				t.Fatalf("PreEnqueue = %v, want %v", got, tt.wantPreEnq)
			}
			if !tt.wantPreEnq.IsSuccess() {
				return
			}
			state := func() *framework.CycleState {
				return s.newState(&cycleHandle{s: s, prof: s.profiles[DefaultSchedulerName]})
			}
			var allowed []string
			for _, p := range tt.waiting {
				if err := c.Assume(p.Namespace, p.Name, "some-node"); err != nil {
					t.Fatal(err)
				}
				pi, _, _ := c.PodInfo(p.Key())
				st, timeout := pl.Permit(context.Background(), state(), pi, "some-node")
				if st.Code() != framework.Wait || timeout != gangscheduling.PermitTimeout {
					t.Fatalf("Permit of waiting pod %s = %v %v, want Wait for 5m", p.Name, st, timeout)
				}
				key := p.Key()
				s.waiting.add(key, newWaitingPod(pi.Pod, "some-node", []runtime.PermitWait{{Plugin: config.GangSchedulingName, Timeout: timeout}}, clock,
					func(_ *WaitingPod, st *framework.Status) {
						if st.IsSuccess() {
							allowed = append(allowed, key)
						}
					}))
			}
			// The other pending pods failed earlier: the unschedulable pool
			// holds them (so only tt.pod's Permit can activate them).
			for _, p := range tt.initial {
				if r, _ := c.Pod(p.Namespace, p.Name); r.State != cluster.StatePending {
					continue
				}
				qp, _ := s.queue.Get(p.Key())
				s.queue.Unlink(qp)
				qp.Where, qp.Attempts = queue.InFlight, 1
				s.queue.RequeueFailed(qp, nil, nil, false)
			}
			st := state()
			if tt.duringCycle {
				_, placed := c.WorkloadPodGroupCounts(tt.pod.Namespace, "pg1")
				st.Write(pgTrialKey, &pgTrial{scheduled: placed + 1})
			} else if err := c.Assume(tt.pod.Namespace, tt.pod.Name, "some-node"); err != nil {
				t.Fatal(err)
			}
			pi, _, _ := c.PodInfo(tt.pod.Key())
			got, _ := pl.Permit(context.Background(), st, pi, "some-node")
			if !statusEqual(got, tt.wantPermit) {
				t.Fatalf("Permit = %v, want %v", got, tt.wantPermit)
			}
			var activated []string
			for _, p := range tt.initial {
				if r, _ := c.Pod(p.Namespace, p.Name); r.State != cluster.StatePending {
					continue
				}
				if qp, _ := s.queue.Get(p.Key()); qp.Where == queue.Active {
					activated = append(activated, p.Key())
				}
			}
			if diff := cmp.Diff(tt.wantActivated, activated); diff != "" {
				t.Errorf("activated pods (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantAllowed, allowed); diff != "" {
				t.Errorf("allowed pods (-want +got):\n%s", diff)
			}
		})
	}
}

func statusEqual(a, b *framework.Status) bool {
	return a.Code() == b.Code() && a.Message() == b.Message()
}

// TestGangSchedulingInScheduler runs the pod group cycle: a gang that fits
// binds whole; one short of room is refused whole (each pod with kube's
// message) and leaves the cluster as it was; a pod naming a missing
// PodGroup is held back by PreEnqueue; without the GangScheduling feature
// the plugin still runs, and without GenericWorkload it passes every pod.
func TestGangSchedulingInScheduler(t *testing.T) {
	run := func(t *testing.T, nodes int, pods []*api.Pod, groups ...*api.WorkloadPodGroup) (*Scheduler, *framework.FakeClock, []Decision) {
		var ns []*api.Node
		for i := range nodes {
			ns = append(ns, csNode(fmt.Sprintf("n%d", i)))
		}
		c, err := cluster.NewFrom(ns, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range groups {
			if err := c.AddWorkloadPodGroup(g); err != nil {
				t.Fatal(err)
			}
		}
		var ds []Decision
		clock := framework.NewFakeClock(csNow)
		s, err := New(c, NewDefaultRegistry(), []framework.Profile{gsProfile()}, WithClock(clock), WithWorkloadFeatures(gsFeatures),
			WithDecisionHandler(func(d Decision) { ds = append(ds, d) }))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range pods {
			if err := s.AddPod(p); err != nil {
				t.Fatal(err)
			}
		}
		s.RunUntilIdle(context.Background())
		return s, clock, ds
	}
	t.Run("fits", func(t *testing.T) {
		s, _, _ := run(t, 1, []*api.Pod{gsPod("ns", "a", "job"), gsPod("ns", "b", "job"), gsPod("ns", "c", "job")}, gsGang("ns", "job", 3))
		if _, assumed, bound := s.cluster.NumPods(); bound != 3 || assumed != 0 {
			t.Errorf("bound %d assumed %d, want 3 and 0", bound, assumed)
		}
	})
	t.Run("short of room: refused whole", func(t *testing.T) {
		var pods []*api.Pod
		for _, n := range []string{"a", "b", "c"} {
			p := gsPod("ns", n, "job")
			p.Spec.Containers[0].Resources.Requests = resource.MustParseList(map[string]string{"cpu": "2"})
			pods = append(pods, p)
		}
		c0, _ := cluster.NewFrom([]*api.Node{csNode("n0")}, pods)
		before := csSettledOf(c0)
		s, _, ds := run(t, 1, pods, gsGang("ns", "job", 3))
		if len(ds) != 3 {
			t.Fatalf("%d decisions, want one per pod: %+v", len(ds), ds)
		}
		// kube's submitPodGroupAlgorithmResult: a pod that fit carries its
		// Permit verdict, the others their own failure.
		want := map[string]string{
			"ns/a": "waiting for minCount pods from a gang to be scheduled, one or more plugins asked to wait and no plugin rejected pod",
			"ns/b": "waiting for minCount pods from a gang to be scheduled, one or more plugins asked to wait and no plugin rejected pod",
			"ns/c": "0/1 nodes are available: 1 Insufficient cpu.",
		}
		for _, d := range ds {
			if d.Outcome != OutcomeUnschedulable || d.Message != want[d.Pod] {
				t.Errorf("%s: %s %q, want Unschedulable %q", d.Pod, d.Outcome, d.Message, want[d.Pod])
			}
		}
		if w := len(s.WaitingPods()); w != 0 {
			t.Errorf("%d pods waiting at Permit", w)
		}
		if diff := cmp.Diff(before, csSettledOf(s.cluster), vecCmp); diff != "" {
			t.Errorf("a refused gang changed the cluster (-before +after):\n%s", diff)
		}
	})
	t.Run("missing PodGroup", func(t *testing.T) {
		// PreEnqueue keeps the pod out of the active queue: no cycle runs,
		// and the pod waits with the plugin's message.
		s, _, ds := run(t, 1, []*api.Pod{gsPod("ns", "orphan", "ghost")})
		if len(ds) != 0 {
			t.Errorf("decisions %+v, want none (the pod is gated)", ds)
		}
		if r := s.PendingReason("ns", "orphan"); !strings.Contains(r, `waiting for pods's pod group "ghost" to appear in scheduling queue`) {
			t.Errorf("pending reason %q", r)
		}
	})
	t.Run("gates off", func(t *testing.T) {
		// kube's plugin is behind no gate: a profile enabling it runs. With
		// GenericWorkload it gates as ever; without, the pod's
		// schedulingGroup is not seen (kube's API server drops it).
		for _, tc := range []struct {
			feats  framework.WorkloadFeatures
			gated  bool
			reason string
		}{
			{framework.WorkloadFeatures{GenericWorkload: true}, true, `waiting for pods's pod group "ghost" to appear in scheduling queue`},
			{framework.WorkloadFeatures{}, false, ""},
		} {
			c, _ := cluster.NewFrom([]*api.Node{csNode("n0")}, nil)
			s, err := New(c, NewDefaultRegistry(), []framework.Profile{gsProfile()}, WithClock(framework.NewFakeClock(csNow)), WithWorkloadFeatures(tc.feats))
			if err != nil {
				t.Fatalf("%+v: %v", tc.feats, err)
			}
			if err := s.AddPod(gsPod("ns", "orphan", "ghost")); err != nil {
				t.Fatal(err)
			}
			s.RunUntilIdle(context.Background())
			if _, _, bound := c.NumPods(); (bound == 0) != tc.gated || !strings.Contains(s.PendingReason("ns", "orphan"), tc.reason) {
				t.Errorf("%+v: %d bound, pending reason %q; want gated=%v with %q", tc.feats, bound, s.PendingReason("ns", "orphan"), tc.gated, tc.reason)
			}
		}
		c, _ := cluster.New()
		_, err := New(c, NewDefaultRegistry(), []framework.Profile{DefaultProfile()}, WithWorkloadFeatures(framework.WorkloadFeatures{GangScheduling: true}))
		if err == nil || !strings.Contains(err.Error(), "need GenericWorkload") {
			t.Errorf("GangScheduling without GenericWorkload: %v", err)
		}
	})
}

// TestWorkloadPodGroupValidate: bad kube PodGroups and Workloads are errors
// naming the group, the field and the value.
func TestWorkloadPodGroupValidate(t *testing.T) {
	both := gsGang("ns", "pg", 2)
	both.Spec.SchedulingPolicy.Basic = &api.BasicSchedulingPolicy{}
	two := gsGang("ns", "pg", 2)
	two.Spec.SchedulingConstraints = &api.PodGroupSchedulingConstraints{Topology: []api.TopologyConstraint{{Key: "a"}, {Key: "b"}}}
	for _, tt := range []struct {
		g    *api.WorkloadPodGroup
		want string
	}{
		{gsGang("ns", "pg", 0), "PodGroup ns/pg: spec.schedulingPolicy.gang.minCount=0: must be at least 1"},
		{both, "exactly one of basic and gang must be set, got both"},
		{&api.WorkloadPodGroup{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: "pg"}}, "got neither"},
		{two, "topology: 2 constraints: at most 1"},
	} {
		c, _ := cluster.New()
		if err := c.AddWorkloadPodGroup(tt.g); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("AddWorkloadPodGroup = %v, want %q", err, tt.want)
		}
	}
	w := &api.Workload{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: "w"}, Spec: api.WorkloadSpec{PodGroupTemplates: []api.PodGroupTemplate{
		{Name: "t", SchedulingPolicy: api.PodGroupSchedulingPolicy{Gang: &api.GangSchedulingPolicy{MinCount: -1}}}}}}
	if err := w.Validate(); err == nil || !strings.Contains(err.Error(), "Workload ns/w: spec.podGroupTemplates[0].schedulingPolicy.gang.minCount=-1") {
		t.Errorf("Workload.Validate = %v", err)
	}
}

func gsPodInfo(ns, name, group string) *framework.PodInfo {
	pi, err := framework.NewPodInfo(gsPod(ns, name, group))
	if err != nil {
		panic(err)
	}
	return pi
}

// TestGangSchedulingPermitMissingGroup: Permit of a pod whose PodGroup is
// gone is an Error wrapping the lister's NotFound, as kube-scheduler
// v1.36's gangscheduling.go Permit words it; PreEnqueue holds such a pod
// back instead.
func TestGangSchedulingPermitMissingGroup(t *testing.T) {
	p := gsPod("ns", "p", "gone")
	c, _ := cluster.NewFrom([]*api.Node{csNode("n")}, []*api.Pod{p})
	s, err := New(c, NewDefaultRegistry(), []framework.Profile{gsProfile()}, WithWorkloadFeatures(gsFeatures))
	if err != nil {
		t.Fatal(err)
	}
	fw, _ := s.Framework(DefaultSchedulerName)
	pl, _ := fw.Plugin(config.GangSchedulingName)
	pi, _, _ := c.PodInfo(p.Key())
	got, _ := pl.(*gangscheduling.GangScheduling).Permit(context.Background(), s.newState(&cycleHandle{s: s, prof: s.profiles[DefaultSchedulerName]}), pi, "n")
	want := `failed to get podGroup ns/gone: podgroup.scheduling.k8s.io "gone" not found`
	if got.Code() != framework.Error || got.Message() != want {
		t.Errorf("Permit = %v, want Error %q", got, want)
	}
}

// gsReserveFault rejects target's Reserve in its real scheduling cycle
// (not in the pod group cycle's trial) while armed: the trial finds the
// gang feasible, then the last pod fails after the others wait at Permit,
// as when something the trial relied on changed in between.
type gsReserveFault struct {
	target string
	armed  bool
}

func (*gsReserveFault) Name() string { return "GsReserveFault" }
func (f *gsReserveFault) Reserve(_ context.Context, state *framework.CycleState, pod *framework.PodInfo, _ string) *framework.Status {
	if _, trial := pgTrialFrom(state); f.armed && !trial && pod.Pod.Key() == f.target {
		return framework.NewStatus(framework.Unschedulable, "reserve fault")
	}
	return nil
}
func (*gsReserveFault) Unreserve(context.Context, *framework.CycleState, *framework.PodInfo, string) {
}

// TestGangSchedulingPermitTimeout: a gang of 3 (minCount 3) whose third
// pod fails Reserve after the first two were assumed and wait at Permit.
// GangScheduling's Permit wait is the fixed 5 minutes: a nanosecond before
// it the two still wait, assumed; at 5 minutes each is rejected ("rejected
// due to timeout after waiting 5m0s at plugin GangScheduling", the
// framework's waitingPod timer in kube-scheduler v1.36
// pkg/scheduler/framework/runtime/waiting_pods_map.go), unreserved and
// forgotten, and returns to the queue (schedule_one.go
// handleBindingCycleError): nothing assumed or bound, the node's requests
// as before the gang, and once the fault is gone the gang schedules whole.
func TestGangSchedulingPermitTimeout(t *testing.T) {
	pods := []*api.Pod{gsPod("ns", "a", "job"), gsPod("ns", "b", "job"), gsPod("ns", "c", "job")}
	c, err := cluster.NewFrom([]*api.Node{csNode("n0")}, pods)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddWorkloadPodGroup(gsGang("ns", "job", 3)); err != nil {
		t.Fatal(err)
	}
	before := csSettledOf(c)
	fault := &gsReserveFault{target: "ns/c", armed: true}
	reg := NewDefaultRegistry()
	if err := reg.Register("GsReserveFault", func(any, framework.Handle) (framework.Plugin, error) { return fault, nil }); err != nil {
		t.Fatal(err)
	}
	prof := gsProfile()
	prof.Reserve = []string{"GsReserveFault"}
	clock := framework.NewFakeClock(csNow)
	var ds []Decision
	// Unschedulable pods wait for an event, not for the 5-minute flush,
	// which would retry c at the instant of the timeout.
	s, err := New(c, reg, []framework.Profile{prof}, WithClock(clock), WithWorkloadFeatures(gsFeatures),
		WithQueueOptions(QueueOptions{MaxInUnschedulablePods: time.Hour}), WithDecisionHandler(func(d Decision) { ds = append(ds, d) }))
	if err != nil {
		t.Fatal(err)
	}
	s.RunUntilIdle(context.Background())
	waiting := func() []string {
		var out []string
		for _, w := range s.WaitingPods() {
			out = append(out, w.Pod().Key())
		}
		slices.Sort(out)
		return out
	}
	if got := waiting(); !slices.Equal(got, []string{"ns/a", "ns/b"}) {
		t.Fatalf("waiting at Permit: %v, want ns/a and ns/b", got)
	}
	if _, assumed, _ := c.NumPods(); assumed != 2 {
		t.Fatalf("%d assumed before the timeout, want 2", assumed)
	}
	if err := clock.Advance(gangscheduling.PermitTimeout - time.Nanosecond); err != nil {
		t.Fatal(err)
	}
	s.ProcessBindings(context.Background())
	if got := waiting(); len(got) != 2 {
		t.Fatalf("waiting a nanosecond before the timeout: %v, want both", got)
	}
	ds = nil
	if err := clock.Advance(time.Nanosecond); err != nil {
		t.Fatal(err)
	}
	s.ProcessBindings(context.Background())
	if got := waiting(); len(got) != 0 {
		t.Fatalf("still waiting after the timeout: %v", got)
	}
	rejected := map[string]bool{}
	for _, d := range ds {
		if d.Outcome != OutcomeUnschedulable || d.Stage != "WaitOnPermit" || d.Plugin != config.GangSchedulingName ||
			!strings.Contains(d.Message, "rejected due to timeout after waiting 5m0s at plugin GangScheduling") {
			t.Errorf("%s: %s at %s by %q: %q; want Unschedulable at WaitOnPermit by GangScheduling, timed out", d.Pod, d.Outcome, d.Stage, d.Plugin, d.Message)
		}
		rejected[d.Pod] = true
	}
	if !rejected["ns/a"] || !rejected["ns/b"] || len(rejected) != 2 {
		t.Errorf("timed-out decisions for %v, want ns/a and ns/b", rejected)
	}
	if pending, assumed, bound := c.NumPods(); pending != 3 || assumed != 0 || bound != 0 {
		t.Errorf("after the timeout: %d pending, %d assumed, %d bound; want 3, 0, 0", pending, assumed, bound)
	}
	if diff := cmp.Diff(before, csSettledOf(c), vecCmp); diff != "" {
		t.Errorf("the timeout left the cluster changed (-before +after):\n%s", diff)
	}
	for _, p := range pods {
		if qp, ok := s.queue.Get(p.Key()); !ok || qp.Where == queue.InFlight || qp.Where == queue.Nowhere {
			t.Errorf("%s is not back in the queue", p.Key())
		}
	}
	fault.armed = false
	s.RunUntilIdle(context.Background())
	if _, assumed, bound := c.NumPods(); bound != 3 || assumed != 0 {
		t.Errorf("once the fault is gone: %d bound, %d assumed; want the gang's 3 bound", bound, assumed)
	}
}
