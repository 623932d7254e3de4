package tainttoleration

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"pgregory.net/rapid"
)

// ttScoreAndNormalize runs PreScore, Score and NormalizeScore over nodes.
func ttScoreAndNormalize(t st.Fataler, pl fw.Plugin, pod *api.Pod, nodes []*api.Node) []int64 {
	t.Helper()
	raw := st.RawScores(t, pl, pod, nodes, nil, true)
	list := make(fw.NodeScoreList, len(raw))
	for i, v := range raw {
		list[i] = fw.NodeScore{Name: nodes[i].Name, Score: v}
	}
	if s := pl.(fw.ScorePlugin).ScoreExtensions().NormalizeScore(context.Background(), nil, nil, list); !s.IsSuccess() {
		t.Fatalf("NormalizeScore: %v", s)
	}
	out := make([]int64, len(list))
	for i := range list {
		out[i] = list[i].Score
	}
	return out
}

func ttNode(name string, taints ...api.Taint) *api.Node {
	n := st.MakeNode().Name(name).Obj()
	n.Spec.Taints = taints
	return n
}

// Cases of kube-scheduler v1.36 tainttoleration/taint_toleration_test.go
// (TestTaintTolerationScore), rewritten in our types.
func TestTaintTolerationScore(t *testing.T) {
	pns, ns := api.TaintEffectPreferNoSchedule, api.TaintEffectNoSchedule
	tol := func(k, v string, e api.TaintEffect) api.Toleration {
		return api.Toleration{Key: k, Operator: api.TolerationOpEqual, Value: v, Effect: e}
	}
	tests := []struct {
		name  string
		tols  []api.Toleration
		nodes []*api.Node
		want  []int64
	}{
		{"nodes with tolerated taints score higher than nodes with intolerable ones",
			[]api.Toleration{tol("foo", "bar", pns)},
			[]*api.Node{ttNode("A", api.Taint{Key: "foo", Value: "bar", Effect: pns}), ttNode("B", api.Taint{Key: "foo", Value: "blah", Effect: pns})},
			[]int64{100, 0}},
		{"all taints tolerated: same score however many",
			[]api.Toleration{tol("cpu-type", "arm64", pns), tol("disk-type", "ssd", pns)},
			[]*api.Node{ttNode("A"), ttNode("B", api.Taint{Key: "cpu-type", Value: "arm64", Effect: pns}),
				ttNode("C", api.Taint{Key: "cpu-type", Value: "arm64", Effect: pns}, api.Taint{Key: "disk-type", Value: "ssd", Effect: pns})},
			[]int64{100, 100, 100}},
		// raw 0, 1, 2 → 100 − 100·s/2 = 100, 50, 0.
		{"the more intolerable taints, the lower the score",
			[]api.Toleration{tol("foo", "bar", pns)},
			[]*api.Node{ttNode("A"), ttNode("B", api.Taint{Key: "cpu-type", Value: "arm64", Effect: pns}),
				ttNode("C", api.Taint{Key: "cpu-type", Value: "arm64", Effect: pns}, api.Taint{Key: "disk-type", Value: "ssd", Effect: pns})},
			[]int64{100, 50, 0}},
		{"only PreferNoSchedule taints and tolerations count",
			[]api.Toleration{tol("cpu-type", "arm64", ns), tol("disk-type", "ssd", ns)},
			[]*api.Node{ttNode("A"), ttNode("B", api.Taint{Key: "cpu-type", Value: "arm64", Effect: ns}),
				ttNode("C", api.Taint{Key: "cpu-type", Value: "arm64", Effect: pns}, api.Taint{Key: "disk-type", Value: "ssd", Effect: pns})},
			[]int64{100, 100, 0}},
		{"no taints and tolerations lands on node with no taints", nil,
			[]*api.Node{ttNode("A"), ttNode("B", api.Taint{Key: "cpu-type", Value: "arm64", Effect: pns})}, []int64{100, 0}},
		{"empty toleration effect tolerates PreferNoSchedule", []api.Toleration{tol("foo", "bar", "")},
			[]*api.Node{ttNode("A", api.Taint{Key: "foo", Value: "bar", Effect: pns})}, []int64{100}},
		// raw 1, 3 → 100 − 100·1/3 = 67, 0.
		{"integer normalization", nil,
			[]*api.Node{ttNode("A", api.Taint{Key: "a", Effect: pns}), ttNode("B", api.Taint{Key: "a", Effect: pns}, api.Taint{Key: "b", Effect: pns}, api.Taint{Key: "c", Effect: pns})},
			[]int64{67, 0}},
		{"empty node list", nil, nil, []int64{}},
	}
	pl, _ := New(nil, nil)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := st.MakePod().Name("p")
			for _, tl := range tc.tols {
				w = w.Toleration(tl)
			}
			if diff := cmp.Diff(tc.want, ttScoreAndNormalize(t, pl, w.Obj(), tc.nodes)); diff != "" {
				t.Errorf("(-want,+got):\n%s", diff)
			}
		})
	}
}

