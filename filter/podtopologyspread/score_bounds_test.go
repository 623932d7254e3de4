package podtopologyspread

import (
	"context"
	"fmt"
	"math"
	"slices"
	"testing"

	"pgregory.net/rapid"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
)

// ptsDrawBoundsCase draws a cluster for ScoreBatchBounds' row of
// PreScore's own nodes: 1–40 nodes over 1–6 zones (sometimes 300 nodes
// over exactly 253–258 or 300 zones, either side of the value ids a byte
// holds), some with the zone label
// present but empty, sometimes one without it; matching pods here and
// there; and one soft zone constraint of skew 1–5 (the single-constraint
// table), sometimes with a hostname constraint beside it or alone.
func ptsDrawBoundsCase(t *rapid.T) ptsScoreCase {
	var c ptsScoreCase
	zoneKey := "topology.kubernetes.io/zone"
	n, zones := rapid.IntRange(1, 40).Draw(t, "nodes"), rapid.IntRange(1, 6).Draw(t, "zones")
	many := rapid.IntRange(0, 9).Draw(t, "manyZones") == 0
	if many {
		// Exactly 253–258 zone values (each node i in zone i mod zones),
		// either side of the most a byte-indexed table holds, or 300.
		n, zones = 300, rapid.SampledFrom([]int{253, 254, 255, 256, 257, 258, 300}).Draw(t, "zones")
	}
	noZone := -1
	if rapid.IntRange(0, 4).Draw(t, "unkeyed") == 0 {
		noZone = rapid.IntRange(0, n-1).Draw(t, "noZone")
	}
	for i := range n {
		name := fmt.Sprintf("n%03d", i)
		w := st.MakeNode().Name(name)
		switch {
		case i == noZone:
		case rapid.IntRange(0, 9).Draw(t, "emptyZone") == 0:
			w.Label(zoneKey, "")
		case many:
			w.Label(zoneKey, fmt.Sprintf("z%d", i%zones))
		default:
			w.Label(zoneKey, fmt.Sprintf("z%d", rapid.IntRange(0, zones-1).Draw(t, "zone")))
		}
		c.nodes = append(c.nodes, w.Obj())
	}
	for i := range rapid.IntRange(0, 2*n).Draw(t, "pods") {
		w := st.MakePod().Name(fmt.Sprintf("e%d", i)).Node(c.nodes[rapid.IntRange(0, n-1).Draw(t, "on")].Name)
		if rapid.IntRange(0, 3).Draw(t, "match") > 0 {
			w.Label("app", "a")
		}
		c.existing = append(c.existing, w.Obj())
	}
	pw := st.MakePod().Name("incoming").Label("app", "a")
	zone := st.PtsConstraint(int32(rapid.IntRange(1, 5).Draw(t, "maxSkew")), zoneKey, api.ScheduleAnyway, st.PtsMatchLabels("app", "a"), nil, nil, nil, nil)
	host := st.PtsConstraint(2, "kubernetes.io/hostname", api.ScheduleAnyway, st.PtsMatchLabels("app", "a"), nil, nil, nil, nil)
	switch rapid.IntRange(0, 5).Draw(t, "constraints") {
	case 0:
		pw.SpreadConstraint(zone).SpreadConstraint(host)
	case 1:
		pw.SpreadConstraint(host)
	default:
		pw.SpreadConstraint(zone)
	}
	c.pod = pw.Obj()
	c.args = DefaultPodTopologySpreadArgs()
	return c
}

// ptsCheckRowBounds checks ScoreBatchBounds over rows of window, the list
// PreScore (or PreScoreAfterAdd) was given, with snapshot indices: the
// whole list (whose bounds the single-constraint table knows from the
// domains PreScore found), a copy of it, and parts of both; every row
// must hold Score's scores and report their least and greatest.
func ptsCheckRowBounds(t *rapid.T, pl *PodTopologySpread, state *fw.CycleState, pi *fw.PodInfo, window []*fw.NodeInfo) {
	ctx := context.Background()
	idx := st.SnapshotIndices(state, window)
	a := rapid.IntRange(0, len(window)).Draw(t, "partFrom")
	b := rapid.IntRange(a, len(window)).Draw(t, "partTo")
	copied := slices.Clone(window)
	for _, row := range []struct {
		what  string
		nodes []*fw.NodeInfo
		idx   []int32
	}{
		{"PreScore's list", window, idx},
		{"a copy of it", copied, idx},
		{"a part of it", window[a:b], idx[a:b]},
		{"a part of the copy", copied[a:b], idx[a:b]},
	} {
		out := make([]int64, len(row.nodes))
		for i := range out {
			out[i] = math.MaxInt64 - int64(i) // ScoreBatch sets every entry
		}
		lo, hi, s := pl.ScoreBatchBounds(ctx, state, pi, row.nodes, row.idx, out)
		if !s.IsSuccess() {
			t.Fatalf("%s: ScoreBatchBounds: %v", row.what, s)
		}
		wlo, whi := int64(math.MaxInt64), int64(math.MinInt64)
		for i, ni := range row.nodes {
			v, s := pl.Score(ctx, state, pi, ni)
			if !s.IsSuccess() {
				t.Fatalf("%s: Score(%s): %v", row.what, ni.Name(), s)
			}
			if out[i] != v {
				t.Fatalf("%s: node %s scores %d in the row, %d by Score", row.what, ni.Name(), out[i], v)
			}
			wlo, whi = min(wlo, v), max(whi, v)
		}
		if lo != wlo || hi != whi {
			t.Fatalf("%s: bounds [%d, %d] of %v, want [%d, %d]", row.what, lo, hi, out, wlo, whi)
		}
	}
}

