package scoring

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/schedkit/schedkit/config"
	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/internal/st"
)

// PreScoreAfterAdd on hand-checked replica runs of the what-if spread
// template (preferred hostname anti-affinity of weight 100, a soft zone
// spread): n1 and n2 in zone a, n3 in zone b; after each placement, the
// status and the raw and normalized scores of the window.
func TestPreScoreAfterAddReplicas(t *testing.T) {
	nodes := []*api.Node{
		st.MakeNode().Name("n1").Label("zone", "a").Obj(),
		st.MakeNode().Name("n2").Label("zone", "a").Obj(),
		st.MakeNode().Name("n3").Label("zone", "b").Obj(),
	}
	tmpl := st.MakePod().Name("web").Label("app", "web").
		PodAffinityTerm(builder.PodAntiAffinityWithPreferredReq, 100, api.PodAffinityTerm{LabelSelector: st.PtsMatchLabels("app", "web"), TopologyKey: "kubernetes.io/hostname"}).
		SpreadConstraint(st.PtsConstraint(1, "zone", api.ScheduleAnyway, st.PtsMatchLabels("app", "web"), nil, nil, nil, nil)).Obj()
	type step struct {
		node      string
		window    []int // snapshot indices
		status    fw.Code
		raw, norm []int64
	}
	tests := []struct {
		name  string
		ipa   bool
		steps []step
	}{
		{
			// Each replica on a node costs it 100 for the incoming pod's
			// term and 100 for the replica's own.
			name: "InterPodAffinity",
			ipa:  true,
			steps: []step{
				{node: "n1", window: []int{0, 1, 2}, status: fw.Success, raw: []int64{-200, 0, 0}, norm: []int64{0, 100, 100}},
				{node: "n1", window: []int{0, 2}, status: fw.Success, raw: []int64{-400, 0}, norm: []int64{0, 100}},
				{node: "n3", window: []int{1, 2}, status: fw.Success, raw: []int64{0, -200}, norm: []int64{100, 0}},
			},
		},
		{
			// raw = round(count(zone) · ln(zones in the window + 2)).
			name: "PodTopologySpread",
			steps: []step{
				{node: "n1", window: []int{0, 1, 2}, status: fw.Success, raw: []int64{1, 1, 0}, norm: []int64{0, 0, 100}},
				{node: "n2", window: []int{0, 2}, status: fw.Success, raw: []int64{3, 0}, norm: []int64{0, 100}},   // 2·ln 4 = 2.77
				{node: "n3", window: []int{0, 1}, status: fw.Success, raw: []int64{2, 2}, norm: []int64{100, 100}}, // 2·ln 3 = 2.20
			},
		},
	}
	ctx := context.Background()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var pl incrScorePlugin
			if tc.ipa {
				p, err := NewInterPodAffinity(config.DefaultInterPodAffinityArgs(), nil)
				if err != nil {
					t.Fatal(err)
				}
				pl = p.(*InterPodAffinity)
			} else {
				p, err := NewPodTopologySpread(config.DefaultPodTopologySpreadArgs(), nil)
				if err != nil {
					t.Fatal(err)
				}
				pl = p.(*PodTopologySpread)
			}
			snap := fw.MustSnapshot(nodes, nil)
			pi := fw.MustPodInfo(tmpl)
			state := fw.NewCycleState()
			state.SetSnapshot(snap)
			pl.PreScore(ctx, state, pi, snap.Nodes())
			for i, step := range tc.steps {
				added, err := st.AddedPods(snap, []*fw.PodInfo{st.Replica(pi, "web-"+string(rune('a'+i)), step.node)})
				if err != nil {
					t.Fatal(err)
				}
				window := make([]*fw.NodeInfo, len(step.window))
				idx := make([]int32, len(step.window))
				for j, k := range step.window {
					window[j], idx[j] = snap.Nodes()[k], int32(k)
				}
				incoming := st.Replica(pi, "next", "")
				s := pl.PreScoreAfterAdd(ctx, state, incoming, window, added)
				if s.Code() != step.status {
					t.Fatalf("step %d: PreScoreAfterAdd = %v, want %v", i, s, step.status)
				}
				raw := make([]int64, len(window))
				if s := pl.ScoreBatch(ctx, state, incoming, window, idx, raw); s != nil {
					t.Fatal(s)
				}
				norm := append([]int64(nil), raw...)
				if s := pl.ScoreExtensions().(fw.BatchScoreExtensions).NormalizeScoreBatch(ctx, state, incoming, window, norm); s != nil {
					t.Fatal(s)
				}
				if diff := cmp.Diff([][]int64{step.raw, step.norm}, [][]int64{raw, norm}); diff != "" {
					t.Fatalf("step %d: raw and normalized scores (-want +got):\n%s", i, diff)
				}
			}
		})
	}
}
