package scoring

import (
	"context"
	"fmt"
	"testing"

	"github.com/schedkit/schedkit/config"
	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
)

// nrfBenchSizes are the cluster sizes the default plugins' score
// benchmarks run at.
var nrfBenchSizes = []int{1000, 5000, 15000}

// nrfBenchCluster builds n nodes (16 cores, 64Gi, 4 example.com/gpu, a zone
// label, a PreferNoSchedule taint and a cached 500 MiB image on every
// third node) with 2 existing pods each.
func nrfBenchCluster(b *testing.B, n int) *fw.Snapshot {
	b.Helper()
	nodes := make([]*api.Node, n)
	pods := make([]*api.Pod, 0, 2*n)
	for i := range n {
		name := fmt.Sprintf("node-%05d", i)
		w := st.MakeNode().Name(name).Label("zone", fmt.Sprintf("z%d", i%3)).Label("disk", []string{"ssd", "hdd"}[i%2]).
			Capacity(map[string]string{"cpu": "16", "memory": "64Gi", "pods": "110", "example.com/gpu": "4"}).
			Image(200<<20, "registry.io/base:1")
		if i%3 == 0 {
			w = w.Taint("spot", "true", api.TaintEffectPreferNoSchedule).Image(500<<20, "registry.io/app:2")
		}
		nodes[i] = w.Obj()
		for j := range 2 {
			pods = append(pods, st.MakePod().Name(fmt.Sprintf("p-%05d-%d", i, j)).Node(name).
				Req(map[string]string{"cpu": fmt.Sprintf("%dm", 500+100*((i+j)%20)), "memory": fmt.Sprintf("%dMi", 512+256*((i*j)%8)), "example.com/gpu": fmt.Sprint(j)}).Obj())
		}
	}
	snap, err := fw.NewSnapshot(nodes, pods)
	if err != nil {
		b.Fatal(err)
	}
	return snap
}

// nrfBenchScore runs PreScore once per iteration and Score over every
// node, reporting ns/node.
func nrfBenchScore(b *testing.B, pl fw.Plugin, pod *fw.PodInfo) {
	for _, n := range nrfBenchSizes {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			snap := nrfBenchCluster(b, n)
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

var nrfBenchPod = st.MakePod().Name("bench").Container("registry.io/app:2", map[string]string{"cpu": "2", "memory": "4Gi", "example.com/gpu": "1"}).
	Toleration(api.Toleration{Key: "other", Operator: api.TolerationOpExists}).
	PreferredNodeAffinity(10, st.LabelIn("disk", "ssd")).PreferredNodeAffinity(5, st.LabelIn("zone", "z1"))

func BenchmarkNodeResourcesFitScore(b *testing.B) {
	for _, strat := range []config.ScoringStrategyType{config.LeastAllocated, config.MostAllocated, config.RequestedToCapacityRatio} {
		b.Run(string(strat), func(b *testing.B) {
			args := config.NodeResourcesFitArgs{ScoringStrategy: nrfStrategyArgs(strat,
				[]config.ResourceSpec{{Name: "cpu", Weight: 1}, {Name: "memory", Weight: 1}, {Name: "example.com/gpu", Weight: 3}},
				[]config.UtilizationShapePoint{{Utilization: 0, Score: 0}, {Utilization: 100, Score: 10}})}
			pl, err := NewNodeResourcesFit(args, nil)
			if err != nil {
				b.Fatal(err)
			}
			nrfBenchScore(b, pl, fw.MustPodInfo(nrfBenchPod.Obj()))
		})
	}
}
