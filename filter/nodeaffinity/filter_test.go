package nodeaffinity

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/internal/st"
)

func naReq(key string, op api.NodeSelectorOperator, vals ...string) api.NodeSelectorRequirement {
	return api.NodeSelectorRequirement{Key: key, Operator: op, Values: vals}
}

func naTerm(exprs ...api.NodeSelectorRequirement) api.NodeSelectorTerm {
	return api.NodeSelectorTerm{MatchExpressions: exprs}
}

// Cases of kube-scheduler v1.36 nodeaffinity/node_affinity_test.go
// (TestNodeAffinity), rewritten in our types.
func TestNodeAffinityFilter(t *testing.T) {
	rejectPod := fw.NewStatus(fw.UnschedulableAndUnresolvable, ReasonPod)
	rejectEnforced := fw.NewStatus(fw.UnschedulableAndUnresolvable, ReasonEnforced)
	conflict := fw.NewStatus(fw.UnschedulableAndUnresolvable, ReasonConflict)
	in, notIn, exists, dne, gt, lt := api.NodeSelectorOpIn, api.NodeSelectorOpNotIn, api.NodeSelectorOpExists, api.NodeSelectorOpDoesNotExist, api.NodeSelectorOpGt, api.NodeSelectorOpLt
	tests := []struct {
		name          string
		pod           *api.Pod
		labels        map[string]string
		nodeName      string
		args          NodeAffinityArgs
		wantPreFilter *fw.Status
		wantResult    []string
		want          *fw.Status
		skip          bool
	}{
		{name: "no selector", pod: st.MakePod().Obj(), skip: true},
		{name: "missing labels", pod: st.MakePod().NodeSelector(map[string]string{"foo": "bar"}).Obj(), want: rejectPod},
		{name: "same labels", pod: st.MakePod().NodeSelector(map[string]string{"foo": "bar"}).Obj(), labels: map[string]string{"foo": "bar"}},
		{name: "node labels are superset", pod: st.MakePod().NodeSelector(map[string]string{"foo": "bar"}).Obj(), labels: map[string]string{"foo": "bar", "baz": "blah"}},
		{name: "node labels are subset", pod: st.MakePod().NodeSelector(map[string]string{"foo": "bar", "baz": "blah"}).Obj(), labels: map[string]string{"foo": "bar"}, want: rejectPod},
		{name: "empty non-nil nodeSelector is not skipped and matches", pod: st.MakePod().NodeSelector(map[string]string{}).Obj()},
		{name: "In matches", pod: st.MakePod().RequiredNodeAffinity(naTerm(naReq("foo", in, "bar", "value2"))).Obj(), labels: map[string]string{"foo": "bar"}},
		{name: "Gt matches", pod: st.MakePod().RequiredNodeAffinity(naTerm(naReq("kernel-version", gt, "0204"))).Obj(), labels: map[string]string{"kernel-version": "0206"}},
		{name: "NotIn matches a value outside the list", pod: st.MakePod().RequiredNodeAffinity(naTerm(naReq("mem-type", notIn, "DDR", "DDR2"))).Obj(), labels: map[string]string{"mem-type": "DDR3"}},
		{name: "Exists matches a present label", pod: st.MakePod().RequiredNodeAffinity(naTerm(naReq("GPU", exists))).Obj(), labels: map[string]string{"GPU": "NVIDIA-GRID-K1"}},
		{name: "DoesNotExist", pod: st.MakePod().RequiredNodeAffinity(naTerm(naReq("GPU", dne))).Obj(), labels: map[string]string{"GPU": "x"}, want: rejectPod},
		{name: "Lt with non-integer node label", pod: st.MakePod().RequiredNodeAffinity(naTerm(naReq("n", lt, "5"))).Obj(), labels: map[string]string{"n": "abc"}, want: rejectPod},
		{name: "empty term matches nothing", pod: st.MakePod().RequiredNodeAffinity(api.NodeSelectorTerm{}).Obj(), labels: map[string]string{"foo": "bar"}, want: rejectPod},
		{name: "no terms match nothing", pod: st.MakePod().RequiredNodeAffinity().Obj(), labels: map[string]string{"foo": "bar"}, want: rejectPod},
		{name: "expressions are ANDed", pod: st.MakePod().RequiredNodeAffinity(naTerm(naReq("foo", exists), naReq("bar", exists))).Obj(), labels: map[string]string{"foo": "1"}, want: rejectPod},
		{name: "terms are ORed", pod: st.MakePod().RequiredNodeAffinity(naTerm(naReq("foo", in, "x")), naTerm(naReq("bar", exists))).Obj(), labels: map[string]string{"bar": "1"}},
		{name: "nodeSelector AND affinity", pod: st.MakePod().NodeSelector(map[string]string{"foo": "bar"}).RequiredNodeAffinity(naTerm(naReq("baz", exists))).Obj(), labels: map[string]string{"foo": "bar"}, want: rejectPod},
		{name: "invalid term is ignored, valid term matches", pod: st.MakePod().RequiredNodeAffinity(naTerm(naReq("bad key!", exists)), naTerm(naReq("foo", exists))).Obj(), labels: map[string]string{"foo": "bar"}},
		{name: "invalid term only matches nothing", pod: st.MakePod().RequiredNodeAffinity(naTerm(naReq("foo", in))).Obj(), labels: map[string]string{"foo": "bar"}, want: rejectPod},
		{name: "metadata.name In matches", pod: st.MakePod().RequiredNodeAffinity(st.NameIn("node1")).Obj(), nodeName: "node1", wantResult: []string{"node1"}},
		{name: "metadata.name In does not match", pod: st.MakePod().RequiredNodeAffinity(st.NameIn("node1")).Obj(), nodeName: "node2", wantResult: []string{"node1"}, want: rejectPod},
		{name: "metadata.name terms united", pod: st.MakePod().RequiredNodeAffinity(st.NameIn("node1"), st.NameIn("node2")).Obj(), nodeName: "node2", wantResult: []string{"node1", "node2"}},
		{name: "metadata.name plus label term: all nodes", pod: st.MakePod().RequiredNodeAffinity(st.NameIn("node1"), st.LabelIn("foo", "bar")).Obj(), nodeName: "node2", labels: map[string]string{"foo": "bar"}},
		{name: "metadata.name conflict",
			pod:           st.MakePod().RequiredNodeAffinity(api.NodeSelectorTerm{MatchFields: []api.NodeSelectorRequirement{naReq("metadata.name", in, "node1"), naReq("metadata.name", in, "node2")}}).Obj(),
			wantPreFilter: conflict},
		{name: "metadata.name NotIn", pod: st.MakePod().RequiredNodeAffinity(api.NodeSelectorTerm{MatchFields: []api.NodeSelectorRequirement{naReq("metadata.name", notIn, "node1")}}).Obj(), nodeName: "node1", want: rejectPod},
		{name: "added affinity not matched", pod: st.MakePod().Obj(), labels: map[string]string{"zone": "foo"},
			args: NodeAffinityArgs{AddedAffinity: &api.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &api.NodeSelector{
				NodeSelectorTerms: []api.NodeSelectorTerm{naTerm(naReq("zone", in, "bar"))}}}}, want: rejectEnforced},
		{name: "added affinity matched, pod affinity not", pod: st.MakePod().NodeSelector(map[string]string{"foo": "bar"}).Obj(), labels: map[string]string{"zone": "bar"},
			args: NodeAffinityArgs{AddedAffinity: &api.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &api.NodeSelector{
				NodeSelectorTerms: []api.NodeSelectorTerm{naTerm(naReq("zone", in, "bar"))}}}}, want: rejectPod},
		{name: "added affinity matched", pod: st.MakePod().Obj(), labels: map[string]string{"zone": "bar"},
			args: NodeAffinityArgs{AddedAffinity: &api.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &api.NodeSelector{
				NodeSelectorTerms: []api.NodeSelectorTerm{naTerm(naReq("zone", in, "bar"))}}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pl, err := New(tc.args, nil)
			if err != nil {
				t.Fatal(err)
			}
			name := tc.nodeName
			if name == "" {
				name = "node"
			}
			node := st.MakeNode().Name(name).Obj()
			node.Labels = tc.labels
			ni, _ := fw.NewNodeInfo(node)
			pi := fw.MustPodInfo(tc.pod)
			state := fw.NewCycleState()
			res, s := pl.(fw.PreFilterPlugin).PreFilter(context.Background(), state, pi, nil)
			if tc.skip {
				if !s.IsSkip() {
					t.Fatalf("PreFilter = %v, want Skip", s)
				}
				return
			}
			if !s.Equal(tc.wantPreFilter) {
				t.Fatalf("PreFilter status = %v, want %v", s, tc.wantPreFilter)
			}
			// Against a snapshot the answer comes from the snapshot's
			// memo after the first pod: the same answer each time.
			snap := fw.MustSnapshot([]*api.Node{node}, nil)
			namesOf := func(r *fw.PreFilterResult) map[string]struct{} {
				if r.AllNodes() {
					return nil
				}
				return r.NodeNames
			}
			for i := range 3 {
				ms := fw.NewCycleState()
				ms.SetSnapshot(snap)
				mres, mst := pl.(fw.PreFilterPlugin).PreFilter(context.Background(), ms, fw.MustPodInfo(tc.pod), snap.Nodes())
				if !mst.Equal(s) || mres.AllNodes() != res.AllNodes() || !cmp.Equal(namesOf(mres), namesOf(res)) {
					t.Fatalf("PreFilter on a snapshot, pod %d: %v, %v; without one: %v, %v", i, mres, mst, res, s)
				}
			}
			if tc.wantPreFilter != nil {
				return
			}
			if tc.wantResult == nil {
				if !res.AllNodes() {
					t.Errorf("PreFilterResult = %v, want all nodes", res.NodeNames)
				}
			} else if diff := cmp.Diff(tc.wantResult, sortedNames(res.NodeNames)); diff != "" {
				t.Errorf("PreFilterResult (-want,+got):\n%s", diff)
			}
			for _, st := range []*fw.CycleState{state, fw.NewCycleState()} { // with and without PreFilter state
				if got := pl.(fw.FilterPlugin).Filter(context.Background(), st, pi, ni); !got.Equal(tc.want) {
					t.Errorf("Filter = %v, want %v", got, tc.want)
				}
			}
		})
	}
}

