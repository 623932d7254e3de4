package scheduling

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/filter/coscheduling"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/scheduling/cluster"
	"github.com/schedkit/schedkit/scheduling/internal/queue"
)

var csNow = time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)

// csPG is scheduler-plugins' tu.MakePodGroup().Name(name).Namespace(ns).MinMember(min).Time(at).
func csPG(ns, name string, minMember int32, at time.Time) *api.PodGroup {
	return &api.PodGroup{ObjectMeta: api.ObjectMeta{Namespace: ns, Name: name, CreationTimestamp: at},
		Spec: api.PodGroupSpec{MinMember: minMember}}
}

// csPod is st.MakePod().Name(name).Namespace(ns).UID(name) with the pod-group
// label when group is set.
func csPod(ns, name, group string) *st.PodWrapper {
	w := st.MakePod().Namespace(ns).Name(name)
	if group != "" {
		w = w.Label(api.PodGroupLabel, group)
	}
	return w
}

// csNode is the anchor tests' st.MakeNode().Name(name).Capacity({cpu: 4})
// (kube's wrapper also sets pods: 32).
func csNode(name string) *api.Node {
	return st.MakeNode().Name(name).Capacity(map[string]string{"cpu": "4", "pods": "32"}).Obj()
}

// csProfile is a Coscheduling profile: SchedulingGates holds gated pods
// (as in every kube profile), NodeResourcesFit filters, the plugin at
// QueueSort, PreFilter, PostFilter, Reserve and Permit.
func csProfile(args any) framework.Profile {
	p := framework.Profile{
		PreEnqueue: []string{config.SchedulingGatesName},
		QueueSort:  []string{config.CoschedulingName},
		PreFilter:  []string{config.NodeResourcesFitName, config.CoschedulingName},
		Filter:     []string{config.NodeResourcesFitName}, PostFilter: []string{config.CoschedulingName},
		Reserve: []string{config.CoschedulingName}, Permit: []string{config.CoschedulingName},
		Bind: []string{config.DefaultBinderName},
	}
	if args != nil {
		p.Args = map[string]any{config.CoschedulingName: args}
	}
	return p
}

type csEnv struct {
	s     *Scheduler
	pl    *coscheduling.Coscheduling
	clock *framework.FakeClock
}

// csSetup builds a scheduler over nodes and pods (bound ones name their
// node) with the PodGroups, running csProfile(args).
func csSetup(t *testing.T, nodes []*api.Node, pods []*api.Pod, pgs []*api.PodGroup, args any) *csEnv {
	t.Helper()
	c, err := cluster.NewFrom(nodes, pods)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range pgs {
		if err := c.AddPodGroup(g); err != nil {
			t.Fatal(err)
		}
	}
	clock := framework.NewFakeClock(csNow)
	s, err := New(c, NewDefaultRegistry(), []framework.Profile{csProfile(args)}, WithClock(clock))
	if err != nil {
		t.Fatal(err)
	}
	fw, _ := s.Framework(DefaultSchedulerName)
	pl, _ := fw.Plugin(config.CoschedulingName)
	return &csEnv{s: s, pl: pl.(*coscheduling.Coscheduling), clock: clock}
}

// state returns a CycleState as a cycle of e.s would have it.
func (e *csEnv) state() *framework.CycleState {
	st := e.s.newState(&cycleHandle{s: e.s, prof: e.s.profiles[DefaultSchedulerName]})
	st.SetSnapshot(e.s.cluster.Snapshot())
	return st
}

func csStatus(t *testing.T, got *framework.Status, code framework.Code, msg string) {
	t.Helper()
	if got.Code() != code || got.Message() != msg {
		t.Errorf("status = %v %q, want %v %q", got.Code(), got.Message(), code, msg)
	}
}

