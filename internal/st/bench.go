package st

import (
	"context"
	"fmt"
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
)

// Benchmarks of the default plugins' per-node paths: one cluster for the
// filters, one for the scores, at the sizes BenchSizes lists, and runners
// that report ns/node.

// BenchSizes returns the cluster sizes every benchmark of a default
// plugin runs at.
func BenchSizes() []int { return []int{1000, 5000, 15000} }

// FilterBenchCluster builds n nodes (16 cores, 64Gi, 110 pods, 4
// example.com/gpu, a zone label, a NoSchedule taint on every tenth node,
// host port 8080 used on every fifth) with 2 existing pods each.
func FilterBenchCluster(b *testing.B, n int) *fw.Snapshot {
	b.Helper()
	nodes := make([]*api.Node, n)
	pods := make([]*api.Pod, 0, 2*n)
	for i := range n {
		name := fmt.Sprintf("node-%05d", i)
		w := MakeNode().Name(name).Label("zone", fmt.Sprintf("z%d", i%3)).
			Capacity(map[string]string{"cpu": "16", "memory": "64Gi", "pods": "110", "example.com/gpu": "4"})
		if i%10 == 0 {
			w = w.Taint("dedicated", "infra", api.TaintEffectNoSchedule)
		}
		nodes[i] = w.Obj()
		for j := range 2 {
			p := MakePod().Name(fmt.Sprintf("p-%05d-%d", i, j)).Node(name).
				Req(map[string]string{"cpu": fmt.Sprintf("%dm", 500+100*((i+j)%20)), "memory": "1Gi"})
			if j == 0 && i%5 == 0 {
				p = p.HostPort("", api.ProtocolTCP, 8080)
			}
			pods = append(pods, p.Obj())
		}
	}
	snap, err := fw.NewSnapshot(nodes, pods)
	if err != nil {
		b.Fatal(err)
	}
	return snap
}

// BenchFilter runs pl's PreFilter once per iteration and its Filter over
// every node of FilterBenchCluster, reporting ns/node.
func BenchFilter(b *testing.B, pl fw.Plugin, pod *fw.PodInfo) {
	for _, n := range BenchSizes() {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			snap := FilterBenchCluster(b, n)
			nodes := snap.Nodes()
			ctx := context.Background()
			f := pl.(fw.FilterPlugin)
			pre, _ := pl.(fw.PreFilterPlugin)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				state := fw.NewCycleState()
				state.SetSnapshot(snap)
				if pre != nil {
					if _, s := pre.PreFilter(ctx, state, pod, nodes); s.IsSkip() {
						continue
					}
				}
				for _, ni := range nodes {
					f.Filter(ctx, state, pod, ni)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/node")
		})
	}
}

// ScoreBenchCluster builds n nodes (16 cores, 64Gi, 4 example.com/gpu, a
// zone label, a PreferNoSchedule taint and a cached 500 MiB image on every
// third node) with 2 existing pods each.
func ScoreBenchCluster(b *testing.B, n int) *fw.Snapshot {
	b.Helper()
	nodes := make([]*api.Node, n)
	pods := make([]*api.Pod, 0, 2*n)
	for i := range n {
		name := fmt.Sprintf("node-%05d", i)
		w := MakeNode().Name(name).Label("zone", fmt.Sprintf("z%d", i%3)).Label("disk", []string{"ssd", "hdd"}[i%2]).
			Capacity(map[string]string{"cpu": "16", "memory": "64Gi", "pods": "110", "example.com/gpu": "4"}).
			Image(200<<20, "registry.io/base:1")
		if i%3 == 0 {
			w = w.Taint("spot", "true", api.TaintEffectPreferNoSchedule).Image(500<<20, "registry.io/app:2")
		}
		nodes[i] = w.Obj()
		for j := range 2 {
			pods = append(pods, MakePod().Name(fmt.Sprintf("p-%05d-%d", i, j)).Node(name).
				Req(map[string]string{"cpu": fmt.Sprintf("%dm", 500+100*((i+j)%20)), "memory": fmt.Sprintf("%dMi", 512+256*((i*j)%8)), "example.com/gpu": fmt.Sprint(j)}).Obj())
		}
	}
	snap, err := fw.NewSnapshot(nodes, pods)
	if err != nil {
		b.Fatal(err)
	}
	return snap
}

// ScoreBenchPod returns the pod the score benchmarks score: 2 cpu, 4Gi,
// one example.com/gpu, the image of every third node, a toleration of
// another taint and two preferred node affinity terms.
func ScoreBenchPod() *fw.PodInfo {
	return fw.MustPodInfo(MakePod().Name("bench").Container("registry.io/app:2", map[string]string{"cpu": "2", "memory": "4Gi", "example.com/gpu": "1"}).
		Toleration(api.Toleration{Key: "other", Operator: api.TolerationOpExists}).
		PreferredNodeAffinity(10, LabelIn("disk", "ssd")).PreferredNodeAffinity(5, LabelIn("zone", "z1")).Obj())
}

// BenchScore runs pl's PreScore once per iteration and its Score over
// every node of ScoreBenchCluster, reporting ns/node.
func BenchScore(b *testing.B, pl fw.Plugin, pod *fw.PodInfo) {
	for _, n := range BenchSizes() {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			snap := ScoreBenchCluster(b, n)
			nodes := snap.Nodes()
			ctx := context.Background()
			sc := pl.(fw.ScorePlugin)
			pre, _ := pl.(fw.PreScorePlugin)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				state := fw.NewCycleState()
				state.SetSnapshot(snap)
				if pre != nil {
					if s := pre.PreScore(ctx, state, pod, nodes); s.IsSkip() {
						b.Fatal("PreScore skipped the benchmark pod")
					}
				}
				for _, ni := range nodes {
					sc.Score(ctx, state, pod, ni)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/node")
		})
	}
}
