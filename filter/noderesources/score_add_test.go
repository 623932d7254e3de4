package noderesources

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	"pgregory.net/rapid"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/fastpath"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/scoring/imagelocality"
)

// TestScoreBatchAddRefusesScoresOutOfRange: on the first node of each
// case a plugin's score lies outside [0, 100], as kube's does, and its
// ScoreBatchAdd reports false (the runner then weighs the plain rows and
// reports the score); on the second, an ordinary node, it adds the
// weighted score. Score and ScoreBatch agree on both.
//   - BalancedAllocation: memory requests summed past int64's range give
//     the node that holds them a score far below 0.
//   - NodeResourcesFit: 100 PB of memory overflows LeastRequestedScore's
//     (capacity − requested)·100: the memory score is 100 − 2⁶⁴/10¹⁷ =
//     −84 and the node's mean of cpu (75) and memory is (75 − 84)/2 = −4
//     (kube's truncating division).
func TestScoreBatchAddRefusesScoresOutOfRange(t *testing.T) {
	node := func(name, mem string) *api.Node {
		return st.MakeNode().Name(name).Capacity(map[string]string{"cpu": "4", "memory": mem, "pods": "10"}).Obj()
	}
	pod := func(name, node, mem string) *api.Pod {
		return st.MakePod().Name(name).Namespace("default").Node(node).Req(map[string]string{"cpu": "1", "memory": mem}).Obj()
	}
	cases := []struct {
		name   string
		plugin func() (fw.Plugin, error)
		nodes  []*api.Node
		pods   []*api.Pod
		pod    *api.Pod
		first  int64 // the first node's score, when the case works it out (else 0)
	}{
		{
			name: "BalancedAllocation, requests past int64",
			plugin: func() (fw.Plugin, error) {
				return NewBalancedAllocation(NodeResourcesBalancedAllocationArgs{}, nil)
			},
			nodes: []*api.Node{node("big", "1Gi"), node("small", "1Gi")},
			pods:  []*api.Pod{pod("hog", "big", "4Ei")},
			pod:   pod("p", "", "4Ei"),
		},
		{
			name:   "NodeResourcesFit, 100 PB of memory",
			plugin: func() (fw.Plugin, error) { return NewFit(DefaultNodeResourcesFitArgs(), nil) },
			nodes:  []*api.Node{node("huge", "100P"), node("small", "8Gi")},
			pod:    pod("p", "", "1Gi"),
			first:  -4,
		},
	}
	ctx := context.Background()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pl, err := c.plugin()
			if err != nil {
				t.Fatal(err)
			}
			a := pl.(fastpath.AddingBatchScorePlugin)
			snap := fw.MustSnapshot(c.nodes, c.pods)
			pi := fw.MustPodInfo(c.pod)
			for i, want := range []bool{false, true} {
				state := fw.NewCycleState()
				state.SetSnapshot(snap)
				all := snap.Nodes()
				if s := pl.(fw.PreScorePlugin).PreScore(ctx, state, pi, all); !s.IsSuccess() {
					t.Fatal(s)
				}
				nodes, idx := all[i:i+1], []int32{int32(i)}
				score := make([]int64, 1)
				if s := a.ScoreBatch(ctx, state, pi, nodes, idx, score); !s.IsSuccess() {
					t.Fatal(s)
				}
				if i == 0 && c.first != 0 && score[0] != c.first {
					t.Fatalf("node %s: score %d, want %d", nodes[0].Name(), score[0], c.first)
				}
				if v, s := a.Score(ctx, state, pi, nodes[0]); !s.IsSuccess() || v != score[0] {
					t.Fatalf("node %s: Score %d %v, ScoreBatch %d", nodes[0].Name(), v, s, score[0])
				}
				if inRange := score[0] >= fw.MinNodeScore && score[0] <= fw.MaxNodeScore; inRange != want {
					t.Fatalf("node %s: score %d, in range %v: the case does not test what it says", nodes[0].Name(), score[0], inRange)
				}
				totals := []int64{5}
				if got := a.ScoreBatchAdd(ctx, state, pi, nodes, idx, make([]int64, 1), 2, totals); got != want {
					t.Fatalf("node %s (score %d): ScoreBatchAdd reports %v, want %v", nodes[0].Name(), score[0], got, want)
				}
				if want && totals[0] != 5+2*score[0] {
					t.Fatalf("node %s: total %d, want %d", nodes[0].Name(), totals[0], 5+2*score[0])
				}
			}
		})
	}
}

