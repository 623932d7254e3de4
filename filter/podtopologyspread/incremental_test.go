package podtopologyspread

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/fastpath"
	"github.com/schedkit/schedkit/internal/st"
)

// ptsNewDefault builds PodTopologySpread with default args and no handle.
func ptsNewDefault(t testing.TB) *PodTopologySpread {
	p, err := New(DefaultPodTopologySpreadArgs(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return p.(*PodTopologySpread)
}

// ptsZoneNodes are n1 and n2 in zone a, n3 in zone b.
func ptsZoneNodes() []*api.Node {
	return []*api.Node{
		st.MakeNode().Name("n1").Label("zone", "a").Obj(),
		st.MakeNode().Name("n2").Label("zone", "a").Obj(),
		st.MakeNode().Name("n3").Label("zone", "b").Obj(),
	}
}

// PreFilterAfterAdd on hand-checked replica runs over ptsZoneNodes: after
// each placement, the status and every node's verdict.
func TestPreFilterAfterAddReplicas(t *testing.T) {
	web := func() *st.PodWrapper { return st.MakePod().Name("web").Label("app", "web") }
	tests := []struct {
		name  string
		tmpl  *api.Pod
		steps []st.AfterAddFilterStep
	}{
		{
			name: "hard zone spread: the zone ahead is rejected until the other catches up",
			tmpl: web().SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, st.PtsMatchLabels("app", "web"), nil, nil, nil, nil)).Obj(),
			steps: []st.AfterAddFilterStep{
				{Node: "n1", Status: fw.Success, Reject: map[string]string{"n1": ErrReasonConstraintsNotMatch, "n2": ErrReasonConstraintsNotMatch}},
				{Node: "n3", Status: fw.Success, Reject: map[string]string{}},
				{Node: "n3", Status: fw.Success, Reject: map[string]string{"n3": ErrReasonConstraintsNotMatch}},
			},
		},
		{
			name:  "no hard constraint: Skip, whatever is placed",
			tmpl:  web().SpreadConstraint(st.PtsConstraint(1, "zone", api.ScheduleAnyway, st.PtsMatchLabels("app", "web"), nil, nil, nil, nil)).Obj(),
			steps: []st.AfterAddFilterStep{{Node: "n1", Status: fw.Skip}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st.RunAfterAddFilterSteps(t, ptsNewDefault(t), ptsZoneNodes(), tc.tmpl, tc.steps)
		})
	}
}

// PreScoreAfterAdd on a hand-checked replica run of a soft zone spread
// over ptsZoneNodes: after each placement, the raw and normalized scores
// of the window, raw = round(count(zone) · ln(zones in the window + 2)).
func TestPreScoreAfterAddReplicas(t *testing.T) {
	tmpl := st.MakePod().Name("web").Label("app", "web").
		SpreadConstraint(st.PtsConstraint(1, "zone", api.ScheduleAnyway, st.PtsMatchLabels("app", "web"), nil, nil, nil, nil)).Obj()
	st.RunAfterAddScoreSteps(t, ptsNewDefault(t), ptsZoneNodes(), tmpl, []st.AfterAddScoreStep{
		{Node: "n1", Window: []int{0, 1, 2}, Raw: []int64{1, 1, 0}, Norm: []int64{0, 0, 100}},
		{Node: "n2", Window: []int{0, 2}, Raw: []int64{3, 0}, Norm: []int64{0, 100}},   // 2·ln 4 = 2.77
		{Node: "n3", Window: []int{0, 1}, Raw: []int64{2, 2}, Norm: []int64{100, 100}}, // 2·ln 3 = 2.20
	})
}

// TestScoreBatchBoundsEmpty: a batch of no node reports lo > hi.
func TestScoreBatchBoundsEmpty(t *testing.T) {
	snap := fw.MustSnapshot([]*api.Node{st.MakeNode().Name("n0").Label("zone", "a").Obj()},
		[]*api.Pod{st.MakePod().Name("e").Label("app", "web").Node("n0").Obj()})
	pod := fw.MustPodInfo(st.MakePod().Name("p").Label("app", "web").
		SpreadConstraint(st.PtsConstraint(1, "zone", api.ScheduleAnyway, st.PtsMatchLabels("app", "web"), nil, nil, nil, nil)).Obj())
	st.CheckBoundsEmpty(t, ptsNewDefault(t), snap, pod)
}

// BenchmarkPreFilterAfterAdd: st.BenchPreFilterAfterAdd.
func BenchmarkPreFilterAfterAdd(b *testing.B) {
	st.BenchPreFilterAfterAdd(b, "PodTopologySpread", func(t testing.TB) st.IncrPlugin { return ptsNewDefault(t) })
}

