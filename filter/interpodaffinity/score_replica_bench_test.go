package interpodaffinity

import (
	"context"
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/fastpath"
	"github.com/schedkit/schedkit/internal/st"
)

// BenchmarkInterPodAffinityReplica measures InterPodAffinity's whole share
// of one replica's incremental cycle in the midst of a capacity question
// (st.CapacityBench, 500-node window): PreScoreAfterAdd, ScoreBatch, then
// the row's normalization as runtime.Incremental runs it (NormalizeRange
// when the row's span is smaller than the window, else
// NormalizeScoreBatch). For the plugin's own share, read callgrind's
// inclusive count of ipaReplicaCycle; AddOnly places the replica and
// draws the window alone.
func BenchmarkInterPodAffinityReplica(b *testing.B) {
	st.CapacityBench(b, []string{"InterPodAffinity"}, []string{"Cycle"}, func(b *testing.B, _ string, run *st.CapacityRun) st.CapacityStep {
		p, err := New(DefaultInterPodAffinityArgs(), nil)
		if err != nil {
			b.Fatal(err)
		}
		pl := p.(*InterPodAffinity)
		state := fw.NewCycleState()
		state.SetSnapshot(run.Snap)
		window, _ := run.Window(500, 822)
		if s := pl.PreScore(context.Background(), state, run.Tmpl, window); !s.IsSuccess() && !s.IsSkip() {
			b.Fatal(s)
		}
		row := make([]int64, 500)
		table := make([]int64, 500)
		return func(_ string, pi *fw.PodInfo, window []*fw.NodeInfo, idx []int32, added []fastpath.AddedPod) *fw.Status {
			return ipaReplicaCycle(pl, state, pi, window, idx, added, row[:len(window)], table)
		}
	})
}

// ipaReplicaCycle is one replica's PreScoreAfterAdd, ScoreBatch and
// normalization on the carried CycleState, as runtime.Incremental runs
// them (a function of its own, for callgrind's inclusive counts).
//
//go:noinline
func ipaReplicaCycle(pl *InterPodAffinity, state *fw.CycleState, pi *fw.PodInfo, window []*fw.NodeInfo, idx []int32, added []fastpath.AddedPod, row, table []int64) *fw.Status {
	ctx := context.Background()
	s := pl.PreScoreAfterAdd(ctx, state, pi, window, added)
	if !s.IsSuccess() {
		return s
	}
	if s = pl.ScoreBatch(ctx, state, pi, window, idx, row); s != nil {
		return s
	}
	lo, hi := row[0], row[0]
	for _, v := range row {
		lo, hi = min(lo, v), max(hi, v)
	}
	if span := uint64(hi) - uint64(lo); span < uint64(len(row)) {
		t := table[:span+1]
		if pl.NormalizeRange(ctx, state, pi, lo, t) {
			for j, v := range row {
				row[j] = t[v-lo]
			}
			return nil
		}
	}
	return pl.NormalizeScoreBatch(ctx, state, pi, window, row)
}
