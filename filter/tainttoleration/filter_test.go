package tainttoleration

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/schedkit/schedkit/config"
	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/framework/fastpath"
	"github.com/schedkit/schedkit/internal/st"
)

func ttTol(key, op, value string, effect api.TaintEffect) api.Toleration {
	return api.Toleration{Key: key, Operator: api.TolerationOperator(op), Value: value, Effect: effect}
}

// Cases of kube-scheduler v1.36 tainttoleration/taint_toleration_test.go
// (TestTaintTolerationFilter), rewritten in our types, with v1.36's generic
// reason "node(s) had untolerated taint(s)".
func TestTaintTolerationFilter(t *testing.T) {
	reject := fw.NewStatus(fw.UnschedulableAndUnresolvable, ReasonUntoleratedTaint)
	ns, pns, ne := api.TaintEffectNoSchedule, api.TaintEffectPreferNoSchedule, api.TaintEffectNoExecute
	tests := []struct {
		name   string
		tols   []api.Toleration
		taints []api.Taint
		want   *fw.Status
	}{
		{"a pod having no tolerations can't be scheduled onto a node with nonempty taints", nil,
			[]api.Taint{{Key: "dedicated", Value: "user1", Effect: ns}}, reject},
		{"a pod which can be scheduled on a dedicated node assigned to user1 with effect NoSchedule",
			[]api.Toleration{ttTol("dedicated", "Equal", "user1", ns)}, []api.Taint{{Key: "dedicated", Value: "user1", Effect: ns}}, nil},
		{"a pod which can't be scheduled on a dedicated node assigned to user2 with effect NoSchedule",
			[]api.Toleration{ttTol("dedicated", "Equal", "user2", ns)}, []api.Taint{{Key: "dedicated", Value: "user1", Effect: ns}}, reject},
		{"a pod can be scheduled onto the node, with a toleration uses operator Exists",
			[]api.Toleration{ttTol("foo", "Exists", "", ns)}, []api.Taint{{Key: "foo", Value: "bar", Effect: ns}}, nil},
		{"multiple tolerations, multiple taints, all tolerated",
			[]api.Toleration{ttTol("dedicated", "Equal", "user2", ns), ttTol("foo", "Exists", "", ns)},
			[]api.Taint{{Key: "dedicated", Value: "user2", Effect: ns}, {Key: "foo", Value: "bar", Effect: ns}}, nil},
		{"key and value match but the non-empty effect doesn't",
			[]api.Toleration{ttTol("foo", "Equal", "bar", pns)}, []api.Taint{{Key: "foo", Value: "bar", Effect: ns}}, reject},
		{"empty toleration effect matches NoSchedule",
			[]api.Toleration{ttTol("foo", "Equal", "bar", "")}, []api.Taint{{Key: "foo", Value: "bar", Effect: ns}}, nil},
		{"untolerated PreferNoSchedule taints do not filter",
			[]api.Toleration{ttTol("dedicated", "Equal", "user2", ns)}, []api.Taint{{Key: "dedicated", Value: "user1", Effect: pns}}, nil},
		{"no toleration, PreferNoSchedule taint", nil, []api.Taint{{Key: "dedicated", Value: "user1", Effect: pns}}, nil},
		{"untolerated NoExecute taint", nil, []api.Taint{{Key: "evict", Effect: ne}}, reject},
		{"empty operator means Equal", []api.Toleration{ttTol("foo", "", "bar", ns)}, []api.Taint{{Key: "foo", Value: "bar", Effect: ns}}, nil},
		{"empty key with Exists tolerates everything", []api.Toleration{ttTol("", "Exists", "", "")},
			[]api.Taint{{Key: "a", Effect: ns}, {Key: "b", Value: "x", Effect: ne}}, nil},
		{"Gt is feature-gated off in v1.36 and tolerates nothing", []api.Toleration{ttTol("n", "Gt", "1", ns)}, []api.Taint{{Key: "n", Value: "5", Effect: ns}}, reject},
		{"no taints", nil, nil, nil},
	}
	pl, _ := New(nil, nil)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := st.MakePod().Name("p")
			for _, tol := range tc.tols {
				w = w.Toleration(tol)
			}
			node := st.MakeNode().Name("n").Obj()
			node.Spec.Taints = tc.taints
			ni, _ := fw.NewNodeInfo(node)
			got := pl.(fw.FilterPlugin).Filter(context.Background(), fw.NewCycleState(), fw.MustPodInfo(w.Obj()), ni)
			if !got.Equal(tc.want) {
				t.Errorf("Filter = %v, want %v", got, tc.want)
			}
		})
	}
	if pl.Name() != config.TaintTolerationName {
		t.Errorf("Name = %q", pl.Name())
	}
}

