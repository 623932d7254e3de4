package interpodaffinity

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
)

// ipaScoresOf runs PreScore, Score on every node and NormalizeScore, and
// returns whether PreScore skipped, the raw and the normalized scores.
func ipaScoresOf(t *rapid.T, pl *InterPodAffinity, snap *fw.Snapshot, pi *fw.PodInfo) (bool, []int64, []int64) {
	ctx := context.Background()
	state := fw.NewCycleState()
	state.SetSnapshot(snap)
	s := pl.PreScore(ctx, state, pi, snap.Nodes())
	if s.IsSkip() {
		return true, nil, nil
	}
	if !s.IsSuccess() {
		t.Fatalf("PreScore: %v", s)
	}
	var raw []int64
	list := make(fw.NodeScoreList, 0, snap.NumNodes())
	for _, ni := range snap.Nodes() {
		v, s := pl.Score(ctx, state, pi, ni)
		if !s.IsSuccess() {
			t.Fatalf("Score: %v", s)
		}
		raw = append(raw, v)
		list = append(list, fw.NodeScore{Name: ni.Name(), Score: v})
	}
	// A copy of a node scores as the node itself.
	if len(snap.Nodes()) > 0 {
		v, _ := pl.Score(ctx, state, pi, snap.Nodes()[0].Clone())
		raw = append(raw, v)
	}
	if s := pl.NormalizeScore(ctx, state, pi, list); !s.IsSuccess() {
		t.Fatalf("NormalizeScore: %v", s)
	}
	norm := make([]int64, len(list))
	for j := range list {
		norm[j] = list[j].Score
	}
	return false, raw, norm
}

// TestPropInterPodAffinityScoreFastMatchesReference: the pod index path
// (PodCounts for the incoming pod's terms, AffinityGroups for the existing
// pods' terms) and the walk over every existing pod agree on Skip, raw and
// normalized scores, in successive cycles between which pods are bound and
// removed (the index is reused and must follow).
func TestPropInterPodAffinityScoreFastMatchesReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := ipaGenScoreCluster(t)
		p, err := New(c.args, nil)
		if err != nil {
			t.Fatal(err)
		}
		fast := p.(*InterPodAffinity)
		ref := *fast
		ref.reference = true
		snap := fw.MustSnapshot(c.nodes, c.pods, fw.WithNamespaces(ipaGenNS...))
		pi := fw.MustPodInfo(c.pod)
		for round := range 3 {
			fs, fraw, fnorm := ipaScoresOf(t, fast, snap, pi)
			rs, rraw, rnorm := ipaScoresOf(t, &ref, snap, pi)
			if fs != rs {
				t.Fatalf("round %d: skip fast=%v reference=%v", round, fs, rs)
			}
			if diff := cmp.Diff(rraw, fraw); diff != "" {
				t.Fatalf("round %d: raw (-ref +fast):\n%s", round, diff)
			}
			if diff := cmp.Diff(rnorm, fnorm); diff != "" {
				t.Fatalf("round %d: normalized (-ref +fast):\n%s", round, diff)
			}
			if len(c.nodes) == 0 {
				return
			}
			node := c.nodes[rapid.IntRange(0, len(c.nodes)-1).Draw(t, "bindOn")].Name
			if err := snap.AddPod(ipaGenScorePod(t, fmt.Sprintf("bound%d", round), node)); err != nil {
				t.Fatal(err)
			}
			if len(c.pods) > 0 && rapid.Bool().Draw(t, "remove") {
				k := rapid.IntRange(0, len(c.pods)-1).Draw(t, "victim")
				if err := snap.RemovePod(c.pods[k]); err != nil {
					t.Fatal(err)
				}
				c.pods = append(c.pods[:k], c.pods[k+1:]...)
			}
		}
	})
}

// TestScoreBatchBoundsEmpty: InterPodAffinity's batch of no node reports
// lo > hi.
func TestScoreBatchBoundsEmpty(t *testing.T) {
	snap := fw.MustSnapshot([]*api.Node{st.MakeNode().Name("n0").Label("zone", "a").Obj()},
		[]*api.Pod{st.MakePod().Name("e").Label("app", "web").Node("n0").Obj()})
	pod := fw.MustPodInfo(st.MakePod().Name("p").Label("app", "web").
		PodAntiAffinityIn("app", "zone", []string{"web"}, st.PodAntiAffinityWithPreferredReq).Obj())
	st.CheckBoundsEmpty(t, ipaNewScore(t, DefaultInterPodAffinityArgs(), 1), snap, pod)
}
