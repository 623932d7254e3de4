package whatif

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

// wiNode is a node with cpu, memory and room for 10 pods.
func wiNode(name, cpu string) *st.NodeWrapper {
	return st.MakeNode().Name(name).Label(hostnameLabel, name).Label("zone", "z1").
		Capacity(map[string]string{"cpu": cpu, "memory": "16Gi", "pods": "10"})
}

func wiPod(name, cpu string) *st.PodWrapper {
	return st.MakePod().Name(name).Namespace("default").UID("uid-" + name).Req(map[string]string{"cpu": cpu, "memory": "1Gi"})
}

// wiCluster builds a cluster and a WhatIf with kube's default profile.
func wiCluster(t testing.TB, nodes []*api.Node, pods []*api.Pod, opts ...framework.SnapshotOption) *WhatIf {
	t.Helper()
	c, err := cluster.NewFrom(nodes, pods, opts...)
	if err != nil {
		t.Fatal(err)
	}
	w, err := New(c, scheduling.NewDefaultRegistry(), []framework.Profile{scheduling.DefaultProfile()}, scheduling.WithSeed(7))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// wiState is everything a question must leave as it was: each node's
// object and pods in order with the aggregate requests, every pod with
// its state, the NodeMetrics, the budgets, the storage objects (with
// which claims pods use), the VolumeBinding assume cache, and the
// scheduler's nominations and queue.
type wiState struct {
	Nodes      []wiNodeState
	Pods       []cluster.PodRecord
	Metrics    []*api.NodeMetric
	Budgets    []api.PodDisruptionBudget
	Storage    api.StorageObjects
	ClaimsUsed map[string]bool
	Assumed    [2]int
	Nominated  map[string]string
	Queued     map[string]string
	QueueLens  [3]int
}

type wiNodeState struct {
	Node      *api.Node
	Pods      []string
	Requested resource.Vector
}

func wiCapture(w *WhatIf) wiState {
	c := w.Cluster()
	var s wiState
	for _, ni := range c.Snapshot().Nodes() {
		ns := wiNodeState{Node: ni.Node(), Requested: ni.Requested}
		for _, pi := range ni.Pods {
			ns.Pods = append(ns.Pods, pi.Pod.Key())
		}
		s.Nodes = append(s.Nodes, ns)
	}
	s.Pods = c.Pods()
	s.Metrics = c.NodeMetrics()
	s.Budgets = slices.Clone(c.Snapshot().DisruptionBudgets)
	s.Storage = c.Storage()
	s.ClaimsUsed = map[string]bool{}
	for _, pvc := range s.Storage.PersistentVolumeClaims {
		s.ClaimsUsed[pvc.Key()] = c.Snapshot().IsPVCUsedByPods(pvc.Namespace, pvc.Name)
	}
	if f, ok := w.s.Framework(scheduling.DefaultSchedulerName); ok {
		if pl, ok := f.Plugin(config.VolumeBindingName); ok {
			s.Assumed[0], s.Assumed[1] = pl.(interface{ AssumedCount() (int, int) }).AssumedCount()
		}
	}
	now, err := w.s.State()
	if err != nil {
		panic(err) // a WhatIf's scheduler is built by New
	}
	s.Nominated, s.Queued, s.QueueLens = now.Nominated, now.Queued, [3]int{now.Active, now.Backoff, now.Unschedulable}
	return s
}

var wiCmpOpts = []cmp.Option{
	cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 }),
	cmpopts.EquateEmpty(),
}

// wiUnchanged fails the test when the cluster differs from before.
func wiUnchanged(t interface {
	Helper()
	Fatalf(string, ...any)
}, w *WhatIf, before wiState) {
	t.Helper()
	if diff := cmp.Diff(before, wiCapture(w), wiCmpOpts...); diff != "" {
		t.Fatalf("cluster changed by the question (-before +after):\n%s", diff)
	}
}