func BenchmarkTaintTolerationFilter(b *testing.B) {
	pl, _ := New(nil, nil)
	pod := fw.MustPodInfo(st.MakePod().Name("bench").Toleration(ttTol("other", "Exists", "", "")).Obj())
	st.BenchFilter(b, pl, pod)
}

// tainttoleration/taint_toleration_test.go TestIsSchedulableAfterNodeChange
// and Test_isSchedulableAfterPodTolerationChange.
func TestTaintTolerationHints(t *testing.T) {
	pl := st.HintPlugin[*TaintToleration](t)(New(nil, nil))
	pod := builder.MakePod().Name("pod1").Toleration(api.Toleration{Key: "dedicated", Operator: api.TolerationOpEqual, Value: "user2", Effect: api.TaintEffectNoSchedule}).Obj()
	tainted := func(vals ...string) *api.Node {
		w := builder.MakeNode().Name("nodeA")
		for _, v := range vals {
			w = w.Taint("dedicated", v, api.TaintEffectNoSchedule)
		}
		return w.Obj()
	}
	st.RunHints(t, pl.afterNodeChange, nil, []st.HintCase{
		{Name: "backoff-wrong-new-object", Pod: pod, New: "not-a-node", Want: fw.Queue, WantErr: true},
		{Name: "backoff-wrong-old-object", Pod: pod, New: tainted("user1"), Old: "not-a-node", Want: fw.Queue, WantErr: true},
		{Name: "skip-queue-on-untoleratedtaint-node-added", Pod: pod, New: tainted("user1"), Want: fw.QueueSkip},
		{Name: "queue-on-toleratedtaint-node-added", Pod: pod, New: tainted("user2"), Want: fw.Queue},
		{Name: "skip-unrelated-change", Pod: pod, Old: tainted("user1"), New: tainted("user1", "user3"), Want: fw.QueueSkip},
		{Name: "queue-on-taint-change", Pod: pod, Old: tainted("user1"), New: tainted("user2"), Want: fw.Queue},
	})
	p1 := builder.MakePod().Namespace("ns-1").Name("pod-1").UID("uid0").Obj()
	st.RunHints(t, pl.afterPodTolerationChange, nil, []st.HintCase{
		{Name: "backoff-wrong-new-object", Pod: p1, New: "not-a-pod", Want: fw.Queue, WantErr: true},
		{Name: "backoff-wrong-old-object", Pod: p1, Old: "not-a-pod", New: st.HintPod(t, p1), Want: fw.Queue, WantErr: true},
		{Name: "skip-updates-other-pod", Pod: p1,
			Old:  st.HintPod(t, builder.MakePod().Namespace("ns-1").Name("pod-2").UID("uid1").Obj()),
			New:  st.HintPod(t, builder.MakePod().Namespace("ns-1").Name("pod-2").UID("uid1").Toleration(api.Toleration{Key: "foo", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule}).Obj()),
			Want: fw.QueueSkip},
		{Name: "queue-on-toleration-added", Pod: p1,
			Old:  st.HintPod(t, p1),
			New:  st.HintPod(t, builder.MakePod().Namespace("ns-1").Name("pod-1").UID("uid0").Toleration(api.Toleration{Key: "foo", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoSchedule}).Obj()),
			Want: fw.Queue},
	})
}

