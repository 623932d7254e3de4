package interpodaffinity

import (
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/internal/st"
)

// interpodaffinity/plugin_test.go Test_isSchedulableAfterPodChange and
// Test_isSchedulableAfterNodeChange.
func TestInterPodAffinityHints(t *testing.T) {
	pl := st.HintPlugin[*InterPodAffinity](t)(New(nil, nil))
	vals := []string{"securityscan", "value2"}
	affinity := builder.MakePod().UID("p").Name("p").PodAffinityIn("service", "region", vals, builder.PodAffinityWithRequiredReq).Obj()
	anti := builder.MakePod().UID("p").Name("p").PodAntiAffinityIn("service", "region", vals, builder.PodAntiAffinityWithRequiredReq).Obj()
	twoTerms := builder.MakePod().UID("p").Name("p").PodAffinityExists("aaa", "hostname", builder.PodAffinityWithRequiredReq).
		PodAffinityExists("bbb", "hostname", builder.PodAffinityWithRequiredReq).Obj()
	other := func() *builder.PodWrapper { return builder.MakePod().UID("other").Name("other") }
	placed := func() *builder.PodWrapper { return other().Node("fake-node") }
	antiPlaced := builder.MakePod().Name("q").Node("fake-node").PodAntiAffinityIn("service", "region", vals, builder.PodAntiAffinityWithRequiredReq)
	st.RunHints(t, pl.afterPodChange, nil, []st.HintCase{
		{Name: "add a pod which matches the pod affinity", Pod: affinity, New: st.HintPod(t, placed().Label("service", "securityscan").Obj()), Want: fw.Queue},
		{Name: "add an un-scheduled pod", Pod: affinity, New: st.HintPod(t, other().Label("service", "securityscan").Obj()), Want: fw.QueueSkip},
		{Name: "add a pod which doesn't match the pod affinity", Pod: affinity, New: st.HintPod(t, placed().Label("aaa", "a").Obj()), Want: fw.QueueSkip},
		{Name: "update a pod from non-match to match pod affinity", Pod: affinity,
			Old: st.HintPod(t, placed().Label("aaa", "a").Obj()), New: st.HintPod(t, placed().Label("service", "securityscan").Obj()), Want: fw.Queue},
		{Name: "the updating pod matches target pod's affinity both before and after label changes", Pod: affinity,
			Old: st.HintPod(t, placed().Label("service", "value2").Obj()), New: st.HintPod(t, placed().Label("service", "securityscan").Obj()), Want: fw.QueueSkip},
		{Name: "update an un-scheduled pod", Pod: affinity,
			Old: st.HintPod(t, other().Label("aaa", "a").Obj()), New: st.HintPod(t, other().Label("service", "securityscan").Obj()), Want: fw.QueueSkip},
		{Name: "update a pod from match to non-match the pod affinity", Pod: affinity,
			Old: st.HintPod(t, placed().Label("service", "securityscan").Obj()), New: st.HintPod(t, placed().Label("aaa", "a").Obj()), Want: fw.QueueSkip},
		{Name: "update a pod from match to non-match pod's affinity - multiple terms case", Pod: twoTerms,
			Old: st.HintPod(t, placed().Label("aaa", "a").Obj()), New: st.HintPod(t, placed().Label("service", "securityscan").Obj()), Want: fw.QueueSkip},
		{Name: "update a pod from non-match to match pod's affinity - multiple terms case", Pod: twoTerms,
			Old: st.HintPod(t, placed().Label("aaa", "a").Obj()), New: st.HintPod(t, placed().Label("aaa", "").Label("bbb", "").Obj()), Want: fw.Queue},
		{Name: "updated pod is the target pod", Pod: builder.MakePod().UID("p").Name("p").Label("foo", "baz").Obj(),
			Old: st.HintPod(t, builder.MakePod().UID("p").Name("p").Label("foo", "bar").Obj()), New: st.HintPod(t, builder.MakePod().UID("p").Name("p").Label("foo", "baz").Obj()), Want: fw.Queue},
		{Name: "modify pod label to change it from satisfying pod anti-affinity to not satisfying anti-affinity", Pod: anti,
			Old: st.HintPod(t, placed().Label("service", "securityscan").Obj()), New: st.HintPod(t, placed().Label("service", "aaaa").Obj()), Want: fw.Queue},
		{Name: "modify pod label to change it from not satisfying pod anti-affinity to satisfying anti-affinity", Pod: anti,
			Old: st.HintPod(t, placed().Label("service", "bbb").Obj()), New: st.HintPod(t, placed().Label("service", "securityscan").Obj()), Want: fw.QueueSkip},
		{Name: "delete a pod which doesn't match pod's anti-affinity", Pod: anti, Old: st.HintPod(t, placed().Label("aaa", "a").Obj()), Want: fw.QueueSkip},
		{Name: "delete a pod which matches pod's anti-affinity", Pod: anti, Old: st.HintPod(t, placed().Label("service", "securityscan").Obj()), Want: fw.Queue},
		{Name: "delete a pod with anti-affinity that matches pending pod", Pod: builder.MakePod().Name("p").Label("service", "securityscan").Obj(),
			Old: st.HintPod(t, antiPlaced.Obj()), Want: fw.Queue},
		{Name: "delete a pod with anti-affinity that doesn't match pending pod", Pod: builder.MakePod().Name("p").Label("service", "foo").Obj(),
			Old: st.HintPod(t, antiPlaced.Obj()), Want: fw.QueueSkip},
		{Name: "delete a pod which doesn't match pending pod's anti-affinity and has anti-affinity that doesn't match pending pod",
			Pod: builder.MakePod().Name("p").PodAntiAffinityIn("service", "region", vals, builder.PodAntiAffinityWithRequiredReq).Label("service", "foo").Obj(),
			Old: st.HintPod(t, builder.MakePod().Name("q").Node("fake-node").PodAntiAffinityIn("service", "region", vals, builder.PodAntiAffinityWithRequiredReq).Label("service", "foo").Obj()), Want: fw.QueueSkip},
		{Name: "delete a nominated pod which doesn't match pod's anti-affinity", Pod: anti, Old: st.HintPod(t, other().NominatedNode("fake-node").Label("aaa", "a").Obj()), Want: fw.QueueSkip},
		{Name: "delete a nominated pod which matches pod's anti-affinity", Pod: anti, Old: st.HintPod(t, other().NominatedNode("fake-node").Label("service", "securityscan").Obj()), Want: fw.Queue},
	})
	zoneAffinity := builder.MakePod().Name("p").PodAffinityIn("service", "zone", vals, builder.PodAffinityWithRequiredReq).Obj()
	regionAffinity := builder.MakePod().Name("p").PodAffinityIn("service", "region", vals, builder.PodAffinityWithRequiredReq).Obj()
	zoneAnti := builder.MakePod().Name("p").PodAffinityTerm(builder.PodAntiAffinityWithRequiredReq, 0, api.PodAffinityTerm{
		LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"another": "label"}}, TopologyKey: "zone"}).Obj()
	n := func() *builder.NodeWrapper { return builder.MakeNode().Name("node-a") }
	st.RunHints(t, pl.afterNodeChange, nil, []st.HintCase{
		{Name: "add a new node with matched pod affinity topologyKey", Pod: zoneAffinity, New: n().Label("zone", "zone1").Obj(), Want: fw.Queue},
		{Name: "add a new node without matched topologyKey", Pod: regionAffinity, New: n().Label("zone", "zone1").Obj(), Want: fw.QueueSkip},
		{Name: "update node label but not topologyKey", Pod: zoneAffinity, Old: n().Label("aaa", "a").Obj(), New: n().Label("aaa", "b").Obj(), Want: fw.QueueSkip},
		{Name: "update node label that isn't related to the pod affinity", Pod: zoneAffinity,
			Old: n().Label("zone", "zone1").Obj(), New: n().Label("zone", "zone1").Label("unrelated-label", "unrelated").Obj(), Want: fw.QueueSkip},
		{Name: "update node with different affinity topologyKey value", Pod: zoneAffinity, Old: n().Label("zone", "zone1").Obj(), New: n().Label("zone", "zone2").Obj(), Want: fw.Queue},
		{Name: "update node to have the affinity topology label", Pod: zoneAffinity, Old: n().Label("aaa", "a").Obj(), New: n().Label("zone", "zone1").Obj(), Want: fw.Queue},
		{Name: "add a new node with matched pod anti-affinity topologyKey", Pod: zoneAnti, New: n().Label("zone", "zone1").Obj(), Want: fw.Queue},
		{Name: "add a new node without matched pod anti-affinity topologyKey", Pod: zoneAnti, New: n().Obj(), Want: fw.Queue},
		{Name: "update node label that isn't related to the pod anti-affinity", Pod: zoneAnti,
			Old: n().Label("zone", "zone1").Obj(), New: n().Label("zone", "zone1").Label("unrelated-label", "unrelated").Obj(), Want: fw.QueueSkip},
		{Name: "update node with different anti-affinity topologyKey value", Pod: zoneAnti, Old: n().Label("zone", "zone1").Obj(), New: n().Label("zone", "zone2").Obj(), Want: fw.Queue},
		{Name: "update node to have the anti-affinity topology label", Pod: zoneAnti, Old: n().Label("aaa", "a").Obj(), New: n().Label("zone", "zone1").Obj(), Want: fw.QueueSkip},
		{Name: "update node label not to have anti-affinity topology label", Pod: zoneAnti, Old: n().Label("zone", "zone1").Obj(), New: n().Label("aaa", "a").Obj(), Want: fw.Queue},
	})
}

