package filter

import (
	"context"
	"fmt"
	"testing"

	"github.com/schedkit/schedkit/config"
	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/internal/st"
)

// BenchmarkPreFilterAfterAdd measures one replica's PreFilter during a
// capacity question (st.CapacityCluster: 18 pods per node; the what-if
// benchmark's templates; two replicas per node placed before timing), from
// scratch (PreFilter over the snapshot's nodes on a new CycleState, as
// every cycle does today) and carried over (PreFilterAfterAdd with the
// replica placed since). Every variant also places the replica; AddOnly
// does just that, to subtract. For the plugins' own share, read
// callgrind's inclusive counts of incrCyclePreFilter and
// incrCycleAfterAdd.
func BenchmarkPreFilterAfterAdd(b *testing.B) {
	plugins := []struct {
		name string
		new  func() (incrPlugin, error)
	}{
		{"PodTopologySpread", func() (incrPlugin, error) {
			pl, err := NewPodTopologySpread(config.DefaultPodTopologySpreadArgs(), nil)
			if err != nil {
				return nil, err
			}
			return pl.(*PodTopologySpread), nil
		}},
		{"InterPodAffinity", func() (incrPlugin, error) {
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
				for _, mode := range []string{"AddOnly", "PreFilter", "AfterAdd"} {
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
						if _, s := pl.PreFilter(context.Background(), carried, run.Tmpl, run.Snap.Nodes()); !s.IsSuccess() && !s.IsSkip() {
							b.Fatal(s)
						}
						b.ReportAllocs()
						b.ResetTimer()
						for range b.N {
							added, err := run.Add()
							if err != nil {
								b.Fatal(err)
							}
							pi := run.Incoming()
							var s *fw.Status
							switch mode {
							case "AddOnly":
								continue
							case "AfterAdd":
								s = incrCycleAfterAdd(pl, carried, pi, added)
							default:
								s = incrCyclePreFilter(pl, run.Snap, pi)
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

// incrCyclePreFilter is one cycle's PreFilter on a new CycleState (a
// function of its own, for callgrind's inclusive counts).
//
//go:noinline
func incrCyclePreFilter(pl incrPlugin, snap *fw.Snapshot, pi *fw.PodInfo) *fw.Status {
	state := fw.NewCycleState()
	state.SetSnapshot(snap)
	defer state.Release()
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
