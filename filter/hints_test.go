package filter

import (
	"context"
	"testing"

	"github.com/schedkit/schedkit/config"
	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
)

// The queueing-hint cases below are kube-scheduler v1.36.4's own unit
// cases, rewritten in schedkit's types; each table names the kube test it
// ports. Pods are compared by UID when they have one, as kube compares
// UIDs.

type hintCase struct {
	name     string
	pod      *api.Pod
	old, new any
	want     fw.QueueingHint
	wantErr  bool
}

func runHints(t *testing.T, fn fw.QueueingHintFn, snap *fw.Snapshot, cases []hintCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pod := tc.pod
			if pod == nil {
				pod = &api.Pod{}
			}
			got, err := fn(snap, hpi(t, pod), tc.old, tc.new)
			if (err != nil) != tc.wantErr {
				t.Fatalf("error %v, want error %v", err, tc.wantErr)
			}
			if got != tc.want {
				t.Errorf("hint %v, want %v", got, tc.want)
			}
		})
	}
}

func hpi(t testing.TB, p *api.Pod) *fw.PodInfo {
	t.Helper()
	pi, err := fw.NewPodInfo(p)
	if err != nil {
		t.Fatal(err)
	}
	return pi
}

// pods wraps each pod in its PodInfo, as pod events carry them.
func hp(t testing.TB, p *api.Pod) any { return hpi(t, p) }

// hintPlugin returns a function that takes a constructor's results and
// returns the plugin as T, failing the test on an error.
func hintPlugin[T any](t *testing.T) func(fw.Plugin, error) T {
	return func(pl fw.Plugin, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return pl.(T)
	}
}

var unschedulableToleration = api.Toleration{Key: TaintNodeUnschedulable, Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule}

// nodeunschedulable/node_unschedulable_test.go TestIsSchedulableAfterNodeChange
// and TestIsSchedulableAfterPodTolerationChange.
func TestNodeUnschedulableHints(t *testing.T) {
	pl := hintPlugin[*NodeUnschedulable](t)(NewNodeUnschedulable(nil, nil))
	cordoned := builder.MakeNode().Name("n").Unschedulable().Obj()
	open := builder.MakeNode().Name("n").Obj()
	cordonedNotReady := builder.MakeNode().Name("n").Unschedulable().Taint("node.kubernetes.io/not-ready", "", api.TaintEffectNoExecute).Obj()
	openNotReady := builder.MakeNode().Name("n").Taint("node.kubernetes.io/not-ready", "", api.TaintEffectNoExecute).Obj()
	runHints(t, pl.afterNodeChange, nil, []hintCase{
		{name: "error-wrong-new-object", new: "not-a-node", want: fw.Queue, wantErr: true},
		{name: "error-wrong-old-object", new: cordoned, old: "not-a-node", want: fw.Queue, wantErr: true},
		{name: "skip-queue-on-unschedulable-node-added", new: cordoned, want: fw.QueueSkip},
		{name: "queue-on-schedulable-node-added", new: open, want: fw.Queue},
		{name: "skip-unrelated-change-unschedulable-true", old: cordoned, new: cordonedNotReady, want: fw.QueueSkip},
		{name: "skip-unrelated-change-unschedulable-false", old: open, new: openNotReady, want: fw.QueueSkip},
		{name: "queue-on-unschedulable-field-change", old: cordoned, new: open, want: fw.Queue},
	})
	p := builder.MakePod().Name("p").UID("uid").Obj()
	runHints(t, pl.afterPodTolerationChange, nil, []hintCase{
		{name: "error-wrong-new-object", pod: p, new: "not-a-pod", want: fw.Queue, wantErr: true},
		{name: "error-wrong-old-object", pod: p, old: "not-a-pod", new: hp(t, p), want: fw.Queue, wantErr: true},
		{name: "skip-different-pod-update", pod: p,
			old: hp(t, builder.MakePod().Name("q").UID("different-uid").Obj()),
			new: hp(t, builder.MakePod().Name("q").UID("different-uid").Toleration(unschedulableToleration).Obj()), want: fw.QueueSkip},
		{name: "queue-when-the-unsched-pod-gets-toleration", pod: p,
			old: hp(t, p), new: hp(t, builder.MakePod().Name("p").UID("uid").Toleration(unschedulableToleration).Obj()), want: fw.Queue},
		{name: "skip-when-the-unsched-pod-gets-unrelated-toleration", pod: p,
			old: hp(t, p), new: hp(t, builder.MakePod().Name("p").UID("uid").Toleration(api.Toleration{Key: "unrelated-key", Operator: api.TolerationOpExists}).Obj()), want: fw.QueueSkip},
	})
}

