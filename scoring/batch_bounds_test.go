package scoring

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/schedkit/schedkit/config"
	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
)

// batchCheckBounds checks ScoreBatchBounds (framework.BoundedBatchScorePlugin)
// over nodes, with snapshot indices idx (nil: none): the status and scores
// of ScoreBatch, and, when it succeeds, the least and greatest of the
// scores found by a plain pass.
func batchCheckBounds(t interface{ Fatalf(string, ...any) }, what string, pl fw.ScorePlugin, state *fw.CycleState, pod *fw.PodInfo, nodes []*fw.NodeInfo, idx []int32) {
	b, ok := pl.(fw.BoundedBatchScorePlugin)
	if !ok {
		return
	}
	ctx := context.Background()
	want := make([]int64, len(nodes))
	ws := b.ScoreBatch(ctx, state, pod, nodes, idx, want)
	got := make([]int64, len(nodes))
	lo, hi, gs := b.ScoreBatchBounds(ctx, state, pod, nodes, idx, got)
	if ws.IsSuccess() != gs.IsSuccess() {
		t.Fatalf("%s %s: ScoreBatchBounds status %v, ScoreBatch %v", pl.Name(), what, gs, ws)
	}
	if !ws.IsSuccess() {
		return
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("%s %s: ScoreBatchBounds scores %v, ScoreBatch %v", pl.Name(), what, got, want)
	}
	wlo, whi := int64(math.MaxInt64), int64(math.MinInt64)
	for _, v := range want {
		if v < wlo {
			wlo = v
		}
		if v > whi {
			whi = v
		}
	}
	if lo != wlo || hi != whi {
		t.Fatalf("%s %s: ScoreBatchBounds bounds [%d, %d] of %v, want [%d, %d]", pl.Name(), what, lo, hi, want, wlo, whi)
	}
}

// TestScoreBatchBoundsEmpty: a batch of no node reports lo > hi.
func TestScoreBatchBoundsEmpty(t *testing.T) {
	ctx := context.Background()
	snap := fw.MustSnapshot([]*api.Node{st.MakeNode().Name("n0").Label("zone", "a").Obj()},
		[]*api.Pod{st.MakePod().Name("e").Label("app", "web").Node("n0").Obj()})
	pod, err := fw.NewPodInfo(st.MakePod().Name("p").Label("app", "web").
		SpreadConstraint(api.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: api.ScheduleAnyway,
			LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}).
		PodAntiAffinityIn("app", "zone", []string{"web"}, st.PodAntiAffinityWithPreferredReq).Obj())
	if err != nil {
		t.Fatal(err)
	}
	pts, err := NewPodTopologySpread(config.DefaultPodTopologySpreadArgs(), nil)
	if err != nil {
		t.Fatal(err)
	}
	ipa, err := NewInterPodAffinity(config.DefaultInterPodAffinityArgs(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, pl := range []interface {
		fw.PreScorePlugin
		fw.BoundedBatchScorePlugin
	}{pts.(*PodTopologySpread), ipa.(*InterPodAffinity)} {
		state := fw.NewCycleState()
		state.SetSnapshot(snap)
		if s := pl.PreScore(ctx, state, pod, snap.Nodes()); !s.IsSuccess() {
			t.Fatalf("%s: PreScore: %v", pl.Name(), s)
		}
		for _, idx := range [][]int32{nil, {}} {
			lo, hi, s := pl.ScoreBatchBounds(ctx, state, pod, nil, idx, nil)
			if !s.IsSuccess() || lo <= hi {
				t.Errorf("%s idx %v: ScoreBatchBounds of no node: [%d, %d] %v, want lo > hi", pl.Name(), idx, lo, hi, s)
			}
		}
	}
}