// TestPropFusedAddEqualsEach: NodeResourcesFit's ScoreBatchAddWith,
// adding BalancedAllocation's and ImageLocality's scores (either, both or
// neither, in either order) in its own pass, reports true exactly when
// each plugin's own ScoreBatchAdd does, never when a ScoreBatch score
// lies outside [MinNodeScore, MaxNodeScore], and then adds every weighted
// score to every total. The nodes draw allocatables of zero, small,
// ordinary and past the float pass's bounds (up to int64's range, where
// scores overflow as kube's do), requests below, at and above them,
// requests whose sum overflows, pods without requests (kube's non-zero
// defaults), and images the pod runs, held by some nodes or none.
func TestPropFusedAddEqualsEach(t *testing.T) {
	fitPl, err := NewFit(DefaultNodeResourcesFitArgs(), nil)
	if err != nil {
		t.Fatal(err)
	}
	baPl, err := NewBalancedAllocation(NodeResourcesBalancedAllocationArgs{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ilPl, err := imagelocality.New(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	fit := fitPl.(*NodeResourcesFit)
	plugins := []fastpath.AddingBatchScorePlugin{fitPl.(fastpath.AddingBatchScorePlugin), baPl.(fastpath.AddingBatchScorePlugin), ilPl.(fastpath.AddingBatchScorePlugin)}
	for _, o := range plugins[1:] {
		if !fit.AddsWith(o) {
			t.Fatalf("NodeResourcesFit does not add %s's scores in kube's default configuration", o.Name())
		}
	}
	amount := func(t *rapid.T, label string, unit int64) int64 {
		switch rapid.IntRange(0, 4).Draw(t, label+" kind") {
		case 0:
			// 1e17 and above overflow (a − u)·100 into a negative score, as
			// kube does.
			return rapid.SampledFrom([]int64{0, 1, 3, nrfLeastRowsMax - 1, nrfLeastRowsMax, nrfLeastRowsMax + 1, math.MaxInt64 / 200, 1e17, 3e17, math.MaxInt64 / 4}).Draw(t, label)
		case 1:
			// Two of MaxInt64/2 overflow a sum of requests.
			return rapid.SampledFrom([]int64{0, 1, math.MaxInt64 / 2}).Draw(t, label)
		case 2:
			return rapid.Int64Range(0, 1000).Draw(t, label)
		default:
			return unit * rapid.Int64Range(1, 64).Draw(t, label)
		}
	}
	ctx := context.Background()
	var addedCases, declined, fused3 int
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 6).Draw(t, "nodes")
		var nodes []*api.Node
		var pods []*api.Pod
		req := func(label string) map[string]string {
			m := map[string]string{}
			if rapid.Bool().Draw(t, label+" cpu?") {
				m["cpu"] = fmt.Sprintf("%dm", amount(t, label+" cpu", 500))
			}
			if rapid.Bool().Draw(t, label+" memory?") {
				m["memory"] = fmt.Sprint(amount(t, label+" memory", 1<<30))
			}
			return m
		}
		// A resource whose requests on the first node overflow int64 when
		// the incoming pod's are added (kube sums them as they are).
		overflow := rapid.SampledFrom([]string{"", "", "cpu", "memory"}).Draw(t, "overflowing")
		huge := map[string]string{"cpu": fmt.Sprintf("%dm", int64(math.MaxInt64/2)), "memory": fmt.Sprint(int64(math.MaxInt64 / 2))}
		if overflow != "" {
			pods = append(pods, st.MakePod().Name("hog").Namespace("default").Node("n0").Req(map[string]string{overflow: huge[overflow]}).Obj())
		}
		images := []string{"app:1", "sidecar:1"}
		for i := range n {
			name := fmt.Sprintf("n%d", i)
			nw := st.MakeNode().Name(name).Capacity(map[string]string{
				"cpu": fmt.Sprintf("%dm", amount(t, "allocCPU", 4000)), "memory": fmt.Sprint(amount(t, "allocMem", 8<<30)), "pods": "110"})
			for _, im := range images {
				if rapid.IntRange(0, 2).Draw(t, "holds "+im) == 0 {
					nw = nw.Image(rapid.Int64Range(1, 2000).Draw(t, "image MiB")<<20, im)
				}
			}
			nodes = append(nodes, nw.Obj())
			for j := range rapid.IntRange(0, 2).Draw(t, "pods on node") {
				pods = append(pods, st.MakePod().Name(fmt.Sprintf("%s-p%d", name, j)).Namespace("default").Node(name).Req(req("existing")).Obj())
			}
		}
		snap, err := fw.NewSnapshot(nodes, pods)
		if err != nil {
			t.Skip(err) // requests summed past int64's range
		}
		incoming := req("incoming")
		if overflow != "" {
			incoming[overflow] = huge[overflow]
		}
		pw := st.MakePod().Name("p").Namespace("default")
		for k := range rapid.IntRange(0, 2).Draw(t, "containers") {
			c := map[string]string{}
			if k == 0 {
				c = incoming
			}
			pw = pw.Container(images[k], c)
		}
		if rapid.IntRange(0, 2).Draw(t, "requests without image") == 0 {
			pw = pw.Req(incoming)
		}
		pod := fw.MustPodInfo(pw.Obj())
		newState := func() *fw.CycleState {
			state := fw.NewCycleState()
			state.SetSnapshot(snap)
			for _, pl := range plugins {
				if ps, ok := pl.(fw.PreScorePlugin); ok {
					if s := ps.PreScore(ctx, state, pod, snap.Nodes()); !s.IsSuccess() && !s.IsSkip() {
						t.Fatal(s)
					}
				}
			}
			return state
		}
		state := newState()
		// The nodes in a drawn order: idx[i] is nodes[i]'s snapshot index.
		idx := rapid.Permutation(func() []int32 {
			ix := make([]int32, n)
			for i := range ix {
				ix[i] = int32(i)
			}
			return ix
		}()).Draw(t, "order")
		all := make([]*fw.NodeInfo, n)
		for i, k := range idx {
			all[i] = snap.Nodes()[k]
		}
		others := rapid.SliceOfDistinct(rapid.IntRange(1, 2), func(j int) int { return j }).Draw(t, "others")
		members := append([]int{0}, others...)
		ws := make([]int64, len(members))
		for j := range ws {
			ws[j] = rapid.SampledFrom([]int64{1, 1, 1, 2, 7}).Draw(t, "weight")
		}
		scores := make([][]int64, len(members))
		inRange := true
		for j, m := range members {
			scores[j] = make([]int64, n)
			if s := plugins[m].ScoreBatch(ctx, state, pod, all, idx, scores[j]); !s.IsSuccess() {
				t.Fatal(s)
			}
			for _, v := range scores[j] {
				inRange = inRange && v >= fw.MinNodeScore && v <= fw.MaxNodeScore
			}
		}
		totals := make([]int64, n)
		for i := range totals {
			totals[i] = rapid.Int64Range(-1000, 1000).Draw(t, "total")
		}
		out := make([]int64, n)
		scratch := make([]int64, n)
		apart := true
		for j, m := range members {
			apart = apart && plugins[m].ScoreBatchAdd(ctx, newState(), pod, all, idx, out, ws[j], scratch)
		}
		var otherPls []fastpath.AddingBatchScorePlugin
		for _, m := range others {
			otherPls = append(otherPls, plugins[m])
		}
		got := slices.Clone(totals)
		added := fit.ScoreBatchAddWith(ctx, newState(), pod, all, idx, out, ws[0], otherPls, ws[1:], got)
		if added && !inRange {
			t.Fatalf("ScoreBatchAddWith adds; scores %v", scores)
		}
		if added != apart {
			t.Fatalf("ScoreBatchAddWith reports %v, each plugin's ScoreBatchAdd %v; scores %v", added, apart, scores)
		}
		if !added {
			declined++
			return
		}
		addedCases++
		if len(others) == 2 {
			fused3++
		}
		for i := range n {
			want := totals[i]
			for j := range members {
				want += ws[j] * scores[j][i]
			}
			if got[i] != want {
				t.Fatalf("node %s: total %d, want %d (weights %v, scores %v)", all[i].Name(), got[i], want, ws, scores)
			}
		}
	})
	t.Logf("added %d (%d with both others), declined %d", addedCases, fused3, declined)
	if addedCases == 0 || declined == 0 || fused3 == 0 {
		t.Fatalf("added %d cases (%d with both others), declined %d: the property compared too little", addedCases, fused3, declined)
	}
}
