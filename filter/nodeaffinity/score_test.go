package nodeaffinity

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
)

func naNode(name string, labels map[string]string) *api.Node {
	n := st.MakeNode().Name(name).Obj()
	for k, v := range labels {
		n.Labels[k] = v
	}
	return n
}

// Cases of kube-scheduler v1.36 nodeaffinity/node_affinity_test.go
// (TestNodeAffinityPriority), rewritten in our types.
func TestNodeAffinityScore(t *testing.T) {
	fooBar := st.LabelIn("foo", "bar")
	keyValue := st.LabelIn("key", "value")
	all3 := api.NodeSelectorTerm{MatchExpressions: append(append(append([]api.NodeSelectorRequirement{}, fooBar.MatchExpressions...), keyValue.MatchExpressions...),
		api.NodeSelectorRequirement{Key: "az", Operator: api.NodeSelectorOpIn, Values: []string{"az1"}})}
	nodes := []*api.Node{
		naNode("node1", map[string]string{"foo": "bar"}),
		naNode("node2", map[string]string{"foo": "bar", "key": "value", "az": "az1"}),
		naNode("node3", map[string]string{"key": "value"}),
	}
	tests := []struct {
		name string
		pod  *api.Pod
		args NodeAffinityArgs
		raw  []int64
		want []int64
	}{
		{name: "no node matches preferred", pod: st.MakePod().PreferredNodeAffinity(2, st.LabelIn("zone", "x")).Obj(), raw: []int64{0, 0, 0}, want: []int64{0, 0, 0}},
		{name: "only node1 and node2 match", pod: st.MakePod().PreferredNodeAffinity(2, fooBar).Obj(), raw: []int64{2, 2, 0}, want: []int64{100, 100, 0}},
		// raw 2, 2+4+5 = 11, 4 → 100·2/11 = 18, 100, 100·4/11 = 36.
		{name: "all match with different priorities", pod: st.MakePod().PreferredNodeAffinity(2, fooBar).PreferredNodeAffinity(4, keyValue).PreferredNodeAffinity(5, all3).Obj(),
			raw: []int64{2, 11, 4}, want: []int64{18, 100, 36}},
		{name: "added affinity", pod: st.MakePod().Obj(),
			args: NodeAffinityArgs{AddedAffinity: &api.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []api.PreferredSchedulingTerm{{Weight: 5, Preference: keyValue}}}},
			raw:  []int64{0, 5, 5}, want: []int64{0, 100, 100}},
		// raw 3, 3+5 = 8, 5 → 37, 100, 62.
		{name: "added affinity and pod preferred", pod: st.MakePod().PreferredNodeAffinity(3, fooBar).Obj(),
			args: NodeAffinityArgs{AddedAffinity: &api.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []api.PreferredSchedulingTerm{{Weight: 5, Preference: keyValue}}}},
			raw:  []int64{3, 8, 5}, want: []int64{37, 100, 62}},
		{name: "metadata.name preference", pod: st.MakePod().PreferredNodeAffinity(7, st.NameIn("node3")).Obj(), raw: []int64{0, 0, 7}, want: []int64{0, 0, 100}},
		{name: "zero weight and empty terms are ignored", pod: st.MakePod().PreferredNodeAffinity(0, fooBar).PreferredNodeAffinity(9, api.NodeSelectorTerm{}).Obj(),
			raw: []int64{0, 0, 0}, want: []int64{0, 0, 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pl, err := New(tc.args, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, pre := range []bool{true, false} {
				if diff := cmp.Diff(tc.raw, st.RawScores(t, pl, tc.pod, nodes, nil, pre)); diff != "" {
					t.Errorf("PreScore=%v raw (-want,+got):\n%s", pre, diff)
				}
			}
			list := make(fw.NodeScoreList, len(tc.raw))
			for i, v := range tc.raw {
				list[i].Score = v
			}
			pl.(fw.ScorePlugin).ScoreExtensions().NormalizeScore(context.Background(), nil, nil, list)
			for i := range list {
				if list[i].Score != tc.want[i] {
					t.Errorf("normalized[%d] = %d, want %d", i, list[i].Score, tc.want[i])
				}
			}
		})
	}
}

func TestNodeAffinityPreScore(t *testing.T) {
	pl, _ := New(NodeAffinityArgs{}, nil)
	ps := pl.(fw.PreScorePlugin)
	cases := []struct {
		name string
		pod  *api.Pod
		want fw.Code
	}{
		{"no affinity: skip", st.MakePod().Obj(), fw.Skip},
		{"required only: skip", st.MakePod().RequiredNodeAffinity(st.LabelIn("a", "b")).Obj(), fw.Skip},
		{"preferred", st.MakePod().PreferredNodeAffinity(1, st.LabelIn("a", "b")).Obj(), fw.Success},
		{"invalid preferred term: error", st.MakePod().PreferredNodeAffinity(1, st.LabelIn("bad key!", "b")).Obj(), fw.Error},
	}
	for _, tc := range cases {
		if got := ps.PreScore(context.Background(), fw.NewCycleState(), fw.MustPodInfo(tc.pod), nil).Code(); got != tc.want {
			t.Errorf("%s: PreScore = %v, want %v", tc.name, got, tc.want)
		}
	}
	// An empty but non-nil preferred list is not skipped (kube checks nil).
	p := st.MakePod().Obj()
	p.Spec.Affinity = &api.Affinity{NodeAffinity: &api.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []api.PreferredSchedulingTerm{}}}
	if got := ps.PreScore(context.Background(), fw.NewCycleState(), fw.MustPodInfo(p), nil); !got.IsSuccess() {
		t.Errorf("empty non-nil preferred: PreScore = %v, want Success", got)
	}
	// Added preferred terms alone keep Score on.
	pl2, _ := New(NodeAffinityArgs{AddedAffinity: &api.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []api.PreferredSchedulingTerm{{Weight: 1, Preference: st.LabelIn("a", "b")}}}}, nil)
	if got := pl2.(fw.PreScorePlugin).PreScore(context.Background(), fw.NewCycleState(), fw.MustPodInfo(st.MakePod().Obj()), nil); !got.IsSuccess() {
		t.Errorf("added preferred terms: PreScore = %v, want Success", got)
	}
}

func TestNodeAffinityScoreAllocs(t *testing.T) {
	pl, _ := New(NodeAffinityArgs{}, nil)
	pod := fw.MustPodInfo(st.MakePod().PreferredNodeAffinity(2, st.LabelIn("foo", "bar")).PreferredNodeAffinity(3, st.NameIn("n")).Obj())
	state := fw.NewCycleState()
	pl.(fw.PreScorePlugin).PreScore(context.Background(), state, pod, nil)
	ni, _ := fw.NewNodeInfo(naNode("n", map[string]string{"foo": "bar"}))
	if a := testing.AllocsPerRun(100, func() { pl.(fw.ScorePlugin).Score(context.Background(), state, pod, ni) }); a != 0 {
		t.Errorf("%v allocs, want 0", a)
	}
}

func BenchmarkNodeAffinityScore(b *testing.B) {
	pl, _ := New(NodeAffinityArgs{}, nil)
	st.BenchScore(b, pl, st.ScoreBenchPod())
}