// BenchmarkPreScoreAfterAdd: st.BenchPreScoreAfterAdd.
func BenchmarkPreScoreAfterAdd(b *testing.B) {
	st.BenchPreScoreAfterAdd(b, "PodTopologySpread", func(t testing.TB) st.IncrScorePlugin { return ptsNewDefault(t) })
}

// TestAfterAddAfterNodeTainted: a node update that taints a node and
// leaves its labels (so the zone numbering stays) changes which nodes a
// constraint honouring taints counts; PreFilterAfterAdd and
// PreScoreAfterAdd over it (after a first pod added before it) give what
// PreFilter and PreScore give afresh.
func TestAfterAddAfterNodeTainted(t *testing.T) {
	honor := api.NodeInclusionPolicyHonor
	ctx := context.Background()
	for _, when := range []api.UnsatisfiableConstraintAction{api.DoNotSchedule, api.ScheduleAnyway} {
		t.Run(string(when), func(t *testing.T) {
			pl := ptsNewDefault(t)
			snap := fw.MustSnapshot(ptsZoneNodes(), nil)
			tmpl := fw.MustPodInfo(st.MakePod().Name("web").Label("app", "web").
				SpreadConstraint(st.PtsConstraint(1, "zone", when, st.PtsMatchLabels("app", "web"), nil, nil, &honor, nil)).Obj())
			run := func(state *fw.CycleState, afterAdd []fastpath.AddedPod) (map[string]string, []int64) {
				state.SetSnapshot(snap)
				if afterAdd == nil {
					state.SetAllNodes(true)
					if _, s := pl.PreFilter(ctx, state, tmpl, snap.Nodes()); !s.IsSuccess() && !s.IsSkip() {
						t.Fatalf("PreFilter: %v", s)
					}
					state.SetAllNodes(false)
					if s := pl.PreScore(ctx, state, tmpl, snap.Nodes()); !s.IsSuccess() && !s.IsSkip() {
						t.Fatalf("PreScore: %v", s)
					}
				} else {
					if s := pl.PreFilterAfterAdd(ctx, state, tmpl, afterAdd); !s.IsSuccess() && !s.IsSkip() {
						t.Fatalf("PreFilterAfterAdd: %v", s)
					}
					if s := pl.PreScoreAfterAdd(ctx, state, tmpl, snap.Nodes(), afterAdd); !s.IsSuccess() && !s.IsSkip() {
						t.Fatalf("PreScoreAfterAdd: %v", s)
					}
				}
				rejected := map[string]string{}
				var scores []int64
				for _, ni := range snap.Nodes() {
					if s := pl.Filter(ctx, state, tmpl, ni); !s.IsSuccess() {
						rejected[ni.Name()] = s.Message()
					}
					if when == api.ScheduleAnyway {
						sc, s := pl.Score(ctx, state, tmpl, ni)
						if !s.IsSuccess() {
							t.Fatalf("Score %s: %v", ni.Name(), s)
						}
						scores = append(scores, sc)
					}
				}
				return rejected, scores
			}
			kept := fw.NewCycleState()
			run(kept, nil)
			// A pod added before the update: PreScoreAfterAdd then keeps
			// its counts by zone from cycle to cycle.
			before, err := st.AddedPods(snap, []*fw.PodInfo{st.Replica(tmpl, "web-0", "n3")})
			if err != nil {
				t.Fatal(err)
			}
			run(kept, before)
			zone := snap.TopologyValues("zone")
			tainted := *snap.Nodes()[2].Node()
			tainted.Spec.Taints = []api.Taint{{Key: "dedicated", Value: "db", Effect: api.TaintEffectNoSchedule}}
			if err := snap.UpdateNode(&tainted); err != nil {
				t.Fatal(err)
			}
			if snap.TopologyValues("zone") != zone {
				t.Fatal("a taint update numbered the zone key again")
			}
			added, err := st.AddedPods(snap, []*fw.PodInfo{st.Replica(tmpl, "web-1", "n1")})
			if err != nil {
				t.Fatal(err)
			}
			gotRej, gotScores := run(kept, added)
			wantRej, wantScores := run(fw.NewCycleState(), nil)
			if diff := cmp.Diff(wantRej, gotRej); diff != "" {
				t.Fatalf("rejections after the update and an added pod (-afresh +incremental):\n%s", diff)
			}
			if diff := cmp.Diff(wantScores, gotScores); diff != "" {
				t.Fatalf("scores after the update and an added pod (-afresh +incremental):\n%s", diff)
			}
		})
	}
}
