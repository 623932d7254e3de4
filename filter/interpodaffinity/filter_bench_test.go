package interpodaffinity

import (
	"context"
	"fmt"
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
)

// ipaBenchCluster has n nodes in 10 zones with two pods each: a service pod
// (every 4th with required anti-affinity to its own service per host,
// every 4th with preferred affinity to another service per zone and, for
// the score's cluster, every 4th with required affinity to svc8 per zone)
// and a batch pod (every other one with anti-affinity to "tier=x" per
// host: required for the filter's cluster, preferred for the score's).
func ipaBenchCluster(n int, score bool) *fw.Snapshot {
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
			if score {
				p.PodAffinityIn("app", "topology.kubernetes.io/zone", []string{"svc8"}, st.PodAffinityWithRequiredReq)
			}
		}
		pods = append(pods, p.Obj())
		b := st.MakePod().Name(name+"-batch").Label("app", "batch").Label("tier", "x").Node(name)
		switch {
		case i%2 == 0:
		case score:
			b.PodAffinityTerm(st.PodAntiAffinityWithPreferredReq, 5, api.PodAffinityTerm{
				LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"tier": "x"}}, TopologyKey: "kubernetes.io/hostname"})
		default:
			b.PodAntiAffinityExists("tier", "kubernetes.io/hostname", st.PodAntiAffinityWithRequiredReq)
		}
		pods = append(pods, b.Obj())
	}
	return fw.MustSnapshot(nodes, pods)
}

// ipaBenchPod spreads over hosts away from its own service and needs a zone
// with a batch pod.
func ipaBenchPod() *fw.PodInfo {
	return fw.MustPodInfo(st.MakePod().Name("incoming").Label("app", "svc7").
		PodAntiAffinityIn("app", "kubernetes.io/hostname", []string{"svc7"}, st.PodAntiAffinityWithRequiredReq).
		PodAffinityIn("app", "topology.kubernetes.io/zone", []string{"batch"}, st.PodAffinityWithRequiredReq).Obj())
}

var ipaBenchSizes = []int{1000, 5000, 15000}

// PreFilter plus Filter on every node: one cycle's filtering work.
func BenchmarkInterPodAffinityFilter(b *testing.B) {
	for _, n := range ipaBenchSizes {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			snap := ipaBenchCluster(n, false)
			pod := ipaBenchPod()
			pl := ipaNewFilter(b, 1)
			ctx := context.Background()
			nodes := snap.Nodes()
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				state := fw.NewCycleState()
				state.SetSnapshot(snap)
				state.SetAllNodes(true)
				if _, s := pl.PreFilter(ctx, state, pod, nodes); !s.IsSuccess() {
					b.Fatal(s)
				}
				for _, ni := range nodes {
					_ = pl.Filter(ctx, state, pod, ni)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/node")
		})
	}
}

// Filter alone (the per-node hot path): no allocation.
func BenchmarkInterPodAffinityFilterPerNode(b *testing.B) {
	for _, n := range ipaBenchSizes {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			snap := ipaBenchCluster(n, false)
			pod := ipaBenchPod()
			pl := ipaNewFilter(b, 1)
			ctx := context.Background()
			state := fw.NewCycleState()
			state.SetSnapshot(snap)
			state.SetAllNodes(true)
			if _, s := pl.PreFilter(ctx, state, pod, snap.Nodes()); !s.IsSuccess() {
				b.Fatal(s)
			}
			nodes := snap.Nodes()
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				for _, ni := range nodes {
					_ = pl.Filter(ctx, state, pod, ni)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/node")
		})
	}
}

func TestInterPodAffinityFilterDoesNotAllocate(t *testing.T) {
	snap := ipaBenchCluster(200, false)
	pod := ipaBenchPod()
	pl := ipaNewFilter(t, 1)
	ctx := context.Background()
	state := fw.NewCycleState()
	state.SetSnapshot(snap)
	state.SetAllNodes(true)
	if _, s := pl.PreFilter(ctx, state, pod, snap.Nodes()); !s.IsSuccess() {
		t.Fatal(s)
	}
	rejected := 0
	for _, ni := range snap.Nodes() {
		if !pl.Filter(ctx, state, pod, ni).IsSuccess() {
			rejected++
		}
	}
	// svc7 lives on n7, n107, ...: their hosts are rejected; every odd node
	// has a batch pod whose anti-affinity (tier=x per host) does not select
	// the incoming pod (no tier label).
	if rejected != 2 {
		t.Fatalf("rejected %d nodes, want 2 (n7 and n107)", rejected)
	}
	allocs := testing.AllocsPerRun(20, func() {
		for _, ni := range snap.Nodes() {
			_ = pl.Filter(ctx, state, pod, ni)
		}
	})
	if allocs != 0 {
		t.Fatalf("Filter allocates %.1f times per 200 nodes, want 0", allocs)
	}
}

// BenchmarkPreFilterAfterAdd: st.BenchPreFilterAfterAdd.
func BenchmarkPreFilterAfterAdd(b *testing.B) {
	st.BenchPreFilterAfterAdd(b, "InterPodAffinity", func(t testing.TB) st.IncrPlugin { return ipaNewFilter(t, 1) })
}