// releaseHandle is a Handle of one kube-scheduler release.
func releaseHandle(v fw.KubeVersion) fw.Handle { return fw.NewHandle(fw.RealClock{}, 1, v) }

// TestInterPodAffinityAntiHintByRelease: kube-scheduler v1.37's
// isSchedulableAfterAssignedPodChange (kubernetes/kubernetes#139161) queues the pod when a
// placed pod stops matching, or a deleted pod matched, any of its
// anti-affinity terms (or the pod matches any of the deleted pod's);
// v1.36.4's isSchedulableAfterPodChange asked that every term match.
func TestInterPodAffinityAntiHintByRelease(t *testing.T) {
	twoAnti := builder.MakePod().UID("p").Name("p").
		PodAntiAffinityIn("app", "hostname", []string{"a"}, builder.PodAntiAffinityWithRequiredReq).
		PodAntiAffinityIn("tier", "hostname", []string{"b"}, builder.PodAntiAffinityWithRequiredReq).Obj()
	placed := func() *builder.PodWrapper { return builder.MakePod().UID("q").Name("q").Node("n1") }
	twoAntiPlaced := placed().
		PodAntiAffinityIn("team", "hostname", []string{"x"}, builder.PodAntiAffinityWithRequiredReq).
		PodAntiAffinityIn("tier", "hostname", []string{"y"}, builder.PodAntiAffinityWithRequiredReq).Obj()
	for _, tc := range []struct {
		name       string
		pod        *api.Pod
		old, new   *api.Pod
		v136, v137 fw.QueueingHint
	}{
		{name: "deleted pod matched one of two anti-affinity terms", pod: twoAnti, old: placed().Label("app", "a").Obj(),
			v136: fw.QueueSkip, v137: fw.Queue},
		{name: "deleted pod matched both anti-affinity terms", pod: twoAnti, old: placed().Label("app", "a").Label("tier", "b").Obj(),
			v136: fw.Queue, v137: fw.Queue},
		{name: "deleted pod matched no anti-affinity term", pod: twoAnti, old: placed().Label("app", "c").Obj(),
			v136: fw.QueueSkip, v137: fw.QueueSkip},
		{name: "updated pod stopped matching one of two anti-affinity terms", pod: twoAnti,
			old: placed().Label("app", "a").Obj(), new: placed().Label("app", "c").Obj(), v136: fw.QueueSkip, v137: fw.Queue},
		{name: "updated pod still matches an anti-affinity term", pod: twoAnti,
			old: placed().Label("app", "a").Obj(), new: placed().Label("app", "c").Label("tier", "b").Obj(), v136: fw.QueueSkip, v137: fw.QueueSkip},
		{name: "updated pod stopped matching both anti-affinity terms", pod: twoAnti,
			old: placed().Label("app", "a").Label("tier", "b").Obj(), new: placed().Label("app", "c").Obj(), v136: fw.Queue, v137: fw.Queue},
		{name: "pending pod matches one of the deleted pod's two anti-affinity terms",
			pod: builder.MakePod().UID("p").Name("p").Label("team", "x").Obj(), old: twoAntiPlaced, v136: fw.QueueSkip, v137: fw.Queue},
		{name: "pending pod matches none of the deleted pod's anti-affinity terms",
			pod: builder.MakePod().UID("p").Name("p").Label("team", "z").Obj(), old: twoAntiPlaced, v136: fw.QueueSkip, v137: fw.QueueSkip},
	} {
		for _, c := range []struct {
			v    fw.KubeVersion
			want fw.QueueingHint
		}{{fw.KubeV136, tc.v136}, {fw.KubeV137, tc.v137}} {
			pl := st.HintPlugin[*InterPodAffinity](t)(New(nil, releaseHandle(c.v)))
			var oldObj, newObj any
			if tc.old != nil {
				oldObj = st.HintPod(t, tc.old)
			}
			if tc.new != nil {
				newObj = st.HintPod(t, tc.new)
			}
			got, err := pl.afterPodChange(nil, st.HintPodInfo(t, tc.pod), oldObj, newObj)
			if err != nil || got != c.want {
				t.Errorf("%s: %s: hint %v (%v), want %v", tc.name, c.v, got, err, c.want)
			}
		}
	}
}
