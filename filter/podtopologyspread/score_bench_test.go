package podtopologyspread

import (
	"context"
	"fmt"
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
)

// BenchmarkPodTopologySpreadScore measures one cycle of the score half with
// every node feasible (PreScore, Score on each node sequentially,
// NormalizeScore) on a cluster with 2 pods per node spread over 3 zones;
// "perNode" measures the Score calls alone, which must not allocate.
func BenchmarkPodTopologySpreadScore(b *testing.B) {
	for _, nodes := range []int{1000, 5000, 15000} {
		ns, ps := st.PtsSpreadCluster(nodes, 3)
		snap := fw.MustSnapshot(ns, ps)
		pl := ptsNewScore(b, ptsListArgs)
		pod := fw.MustPodInfo(ptsBenchPod(api.ScheduleAnyway))
		ctx := context.Background()
		scores := make(fw.NodeScoreList, nodes)
		b.Run(fmt.Sprintf("nodes=%d/cycle", nodes), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				state := fw.NewCycleState()
				state.SetSnapshot(snap)
				if s := pl.PreScore(ctx, state, pod, snap.Nodes()); !s.IsSuccess() {
					b.Fatal(s)
				}
				for j, ni := range snap.Nodes() {
					v, _ := pl.Score(ctx, state, pod, ni)
					scores[j] = fw.NodeScore{Name: ni.Name(), Score: v}
				}
				if s := pl.NormalizeScore(ctx, state, pod, scores); !s.IsSuccess() {
					b.Fatal(s)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*nodes), "ns/node")
		})
		b.Run(fmt.Sprintf("nodes=%d/perNode", nodes), func(b *testing.B) {
			state := fw.NewCycleState()
			state.SetSnapshot(snap)
			if s := pl.PreScore(ctx, state, pod, snap.Nodes()); !s.IsSuccess() {
				b.Fatal(s)
			}
			b.ReportAllocs()
			for b.Loop() {
				for _, ni := range snap.Nodes() {
					pl.Score(ctx, state, pod, ni)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*nodes), "ns/node")
		})
	}
}

// The per-node Score path and NormalizeScore do not allocate.
func TestPodTopologySpreadScoreAllocs(t *testing.T) {
	ns, ps := st.PtsSpreadCluster(60, 3)
	snap := fw.MustSnapshot(ns, ps)
	pl := ptsNewScore(t, ptsListArgs)
	pod := fw.MustPodInfo(ptsBenchPod(api.ScheduleAnyway))
	state := fw.NewCycleState()
	state.SetSnapshot(snap)
	ctx := context.Background()
	if s := pl.PreScore(ctx, state, pod, snap.Nodes()); !s.IsSuccess() {
		t.Fatal(s)
	}
	scores := make(fw.NodeScoreList, len(ns))
	clone := snap.Nodes()[3].Clone()
	if a := testing.AllocsPerRun(20, func() {
		for j, ni := range snap.Nodes() {
			v, _ := pl.Score(ctx, state, pod, ni)
			scores[j] = fw.NodeScore{Name: ni.Name(), Score: v}
		}
		pl.Score(ctx, state, pod, clone)
		pl.NormalizeScore(ctx, state, pod, scores)
	}); a != 0 {
		t.Errorf("Score/NormalizeScore allocate %.1f times per pass", a)
	}
}