func TestNewNodeAffinityInvalidArgs(t *testing.T) {
	_, err := New(NodeAffinityArgs{AddedAffinity: &api.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &api.NodeSelector{
		NodeSelectorTerms: []api.NodeSelectorTerm{naTerm(naReq("zone", api.NodeSelectorOpIn))}}}}, nil)
	if err == nil {
		t.Error("In without values accepted in addedAffinity")
	}
}

func TestNodeAffinityFilterAllocs(t *testing.T) {
	pl, _ := New(NodeAffinityArgs{}, nil)
	pi := fw.MustPodInfo(st.MakePod().NodeSelector(map[string]string{"zone": "z1"}).RequiredNodeAffinity(st.LabelIn("disk", "ssd")).Obj())
	state := fw.NewCycleState()
	pl.(fw.PreFilterPlugin).PreFilter(context.Background(), state, pi, nil)
	ok, _ := fw.NewNodeInfo(st.MakeNode().Name("a").Label("zone", "z1").Label("disk", "ssd").Obj())
	bad, _ := fw.NewNodeInfo(st.MakeNode().Name("b").Label("zone", "z2").Obj())
	for _, ni := range []*fw.NodeInfo{ok, bad} {
		if a := testing.AllocsPerRun(100, func() { pl.(fw.FilterPlugin).Filter(context.Background(), state, pi, ni) }); a != 0 {
			t.Errorf("%s: %v allocs, want 0", ni.Name(), a)
		}
	}
}