// TestTaintTolerationClassVerdictsFollowSnapshot: the verdicts by taint
// class that pods without tolerations share belong to one snapshot's
// classes. One plugin filtering over snapshots whose taints differ, in
// turn and back, rejects exactly the nodes each snapshot taints, and a
// tolerating pod between them is judged by its own tolerations.
func TestTaintTolerationClassVerdictsFollowSnapshot(t *testing.T) {
	ns := api.TaintEffectNoSchedule
	mk := func(taints ...[]api.Taint) *fw.Snapshot {
		nodes := make([]*api.Node, len(taints))
		for i, ts := range taints {
			nodes[i] = ttNode(string(rune('a'+i)), ts...)
		}
		return fw.MustSnapshot(nodes, nil)
	}
	dedicated := []api.Taint{{Key: "dedicated", Value: "x", Effect: ns}}
	gpu := []api.Taint{{Key: "gpu", Effect: ns}}
	snapA := mk(dedicated, nil, gpu)
	snapB := mk(nil, gpu, nil)
	snapC := mk(nil, nil, nil)
	plain := fw.MustPodInfo(st.MakePod().Name("plain").Obj())
	tolerant := fw.MustPodInfo(st.MakePod().Name("tolerant").Toleration(ttTol("dedicated", "Exists", "", ns)).Obj())
	pl, err := New(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	tt := pl.(fastpath.RejectingFilterPlugin)
	steps := []struct {
		snap *fw.Snapshot
		pod  *fw.PodInfo
		want []int32 // rejected nodes
	}{
		{snapA, plain, []int32{0, 2}},
		{snapB, plain, []int32{1}},
		{snapA, tolerant, []int32{2}},
		{snapA, plain, []int32{0, 2}},
		{snapC, plain, nil},
		{snapB, tolerant, []int32{1}},
		{snapB, plain, []int32{1}},
	}
	for i, s := range steps {
		state := fw.NewCycleState()
		state.SetSnapshot(s.snap)
		idx := make([]int32, len(s.snap.Nodes()))
		for k := range idx {
			idx[k] = int32(k)
		}
		var got []int32
		for _, r := range tt.FilterRejects(context.Background(), state, s.pod, s.snap.Nodes(), idx, nil) {
			got = append(got, r.Node)
			if r.Status.Code() != fw.UnschedulableAndUnresolvable {
				t.Errorf("step %d: node %d rejected with %v", i, r.Node, r.Status)
			}
		}
		if !slices.Equal(got, s.want) {
			t.Errorf("step %d (%s): rejected %v, want %v", i, s.pod.Pod.Name, got, s.want)
		}
	}
}

// TestTaintTolerationVerdictMemo: the verdicts kept for the last sets of
// tolerations are each set's own, as sets come and go past the memo's
// bound and back; tolerations that differ only in TolerationSeconds get
// the same verdicts.
func TestTaintTolerationVerdictMemo(t *testing.T) {
	const sets = 2*ttMemoEntries + 3
	nodes := make([]*api.Node, sets)
	for i := range nodes {
		nodes[i] = ttNode(fmt.Sprint("n", i), api.Taint{Key: fmt.Sprint("k", i), Effect: api.TaintEffectNoSchedule})
	}
	snap := fw.MustSnapshot(nodes, nil)
	idx := make([]int32, sets)
	for k := range idx {
		idx[k] = int32(k)
	}
	pl, err := New(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	tt := pl.(fastpath.RejectingFilterPlugin)
	pod := func(i int, seconds int64) *fw.PodInfo {
		return fw.MustPodInfo(st.MakePod().Name(fmt.Sprint("p", i)).
			Toleration(ttTol(fmt.Sprint("k", i), "Exists", "", api.TaintEffectNoSchedule)).
			Toleration(api.Toleration{Key: "node.kubernetes.io/unreachable", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute, TolerationSeconds: &seconds}).Obj())
	}
	for round := range 3 {
		for i := range sets {
			state := fw.NewCycleState()
			state.SetSnapshot(snap)
			var got []int32
			for _, r := range tt.FilterRejects(context.Background(), state, pod(i, int64(300+round)), snap.Nodes(), idx, nil) {
				got = append(got, r.Node)
			}
			var want []int32
			for k := range sets {
				if k != i {
					want = append(want, int32(k))
				}
			}
			if !slices.Equal(got, want) {
				t.Fatalf("round %d, pod %d: rejected %v, want every node but %d", round, i, got, i)
			}
		}
	}
}
