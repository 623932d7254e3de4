package scoring

import (
	"context"
	"testing"

	"github.com/schedkit/schedkit/config"
	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/internal/st"
)

// BenchmarkPreScoreAfterAdd measures one replica's PreScore and ScoreBatch
// over a 500-node window in the midst of a capacity question
// (st.CapacityBench), from scratch (PreScore on a new CycleState, as every
// cycle does today) and carried over (PreScoreAfterAdd with the replica
// placed since). Every variant also places the replica and draws the
// window (StopTimer's memory statistics would cost more than the work
// measured); AddOnly does just that, to subtract. For the plugins' own
// share, read callgrind's inclusive counts of incrCyclePreScore and
// incrCycleAfterAdd.
func BenchmarkPreScoreAfterAdd(b *testing.B) {
	ctx := context.Background()
	st.CapacityBench(b, []string{"PodTopologySpread", "InterPodAffinity"}, []string{"PreScore", "AfterAdd"}, func(b *testing.B, plugin string, run *st.CapacityRun) st.CapacityStep {
		var pl incrScorePlugin
		if plugin == "PodTopologySpread" {
			p, err := NewPodTopologySpread(config.DefaultPodTopologySpreadArgs(), nil)
			if err != nil {
				b.Fatal(err)
			}
			pl = p.(*PodTopologySpread)
		} else {
			p, err := NewInterPodAffinity(config.DefaultInterPodAffinityArgs(), nil)
			if err != nil {
				b.Fatal(err)
			}
			pl = p.(*InterPodAffinity)
		}
		carried := fw.NewCycleState()
		carried.SetSnapshot(run.Snap)
		window, _ := run.Window(500, 822)
		if s := pl.PreScore(ctx, carried, run.Tmpl, window); !s.IsSuccess() && !s.IsSkip() {
			b.Fatal(s)
		}
		out := make([]int64, 500)
		return func(mode string, pi *fw.PodInfo, window []*fw.NodeInfo, idx []int32, added []fw.AddedPod) *fw.Status {
			if mode == "AfterAdd" {
				return incrCycleAfterAdd(pl, carried, pi, window, idx, added, out)
			}
			return incrCyclePreScore(pl, run.Snap, pi, window, idx, out)
		}
	})
}

// incrCyclePreScore is one cycle's PreScore and ScoreBatch on a new
// CycleState (a function of its own, for callgrind's inclusive counts).
//
//go:noinline
func incrCyclePreScore(pl incrScorePlugin, snap *fw.Snapshot, pi *fw.PodInfo, window []*fw.NodeInfo, idx []int32, out []int64) *fw.Status {
	ctx := context.Background()
	state := fw.NewCycleState()
	state.SetSnapshot(snap)
	defer state.Release()
	s := pl.PreScore(ctx, state, pi, window)
	if s.IsSuccess() {
		s = pl.ScoreBatch(ctx, state, pi, window, idx, out[:len(window)])
	}
	return s
}

// incrCycleAfterAdd is one cycle's PreScoreAfterAdd and ScoreBatch on the
// carried CycleState.
//
//go:noinline
func incrCycleAfterAdd(pl incrScorePlugin, state *fw.CycleState, pi *fw.PodInfo, window []*fw.NodeInfo, idx []int32, added []fw.AddedPod, out []int64) *fw.Status {
	ctx := context.Background()
	s := pl.PreScoreAfterAdd(ctx, state, pi, window, added)
	if s.IsSuccess() {
		s = pl.ScoreBatch(ctx, state, pi, window, idx, out[:len(window)])
	}
	return s
}
