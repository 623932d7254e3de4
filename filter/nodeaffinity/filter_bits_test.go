package nodeaffinity

import (
	"context"
	"fmt"
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"pgregory.net/rapid"
)

// TestPropFilterRejectsFromRepeatedConstraints: pods whose hard node
// constraints are written alike (two such constraints, in turn),
// scheduled one after the other on one snapshot, get from FilterRejects
// over the snapshot's indices the verdicts Filter gives each node. From
// the second pod of a constraint on, a constraint of more than one
// expression is read from the snapshot's bitmap of matched nodes
// (Snapshot.RepeatedNodesMatching); the other constraint's terms, as
// preferred ones, score in ScoreBatch what Score gives.
func TestPropFilterRejectsFromRepeatedConstraints(t *testing.T) {
	plug, err := New(NodeAffinityArgs{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	pl := plug.(*NodeAffinity)
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 70).Draw(t, "nodes")
		nodes := make([]*api.Node, n)
		for i := range nodes {
			labels := map[string]string{}
			for _, key := range []string{"zone", "disk"} {
				if rapid.IntRange(0, 3).Draw(t, "has"+key) > 0 {
					labels[key] = rapid.SampledFrom([]string{"a", "b", "c"}).Draw(t, key)
				}
			}
			nodes[i] = &api.Node{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("n%d", i), Labels: labels}}
		}
		snap := fw.MustSnapshot(nodes, nil)
		drawTerms := func() []api.NodeSelectorTerm {
			var terms []api.NodeSelectorTerm
			for range rapid.IntRange(1, 2).Draw(t, "terms") {
				var tm api.NodeSelectorTerm
				for range rapid.IntRange(1, 2).Draw(t, "exprs") {
					r := api.NodeSelectorRequirement{Key: rapid.SampledFrom([]string{"zone", "disk"}).Draw(t, "key"),
						Operator: rapid.SampledFrom([]api.NodeSelectorOperator{api.NodeSelectorOpIn, api.NodeSelectorOpNotIn, api.NodeSelectorOpExists}).Draw(t, "op"),
						Values:   []string{rapid.SampledFrom([]string{"a", "b"}).Draw(t, "value")}}
					if r.Operator == api.NodeSelectorOpExists {
						r.Values = nil
					}
					tm.MatchExpressions = append(tm.MatchExpressions, r)
				}
				terms = append(terms, tm)
			}
			return terms
		}
		// Two constraints, met in turn: each is read from its own bitmap.
		both := [2][]api.NodeSelectorTerm{drawTerms(), drawTerms()}
		terms := both[0]
		idx := make([]int32, n)
		for i := range idx {
			idx[i] = int32(i)
		}
		usedBits := false
		for round := range 6 {
			// A pod object of its own each round, constraints written alike.
			var preferred []api.PreferredSchedulingTerm
			for i, tm := range both[(round+1)%2] {
				preferred = append(preferred, api.PreferredSchedulingTerm{Weight: int32(10 + i), Preference: tm})
			}
			pod := &api.Pod{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("p%d", round)}, Spec: api.PodSpec{Affinity: &api.Affinity{NodeAffinity: &api.NodeAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution:  &api.NodeSelector{NodeSelectorTerms: append([]api.NodeSelectorTerm(nil), both[round%2]...)},
				PreferredDuringSchedulingIgnoredDuringExecution: preferred}}}}
			pi := fw.MustPodInfo(pod)
			state := fw.NewCycleState()
			state.SetSnapshot(snap)
			if _, s := pl.PreFilter(context.Background(), state, pi, snap.Nodes()); !s.IsSuccess() {
				t.Fatalf("PreFilter: %v", s)
			}
			d, _ := state.Read(naPreFilterKey)
			usedBits = usedBits || d.(*naPreFilterState).bits != nil
			rejected := pl.FilterRejects(context.Background(), state, pi, snap.Nodes(), idx, nil)
			got := map[int32]bool{}
			for _, r := range rejected {
				got[r.Node] = true
			}
			for i, ni := range snap.Nodes() {
				want := !pl.Filter(context.Background(), state, pi, ni).IsSuccess()
				if got[int32(i)] != want {
					t.Fatalf("round %d, node %s %v: rejected %v, Filter rejects %v", round, ni.Name(), ni.Node().Labels, got[int32(i)], want)
				}
			}
			// The other constraint's terms as preferred ones: scored from
			// their own bitmaps once met before.
			if s := pl.PreScore(context.Background(), state, pi, snap.Nodes()); !s.IsSuccess() {
				t.Fatalf("PreScore: %v", s)
			}
			scores := make([]int64, n)
			if s := pl.ScoreBatch(context.Background(), state, pi, snap.Nodes(), idx, scores); !s.IsSuccess() {
				t.Fatalf("ScoreBatch: %v", s)
			}
			for i, ni := range snap.Nodes() {
				want, s := pl.Score(context.Background(), state, pi, ni)
				if !s.IsSuccess() || scores[i] != want {
					t.Fatalf("round %d, node %s %v: ScoreBatch %d, Score %d (%v)", round, ni.Name(), ni.Node().Labels, scores[i], want, s)
				}
			}
		}
		req := podRequired(&api.Pod{Spec: api.PodSpec{Affinity: &api.Affinity{NodeAffinity: &api.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &api.NodeSelector{NodeSelectorTerms: terms}}}}})
		m := req.Indexed(snap)
		if _, _, single := m.Single(); !single && !m.MatchesEvery() && !usedBits {
			t.Fatal("a constraint of several expressions, not met by every node, met three times was never read from the bitmap")
		}
	})
}