// tainttoleration/taint_toleration_test.go TestIsSchedulableAfterNodeChange
// and Test_isSchedulableAfterPodTolerationChange.
func TestTaintTolerationHints(t *testing.T) {
	pl := hintPlugin[*TaintToleration](t)(NewTaintToleration(nil, nil))
	pod := builder.MakePod().Name("pod1").Toleration(api.Toleration{Key: "dedicated", Operator: api.TolerationOpEqual, Value: "user2", Effect: api.TaintEffectNoSchedule}).Obj()
	tainted := func(vals ...string) *api.Node {
		w := builder.MakeNode().Name("nodeA")
		for _, v := range vals {
			w = w.Taint("dedicated", v, api.TaintEffectNoSchedule)
		}
		return w.Obj()
	}
	runHints(t, pl.afterNodeChange, nil, []hintCase{
		{name: "backoff-wrong-new-object", pod: pod, new: "not-a-node", want: fw.Queue, wantErr: true},
		{name: "backoff-wrong-old-object", pod: pod, new: tainted("user1"), old: "not-a-node", want: fw.Queue, wantErr: true},
		{name: "skip-queue-on-untoleratedtaint-node-added", pod: pod, new: tainted("user1"), want: fw.QueueSkip},
		{name: "queue-on-toleratedtaint-node-added", pod: pod, new: tainted("user2"), want: fw.Queue},
		{name: "skip-unrelated-change", pod: pod, old: tainted("user1"), new: tainted("user1", "user3"), want: fw.QueueSkip},
		{name: "queue-on-taint-change", pod: pod, old: tainted("user1"), new: tainted("user2"), want: fw.Queue},
	})
	p1 := builder.MakePod().Namespace("ns-1").Name("pod-1").UID("uid0").Obj()
	runHints(t, pl.afterPodTolerationChange, nil, []hintCase{
		{name: "backoff-wrong-new-object", pod: p1, new: "not-a-pod", want: fw.Queue, wantErr: true},
		{name: "backoff-wrong-old-object", pod: p1, old: "not-a-pod", new: hp(t, p1), want: fw.Queue, wantErr: true},
		{name: "skip-updates-other-pod", pod: p1,
			old:  hp(t, builder.MakePod().Namespace("ns-1").Name("pod-2").UID("uid1").Obj()),
			new:  hp(t, builder.MakePod().Namespace("ns-1").Name("pod-2").UID("uid1").Toleration(api.Toleration{Key: "foo", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule}).Obj()),
			want: fw.QueueSkip},
		{name: "queue-on-toleration-added", pod: p1,
			old:  hp(t, p1),
			new:  hp(t, builder.MakePod().Namespace("ns-1").Name("pod-1").UID("uid0").Toleration(api.Toleration{Key: "foo", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule}).Obj()),
			want: fw.Queue},
	})
}

// nodeaffinity/node_affinity_test.go Test_isSchedulableAfterNodeChange.
func TestNodeAffinityHints(t *testing.T) {
	podWithAffinity := builder.MakePod().Name("p").RequiredNodeAffinity(api.NodeSelectorTerm{MatchExpressions: []api.NodeSelectorRequirement{
		{Key: "foo", Operator: api.NodeSelectorOpIn, Values: []string{"bar"}}}}).Obj()
	plain := hintPlugin[*NodeAffinity](t)(NewNodeAffinity(config.NodeAffinityArgs{}, nil))
	node := func() *builder.NodeWrapper {
		return builder.MakeNode().Name("n").Capacity(map[string]string{"pods": "32"})
	}
	runHints(t, plain.afterNodeChange, nil, []hintCase{
		{name: "backoff-wrong-new-object", pod: podWithAffinity, new: "not-a-node", want: fw.Queue, wantErr: true},
		{name: "backoff-wrong-old-object", pod: podWithAffinity, old: "not-a-node", new: node().Obj(), want: fw.Queue, wantErr: true},
		{name: "skip-queue-on-add", pod: podWithAffinity, new: node().Obj(), want: fw.QueueSkip},
		{name: "queue-on-add", pod: podWithAffinity, new: node().Label("foo", "bar").Obj(), want: fw.Queue},
		{name: "skip-unrelated-changes", pod: podWithAffinity, old: node().Obj(), new: node().Capacity(nil).Obj(), want: fw.QueueSkip},
		{name: "skip-unrelated-changes-on-labels", pod: podWithAffinity, old: node().Obj(), new: node().Label("k", "v").Obj(), want: fw.QueueSkip},
		{name: "skip-labels-changes-on-node-from-suitable-to-unsuitable", pod: podWithAffinity, old: node().Label("foo", "bar").Obj(), new: node().Label("k", "v").Obj(), want: fw.QueueSkip},
		{name: "queue-on-labels-change-makes-pod-schedulable", pod: podWithAffinity, old: node().Obj(), new: node().Label("foo", "bar").Obj(), want: fw.Queue},
		{name: "skip-unrelated-change-that-keeps-pod-schedulable", pod: podWithAffinity, old: node().Label("foo", "bar").Obj(), new: node().Capacity(nil).Label("foo", "bar").Obj(), want: fw.QueueSkip},
	})
	enforced := hintPlugin[*NodeAffinity](t)(NewNodeAffinity(config.NodeAffinityArgs{AddedAffinity: &api.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{{MatchExpressions: []api.NodeSelectorRequirement{
			{Key: "foo", Operator: api.NodeSelectorOpIn, Values: []string{"bar"}}}}}}}}, nil))
	runHints(t, enforced.afterNodeChange, nil, []hintCase{
		{name: "skip-queue-on-add-scheduler-enforced-node-affinity", pod: podWithAffinity, new: node().Obj(), want: fw.QueueSkip},
		{name: "queue-on-add-scheduler-enforced-node-affinity", pod: podWithAffinity, new: node().Label("foo", "bar").Obj(), want: fw.Queue},
	})
}