// TestCoschedulingPreFilter ports scheduler-plugins'
// pkg/coscheduling/core/core_test.go TestPreFilter, case by case (the
// gated cases: PodGroupManager.PreFilter tolerates at most
// pods − minMember pods with scheduling gates).
func TestCoschedulingPreFilter(t *testing.T) {
	nodes := []*api.Node{csNode("node-a"), csNode("node-b")}
	minRes := func(g *api.PodGroup, cpu string) *api.PodGroup {
		g.Spec.MinResources = resource.List{resource.CPU: resource.MustParse(cpu)}
		return g
	}
	tests := []struct {
		name    string
		pod     *api.Pod
		pending []*api.Pod
		pgs     []*api.PodGroup
		wantMsg string // "" for success
	}{
		{"pod does not belong to any pg", st.MakePod().Name("p").Obj(),
			[]*api.Pod{csPod("ns", "p1", "pg1").Obj(), csPod("ns", "p2", "pg2").Obj()},
			[]*api.PodGroup{csPG("ns", "pg1", 1, csNow), csPG("ns", "pg2", 1, csNow)}, ""},
		{"pod belongs to a non-existent pg", csPod("ns", "p", "pg-non-existent").Obj(), nil,
			[]*api.PodGroup{csPG("ns", "pg1", 1, csNow)}, ""},
		{"pod count less than minMember", csPod("ns", "p", "pg1").Obj(), []*api.Pod{csPod("ns", "pg2-1", "pg2").Obj()},
			[]*api.PodGroup{csPG("ns", "pg1", 2, csNow), csPG("ns", "pg2", 2, csNow)},
			"pre-filter pod p cannot find enough sibling pods, current pods number: 1, minMember of group: 2"},
		{"pod count equal minMember", csPod("ns", "p1a", "pg1").Obj(), []*api.Pod{csPod("ns", "p1b", "pg1").Obj(), csPod("ns", "p1c", "pg1").Obj()},
			[]*api.PodGroup{csPG("ns", "pg1", 2, csNow), csPG("ns", "pg2", 2, csNow)}, ""},
		{"pod count more than minMember", csPod("ns", "p1a", "pg1").Obj(), []*api.Pod{csPod("ns", "p1b", "pg1").Obj(), csPod("ns", "p1c", "pg1").Obj()},
			[]*api.PodGroup{csPG("ns", "pg1", 2, csNow), csPG("ns", "pg2", 2, csNow)}, ""},
		{"gated pods but still meeting quorum (minMember < replicas)", csPod("ns", "p1a", "pg1").Obj(),
			[]*api.Pod{csPod("ns", "p1b", "pg1").Obj(), csPod("ns", "p1c", "pg1").SchedulingGates("example-gate").Obj()},
			[]*api.PodGroup{csPG("ns", "pg1", 2, csNow)}, ""},
		{"gated pods push group below quorum", csPod("ns", "p1a", "pg1").Obj(),
			[]*api.Pod{csPod("ns", "p1b", "pg1").SchedulingGates("example-gate").Obj(), csPod("ns", "p1c", "pg1").Obj()},
			[]*api.PodGroup{csPG("ns", "pg1", 3, csNow)},
			"pre-filter pod p1a cannot proceed due to gated pods in the same PodGroup"},
		{"all sibling pods are gated", csPod("ns", "p1a", "pg1").Obj(),
			[]*api.Pod{csPod("ns", "p1b", "pg1").SchedulingGates("example-gate").Obj(), csPod("ns", "p1c", "pg1").SchedulingGates("example-gate").Obj()},
			[]*api.PodGroup{csPG("ns", "pg1", 2, csNow)},
			"pre-filter pod p1a cannot proceed due to gated pods in the same PodGroup"},
		// Two nodes of 4 cpu each.
		{"cluster's resource satisfies minResource", csPod("ns", "p1a", "pg1").Obj(), []*api.Pod{csPod("ns", "p1b", "pg1").Obj(), csPod("ns", "p1c", "pg1").Obj()},
			[]*api.PodGroup{minRes(csPG("ns", "pg1", 2, csNow), "6")}, ""},
		{"cluster's resource cannot satisfy minResource", csPod("ns", "p1a", "pg1").Obj(), []*api.Pod{csPod("ns", "p1b", "pg1").Obj(), csPod("ns", "p1c", "pg1").Obj()},
			[]*api.PodGroup{minRes(csPG("ns", "pg1", 2, csNow), "10")}, "resource gap: cpu=2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := csSetup(t, nodes, append(tt.pending, tt.pod), tt.pgs, nil)
			_, got := e.pl.PreFilter(context.Background(), e.state(), framework.MustPodInfo(tt.pod), e.s.cluster.Snapshot().Nodes())
			if tt.wantMsg == "" {
				csStatus(t, got, framework.Success, "")
			} else {
				csStatus(t, got, framework.UnschedulableAndUnresolvable, tt.wantMsg)
			}
		})
	}
}

