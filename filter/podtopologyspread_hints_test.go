package filter

import (
	"testing"

	"github.com/schedkit/schedkit/config"
	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
)

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