// nodeports/node_ports_test.go Test_isSchedulableAfterPodDeleted.
func TestNodePortsHints(t *testing.T) {
	pl := hintPlugin[*NodePorts](t)(NewNodePorts(nil, nil))
	pod := builder.MakePod().Name("p").HostPort("", api.ProtocolTCP, 8080).Obj()
	runHints(t, pl.afterPodDeleted, nil, []hintCase{
		{name: "backoff-wrong-old-object", pod: pod, old: "not-a-pod", want: fw.Queue, wantErr: true},
		{name: "skip-queue-on-unscheduled", pod: pod, old: hp(t, builder.MakePod().Name("q").Obj()), want: fw.QueueSkip},
		{name: "skip-queue-on-non-hostport", pod: pod, old: hp(t, builder.MakePod().Name("q").Node("fake-node").Obj()), want: fw.QueueSkip},
		{name: "skip-queue-on-unrelated-hostport", pod: pod, old: hp(t, builder.MakePod().Name("q").Node("fake-node").HostPort("", api.ProtocolTCP, 8081).Obj()), want: fw.QueueSkip},
		{name: "queue-on-released-hostport", pod: pod, old: hp(t, builder.MakePod().Name("q").Node("fake-node").HostPort("", api.ProtocolTCP, 8080).Obj()), want: fw.Queue},
	})
}

// noderesources/fit_test.go Test_isSchedulableAfterPodChange (with
// InPlacePodVerticalScaling on, GA in v1.35) and
// Test_isSchedulableAfterNodeChange.
func TestNodeResourcesFitHints(t *testing.T) {
	pl := hintPlugin[*NodeResourcesFit](t)(NodeResourcesFitFactory(nil, nil))
	cpu := func(v string) map[string]string { return map[string]string{"cpu": v} }
	mem := func(v string) map[string]string { return map[string]string{"memory": v} }
	runHints(t, pl.afterPodEvent, nil, []hintCase{
		{name: "backoff-wrong-old-object", old: "not-a-pod", want: fw.Queue, wantErr: true},
		{name: "backoff-wrong-new-object", new: "not-a-pod", want: fw.Queue, wantErr: true},
		{name: "queue-on-other-pod-deleted", pod: builder.MakePod().Name("pod1").Req(cpu("1")).Obj(),
			old: hp(t, builder.MakePod().Name("pod2").Req(cpu("1")).Node("fake").Obj()), want: fw.Queue},
		{name: "skip-queue-on-unscheduled-pod-deleted", old: hp(t, &api.Pod{}), want: fw.QueueSkip},
		{name: "queue-on-nominated-pod-deleted", pod: builder.MakePod().Name("pod1").UID("uid0").Req(cpu("1")).Obj(),
			old: hp(t, builder.MakePod().Name("pod2").UID("uid1").Req(cpu("2")).NominatedNode("fake").Obj()), want: fw.Queue},
		{name: "skip-queue-on-other-unscheduled-pod", pod: builder.MakePod().Name("pod1").UID("uid0").Req(cpu("1")).Obj(),
			old: hp(t, builder.MakePod().Name("pod2").UID("uid1").Req(cpu("2")).Obj()),
			new: hp(t, builder.MakePod().Name("pod2").UID("uid1").Req(cpu("1")).Obj()), want: fw.QueueSkip},
		{name: "skip-queue-on-other-pod-unrelated-resource-scaled-down", pod: builder.MakePod().Name("pod1").UID("pod1").Req(cpu("1")).Obj(),
			old: hp(t, builder.MakePod().Name("pod2").UID("pod2").Req(mem("2")).Node("fake").Obj()),
			new: hp(t, builder.MakePod().Name("pod2").UID("pod2").Req(mem("1")).Node("fake").Obj()), want: fw.QueueSkip},
		{name: "queue-on-other-pod-some-resource-scale-down", pod: builder.MakePod().Name("pod1").UID("pod1").Req(cpu("1")).Obj(),
			old: hp(t, builder.MakePod().Name("pod2").UID("pod2").Req(cpu("2")).Node("fake").Obj()),
			new: hp(t, builder.MakePod().Name("pod2").UID("pod2").Req(cpu("1")).Node("fake").Obj()), want: fw.Queue},
		{name: "queue-on-target-pod-some-resource-scale-down", pod: builder.MakePod().Name("pod1").UID("pod1").Req(cpu("1")).Obj(),
			old: hp(t, builder.MakePod().Name("pod1").UID("pod1").Req(cpu("2")).Obj()),
			new: hp(t, builder.MakePod().Name("pod1").UID("pod1").Req(cpu("1")).Obj()), want: fw.Queue},
	})
	const extA, extB = "example.com/aaa", "example.com/bbb"
	node := func(m map[string]string) *api.Node {
		m["pods"] = "32" // kube's st.MakeNode().Capacity adds 32 pods
		return builder.MakeNode().Name("n").Capacity(m).Obj()
	}
	pod := func(m map[string]string) *api.Pod { return builder.MakePod().Name("p").Req(m).Obj() }
	mem2extA := pod(map[string]string{"memory": "2", extA: "1"})
	runHints(t, pl.afterNodeChange, nil, []hintCase{
		{name: "backoff-wrong-new-object", new: "not-a-node", want: fw.Queue, wantErr: true},
		{name: "backoff-wrong-old-object", old: "not-a-node", new: &api.Node{}, want: fw.Queue, wantErr: true},
		{name: "skip-queue-on-node-add-without-sufficient-resources", pod: pod(map[string]string{"memory": "2"}),
			new: node(map[string]string{"memory": "1"}), want: fw.QueueSkip},
		{name: "skip-queue-on-node-add-without-required-resource-type", pod: pod(map[string]string{extA: "1"}),
			new: node(map[string]string{extB: "1"}), want: fw.QueueSkip},
		{name: "queue-on-node-add-with-sufficient-resources", pod: mem2extA,
			new: node(map[string]string{"memory": "4", extA: "2"}), want: fw.Queue},
		{name: "skip-queue-on-node-unrelated-changes", pod: mem2extA,
			old: node(map[string]string{"memory": "2", extA: "2"}), new: node(map[string]string{"memory": "2", extA: "1", extB: "2"}), want: fw.QueueSkip},
		{name: "queue-on-pod-requested-resources-increase", pod: mem2extA,
			old: node(map[string]string{"memory": "2", extA: "1"}), new: node(map[string]string{"memory": "2", extA: "2"}), want: fw.Queue},
		{name: "skip-queue-on-node-changes-from-suitable-to-unsuitable", pod: mem2extA,
			old: node(map[string]string{"memory": "4", extA: "2"}), new: node(map[string]string{"memory": "1", extA: "2"}), want: fw.QueueSkip},
		{name: "queue-on-node-changes-from-unsuitable-to-suitable", pod: mem2extA,
			old: node(map[string]string{"memory": "1", extA: "2"}), new: node(map[string]string{"memory": "4", extA: "2"}), want: fw.Queue},
	})
}

