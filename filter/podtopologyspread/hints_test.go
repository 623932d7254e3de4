package podtopologyspread

import (
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/internal/st"
)

func ptsConstraint(key string, sel *api.LabelSelector, taints *api.NodeInclusionPolicy) api.TopologySpreadConstraint {
	return api.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: key, WhenUnsatisfiable: api.DoNotSchedule, LabelSelector: sel, NodeTaintsPolicy: taints}
}

// podtopologyspread/plugin_test.go Test_isSchedulableAfterNodeChange and
// Test_isSchedulableAfterPodChange (ListDefaulting without defaults).
func TestPodTopologySpreadHints(t *testing.T) {
	pl := st.HintPlugin[*PodTopologySpread](t)(New(PodTopologySpreadArgs{DefaultingType: ListDefaulting}, nil))
	foo := &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "foo", Operator: api.LabelSelectorOpExists}}}
	bar := &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "bar", Operator: api.LabelSelectorOpExists}}}
	zone := builder.MakePod().Name("p").SpreadConstraint(ptsConstraint("zone", foo, nil)).Obj()
	zoneNode := builder.MakePod().Name("p").SpreadConstraint(ptsConstraint("zone", foo, nil)).SpreadConstraint(ptsConstraint("node", foo, nil)).Obj()
	n := func() *builder.NodeWrapper { return builder.MakeNode().Name("node-a") }
	taint := func(w *builder.NodeWrapper, key string) *api.Node {
		return w.Taint(key, "bbb", api.TaintEffectNoSchedule).Obj()
	}
	st.RunHints(t, pl.afterNodeChange, nil, []st.HintCase{
		{Name: "node updates label which matches topologyKey", Pod: zone, Old: n().Label("zone", "zone1").Obj(), New: n().Label("zone", "zone2").Obj(), Want: fw.Queue},
		{Name: "node that doesn't match topologySpreadConstraints updates non-related label", Pod: zone, Old: n().Label("foo", "bar1").Obj(), New: n().Label("foo", "bar2").Obj(), Want: fw.QueueSkip},
		{Name: "node that match topologySpreadConstraints adds non-related label", Pod: zoneNode,
			Old: n().Label("zone", "zone1").Label("node", "node1").Label("foo", "bar").Obj(), New: n().Label("zone", "zone1").Label("node", "node1").Obj(), Want: fw.QueueSkip},
		{Name: "create node with non-related labels", Pod: zone, New: n().Label("foo", "bar").Obj(), Want: fw.QueueSkip},
		{Name: "create node with related labels", Pod: zone, New: n().Label("zone", "zone1").Obj(), Want: fw.Queue},
		{Name: "delete node with non-related labels", Pod: zone, Old: n().Label("foo", "bar").Obj(), Want: fw.QueueSkip},
		{Name: "delete node with related labels", Pod: zone, Old: n().Label("zone", "zone1").Obj(), Want: fw.Queue},
		{Name: "add node with related labels that only match one of topologySpreadConstraints", Pod: zoneNode, New: n().Label("zone", "zone1").Obj(), Want: fw.QueueSkip},
		{Name: "add node with related labels that match all topologySpreadConstraints", Pod: zoneNode, New: n().Label("zone", "zone1").Label("node", "node1").Obj(), Want: fw.Queue},
		{Name: "update node with related labels that only match one of topologySpreadConstraints", Pod: zoneNode, Old: n().Label("zone", "zone1").Obj(), New: n().Label("zone", "zone1").Obj(), Want: fw.QueueSkip},
		{Name: "update node with related labels that match all topologySpreadConstraints", Pod: zoneNode,
			Old: n().Label("zone", "zone1").Label("node", "node1").Obj(), New: n().Label("zone", "zone1").Label("node", "node2").Obj(), Want: fw.Queue},
		{Name: "update node with different taints that match all topologySpreadConstraints", Pod: zoneNode,
			Old: taint(n().Label("zone", "zone1").Label("node", "node1"), "aaa"), New: taint(n().Label("zone", "zone1").Label("node", "node1"), "ccc"), Want: fw.Queue},
		{Name: "update node with different taints that only match one of topologySpreadConstraints", Pod: zoneNode,
			Old: taint(n().Label("node", "node1"), "aaa"), New: taint(n().Label("node", "node1"), "ccc"), Want: fw.QueueSkip},
	})
	p := func() *builder.PodWrapper { return builder.MakePod().UID("p").Name("p").Label("foo", "") }
	target := p().SpreadConstraint(ptsConstraint("zone", foo, nil)).Obj()
	targetTwo := p().SpreadConstraint(ptsConstraint("zone", foo, nil)).SpreadConstraint(ptsConstraint("node", bar, nil)).Obj()
	honor, ignore := api.NodeInclusionPolicyHonor, api.NodeInclusionPolicyIgnore
	other := func() *builder.PodWrapper { return builder.MakePod().UID("p2").Name("p2") }
	placed := func() *builder.PodWrapper { return other().Node("fake-node") }
	st.RunHints(t, pl.afterPodChange, nil, []st.HintCase{
		{Name: "add pod with labels match topologySpreadConstraints selector", Pod: target, New: st.HintPod(t, placed().Label("foo", "").Obj()), Want: fw.Queue},
		{Name: "add un-scheduled pod", Pod: target, New: st.HintPod(t, other().Label("foo", "").Obj()), Want: fw.QueueSkip},
		{Name: "update un-scheduled pod", Pod: target, Old: st.HintPod(t, other().Label("bar", "").Obj()), New: st.HintPod(t, other().Label("foo", "").Obj()), Want: fw.QueueSkip},
		{Name: "delete un-scheduled pod", Pod: target, Old: st.HintPod(t, other().Label("foo", "").Obj()), Want: fw.QueueSkip},
		{Name: "add pod with different namespace", Pod: target, New: st.HintPod(t, placed().Namespace("fake-namespace").Label("foo", "").Obj()), Want: fw.QueueSkip},
		{Name: "add pod with labels don't match topologySpreadConstraints selector", Pod: target, New: st.HintPod(t, placed().Label("bar", "").Obj()), Want: fw.QueueSkip},
		{Name: "delete pod with labels that match topologySpreadConstraints selector", Pod: target, Old: st.HintPod(t, placed().Label("foo", "").Obj()), Want: fw.Queue},
		{Name: "delete nominated pod with labels that don't match topologySpreadConstraints selector", Pod: target, Old: st.HintPod(t, other().NominatedNode("fake-node").Label("bar", "").Obj()), Want: fw.QueueSkip},
		{Name: "delete nominated pod with labels that match topologySpreadConstraints selector", Pod: target, Old: st.HintPod(t, other().NominatedNode("fake-node").Label("foo", "").Obj()), Want: fw.Queue},
		{Name: "delete pod with labels that don't match topologySpreadConstraints selector", Pod: target, Old: st.HintPod(t, placed().Label("bar", "").Obj()), Want: fw.QueueSkip},
		{Name: "update pod's non-related label", Pod: target,
			Old: st.HintPod(t, placed().Label("foo", "").Label("bar", "bar1").Obj()), New: st.HintPod(t, placed().Label("foo", "").Label("bar", "bar2").Obj()), Want: fw.QueueSkip},
		{Name: "add pod's label that matches topologySpreadConstraints selector", Pod: target, Old: st.HintPod(t, placed().Obj()), New: st.HintPod(t, placed().Label("foo", "").Obj()), Want: fw.Queue},
		{Name: "delete pod label that matches topologySpreadConstraints selector", Pod: target, Old: st.HintPod(t, placed().Label("foo", "").Obj()), New: st.HintPod(t, placed().Obj()), Want: fw.Queue},
		{Name: "change pod's label that matches topologySpreadConstraints selector", Pod: target, Old: st.HintPod(t, placed().Label("foo", "foo1").Obj()), New: st.HintPod(t, placed().Label("foo", "foo2").Obj()), Want: fw.QueueSkip},
		{Name: "add pod's label that matches topologySpreadConstraints selector with multi topologySpreadConstraints", Pod: targetTwo,
			Old: st.HintPod(t, placed().Label("foo", "").Obj()), New: st.HintPod(t, placed().Label("foo", "").Label("bar", "bar2").Obj()), Want: fw.Queue},
		{Name: "change pod's label that doesn't match topologySpreadConstraints selector with multi topologySpreadConstraints", Pod: targetTwo,
			Old: st.HintPod(t, placed().Label("foo", "").Obj()), New: st.HintPod(t, placed().Label("foo", "").Label("baz", "").Obj()), Want: fw.QueueSkip},
		{Name: "change pod's label that match topologySpreadConstraints selector with multi topologySpreadConstraints", Pod: targetTwo,
			Old: st.HintPod(t, placed().Label("foo", "").Label("bar", "").Obj()), New: st.HintPod(t, placed().Label("foo", "").Label("bar", "bar2").Obj()), Want: fw.QueueSkip},
		{Name: "the unschedulable Pod has topologySpreadConstraint with NodeTaintsPolicy:Honor and has got a new toleration",
			Pod: p().SpreadConstraint(ptsConstraint("zone", foo, &honor)).SpreadConstraint(ptsConstraint("node", bar, nil)).Obj(),
			Old: st.HintPod(t, p().Obj()), New: st.HintPod(t, p().Toleration(api.Toleration{Key: "node.kubernetes.io/unschedulable", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule}).Obj()), Want: fw.Queue},
		{Name: "the unschedulable Pod has topologySpreadConstraint without NodeTaintsPolicy:Honor and has got a new toleration",
			Pod: p().SpreadConstraint(ptsConstraint("zone", foo, &ignore)).SpreadConstraint(ptsConstraint("node", bar, nil)).Obj(),
			Old: st.HintPod(t, p().Obj()), New: st.HintPod(t, p().Toleration(api.Toleration{Key: "node.kubernetes.io/unschedulable", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule}).Obj()), Want: fw.QueueSkip},
		{Name: "the unschedulable Pod has topologySpreadConstraint and has got a new label matching the selector of the constraint",
			Pod: p().SpreadConstraint(ptsConstraint("zone", foo, &ignore)).SpreadConstraint(ptsConstraint("node", bar, nil)).Obj(),
			Old: st.HintPod(t, builder.MakePod().UID("p").Name("p").Obj()), New: st.HintPod(t, p().Obj()), Want: fw.Queue},
		{Name: "the unschedulable Pod has topologySpreadConstraint and has got a new unrelated label",
			Pod: p().SpreadConstraint(ptsConstraint("zone", foo, &ignore)).SpreadConstraint(ptsConstraint("node", bar, nil)).Obj(),
			Old: st.HintPod(t, builder.MakePod().UID("p").Name("p").Obj()), New: st.HintPod(t, builder.MakePod().UID("p").Name("p").Label("unrelated", "").Obj()), Want: fw.QueueSkip},
	})
}