func BenchmarkNodeAffinityFilter(b *testing.B) {
	pl, _ := New(NodeAffinityArgs{}, nil)
	st.BenchFilter(b, pl, fw.MustPodInfo(st.MakePod().Name("bench").NodeSelector(map[string]string{"zone": "z1"}).
		RequiredNodeAffinity(naTerm(naReq("zone", api.NodeSelectorOpIn, "z1", "z2"))).Obj()))
}

// nodeaffinity/node_affinity_test.go Test_isSchedulableAfterNodeChange.
func TestNodeAffinityHints(t *testing.T) {
	podWithAffinity := builder.MakePod().Name("p").RequiredNodeAffinity(api.NodeSelectorTerm{MatchExpressions: []api.NodeSelectorRequirement{
		{Key: "foo", Operator: api.NodeSelectorOpIn, Values: []string{"bar"}}}}).Obj()
	plain := st.HintPlugin[*NodeAffinity](t)(New(NodeAffinityArgs{}, nil))
	node := func() *builder.NodeWrapper {
		return builder.MakeNode().Name("n").Capacity(map[string]string{"pods": "32"})
	}
	st.RunHints(t, plain.afterNodeChange, nil, []st.HintCase{
		{Name: "backoff-wrong-new-object", Pod: podWithAffinity, New: "not-a-node", Want: fw.Queue, WantErr: true},
		{Name: "backoff-wrong-old-object", Pod: podWithAffinity, Old: "not-a-node", New: node().Obj(), Want: fw.Queue, WantErr: true},
		{Name: "skip-queue-on-add", Pod: podWithAffinity, New: node().Obj(), Want: fw.QueueSkip},
		{Name: "queue-on-add", Pod: podWithAffinity, New: node().Label("foo", "bar").Obj(), Want: fw.Queue},
		{Name: "skip-unrelated-changes", Pod: podWithAffinity, Old: node().Obj(), New: node().Capacity(nil).Obj(), Want: fw.QueueSkip},
		{Name: "skip-unrelated-changes-on-labels", Pod: podWithAffinity, Old: node().Obj(), New: node().Label("k", "v").Obj(), Want: fw.QueueSkip},
		{Name: "skip-labels-changes-on-node-from-suitable-to-unsuitable", Pod: podWithAffinity, Old: node().Label("foo", "bar").Obj(), New: node().Label("k", "v").Obj(), Want: fw.QueueSkip},
		{Name: "queue-on-labels-change-makes-pod-schedulable", Pod: podWithAffinity, Old: node().Obj(), New: node().Label("foo", "bar").Obj(), Want: fw.Queue},
		{Name: "skip-unrelated-change-that-keeps-pod-schedulable", Pod: podWithAffinity, Old: node().Label("foo", "bar").Obj(), New: node().Capacity(nil).Label("foo", "bar").Obj(), Want: fw.QueueSkip},
	})
	enforced := st.HintPlugin[*NodeAffinity](t)(New(NodeAffinityArgs{AddedAffinity: &api.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{{MatchExpressions: []api.NodeSelectorRequirement{
			{Key: "foo", Operator: api.NodeSelectorOpIn, Values: []string{"bar"}}}}}}}}, nil))
	st.RunHints(t, enforced.afterNodeChange, nil, []st.HintCase{
		{Name: "skip-queue-on-add-scheduler-enforced-node-affinity", Pod: podWithAffinity, New: node().Obj(), Want: fw.QueueSkip},
		{Name: "queue-on-add-scheduler-enforced-node-affinity", Pod: podWithAffinity, New: node().Label("foo", "bar").Obj(), Want: fw.Queue},
	})
}
