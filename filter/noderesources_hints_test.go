package filter

import (
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
)

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
