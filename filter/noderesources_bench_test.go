package filter

import (
	"context"
	"fmt"
	"testing"

	"github.com/schedkit/schedkit/config"
	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
)

// nrfBenchSizes are the cluster sizes every benchmark of this package's
// default plugins runs at.
var nrfBenchSizes = []int{1000, 5000, 15000}

// nrfBenchCluster builds n nodes (16 cores, 64Gi, 110 pods, a zone label,
// a NoSchedule taint on every tenth node, host port 8080 used on every
// fifth) with 2 existing pods each.
func nrfBenchCluster(b *testing.B, n int) *fw.Snapshot {
	b.Helper()
	nodes := make([]*api.Node, n)
	pods := make([]*api.Pod, 0, 2*n)
	for i := range n {
		name := fmt.Sprintf("node-%05d", i)
		w := st.MakeNode().Name(name).Label("zone", fmt.Sprintf("z%d", i%3)).
			Capacity(map[string]string{"cpu": "16", "memory": "64Gi", "pods": "110", "example.com/gpu": "4"})
		if i%10 == 0 {
			w = w.Taint("dedicated", "infra", api.TaintEffectNoSchedule)
		}
		nodes[i] = w.Obj()
		for j := range 2 {
			p := st.MakePod().Name(fmt.Sprintf("p-%05d-%d", i, j)).Node(name).
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

// nrfBenchFilter runs PreFilter once per iteration and Filter over every
// node, reporting ns/node.
func nrfBenchFilter(b *testing.B, pl fw.Plugin, pod *fw.PodInfo) {
	for _, n := range nrfBenchSizes {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			snap := nrfBenchCluster(b, n)
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

func BenchmarkNodeResourcesFitFilter(b *testing.B) {
	pl, err := NewNodeResourcesFit(config.NodeResourcesFitArgs{}, nil)
	if err != nil {
		b.Fatal(err)
	}
	pod := fw.MustPodInfo(st.MakePod().Name("bench").Req(map[string]string{"cpu": "2", "memory": "4Gi", "example.com/gpu": "1"}).Obj())
	nrfBenchFilter(b, pl, pod)
}
