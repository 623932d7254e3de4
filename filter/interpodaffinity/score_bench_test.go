package interpodaffinity

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
)

// ipaBenchScorePod (app=svc8, tier=x) prefers the zones of svc3 and avoids
// hosts with svc7, so PreScore walks every pod; it also matches the existing
// pods' required affinity to svc8 (hardPodAffinityWeight) and the batch
// pods' preferred anti-affinity to tier=x.
func ipaBenchScorePod() *fw.PodInfo {
	return fw.MustPodInfo(st.MakePod().Name("incoming").Label("app", "svc8").Label("tier", "x").
		PodAffinityTerm(st.PodAffinityWithPreferredReq, 50, api.PodAffinityTerm{
			LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"app": "svc3"}}, TopologyKey: "topology.kubernetes.io/zone"}).
		PodAffinityTerm(st.PodAntiAffinityWithPreferredReq, 20, api.PodAffinityTerm{
			LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"app": "svc7"}}, TopologyKey: "kubernetes.io/hostname"}).
		Obj())
}

// PreScore, Score on every node and NormalizeScore: one cycle's scoring work.
func BenchmarkInterPodAffinityScore(b *testing.B) {
	for _, n := range ipaBenchSizes {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			snap := ipaBenchCluster(n, true)
			pod := ipaBenchScorePod()
			pl := ipaNewScore(b, DefaultInterPodAffinityArgs(), 1)
			ctx := context.Background()
			nodes := snap.Nodes()
			list := make(fw.NodeScoreList, n)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				state := fw.NewCycleState()
				state.SetSnapshot(snap)
				if s := pl.PreScore(ctx, state, pod, nodes); !s.IsSuccess() {
					b.Fatal(s)
				}
				for j, ni := range nodes {
					v, _ := pl.Score(ctx, state, pod, ni)
					list[j] = fw.NodeScore{Name: ni.Name(), Score: v}
				}
				_ = pl.NormalizeScore(ctx, state, pod, list)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/node")
		})
	}
}

// Score alone (the per-node hot path), against the alternative of
// precomputing every feasible node's score in PreScore into a map keyed by
// *NodeInfo and reading it once per node: the map is built from the same
// per-node computation, so it only adds work.
func BenchmarkInterPodAffinityScorePerNode(b *testing.B) {
	for _, n := range ipaBenchSizes {
		snap := ipaBenchCluster(n, true)
		pod := ipaBenchScorePod()
		pl := ipaNewScore(b, DefaultInterPodAffinityArgs(), 1)
		ctx := context.Background()
		state := fw.NewCycleState()
		state.SetSnapshot(snap)
		if s := pl.PreScore(ctx, state, pod, snap.Nodes()); !s.IsSuccess() {
			b.Fatal(s)
		}
		nodes := snap.Nodes()
		b.Run(fmt.Sprintf("labels/nodes=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			var sum int64
			for range b.N {
				for _, ni := range nodes {
					v, _ := pl.Score(ctx, state, pod, ni)
					sum += v
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/node")
		})
		b.Run(fmt.Sprintf("precomputed-map/nodes=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			var sum int64
			for range b.N {
				m := make(map[*fw.NodeInfo]int64, len(nodes))
				for _, ni := range nodes {
					v, _ := pl.Score(ctx, state, pod, ni)
					m[ni] = v
				}
				for _, ni := range nodes {
					sum += m[ni]
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/node")
		})
	}
}

func TestInterPodAffinityScoreDoesNotAllocate(t *testing.T) {
	snap := ipaBenchCluster(200, true)
	pod := ipaBenchScorePod()
	pl := ipaNewScore(t, DefaultInterPodAffinityArgs(), 1)
	ctx := context.Background()
	state := fw.NewCycleState()
	state.SetSnapshot(snap)
	if s := pl.PreScore(ctx, state, pod, snap.Nodes()); !s.IsSuccess() {
		t.Fatal(s)
	}
	allocs := testing.AllocsPerRun(20, func() {
		for _, ni := range snap.Nodes() {
			_, _ = pl.Score(ctx, state, pod, ni)
		}
	})
	if allocs != 0 {
		t.Fatalf("Score allocates %.1f times per 200 nodes, want 0", allocs)
	}
}

// BenchmarkPreScoreAfterAdd: st.BenchPreScoreAfterAdd.
func BenchmarkPreScoreAfterAdd(b *testing.B) {
	st.BenchPreScoreAfterAdd(b, "InterPodAffinity", func(t testing.TB) st.IncrScorePlugin {
		return ipaNewScore(t, DefaultInterPodAffinityArgs(), 1)
	})
}

// TestPreScoreBytesDoNotGrowWithChangingGroups: a cycle's PreScore, after
// a pod joined the existing pods' affinity group that selects the incoming
// pod (each cycle's pod joins it, as the replicas of
// scheduler_perf's SchedulingPreferredAffinityWithNSSelector do),
// allocates about as many bytes over 5,000 nodes as over 500, although
// the group holds a term on every node: it reads the changed group
// without copying its values.
func TestPreScoreBytesDoNotGrowWithChangingGroups(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's sync.Pool drops pooled buffers at random")
	}
	term := api.PodAffinityTerm{LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, TopologyKey: "kubernetes.io/hostname"}
	perCycle := func(n int) float64 {
		nodes := make([]*api.Node, n)
		pods := make([]*api.Pod, n)
		for i := range n {
			name := fmt.Sprintf("n%d", i)
			nodes[i] = st.MakeNode().Name(name).Obj()
			pods[i] = st.MakePod().Name(name+"-web").Label("app", "web").Node(name).PodAffinityTerm(st.PodAffinityWithPreferredReq, 10, term).Obj()
		}
		snap := fw.MustSnapshot(nodes, pods)
		pod := fw.MustPodInfo(st.MakePod().Name("incoming").Label("app", "web").Obj())
		pl := ipaNewScore(t, DefaultInterPodAffinityArgs(), 1)
		ctx := context.Background()
		added := 0
		cycle := func() {
			state := fw.NewCycleState()
			state.SetSnapshot(snap)
			if s := pl.PreScore(ctx, state, pod, snap.Nodes()); !s.IsSuccess() {
				t.Fatal(s)
			}
			state.Release()
			added++
			name := fmt.Sprintf("n%d", added%n)
			if err := snap.AddPod(st.MakePod().Name(fmt.Sprintf("joiner-%d", added)).Label("app", "web").Node(name).PodAffinityTerm(st.PodAffinityWithPreferredReq, 10, term).Obj()); err != nil {
				t.Fatal(err)
			}
		}
		for range 5 {
			cycle()
		}
		const cycles = 40
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		for range cycles {
			cycle()
		}
		runtime.ReadMemStats(&after)
		return float64(after.TotalAlloc-before.TotalAlloc) / cycles
	}
	small, large := perCycle(500), perCycle(5000)
	t.Logf("%.0f bytes a cycle over 500 nodes, %.0f over 5,000", small, large)
	if large > 2*small {
		t.Fatalf("PreScore and a pod joining the group: %.0f bytes a cycle over 5,000 nodes, %.0f over 500; want at most twice", large, small)
	}
}