// TestCoschedulingPermit ports scheduler-plugins' TestPermit of
// pkg/coscheduling/coscheduling_test.go (first three cases) and of
// pkg/coscheduling/core/core_test.go (last four); the pod is assumed on its
// node first, as the scheduler does before Permit.
func TestCoschedulingPermit(t *testing.T) {
	nodes := []*api.Node{csNode("node")}
	two := []*api.PodGroup{csPG("ns", "pg1", 1, csNow), csPG("ns", "pg2", 2, csNow)}
	tests := []struct {
		name     string
		pod      *api.Pod
		existing []*api.Pod
		pgs      []*api.PodGroup
		want     framework.Code
		wantMsg  string
	}{
		{"pods do not belong to any podGroup", csPod("ns", "p", "").Obj(), nil, two, framework.Success, ""},
		{"pods belong to a pg1, but quorum not satisfied", csPod("ns", "p", "pg2").Obj(), nil, two, framework.Wait, ""},
		{"pods belong to a podGroup, and quorum satisfied", csPod("ns", "p", "pg1").Obj(), nil, two, framework.Success, ""},
		{"pod does not belong to any pg", csPod("ns", "p", "").Obj(), nil, []*api.PodGroup{csPG("ns", "pg1", 2, csNow)}, framework.Success, ""},
		{"pod specifies a non-existent pg", csPod("ns", "p", "pg-non-existent").Obj(), nil, []*api.PodGroup{csPG("ns", "pg1", 2, csNow)},
			framework.Unschedulable, "PodGroup ns/pg-non-existent not found"},
		{"pod belongs to a pg that doesn't have quorum", csPod("ns", "p", "pg1").Obj(), nil, []*api.PodGroup{csPG("ns", "pg1", 2, csNow)}, framework.Wait, ""},
		{"pod belongs to a pg that have quorum satisfied", csPod("ns", "p1a", "pg1").Obj(), []*api.Pod{csPod("ns", "p1b", "pg1").Node("node").Obj()},
			[]*api.PodGroup{csPG("ns", "pg1", 2, csNow)}, framework.Success, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := csSetup(t, nodes, append(tt.existing, tt.pod), tt.pgs, coscheduling.CoschedulingArgs{PermitWaitingTimeSeconds: 10, PodGroupRejectPercentage: 10})
			if err := e.s.cluster.Assume(tt.pod.Namespace, tt.pod.Name, "node"); err != nil {
				t.Fatal(err)
			}
			pi, _, _ := e.s.cluster.PodInfo(tt.pod.Key())
			got, wait := e.pl.Permit(context.Background(), e.state(), pi, "node")
			csStatus(t, got, tt.want, tt.wantMsg)
			if tt.want == framework.Wait && wait != 10*time.Second {
				t.Errorf("wait = %v, want permitWaitingTimeSeconds 10s", wait)
			}
		})
	}
}