func ptsConstraint(key string, sel *api.LabelSelector, taints *api.NodeInclusionPolicy) api.TopologySpreadConstraint {
	return api.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: key, WhenUnsatisfiable: api.DoNotSchedule, LabelSelector: sel, NodeTaintsPolicy: taints}
}

// podtopologyspread/plugin_test.go Test_isSchedulableAfterNodeChange and
// Test_isSchedulableAfterPodChange (ListDefaulting without defaults).
func TestPodTopologySpreadHints(t *testing.T) {
	pl := hintPlugin[*PodTopologySpread](t)(NewPodTopologySpread(config.PodTopologySpreadArgs{DefaultingType: config.ListDefaulting}, nil))
	foo := &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "foo", Operator: api.LabelSelectorOpExists}}}
	bar := &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "bar", Operator: api.LabelSelectorOpExists}}}
	zone := builder.MakePod().Name("p").SpreadConstraint(ptsConstraint("zone", foo, nil)).Obj()
	zoneNode := builder.MakePod().Name("p").SpreadConstraint(ptsConstraint("zone", foo, nil)).SpreadConstraint(ptsConstraint("node", foo, nil)).Obj()
	n := func() *builder.NodeWrapper { return builder.MakeNode().Name("node-a") }
	taint := func(w *builder.NodeWrapper, key string) *api.Node {
		return w.Taint(key, "bbb", api.TaintEffectNoSchedule).Obj()
	}
	runHints(t, pl.afterNodeChange, nil, []hintCase{
		{name: "node updates label which matches topologyKey", pod: zone, old: n().Label("zone", "zone1").Obj(), new: n().Label("zone", "zone2").Obj(), want: fw.Queue},
		{name: "node that doesn't match topologySpreadConstraints updates non-related label", pod: zone, old: n().Label("foo", "bar1").Obj(), new: n().Label("foo", "bar2").Obj(), want: fw.QueueSkip},
		{name: "node that match topologySpreadConstraints adds non-related label", pod: zoneNode,
			old: n().Label("zone", "zone1").Label("node", "node1").Label("foo", "bar").Obj(), new: n().Label("zone", "zone1").Label("node", "node1").Obj(), want: fw.QueueSkip},
		{name: "create node with non-related labels", pod: zone, new: n().Label("foo", "bar").Obj(), want: fw.QueueSkip},
		{name: "create node with related labels", pod: zone, new: n().Label("zone", "zone1").Obj(), want: fw.Queue},
		{name: "delete node with non-related labels", pod: zone, old: n().Label("foo", "bar").Obj(), want: fw.QueueSkip},
		{name: "delete node with related labels", pod: zone, old: n().Label("zone", "zone1").Obj(), want: fw.Queue},
		{name: "add node with related labels that only match one of topologySpreadConstraints", pod: zoneNode, new: n().Label("zone", "zone1").Obj(), want: fw.QueueSkip},
		{name: "add node with related labels that match all topologySpreadConstraints", pod: zoneNode, new: n().Label("zone", "zone1").Label("node", "node1").Obj(), want: fw.Queue},
		{name: "update node with related labels that only match one of topologySpreadConstraints", pod: zoneNode, old: n().Label("zone", "zone1").Obj(), new: n().Label("zone", "zone1").Obj(), want: fw.QueueSkip},
		{name: "update node with related labels that match all topologySpreadConstraints", pod: zoneNode,
			old: n().Label("zone", "zone1").Label("node", "node1").Obj(), new: n().Label("zone", "zone1").Label("node", "node2").Obj(), want: fw.Queue},
		{name: "update node with different taints that match all topologySpreadConstraints", pod: zoneNode,
			old: taint(n().Label("zone", "zone1").Label("node", "node1"), "aaa"), new: taint(n().Label("zone", "zone1").Label("node", "node1"), "ccc"), want: fw.Queue},
		{name: "update node with different taints that only match one of topologySpreadConstraints", pod: zoneNode,
			old: taint(n().Label("node", "node1"), "aaa"), new: taint(n().Label("node", "node1"), "ccc"), want: fw.QueueSkip},
	})
	p := func() *builder.PodWrapper { return builder.MakePod().UID("p").Name("p").Label("foo", "") }
	target := p().SpreadConstraint(ptsConstraint("zone", foo, nil)).Obj()
	targetTwo := p().SpreadConstraint(ptsConstraint("zone", foo, nil)).SpreadConstraint(ptsConstraint("node", bar, nil)).Obj()
	honor, ignore := api.NodeInclusionPolicyHonor, api.NodeInclusionPolicyIgnore
	other := func() *builder.PodWrapper { return builder.MakePod().UID("p2").Name("p2") }
	placed := func() *builder.PodWrapper { return other().Node("fake-node") }
	runHints(t, pl.afterPodChange, nil, []hintCase{
		{name: "add pod with labels match topologySpreadConstraints selector", pod: target, new: hp(t, placed().Label("foo", "").Obj()), want: fw.Queue},
		{name: "add un-scheduled pod", pod: target, new: hp(t, other().Label("foo", "").Obj()), want: fw.QueueSkip},
		{name: "update un-scheduled pod", pod: target, old: hp(t, other().Label("bar", "").Obj()), new: hp(t, other().Label("foo", "").Obj()), want: fw.QueueSkip},
		{name: "delete un-scheduled pod", pod: target, old: hp(t, other().Label("foo", "").Obj()), want: fw.QueueSkip},
		{name: "add pod with different namespace", pod: target, new: hp(t, placed().Namespace("fake-namespace").Label("foo", "").Obj()), want: fw.QueueSkip},
		{name: "add pod with labels don't match topologySpreadConstraints selector", pod: target, new: hp(t, placed().Label("bar", "").Obj()), want: fw.QueueSkip},
		{name: "delete pod with labels that match topologySpreadConstraints selector", pod: target, old: hp(t, placed().Label("foo", "").Obj()), want: fw.Queue},
		{name: "delete nominated pod with labels that don't match topologySpreadConstraints selector", pod: target, old: hp(t, other().NominatedNode("fake-node").Label("bar", "").Obj()), want: fw.QueueSkip},
		{name: "delete nominated pod with labels that match topologySpreadConstraints selector", pod: target, old: hp(t, other().NominatedNode("fake-node").Label("foo", "").Obj()), want: fw.Queue},
		{name: "delete pod with labels that don't match topologySpreadConstraints selector", pod: target, old: hp(t, placed().Label("bar", "").Obj()), want: fw.QueueSkip},
		{name: "update pod's non-related label", pod: target,
			old: hp(t, placed().Label("foo", "").Label("bar", "bar1").Obj()), new: hp(t, placed().Label("foo", "").Label("bar", "bar2").Obj()), want: fw.QueueSkip},
		{name: "add pod's label that matches topologySpreadConstraints selector", pod: target, old: hp(t, placed().Obj()), new: hp(t, placed().Label("foo", "").Obj()), want: fw.Queue},
		{name: "delete pod label that matches topologySpreadConstraints selector", pod: target, old: hp(t, placed().Label("foo", "").Obj()), new: hp(t, placed().Obj()), want: fw.Queue},
		{name: "change pod's label that matches topologySpreadConstraints selector", pod: target, old: hp(t, placed().Label("foo", "foo1").Obj()), new: hp(t, placed().Label("foo", "foo2").Obj()), want: fw.QueueSkip},
		{name: "add pod's label that matches topologySpreadConstraints selector with multi topologySpreadConstraints", pod: targetTwo,
			old: hp(t, placed().Label("foo", "").Obj()), new: hp(t, placed().Label("foo", "").Label("bar", "bar2").Obj()), want: fw.Queue},
		{name: "change pod's label that doesn't match topologySpreadConstraints selector with multi topologySpreadConstraints", pod: targetTwo,
			old: hp(t, placed().Label("foo", "").Obj()), new: hp(t, placed().Label("foo", "").Label("baz", "").Obj()), want: fw.QueueSkip},
		{name: "change pod's label that match topologySpreadConstraints selector with multi topologySpreadConstraints", pod: targetTwo,
			old: hp(t, placed().Label("foo", "").Label("bar", "").Obj()), new: hp(t, placed().Label("foo", "").Label("bar", "bar2").Obj()), want: fw.QueueSkip},
		{name: "the unschedulable Pod has topologySpreadConstraint with NodeTaintsPolicy:Honor and has got a new toleration",
			pod: p().SpreadConstraint(ptsConstraint("zone", foo, &honor)).SpreadConstraint(ptsConstraint("node", bar, nil)).Obj(),
			old: hp(t, p().Obj()), new: hp(t, p().Toleration(unschedulableToleration).Obj()), want: fw.Queue},
		{name: "the unschedulable Pod has topologySpreadConstraint without NodeTaintsPolicy:Honor and has got a new toleration",
			pod: p().SpreadConstraint(ptsConstraint("zone", foo, &ignore)).SpreadConstraint(ptsConstraint("node", bar, nil)).Obj(),
			old: hp(t, p().Obj()), new: hp(t, p().Toleration(unschedulableToleration).Obj()), want: fw.QueueSkip},
		{name: "the unschedulable Pod has topologySpreadConstraint and has got a new label matching the selector of the constraint",
			pod: p().SpreadConstraint(ptsConstraint("zone", foo, &ignore)).SpreadConstraint(ptsConstraint("node", bar, nil)).Obj(),
			old: hp(t, builder.MakePod().UID("p").Name("p").Obj()), new: hp(t, p().Obj()), want: fw.Queue},
		{name: "the unschedulable Pod has topologySpreadConstraint and has got a new unrelated label",
			pod: p().SpreadConstraint(ptsConstraint("zone", foo, &ignore)).SpreadConstraint(ptsConstraint("node", bar, nil)).Obj(),
			old: hp(t, builder.MakePod().UID("p").Name("p").Obj()), new: hp(t, builder.MakePod().UID("p").Name("p").Label("unrelated", "").Obj()), want: fw.QueueSkip},
	})
}