// TestPropPodTopologySpreadRowBounds: the bounds ScoreBatchBounds reports
// for a row of PreScore's own nodes without looking at the row (a single
// zone constraint, every node keyed: the least and greatest score of the
// domains PreScore found among its nodes) are the row's, as are those of
// any other row; after PreScore and after PreScoreAfterAdd with replicas
// placed, over windows holding some zones only, with empty zone values,
// a node without the zone (every key required: nothing is known
// beforehand), skews 1–5, a hostname constraint, and more zones than a
// byte numbers.
func TestPropPodTopologySpreadRowBounds(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := ptsDrawBoundsCase(t)
		pl := ptsNewScore(t, c.args)
		snap := fw.MustSnapshot(c.nodes, c.existing, c.opts...)
		tmpl := fw.MustPodInfo(c.pod)
		ctx := context.Background()
		state := fw.NewCycleState()
		state.SetSnapshot(snap)
		window := st.IncrWindow(t, snap)
		state.SetScoredNodes(len(window))
		if s := pl.PreScore(ctx, state, tmpl, window); !s.IsSuccess() {
			t.Fatalf("PreScore: %v", s)
		}
		seq := 0
		for round := range rapid.IntRange(1, 4).Draw(t, "rounds") {
			s, err := ptsReadPreScoreState(state)
			if err != nil {
				t.Fatal(err)
			}
			// The known bounds are there exactly when they can be: one
			// zone constraint, every node keyed, a node in the window.
			single := len(s.Constraints) == 1 && !s.Constraints[0].IsHostname()
			if want := single && s.keyed[0] && len(window) > 0; s.hoisted.bounded != want {
				t.Fatalf("round %d: bounded = %v, want %v", round, s.hoisted.bounded, want)
			}
			ptsCheckRowBounds(t, pl, state, tmpl, window)
			added := st.DrawAdded(t, snap, tmpl, nil, &seq)
			seq++
			pi := st.Replica(tmpl, fmt.Sprintf("r%d", seq), "")
			window = st.IncrWindow(t, snap)
			state.SetScoredNodes(len(window))
			if s := pl.PreScoreAfterAdd(ctx, state, pi, window, added); !s.IsSuccess() {
				t.Fatalf("round %d: PreScoreAfterAdd: %v", round, s)
			}
			tmpl = pi
		}
	})
}

// A clone of a state that PreScoreAfterAdd keeps updating scores as the
// state did when cloned: the byte-indexed table is its own.
func TestPodTopologySpreadCloneKeepsTable(t *testing.T) {
	zoneKey := "topology.kubernetes.io/zone"
	var nodes []*api.Node
	for i := range 6 {
		nodes = append(nodes, st.MakeNode().Name(fmt.Sprintf("n%d", i)).Label(zoneKey, fmt.Sprintf("z%d", i%3)).Obj())
	}
	snap := fw.MustSnapshot(nodes, nil)
	pi := fw.MustPodInfo(st.MakePod().Name("p").Label("app", "a").
		SpreadConstraint(st.PtsConstraint(1, zoneKey, api.ScheduleAnyway, st.PtsMatchLabels("app", "a"), nil, nil, nil, nil)).Obj())
	pl := ptsNewScore(t, DefaultPodTopologySpreadArgs())
	ctx := context.Background()
	state := fw.NewCycleState()
	state.SetSnapshot(snap)
	window := snap.Nodes()
	if s := pl.PreScore(ctx, state, pi, window); !s.IsSuccess() {
		t.Fatal(s)
	}
	if s := pl.PreScoreAfterAdd(ctx, state, pi, window, nil); !s.IsSuccess() {
		t.Fatal(s)
	}
	idx := []int32{0, 1, 2, 3, 4, 5}
	before := make([]int64, 6)
	if s := pl.ScoreBatch(ctx, state, pi, window, idx, before); s != nil {
		t.Fatal(s)
	}
	clone := state.Clone()
	added, err := st.AddedPods(snap, []*fw.PodInfo{st.Replica(pi, "r1", "n0"), st.Replica(pi, "r2", "n3")})
	if err != nil {
		t.Fatal(err)
	}
	if s := pl.PreScoreAfterAdd(ctx, state, pi, window, added); !s.IsSuccess() {
		t.Fatal(s)
	}
	after := make([]int64, 6)
	if s := pl.ScoreBatch(ctx, state, pi, window, idx, after); s != nil {
		t.Fatal(s)
	}
	if slices.Equal(before, after) {
		t.Fatalf("two pods in zone z0 left the scores %v unchanged", after)
	}
	got := make([]int64, 6)
	if s := pl.ScoreBatch(ctx, clone, pi, window, idx, got); s != nil {
		t.Fatal(s)
	}
	if !slices.Equal(got, before) {
		t.Fatalf("the clone scores %v, %v when cloned", got, before)
	}
}