// TestCoschedulingPostFilter ports scheduler-plugins' TestPostFilter
// (coscheduling_test.go).
func TestCoschedulingPostFilter(t *testing.T) {
	nodes := []*api.Node{csNode("node")}
	bound := []*api.Pod{csPod("ns", "p1", "pg1").Node("node").Obj()}
	tests := []struct {
		name     string
		pod      *api.Pod
		existing []*api.Pod
		pgs      []*api.PodGroup
		wantMsg  string
	}{
		{"pod does not belong to any pod group", csPod("ns", "p", "").Obj(), nil, []*api.PodGroup{csPG("ns", "pg1", 2, csNow)}, "can not find pod group"},
		{"enough pods assigned, do not reject all", csPod("ns", "p", "pg1").Obj(), bound, []*api.PodGroup{csPG("ns", "pg1", 1, csNow)}, ""},
		{"pod failed at filter phase, reject all pods", csPod("ns", "p", "pg1").Obj(), bound, []*api.PodGroup{csPG("ns", "pg1", 2, csNow)},
			"PodGroup ns/pg1 gets rejected due to Pod p is unschedulable even after PostFilter"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := csSetup(t, nodes, append(tt.existing, tt.pod), tt.pgs, nil)
			_, got := e.pl.PostFilter(context.Background(), e.state(), framework.MustPodInfo(tt.pod), framework.NewNodeToStatus(nil))
			csStatus(t, got, framework.Unschedulable, tt.wantMsg)
		})
	}
}

// TestCoschedulingPostFilterRejectThreshold ports scheduler-plugins'
// TestPostFilterRejectThreshold: minMember 10, some pods assigned, the
// group rejected only when the unassigned share exceeds the threshold.
func TestCoschedulingPostFilterRejectThreshold(t *testing.T) {
	reject := "PodGroup ns/pg1 gets rejected due to Pod p is unschedulable even after PostFilter"
	tests := []struct {
		name      string
		percent   int32
		assigned  int
		wantMsg   string
		rejecting bool
	}{
		{"default 10%: 9/10 assigned (10% gap) → no rejection", 10, 9, "", false},
		{"default 10%: 8/10 assigned (20% gap) → rejection", 10, 8, reject, true},
		{"0%: 9/10 assigned (10% gap) → rejection (always reject)", 0, 9, reject, true},
		{"100%: 0/10 assigned (100% gap) → no rejection (never reject)", 100, 0, "", false},
		{"50%: 6/10 assigned (40% gap) → no rejection", 50, 6, "", false},
		{"50%: 4/10 assigned (60% gap) → rejection", 50, 4, reject, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var pods []*api.Pod
			for i := range tt.assigned {
				pods = append(pods, csPod("ns", fmt.Sprintf("assigned-%d", i), "pg1").Node("node").Obj())
			}
			pod := csPod("ns", "p", "pg1").Obj()
			e := csSetup(t, []*api.Node{csNode("node")}, append(pods, pod), []*api.PodGroup{csPG("ns", "pg1", 10, csNow)},
				coscheduling.CoschedulingArgs{PermitWaitingTimeSeconds: 10, PodGroupRejectPercentage: tt.percent})
			_, got := e.pl.PostFilter(context.Background(), e.state(), framework.MustPodInfo(pod), framework.NewNodeToStatus(nil))
			csStatus(t, got, framework.Unschedulable, tt.wantMsg)
			if _, failed := e.pl.Memory().LastFailed["ns/pg1"]; failed != tt.rejecting {
				t.Errorf("group marked failed = %v, want %v", failed, tt.rejecting)
			}
		})
	}
}

