package podtopologyspread

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/fastpath"
	"github.com/schedkit/schedkit/internal/st"
)

// PreScoreAfterAdd updates the state it replaces in place: a clone of the
// cycle state taken before keeps its own scores and ignored nodes, and
// the carried state still gives what PreScore gives afresh. Zone-only
// constraint, so that every score is read from the state (hostname counts
// are the snapshot's live ones); n4 has no zone and is ignored.
func TestPodTopologySpreadPreScoreAfterAddLeavesClones(t *testing.T) {
	nodes := []*api.Node{
		st.MakeNode().Name("n1").Label("zone", "a").Obj(),
		st.MakeNode().Name("n2").Label("zone", "a").Obj(),
		st.MakeNode().Name("n3").Label("zone", "b").Obj(),
		st.MakeNode().Name("n4").Obj(),
	}
	tmpl := st.MakePod().Name("web").Label("app", "web").
		SpreadConstraint(st.PtsConstraint(1, "zone", api.ScheduleAnyway, st.PtsMatchLabels("app", "web"), nil, nil, nil, nil)).Obj()
	p, err := New(DefaultPodTopologySpreadArgs(), nil)
	if err != nil {
		t.Fatal(err)
	}
	pl := p.(*PodTopologySpread)
	ctx := context.Background()
	snap := fw.MustSnapshot(nodes, nil)
	pi := fw.MustPodInfo(tmpl)
	all := snap.Nodes()
	// scores are ScoreBatch's raw and normalized scores of window and the
	// ignored nodes.
	scores := func(state *fw.CycleState, window []*fw.NodeInfo) string {
		t.Helper()
		idx := make([]int32, len(window))
		for i, ni := range window {
			idx[i] = int32(ni.Index())
		}
		raw := make([]int64, len(window))
		if s := pl.ScoreBatch(ctx, state, pi, window, idx, raw); s != nil {
			t.Fatal(s)
		}
		norm := append([]int64(nil), raw...)
		if s := pl.NormalizeScoreBatch(ctx, state, pi, window, norm); s != nil {
			t.Fatal(s)
		}
		s, err := ptsReadPreScoreState(state)
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(raw, norm, s.IgnoredNodes, s.DomainValues, s.Counts)
	}
	add := func(i int, node string) []fastpath.AddedPod {
		t.Helper()
		added, err := st.AddedPods(snap, []*fw.PodInfo{st.Replica(pi, fmt.Sprintf("web-%d", i), node)})
		if err != nil {
			t.Fatal(err)
		}
		return added
	}
	state := fw.NewCycleState()
	state.SetSnapshot(snap)
	if s := pl.PreScore(ctx, state, pi, all); s != nil {
		t.Fatal(s)
	}
	if s := pl.PreScoreAfterAdd(ctx, state, pi, all, add(0, "n1")); s != nil {
		t.Fatal(s)
	}
	clone := state.Clone()
	before := scores(clone, all)
	// Hand-checked: zone a holds 1 pod, b none, 2 domains: round(1·ln 4) = 1.
	if want := "[1 1 0 0] [0 0 100 0] map[n4:true] [[a b]] [[1 0]]"; before != want {
		t.Fatalf("clone before: %s, want %s", before, want)
	}
	for i, window := range [][]*fw.NodeInfo{{all[2]}, {all[2], all[1], all[3]}} {
		if s := pl.PreScoreAfterAdd(ctx, state, pi, window, add(i+1, "n3")); s != nil {
			t.Fatal(s)
		}
		if after := scores(clone, all); after != before {
			t.Fatalf("round %d: the clone changed: %s, was %s", i, after, before)
		}
		fresh := fw.NewCycleState()
		fresh.SetSnapshot(snap)
		if s := pl.PreScore(ctx, fresh, pi, window); s != nil {
			t.Fatal(s)
		}
		if diff := cmp.Diff(scores(fresh, window), scores(state, window)); diff != "" {
			t.Fatalf("round %d: carried state (-PreScore +PreScoreAfterAdd):\n%s", i, diff)
		}
	}
}