func TestTaintTolerationScoreWithoutPreScore(t *testing.T) {
	pl, _ := New(nil, nil)
	ni, _ := fw.NewNodeInfo(ttNode("A"))
	_, s := pl.(fw.ScorePlugin).Score(context.Background(), fw.NewCycleState(), fw.MustPodInfo(st.MakePod().Obj()), ni)
	if s.Code() != fw.Error {
		t.Errorf("Score without PreScore = %v, want Error", s)
	}
}

func TestTaintTolerationScoreAllocs(t *testing.T) {
	pl, _ := New(nil, nil)
	pod := fw.MustPodInfo(st.MakePod().Toleration(api.Toleration{Key: "a", Operator: api.TolerationOpExists}).Obj())
	state := fw.NewCycleState()
	pl.(fw.PreScorePlugin).PreScore(context.Background(), state, pod, nil)
	ni, _ := fw.NewNodeInfo(ttNode("A", api.Taint{Key: "a", Effect: api.TaintEffectPreferNoSchedule}, api.Taint{Key: "b", Effect: api.TaintEffectPreferNoSchedule}))
	if a := testing.AllocsPerRun(100, func() { pl.(fw.ScorePlugin).Score(context.Background(), state, pod, ni) }); a != 0 {
		t.Errorf("%v allocs, want 0", a)
	}
}

// TestPropTaintTolerationNormalized: normalized scores lie in [0, 100] and
// equal 100 − ⌊100·c/max⌋ for c intolerable taints (max the largest count):
// nodes without such taints get 100, the most tainted get 0, and when no
// node has any, all get 100.
func TestPropTaintTolerationNormalized(t *testing.T) {
	pl, _ := New(nil, nil)
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(1, 8).Draw(rt, "nodes")
		nodes := make([]*api.Node, n)
		counts := make([]int64, n)
		var maxC int64
		for i := range n {
			var taints []api.Taint
			counts[i] = int64(rapid.IntRange(0, 4).Draw(rt, "taints"))
			maxC = max(maxC, counts[i])
			for j := range counts[i] {
				taints = append(taints, api.Taint{Key: string(rune('a' + j)), Effect: api.TaintEffectPreferNoSchedule})
			}
			nodes[i] = ttNode(string(rune('A'+i)), taints...)
		}
		got := ttScoreAndNormalize(rt, pl, st.MakePod().Name("p").Obj(), nodes)
		for i, s := range got {
			want := int64(100)
			if maxC > 0 {
				want = 100 - 100*counts[i]/maxC
			}
			if s != want || s < 0 || s > 100 {
				rt.Fatalf("node %d with %d of max %d taints: %d, want %d", i, counts[i], maxC, s, want)
			}
		}
	})
}

func BenchmarkTaintTolerationScore(b *testing.B) {
	pl, _ := New(nil, nil)
	st.BenchScore(b, pl, st.ScoreBenchPod())
}