// interpodaffinity/plugin_test.go Test_isSchedulableAfterPodChange and
// Test_isSchedulableAfterNodeChange.
func TestInterPodAffinityHints(t *testing.T) {
	pl := hintPlugin[*InterPodAffinity](t)(InterPodAffinityFactory(nil, nil))
	vals := []string{"securityscan", "value2"}
	affinity := builder.MakePod().UID("p").Name("p").PodAffinityIn("service", "region", vals, builder.PodAffinityWithRequiredReq).Obj()
	anti := builder.MakePod().UID("p").Name("p").PodAntiAffinityIn("service", "region", vals, builder.PodAntiAffinityWithRequiredReq).Obj()
	twoTerms := builder.MakePod().UID("p").Name("p").PodAffinityExists("aaa", "hostname", builder.PodAffinityWithRequiredReq).
		PodAffinityExists("bbb", "hostname", builder.PodAffinityWithRequiredReq).Obj()
	other := func() *builder.PodWrapper { return builder.MakePod().UID("other").Name("other") }
	placed := func() *builder.PodWrapper { return other().Node("fake-node") }
	antiPlaced := builder.MakePod().Name("q").Node("fake-node").PodAntiAffinityIn("service", "region", vals, builder.PodAntiAffinityWithRequiredReq)
	runHints(t, pl.afterPodChange, nil, []hintCase{
		{name: "add a pod which matches the pod affinity", pod: affinity, new: hp(t, placed().Label("service", "securityscan").Obj()), want: fw.Queue},
		{name: "add an un-scheduled pod", pod: affinity, new: hp(t, other().Label("service", "securityscan").Obj()), want: fw.QueueSkip},
		{name: "add a pod which doesn't match the pod affinity", pod: affinity, new: hp(t, placed().Label("aaa", "a").Obj()), want: fw.QueueSkip},
		{name: "update a pod from non-match to match pod affinity", pod: affinity,
			old: hp(t, placed().Label("aaa", "a").Obj()), new: hp(t, placed().Label("service", "securityscan").Obj()), want: fw.Queue},
		{name: "the updating pod matches target pod's affinity both before and after label changes", pod: affinity,
			old: hp(t, placed().Label("service", "value2").Obj()), new: hp(t, placed().Label("service", "securityscan").Obj()), want: fw.QueueSkip},
		{name: "update an un-scheduled pod", pod: affinity,
			old: hp(t, other().Label("aaa", "a").Obj()), new: hp(t, other().Label("service", "securityscan").Obj()), want: fw.QueueSkip},
		{name: "update a pod from match to non-match the pod affinity", pod: affinity,
			old: hp(t, placed().Label("service", "securityscan").Obj()), new: hp(t, placed().Label("aaa", "a").Obj()), want: fw.QueueSkip},
		{name: "update a pod from match to non-match pod's affinity - multiple terms case", pod: twoTerms,
			old: hp(t, placed().Label("aaa", "a").Obj()), new: hp(t, placed().Label("service", "securityscan").Obj()), want: fw.QueueSkip},
		{name: "update a pod from non-match to match pod's affinity - multiple terms case", pod: twoTerms,
			old: hp(t, placed().Label("aaa", "a").Obj()), new: hp(t, placed().Label("aaa", "").Label("bbb", "").Obj()), want: fw.Queue},
		{name: "updated pod is the target pod", pod: builder.MakePod().UID("p").Name("p").Label("foo", "baz").Obj(),
			old: hp(t, builder.MakePod().UID("p").Name("p").Label("foo", "bar").Obj()), new: hp(t, builder.MakePod().UID("p").Name("p").Label("foo", "baz").Obj()), want: fw.Queue},
		{name: "modify pod label to change it from satisfying pod anti-affinity to not satisfying anti-affinity", pod: anti,
			old: hp(t, placed().Label("service", "securityscan").Obj()), new: hp(t, placed().Label("service", "aaaa").Obj()), want: fw.Queue},
		{name: "modify pod label to change it from not satisfying pod anti-affinity to satisfying anti-affinity", pod: anti,
			old: hp(t, placed().Label("service", "bbb").Obj()), new: hp(t, placed().Label("service", "securityscan").Obj()), want: fw.QueueSkip},
		{name: "delete a pod which doesn't match pod's anti-affinity", pod: anti, old: hp(t, placed().Label("aaa", "a").Obj()), want: fw.QueueSkip},
		{name: "delete a pod which matches pod's anti-affinity", pod: anti, old: hp(t, placed().Label("service", "securityscan").Obj()), want: fw.Queue},
		{name: "delete a pod with anti-affinity that matches pending pod", pod: builder.MakePod().Name("p").Label("service", "securityscan").Obj(),
			old: hp(t, antiPlaced.Obj()), want: fw.Queue},
		{name: "delete a pod with anti-affinity that doesn't match pending pod", pod: builder.MakePod().Name("p").Label("service", "foo").Obj(),
			old: hp(t, antiPlaced.Obj()), want: fw.QueueSkip},
		{name: "delete a pod which doesn't match pending pod's anti-affinity and has anti-affinity that doesn't match pending pod",
			pod: builder.MakePod().Name("p").PodAntiAffinityIn("service", "region", vals, builder.PodAntiAffinityWithRequiredReq).Label("service", "foo").Obj(),
			old: hp(t, builder.MakePod().Name("q").Node("fake-node").PodAntiAffinityIn("service", "region", vals, builder.PodAntiAffinityWithRequiredReq).Label("service", "foo").Obj()), want: fw.QueueSkip},
		{name: "delete a nominated pod which doesn't match pod's anti-affinity", pod: anti, old: hp(t, other().NominatedNode("fake-node").Label("aaa", "a").Obj()), want: fw.QueueSkip},
		{name: "delete a nominated pod which matches pod's anti-affinity", pod: anti, old: hp(t, other().NominatedNode("fake-node").Label("service", "securityscan").Obj()), want: fw.Queue},
	})
	zoneAffinity := builder.MakePod().Name("p").PodAffinityIn("service", "zone", vals, builder.PodAffinityWithRequiredReq).Obj()
	regionAffinity := builder.MakePod().Name("p").PodAffinityIn("service", "region", vals, builder.PodAffinityWithRequiredReq).Obj()
	zoneAnti := builder.MakePod().Name("p").PodAffinityTerm(builder.PodAntiAffinityWithRequiredReq, 0, api.PodAffinityTerm{
		LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"another": "label"}}, TopologyKey: "zone"}).Obj()
	n := func() *builder.NodeWrapper { return builder.MakeNode().Name("node-a") }
	runHints(t, pl.afterNodeChange, nil, []hintCase{
		{name: "add a new node with matched pod affinity topologyKey", pod: zoneAffinity, new: n().Label("zone", "zone1").Obj(), want: fw.Queue},
		{name: "add a new node without matched topologyKey", pod: regionAffinity, new: n().Label("zone", "zone1").Obj(), want: fw.QueueSkip},
		{name: "update node label but not topologyKey", pod: zoneAffinity, old: n().Label("aaa", "a").Obj(), new: n().Label("aaa", "b").Obj(), want: fw.QueueSkip},
		{name: "update node label that isn't related to the pod affinity", pod: zoneAffinity,
			old: n().Label("zone", "zone1").Obj(), new: n().Label("zone", "zone1").Label("unrelated-label", "unrelated").Obj(), want: fw.QueueSkip},
		{name: "update node with different affinity topologyKey value", pod: zoneAffinity, old: n().Label("zone", "zone1").Obj(), new: n().Label("zone", "zone2").Obj(), want: fw.Queue},
		{name: "update node to have the affinity topology label", pod: zoneAffinity, old: n().Label("aaa", "a").Obj(), new: n().Label("zone", "zone1").Obj(), want: fw.Queue},
		{name: "add a new node with matched pod anti-affinity topologyKey", pod: zoneAnti, new: n().Label("zone", "zone1").Obj(), want: fw.Queue},
		{name: "add a new node without matched pod anti-affinity topologyKey", pod: zoneAnti, new: n().Obj(), want: fw.Queue},
		{name: "update node label that isn't related to the pod anti-affinity", pod: zoneAnti,
			old: n().Label("zone", "zone1").Obj(), new: n().Label("zone", "zone1").Label("unrelated-label", "unrelated").Obj(), want: fw.QueueSkip},
		{name: "update node with different anti-affinity topologyKey value", pod: zoneAnti, old: n().Label("zone", "zone1").Obj(), new: n().Label("zone", "zone2").Obj(), want: fw.Queue},
		{name: "update node to have the anti-affinity topology label", pod: zoneAnti, old: n().Label("aaa", "a").Obj(), new: n().Label("zone", "zone1").Obj(), want: fw.QueueSkip},
		{name: "update node label not to have anti-affinity topology label", pod: zoneAnti, old: n().Label("zone", "zone1").Obj(), new: n().Label("aaa", "a").Obj(), want: fw.Queue},
	})
}

