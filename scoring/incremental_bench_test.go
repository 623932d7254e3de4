package scoring

import (
	"context"
	"fmt"
	"testing"

	"github.com/schedkit/schedkit/config"
	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/internal/st"
)

// BenchmarkPreScoreAfterAdd measures one replica's PreScore and ScoreBatch
// over a 500-node window during a capacity question (st.CapacityCluster:
// 18 pods per node; the what-if benchmark's templates; two replicas per
// node placed before timing), from scratch (PreScore on a new CycleState,
// as every cycle does today) and carried over (PreScoreAfterAdd with the
// replica placed since). Every variant also places the replica and draws
// the window (StopTimer's memory statistics would cost more than the work
// measured); AddOnly does just that, to subtract. For the plugins' own
// share, read callgrind's inclusive counts of incrCyclePreScore and
// incrCycleAfterAdd.
func BenchmarkPreScoreAfterAdd(b *testing.B) {
	ctx := context.Background()
	plugins := []struct {
		name string
		new  func() (incrScorePlugin, error)
	}{
		{"PodTopologySpread", func() (incrScorePlugin, error) {
			pl, err := NewPodTopologySpread(config.DefaultPodTopologySpreadArgs(), nil)
			if err != nil {
				return nil, err
			}
			return pl.(*PodTopologySpread), nil
		}},
		{"InterPodAffinity", func() (incrScorePlugin, error) {
			pl, err := NewInterPodAffinity(config.DefaultInterPodAffinityArgs(), nil)
			if err != nil {
				return nil, err
			}
			return pl.(*InterPodAffinity), nil
		}},
	}
	for _, n := range []int{1000, 5000} {
		var nodes []*fw.Node
		var pods []*fw.Pod
		var ns []fw.Namespace
		for _, tmpl := range []struct {
			name string
			pod  *fw.Pod
		}{{"spread", st.CapacitySpreadTemplate()}, {"one-per-node", st.CapacityOnePerNodeTemplate()}} {
			for _, p := range plugins {
				for _, mode := range []string{"AddOnly", "PreScore", "AfterAdd"} {
					incremental := mode == "AfterAdd"
					b.Run(fmt.Sprintf("%dnodes/%s/%s/%s", n, tmpl.name, p.name, mode), func(b *testing.B) {
						if nodes == nil { // generated once per size, for the sub-benchmarks run
							nodes, pods, ns = st.CapacityCluster(n, 1)
						}
						pl, err := p.new()
						if err != nil {
							b.Fatal(err)
						}
						run, err := st.NewCapacityRun(nodes, pods, ns, tmpl.pod)
						if err != nil {
							b.Fatal(err)
						}
						for range 2 * n { // in the midst of the question: two replicas per node placed
							if _, err := run.Add(); err != nil {
								b.Fatal(err)
							}
						}
						carried := fw.NewCycleState()
						carried.SetSnapshot(run.Snap)
						window, idx := run.Window(500, 822)
						if s := pl.PreScore(ctx, carried, run.Tmpl, window); !s.IsSuccess() && !s.IsSkip() {
							b.Fatal(s)
						}
						out := make([]int64, 500)
						b.ReportAllocs()
						b.ResetTimer()
						for range b.N {
							added, err := run.Add()
							if err != nil {
								b.Fatal(err)
							}
							pi := run.Incoming()
							window, idx = run.Window(500, 822)
							if mode == "AddOnly" {
								continue
							}
							var s *fw.Status
							if incremental {
								s = incrCycleAfterAdd(pl, carried, pi, window, idx, added, out)
							} else {
								s = incrCyclePreScore(pl, run.Snap, pi, window, idx, out)
							}
							if !s.IsSuccess() && !s.IsSkip() {
								b.Fatal(s)
							}
						}
					})
				}
			}
		}
	}
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
