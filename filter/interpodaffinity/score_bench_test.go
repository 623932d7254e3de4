package interpodaffinity

import (
	"context"
	"fmt"
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
)

// ipaBenchScoreCluster has n nodes in 10 zones with two pods each: a service
// pod (every 4th with required anti-affinity to its own service per host,
// every 4th with preferred affinity to another service per zone, every 4th
// with required affinity to svc8 per zone) and a batch pod (every other one
// with preferred anti-affinity to "tier=x" per host).
func ipaBenchScoreCluster(n int) *fw.Snapshot {
	nodes := make([]*api.Node, n)
	pods := make([]*api.Pod, 0, 2*n)
	for i := range n {
		name := fmt.Sprintf("n%d", i)
		nodes[i] = st.MakeNode().Name(name).Label("topology.kubernetes.io/zone", fmt.Sprintf("z%d", i%10)).Obj()
		svc := fmt.Sprintf("svc%d", i%100)
		p := st.MakePod().Name(name+"-svc").Label("app", svc).Node(name)
		switch i % 4 {
		case 0:
			p.PodAntiAffinityIn("app", "kubernetes.io/hostname", []string{svc}, st.PodAntiAffinityWithRequiredReq)
		case 1:
			p.PodAffinityIn("app", "topology.kubernetes.io/zone", []string{fmt.Sprintf("svc%d", (i+1)%100)}, st.PodAffinityWithPreferredReq)
		case 2:
			p.PodAffinityIn("app", "topology.kubernetes.io/zone", []string{"svc8"}, st.PodAffinityWithRequiredReq)
		}
		pods = append(pods, p.Obj())
		b := st.MakePod().Name(name+"-batch").Label("app", "batch").Label("tier", "x").Node(name)
		if i%2 == 1 {
			b.PodAffinityTerm(st.PodAntiAffinityWithPreferredReq, 5, api.PodAffinityTerm{
				LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"tier": "x"}}, TopologyKey: "kubernetes.io/hostname"})
		}
		pods = append(pods, b.Obj())
	}
	return fw.MustSnapshot(nodes, pods)
}

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

var ipaBenchScoreSizes = []int{1000, 5000, 15000}

// PreScore, Score on every node and NormalizeScore: one cycle's scoring work.
func BenchmarkInterPodAffinityScore(b *testing.B) {
	for _, n := range ipaBenchScoreSizes {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			snap := ipaBenchScoreCluster(n)
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
	for _, n := range ipaBenchScoreSizes {
		snap := ipaBenchScoreCluster(n)
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
	snap := ipaBenchScoreCluster(200)
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