// TestEventsToRegister pins each filter's registered events: kube-scheduler
// v1.36's with SchedulerQueueingHints on (noderesources/fit_test.go
// TestEventsToRegister has Fit's), and Koordinator's for LoadAware.
func TestEventsToRegister(t *testing.T) {
	nodeRes, _ := NodeResourcesFitFactory(nil, nil)
	pts, _ := PodTopologySpreadFactory(nil, nil)
	ipa, _ := InterPodAffinityFactory(nil, nil)
	na, _ := NodeAffinityFactory(nil, nil)
	nu, _ := NewNodeUnschedulable(nil, nil)
	nn, _ := NewNodeName(nil, nil)
	tt, _ := NewTaintToleration(nil, nil)
	np, _ := NewNodePorts(nil, nil)
	la, err := NewLoadAware(config.DefaultLoadAwareSchedulingArgs(), nil)
	if err != nil {
		t.Fatal(err)
	}
	type ev = fw.ClusterEvent
	node := func(a fw.ActionType) ev { return ev{Resource: fw.ResourceNode, ActionType: a} }
	pod := func(a fw.ActionType) ev { return ev{Resource: fw.ResourcePod, ActionType: a} }
	for _, tc := range []struct {
		pl   fw.Plugin
		want []ev
	}{
		{nodeRes, []ev{pod(fw.Delete | fw.UpdatePodScaleDown), node(fw.Add | fw.UpdateNodeAllocatable)}},
		{pts, []ev{pod(fw.Add | fw.UpdatePodLabel | fw.UpdatePodToleration | fw.Delete), node(fw.Add | fw.Delete | fw.UpdateNodeLabel | fw.UpdateNodeTaint)}},
		{ipa, []ev{pod(fw.Add | fw.UpdatePodLabel | fw.Delete), node(fw.Add | fw.UpdateNodeLabel)}},
		{na, []ev{node(fw.Add | fw.UpdateNodeLabel)}},
		{nu, []ev{node(fw.Add | fw.UpdateNodeTaint), pod(fw.UpdatePodToleration)}},
		{nn, []ev{node(fw.Add)}},
		{tt, []ev{node(fw.Add | fw.UpdateNodeTaint), pod(fw.UpdatePodToleration)}},
		{np, []ev{pod(fw.Delete), node(fw.Add)}},
		{la, []ev{pod(fw.Delete), {Resource: fw.ResourceNodeMetric, ActionType: fw.Add | fw.Update | fw.Delete}}},
	} {
		evs, err := tc.pl.(fw.EnqueueExtensions).EventsToRegister(context.Background())
		if err != nil {
			t.Fatalf("%s: %v", tc.pl.Name(), err)
		}
		var got []ev
		for _, e := range evs {
			got = append(got, e.Event)
		}
		if len(got) != len(tc.want) {
			t.Fatalf("%s: events %v, want %v", tc.pl.Name(), got, tc.want)
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%s: event %d = %v, want %v", tc.pl.Name(), i, got[i], tc.want[i])
			}
		}
	}
}
