package filter

import (
	"context"
	"testing"

	"github.com/schedkit/schedkit/config"
	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/internal/st"
)

func ttTol(key, op, value string, effect fw.TaintEffect) fw.Toleration {
	return fw.Toleration{Key: key, Operator: fw.TolerationOperator(op), Value: value, Effect: effect}
}

// Cases of kube-scheduler v1.36 tainttoleration/taint_toleration_test.go
// (TestTaintTolerationFilter), rewritten in our types, with v1.36's generic
// reason "node(s) had untolerated taint(s)".
func TestTaintTolerationFilter(t *testing.T) {
	reject := fw.NewStatus(fw.UnschedulableAndUnresolvable, ReasonUntoleratedTaint)
	ns, pns, ne := fw.TaintEffectNoSchedule, fw.TaintEffectPreferNoSchedule, fw.TaintEffectNoExecute
	tests := []struct {
		name   string
		tols   []fw.Toleration
		taints []fw.Taint
		want   *fw.Status
	}{
		{"a pod having no tolerations can't be scheduled onto a node with nonempty taints", nil,
			[]fw.Taint{{Key: "dedicated", Value: "user1", Effect: ns}}, reject},
		{"a pod which can be scheduled on a dedicated node assigned to user1 with effect NoSchedule",
			[]fw.Toleration{ttTol("dedicated", "Equal", "user1", ns)}, []fw.Taint{{Key: "dedicated", Value: "user1", Effect: ns}}, nil},
		{"a pod which can't be scheduled on a dedicated node assigned to user2 with effect NoSchedule",
			[]fw.Toleration{ttTol("dedicated", "Equal", "user2", ns)}, []fw.Taint{{Key: "dedicated", Value: "user1", Effect: ns}}, reject},
		{"a pod can be scheduled onto the node, with a toleration uses operator Exists",
			[]fw.Toleration{ttTol("foo", "Exists", "", ns)}, []fw.Taint{{Key: "foo", Value: "bar", Effect: ns}}, nil},
		{"multiple tolerations, multiple taints, all tolerated",
			[]fw.Toleration{ttTol("dedicated", "Equal", "user2", ns), ttTol("foo", "Exists", "", ns)},
			[]fw.Taint{{Key: "dedicated", Value: "user2", Effect: ns}, {Key: "foo", Value: "bar", Effect: ns}}, nil},
		{"key and value match but the non-empty effect doesn't",
			[]fw.Toleration{ttTol("foo", "Equal", "bar", pns)}, []fw.Taint{{Key: "foo", Value: "bar", Effect: ns}}, reject},
		{"empty toleration effect matches NoSchedule",
			[]fw.Toleration{ttTol("foo", "Equal", "bar", "")}, []fw.Taint{{Key: "foo", Value: "bar", Effect: ns}}, nil},
		{"untolerated PreferNoSchedule taints do not filter",
			[]fw.Toleration{ttTol("dedicated", "Equal", "user2", ns)}, []fw.Taint{{Key: "dedicated", Value: "user1", Effect: pns}}, nil},
		{"no toleration, PreferNoSchedule taint", nil, []fw.Taint{{Key: "dedicated", Value: "user1", Effect: pns}}, nil},
		{"untolerated NoExecute taint", nil, []fw.Taint{{Key: "evict", Effect: ne}}, reject},
		{"empty operator means Equal", []fw.Toleration{ttTol("foo", "", "bar", ns)}, []fw.Taint{{Key: "foo", Value: "bar", Effect: ns}}, nil},
		{"empty key with Exists tolerates everything", []fw.Toleration{ttTol("", "Exists", "", "")},
			[]fw.Taint{{Key: "a", Effect: ns}, {Key: "b", Value: "x", Effect: ne}}, nil},
		{"Gt is feature-gated off in v1.36 and tolerates nothing", []fw.Toleration{ttTol("n", "Gt", "1", ns)}, []fw.Taint{{Key: "n", Value: "5", Effect: ns}}, reject},
		{"no taints", nil, nil, nil},
	}
	pl, _ := NewTaintToleration(nil, nil)
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
	pl, _ := NewTaintToleration(nil, nil)
	pod := fw.MustPodInfo(st.MakePod().Name("bench").Toleration(ttTol("other", "Exists", "", "")).Obj())
	nrfBenchFilter(b, pl, pod)
}

// tainttoleration/taint_toleration_test.go TestIsSchedulableAfterNodeChange
// and Test_isSchedulableAfterPodTolerationChange.
func TestTaintTolerationHints(t *testing.T) {
	pl := hintPlugin[*TaintToleration](t)(NewTaintToleration(nil, nil))
	pod := builder.MakePod().Name("pod1").Toleration(fw.Toleration{Key: "dedicated", Operator: fw.TolerationOpEqual, Value: "user2", Effect: fw.TaintEffectNoSchedule}).Obj()
	tainted := func(vals ...string) *fw.Node {
		w := builder.MakeNode().Name("nodeA")
		for _, v := range vals {
			w = w.Taint("dedicated", v, fw.TaintEffectNoSchedule)
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
			new:  hp(t, builder.MakePod().Namespace("ns-1").Name("pod-2").UID("uid1").Toleration(fw.Toleration{Key: "foo", Operator: fw.TolerationOpExists, Effect: fw.TaintEffectNoSchedule}).Obj()),
			want: fw.QueueSkip},
		{name: "queue-on-toleration-added", pod: p1,
			old:  hp(t, p1),
			new:  hp(t, builder.MakePod().Namespace("ns-1").Name("pod-1").UID("uid0").Toleration(fw.Toleration{Key: "foo", Operator: fw.TolerationOpExists, Effect: fw.TaintEffectNoSchedule}).Obj()),
			want: fw.Queue},
	})
}