// TestCoschedulingPodGroupBackoff ports scheduler-plugins'
// TestPodGroupBackoffTime: the first pod to wait at Permit activates its
// queued siblings; a PostFilter rejection backs the group off, and
// PreFilter then refuses it until the backoff ends.
func TestCoschedulingPodGroupBackoff(t *testing.T) {
	pods := []*api.Pod{csPod("ns", "pod1", "pg1").Obj(), csPod("ns", "pod2", "pg1").Obj(), csPod("ns", "pod3", "pg1").Obj()}
	e := csSetup(t, []*api.Node{csNode("node")}, pods, []*api.PodGroup{csPG("ns", "pg1", 3, csNow)},
		coscheduling.CoschedulingArgs{PermitWaitingTimeSeconds: 10, PodGroupBackoffSeconds: 1, PodGroupRejectPercentage: 10})
	// pod2 and pod3 failed earlier and sit in the unschedulable pool.
	for _, key := range []string{"ns/pod2", "ns/pod3"} {
		qp, _ := e.s.queue.Get(key)
		e.s.queue.Unlink(qp)
		qp.Where, qp.Attempts = queue.InFlight, 1
		e.s.queue.RequeueFailed(qp, []string{config.CoschedulingName}, nil, false)
		if qp.Where != queue.Unschedulable {
			t.Fatalf("%s not unschedulable", key)
		}
	}
	if err := e.s.cluster.Assume("ns", "pod1", "node"); err != nil {
		t.Fatal(err)
	}
	pi, _, _ := e.s.cluster.PodInfo("ns/pod1")
	got, _ := e.pl.Permit(context.Background(), e.state(), pi, "node")
	csStatus(t, got, framework.Wait, "")
	for _, key := range []string{"ns/pod2", "ns/pod3"} {
		if qp, _ := e.s.queue.Get(key); qp.Where != queue.Active {
			t.Errorf("%s not activated (where %d)", key, qp.Where)
		}
	}
	_, _ = e.pl.PostFilter(context.Background(), e.state(), framework.MustPodInfo(pods[1]), framework.NewNodeToStatus(nil))
	_, got = e.pl.PreFilter(context.Background(), e.state(), framework.MustPodInfo(pods[2]), e.s.cluster.Snapshot().Nodes())
	csStatus(t, got, framework.UnschedulableAndUnresolvable, "podGroup ns/pg1 failed recently")
	if err := e.clock.Advance(1001 * time.Millisecond); err != nil {
		t.Fatal(err)
	}
	_, got = e.pl.PreFilter(context.Background(), e.state(), framework.MustPodInfo(pods[2]), e.s.cluster.Snapshot().Nodes())
	csStatus(t, got, framework.Success, "")
}

// TestPodGroupValidate: AddPodGroup rejects a minMember below 1, a negative
// timeout or minResources entry, an empty name and a duplicate, each error
// naming the group, the field and the value.
func TestPodGroupValidate(t *testing.T) {
	neg := int32(-5)
	tests := []struct {
		g    *api.PodGroup
		want string
	}{
		{csPG("ns", "pg", 0, csNow), "PodGroup ns/pg: spec.minMember=0: must be at least 1"},
		{csPG("ns", "pg", -3, csNow), "spec.minMember=-3"},
		{&api.PodGroup{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: "pg"}, Spec: api.PodGroupSpec{MinMember: 1, ScheduleTimeoutSeconds: &neg}},
			"PodGroup ns/pg: spec.scheduleTimeoutSeconds=-5: must not be negative"},
		{&api.PodGroup{ObjectMeta: api.ObjectMeta{Namespace: "ns", Name: "pg"}, Spec: api.PodGroupSpec{MinMember: 1,
			MinResources: resource.List{resource.CPU: resource.MustParse("-1")}}}, `spec.minResources["cpu"]=-1`},
		{&api.PodGroup{Spec: api.PodGroupSpec{MinMember: 1}}, "metadata.name is empty"},
	}
	c, _ := cluster.New()
	for _, tt := range tests {
		if err := c.AddPodGroup(tt.g); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("AddPodGroup(%+v) = %v, want it to mention %q", tt.g, err, tt.want)
		}
	}
	if err := c.AddPodGroup(csPG("ns", "pg", 1, csNow)); err != nil {
		t.Fatal(err)
	}
	if err := c.AddPodGroup(csPG("ns", "pg", 1, csNow)); err == nil || !strings.Contains(err.Error(), "PodGroup ns/pg already exists") {
		t.Errorf("duplicate: %v", err)
	}
}