func TestWhatIfCapacityByHand(t *testing.T) {
	// Free cpu: n1 4−1 = 3, n2 2, n3 1: six 1-cpu replicas fit; n4 is
	// tainted and takes none.
	nodes := []*api.Node{wiNode("n1", "4").Obj(), wiNode("n2", "2").Obj(), wiNode("n3", "1").Obj(),
		wiNode("n4", "8").Taint("dedicated", "gpu", api.TaintEffectNoSchedule).Obj()}
	pods := []*api.Pod{wiPod("existing", "1").Node("n1").Obj()}
	w := wiCluster(t, nodes, pods)
	before := wiCapture(w)
	tmpl := wiPod("web", "1").Label("app", "web").Obj()
	ans, err := w.Capacity(context.Background(), tmpl, CapacityOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wiUnchanged(t, w, before)
	if ans.Replicas != 6 {
		t.Fatalf("replicas = %d, want 6; placements %v", ans.Replicas, ans.Placements)
	}
	per := map[string]int{}
	for _, p := range ans.PerNode() {
		per[p.Node] = p.Count
	}
	if want := map[string]int{"n1": 3, "n2": 2, "n3": 1}; !cmp.Equal(per, want) {
		t.Errorf("per node %v, want %v", per, want)
	}
	const msg = "0/4 nodes are available: 1 node(s) had untolerated taint(s), 3 Insufficient cpu."
	if ans.Stop == nil || !strings.HasPrefix(ans.Stop.Message, msg) {
		t.Fatalf("stop = %+v, want message %q", ans.Stop, msg)
	}
	if ans.FitError == nil || ans.Stop.Result == nil {
		t.Fatalf("no FitError or explanation: %+v", ans)
	}
	if ans.Placements[0].Pod != "default/web-1" || ans.Placements[5].Pod != "default/web-6" {
		t.Errorf("replica names %v", ans.Placements)
	}
	// Max stops early without a failure.
	ans, err = w.Capacity(context.Background(), tmpl, CapacityOptions{Max: 2})
	if err != nil {
		t.Fatal(err)
	}
	if ans.Replicas != 2 || ans.Stop != nil {
		t.Errorf("Max 2: replicas %d, stop %v", ans.Replicas, ans.Stop)
	}
	wiUnchanged(t, w, before)
}

func TestWhatIfPlaceByHand(t *testing.T) {
	nodes := []*api.Node{wiNode("small", "2").Obj(), wiNode("big", "8").Obj(),
		wiNode("gpu", "16").Taint("dedicated", "gpu", api.TaintEffectNoSchedule).Obj()}
	low := int32(0)
	pods := []*api.Pod{
		wiPod("low-a", "2").Node("small").Priority(low).Owner("apps/v1", "ReplicaSet", "low").Obj(),
		wiPod("low-b", "7").Node("big").Priority(low).Owner("apps/v1", "ReplicaSet", "low").Obj(),
	}
	w := wiCluster(t, nodes, pods)
	before := wiCapture(w)

	// Fits only on big (small is full, gpu tainted).
	ans, err := w.Place(context.Background(), wiPod("fits", "1").Obj())
	if err != nil {
		t.Fatal(err)
	}
	wiUnchanged(t, w, before)
	if !ans.Placed() || ans.Decision.Node != "big" || ans.FitError != nil || ans.Preemption != nil {
		t.Fatalf("placed %v on %q, fit error %v, preemption %v; want big", ans.Placed(), ans.Decision.Node, ans.FitError, ans.Preemption)
	}
	if ans.Decision.Result == nil {
		t.Fatal("no explanation")
	}

	// Needs 2 cpu at priority 100: only preemption helps; kube's
	// DefaultPreemption picks the node whose victims are fewest and of the
	// lowest priority: small (one 2-cpu pod) rather than big (one 7-cpu pod,
	// same count and priority, so the tie falls to the lower sum of victim
	// priorities, then ... the first candidate).
	ans, err = w.Place(context.Background(), wiPod("urgent", "2").Priority(100).Obj())
	if err != nil {
		t.Fatal(err)
	}
	wiUnchanged(t, w, before)
	const msg = "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu."
	if ans.Placed() || ans.FitError == nil || !strings.HasPrefix(ans.FitError.Error(), msg) {
		t.Fatalf("placed %v, fit error %v; want %q", ans.Placed(), ans.FitError, msg)
	}
	if ans.Preemption == nil || len(ans.Preemption.Victims) != 1 {
		t.Fatalf("preemption = %+v, want one victim", ans.Preemption)
	}
	v := ans.Preemption.Victims[0]
	if want := map[string]string{"small": "default/low-a", "big": "default/low-b"}[ans.Preemption.Node]; v.Key() != want {
		t.Errorf("victim %s on %s, want %s", v.Key(), ans.Preemption.Node, want)
	}

	// A pod that may not preempt gets no plan.
	ans, err = w.Place(context.Background(), wiPod("polite", "2").Priority(100).PreemptionPolicy(api.PreemptNever).Obj())
	if err != nil {
		t.Fatal(err)
	}
	if ans.Placed() || ans.Preemption != nil {
		t.Errorf("polite pod: placed %v, preemption %+v", ans.Placed(), ans.Preemption)
	}
	wiUnchanged(t, w, before)
}

func TestWhatIfDrainByHand(t *testing.T) {
	nodes := []*api.Node{wiNode("n1", "4").Obj(), wiNode("n2", "2").Obj(), wiNode("n3", "1").Obj()}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	pods := []*api.Pod{
		wiPod("web-1", "1").Node("n1").Label("app", "web").Owner("apps/v1", "ReplicaSet", "web").Obj(),
		wiPod("db-1", "1").Node("n1").Label("app", "db").Owner("apps/v1", "StatefulSet", "db").Obj(),
		wiPod("agent-n1", "0.1").Node("n1").Owner("apps/v1", "DaemonSet", "agent").Obj(),
		wiPod("naked", "0.1").Node("n1").Obj(),
		wiPod("big", "1.5").Node("n1").Label("app", "big").Owner("apps/v1", "ReplicaSet", "big").Obj(),
		wiPod("leaving", "0.1").Node("n1").Owner("apps/v1", "ReplicaSet", "x").Terminating(now).Obj(),
		wiPod("web-2", "1").Node("n2").Label("app", "web").Owner("apps/v1", "ReplicaSet", "web").Obj(),
		wiPod("agent-n2", "0.1").Node("n2").Owner("apps/v1", "DaemonSet", "agent").Obj(),
	}
	pdbs := framework.WithDisruptionBudgets(st.PDB("default", "db", "app", "db", 0), st.PDB("default", "web", "app", "web", 1))
	w := wiCluster(t, nodes, pods, pdbs)
	before := wiCapture(w)
	ans, err := w.Drain(context.Background(), []string{"n1"}, DrainOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wiUnchanged(t, w, before)
	got := map[string]DrainedPod{}
	for _, p := range ans.Pods {
		got[p.Pod] = p
	}
	// n2 has 2 − 1.1 = 0.9 cpu free, n3 1: web-1 (1 cpu) goes to n3; big
	// (1.5) fits nowhere; db-1's budget allows no disruption.
	check := func(pod string, o DrainOutcome, to string) {
		t.Helper()
		p := got["default/"+pod]
		if p.Outcome != o || p.To != to {
			t.Errorf("%s: %s to %q (%s), want %s to %q", pod, p.Outcome, p.To, p.Reason, o, to)
		}
	}
	check("web-1", DrainMoved, "n3")
	check("db-1", DrainBlocked, "")
	check("big", DrainUnschedulable, "")
	check("agent-n1", DrainStays, "")
	check("leaving", DrainStays, "")
	check("naked", DrainDeleted, "")
	if ans.Drainable {
		t.Error("drainable, want not")
	}
	if !strings.Contains(got["default/db-1"].Reason, "default/db allows no more disruptions") {
		t.Errorf("db-1 reason %q", got["default/db-1"].Reason)
	}
	if !strings.Contains(got["default/big"].Reason, "Insufficient cpu") {
		t.Errorf("big reason %q", got["default/big"].Reason)
	}

	// n2 alone drains: web-2 moves to n1 (budget 1), the agent stays.
	ans, err = w.Drain(context.Background(), []string{"n2"}, DrainOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wiUnchanged(t, w, before)
	if !ans.Drainable || ans.Count(DrainMoved) != 1 || ans.Count(DrainStays) != 1 {
		var b strings.Builder
		_ = ans.Write(&b)
		t.Errorf("drain n2:\n%s", b.String())
	}
	if _, err := w.Drain(context.Background(), []string{"nope"}, DrainOptions{}); err == nil || !strings.Contains(err.Error(), `unknown node "nope"`) {
		t.Errorf("unknown node: %v", err)
	}
}

func TestWhatIfDrainBudgetsSequentialVsAtOnce(t *testing.T) {
	// Two web pods on n1, one disruption allowed: kubectl drain evicts one,
	// waits for its replacement, then evicts the other; evicting at once
	// (cluster-autoscaler) runs out of budget.
	nodes := []*api.Node{wiNode("n1", "4").Obj(), wiNode("n2", "4").Obj()}
	pods := []*api.Pod{
		wiPod("web-1", "1").Node("n1").Label("app", "web").Owner("apps/v1", "ReplicaSet", "web").Obj(),
		wiPod("web-2", "1").Node("n1").Label("app", "web").Owner("apps/v1", "ReplicaSet", "web").Obj(),
	}
	w := wiCluster(t, nodes, pods, framework.WithDisruptionBudgets(st.PDB("default", "web", "app", "web", 1)))
	before := wiCapture(w)
	for _, tc := range []struct {
		atOnce    bool
		drainable bool
		blocked   int
	}{{false, true, 0}, {true, false, 1}} {
		ans, err := w.Drain(context.Background(), []string{"n1"}, DrainOptions{AtOnce: tc.atOnce})
		if err != nil {
			t.Fatal(err)
		}
		wiUnchanged(t, w, before)
		if ans.Drainable != tc.drainable || ans.Count(DrainBlocked) != tc.blocked {
			t.Errorf("AtOnce %v: drainable %v, %d blocked; want %v, %d", tc.atOnce, ans.Drainable, ans.Count(DrainBlocked), tc.drainable, tc.blocked)
		}
	}
}

func TestWhatIfScaleUpByHand(t *testing.T) {
	// One full 2-cpu node; five pending 1-cpu pods and one that needs a gpu
	// node. Template nodes of 2 cpu: three are needed (2+2+1), two leave
	// one pod pending.
	nodes := []*api.Node{wiNode("n1", "2").Obj()}
	pods := []*api.Pod{wiPod("full", "2").Node("n1").Obj()}
	for _, n := range []string{"p1", "p2", "p3", "p4", "p5"} {
		pods = append(pods, wiPod(n, "1").Obj())
	}
	pods = append(pods, wiPod("gpu-job", "1").NodeSelector(map[string]string{"gpu": "true"}).Obj())
	w := wiCluster(t, nodes, pods)
	before := wiCapture(w)
	tmpl := wiNode("pool-b", "2").Obj()
	ans, err := w.ScaleUp(context.Background(), tmpl, ScaleUpOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wiUnchanged(t, w, before)
	if !ans.Feasible || ans.Nodes != 3 {
		t.Fatalf("feasible %v, nodes %d; want 3", ans.Feasible, ans.Nodes)
	}
	if ans.Fewer == nil || ans.Fewer.Nodes != 2 || len(ans.Fewer.Failed) != 1 {
		t.Fatalf("fewer = %+v, want 2 nodes with 1 pod pending", ans.Fewer)
	}
	if len(ans.Unhelpable) != 1 || ans.Unhelpable[0].Pod != "default/gpu-job" || !strings.Contains(ans.Unhelpable[0].Reason, "NodeAffinity") {
		t.Errorf("unhelpable = %+v", ans.Unhelpable)
	}
	if got := ans.NewNodes; !slices.Equal(got, []string{"pool-b-1", "pool-b-2", "pool-b-3"}) {
		t.Errorf("new nodes %v", got)
	}
	if len(ans.Answer.Placements) != 5 {
		t.Errorf("placements %v", ans.Answer.Placements)
	}
	// A subset: two pods need one node.
	ans, err = w.ScaleUp(context.Background(), tmpl, ScaleUpOptions{Pods: []string{"default/p4", "default/p2"}})
	if err != nil {
		t.Fatal(err)
	}
	if ans.Nodes != 1 || ans.Fewer == nil || len(ans.Fewer.Failed) != 2 {
		t.Errorf("subset: nodes %d, fewer %+v", ans.Nodes, ans.Fewer)
	}
	wiUnchanged(t, w, before)
	for _, bad := range [][]string{{"default/full"}, {"default/nope"}, {"p1"}, {"default/p1", "default/p1"}} {
		if _, err := w.ScaleUp(context.Background(), tmpl, ScaleUpOptions{Pods: bad}); err == nil {
			t.Errorf("pods %v: no error", bad)
		}
	}
	wiUnchanged(t, w, before)
}
