package noderesources

import (
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/internal/st"
)

// noderesources/fit_test.go Test_isSchedulableAfterPodChange (with
// InPlacePodVerticalScaling on, GA in v1.35) and
// Test_isSchedulableAfterNodeChange.
func TestNodeResourcesFitHints(t *testing.T) {
	pl := st.HintPlugin[*NodeResourcesFit](t)(NewFit(nil, nil))
	cpu := func(v string) map[string]string { return map[string]string{"cpu": v} }
	mem := func(v string) map[string]string { return map[string]string{"memory": v} }
	st.RunHints(t, pl.afterPodEvent, nil, []st.HintCase{
		{Name: "backoff-wrong-old-object", Old: "not-a-pod", Want: fw.Queue, WantErr: true},
		{Name: "backoff-wrong-new-object", New: "not-a-pod", Want: fw.Queue, WantErr: true},
		{Name: "queue-on-other-pod-deleted", Pod: builder.MakePod().Name("pod1").Req(cpu("1")).Obj(),
			Old: st.HintPod(t, builder.MakePod().Name("pod2").Req(cpu("1")).Node("fake").Obj()), Want: fw.Queue},
		{Name: "skip-queue-on-unscheduled-pod-deleted", Old: st.HintPod(t, &api.Pod{}), Want: fw.QueueSkip},
		{Name: "queue-on-nominated-pod-deleted", Pod: builder.MakePod().Name("pod1").UID("uid0").Req(cpu("1")).Obj(),
			Old: st.HintPod(t, builder.MakePod().Name("pod2").UID("uid1").Req(cpu("2")).NominatedNode("fake").Obj()), Want: fw.Queue},
		{Name: "skip-queue-on-other-unscheduled-pod", Pod: builder.MakePod().Name("pod1").UID("uid0").Req(cpu("1")).Obj(),
			Old: st.HintPod(t, builder.MakePod().Name("pod2").UID("uid1").Req(cpu("2")).Obj()),
			New: st.HintPod(t, builder.MakePod().Name("pod2").UID("uid1").Req(cpu("1")).Obj()), Want: fw.QueueSkip},
		{Name: "skip-queue-on-other-pod-unrelated-resource-scaled-down", Pod: builder.MakePod().Name("pod1").UID("pod1").Req(cpu("1")).Obj(),
			Old: st.HintPod(t, builder.MakePod().Name("pod2").UID("pod2").Req(mem("2")).Node("fake").Obj()),
			New: st.HintPod(t, builder.MakePod().Name("pod2").UID("pod2").Req(mem("1")).Node("fake").Obj()), Want: fw.QueueSkip},
		{Name: "queue-on-other-pod-some-resource-scale-down", Pod: builder.MakePod().Name("pod1").UID("pod1").Req(cpu("1")).Obj(),
			Old: st.HintPod(t, builder.MakePod().Name("pod2").UID("pod2").Req(cpu("2")).Node("fake").Obj()),
			New: st.HintPod(t, builder.MakePod().Name("pod2").UID("pod2").Req(cpu("1")).Node("fake").Obj()), Want: fw.Queue},
		{Name: "queue-on-target-pod-some-resource-scale-down", Pod: builder.MakePod().Name("pod1").UID("pod1").Req(cpu("1")).Obj(),
			Old: st.HintPod(t, builder.MakePod().Name("pod1").UID("pod1").Req(cpu("2")).Obj()),
			New: st.HintPod(t, builder.MakePod().Name("pod1").UID("pod1").Req(cpu("1")).Obj()), Want: fw.Queue},
	})
	const extA, extB = "example.com/aaa", "example.com/bbb"
	node := func(m map[string]string) *api.Node {
		m["pods"] = "32" // kube's st.MakeNode().Capacity adds 32 pods
		return builder.MakeNode().Name("n").Capacity(m).Obj()
	}
	pod := func(m map[string]string) *api.Pod { return builder.MakePod().Name("p").Req(m).Obj() }
	mem2extA := pod(map[string]string{"memory": "2", extA: "1"})
	st.RunHints(t, pl.afterNodeChange, nil, []st.HintCase{
		{Name: "backoff-wrong-new-object", New: "not-a-node", Want: fw.Queue, WantErr: true},
		{Name: "backoff-wrong-old-object", Old: "not-a-node", New: &api.Node{}, Want: fw.Queue, WantErr: true},
		{Name: "skip-queue-on-node-add-without-sufficient-resources", Pod: pod(map[string]string{"memory": "2"}),
			New: node(map[string]string{"memory": "1"}), Want: fw.QueueSkip},
		{Name: "skip-queue-on-node-add-without-required-resource-type", Pod: pod(map[string]string{extA: "1"}),
			New: node(map[string]string{extB: "1"}), Want: fw.QueueSkip},
		{Name: "queue-on-node-add-with-sufficient-resources", Pod: mem2extA,
			New: node(map[string]string{"memory": "4", extA: "2"}), Want: fw.Queue},
		{Name: "skip-queue-on-node-unrelated-changes", Pod: mem2extA,
			Old: node(map[string]string{"memory": "2", extA: "2"}), New: node(map[string]string{"memory": "2", extA: "1", extB: "2"}), Want: fw.QueueSkip},
		{Name: "queue-on-pod-requested-resources-increase", Pod: mem2extA,
			Old: node(map[string]string{"memory": "2", extA: "1"}), New: node(map[string]string{"memory": "2", extA: "2"}), Want: fw.Queue},
		{Name: "skip-queue-on-node-changes-from-suitable-to-unsuitable", Pod: mem2extA,
			Old: node(map[string]string{"memory": "4", extA: "2"}), New: node(map[string]string{"memory": "1", extA: "2"}), Want: fw.QueueSkip},
		{Name: "queue-on-node-changes-from-unsuitable-to-suitable", Pod: mem2extA,
			Old: node(map[string]string{"memory": "1", extA: "2"}), New: node(map[string]string{"memory": "4", extA: "2"}), Want: fw.Queue},
	})
}
