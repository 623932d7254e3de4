package filter

import (
	"context"
	"testing"

	"github.com/schedkit/schedkit/config"
	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/internal/st"
)

// BenchmarkPreFilterAfterAdd measures one replica's PreFilter in the midst
// of a capacity question (st.CapacityBench), from scratch (PreFilter over
// the snapshot's nodes on a new CycleState, as every cycle does today) and
// carried over (PreFilterAfterAdd with the replica placed since). Every
// variant also places the replica and draws a window; AddOnly does just
// that, to subtract. For the plugins' own share, read callgrind's
// inclusive counts of incrCyclePreFilter and incrCycleAfterAdd.
func BenchmarkPreFilterAfterAdd(b *testing.B) {
	st.CapacityBench(b, []string{"PodTopologySpread", "InterPodAffinity"}, []string{"PreFilter", "AfterAdd"}, func(b *testing.B, plugin string, run *st.CapacityRun) st.CapacityStep {
		var pl incrPlugin
		if plugin == "PodTopologySpread" {
			p, err := NewPodTopologySpread(config.DefaultPodTopologySpreadArgs(), nil)
			if err != nil {
				b.Fatal(err)
			}
			pl = p.(*PodTopologySpread)
		} else {
			pl = ipaNewFilter(b, 1)
		}
		carried := fw.NewCycleState()
		carried.SetSnapshot(run.Snap)
		carried.SetAllNodes(true)
		if _, s := pl.PreFilter(context.Background(), carried, run.Tmpl, run.Snap.Nodes()); !s.IsSuccess() && !s.IsSkip() {
			b.Fatal(s)
		}
		return func(mode string, pi *fw.PodInfo, _ []*fw.NodeInfo, _ []int32, added []fw.AddedPod) *fw.Status {
			if mode == "AfterAdd" {
				return incrCycleAfterAdd(pl, carried, pi, added)
			}
			return incrCyclePreFilter(pl, run.Snap, pi)
		}
	})
}

// incrCyclePreFilter is one cycle's PreFilter on a new CycleState (a
// function of its own, for callgrind's inclusive counts).
//
//go:noinline
func incrCyclePreFilter(pl incrPlugin, snap *fw.Snapshot, pi *fw.PodInfo) *fw.Status {
	state := fw.NewCycleState()
	state.SetSnapshot(snap)
	defer state.Release()
	state.SetAllNodes(true)
	_, s := pl.PreFilter(context.Background(), state, pi, snap.Nodes())
	return s
}

// incrCycleAfterAdd is one cycle's PreFilterAfterAdd on the carried
// CycleState.
//
//go:noinline
func incrCycleAfterAdd(pl incrPlugin, state *fw.CycleState, pi *fw.PodInfo, added []fw.AddedPod) *fw.Status {
	return pl.PreFilterAfterAdd(context.Background(), state, pi, added)
}
