package trimaran

import (
	"context"
	"fmt"
	"testing"
	"time"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/fastpath"
	"github.com/schedkit/schedkit/internal/st"
)

// trimaranBenchLoads gives every node of st.ScoreBenchCluster(n) a NodeLoad
// (cpu and memory mean and deviation).
func trimaranBenchLoads(n int) NodeLoads {
	out := make(NodeLoads, n)
	for i := range n {
		name := fmt.Sprintf("node-%05d", i)
		out[name] = &api.NodeLoad{ObjectMeta: api.ObjectMeta{Name: name}, Window: api.LoadWindow{End: 1000}, Metrics: []api.LoadMetric{
			{Type: api.LoadMetricCPU, Operator: api.LoadOperatorAverage, Value: float64(i % 90)},
			{Type: api.LoadMetricCPU, Operator: api.LoadOperatorStd, Value: float64(i % 17)},
			{Type: api.LoadMetricMemory, Operator: api.LoadOperatorAverage, Value: float64(i % 70)},
			{Type: api.LoadMetricMemory, Operator: api.LoadOperatorStd, Value: float64(i % 11)},
		}}
	}
	return out
}

// BenchmarkTargetLoadPacking scores every node, with one recent binding
// on every tenth node (counted as missing load).
func BenchmarkTargetLoadPacking(b *testing.B) {
	for _, n := range st.BenchSizes() {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			pl, err := newTargetLoadPacking(clockHandle(fw.NewFakeClock(time.Unix(990, 0))), trimaranBenchLoads(n))
			if err != nil {
				b.Fatal(err)
			}
			snap := st.ScoreBenchCluster(b, n)
			for i, ni := range snap.Nodes() {
				if i%10 == 0 {
					pl.PostBind(context.Background(), nil, ni.Pods[0], ni.Name())
				}
			}
			trimaranBenchScore(b, pl, snap)
		})
	}
}

// BenchmarkLoadVariationRiskBalancing scores every node.
func BenchmarkLoadVariationRiskBalancing(b *testing.B) {
	for _, n := range st.BenchSizes() {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			pl, err := newLoadVariationRiskBalancing(nil, trimaranBenchLoads(n))
			if err != nil {
				b.Fatal(err)
			}
			trimaranBenchScore(b, pl, st.ScoreBenchCluster(b, n))
		})
	}
}

// trimaranBenchScore runs PreScore and one ScoreBatch over every node per
// iteration (as the runner does), reporting ns/node.
func trimaranBenchScore(b *testing.B, pl fw.ScorePlugin, snap *fw.Snapshot) {
	pod := fw.MustPodInfo(st.MakePod().Name("in").Req(map[string]string{"cpu": "1", "memory": "2Gi"}).Obj())
	nodes := snap.Nodes()
	ctx := context.Background()
	out := make([]int64, len(nodes))
	b.ReportAllocs()
	for b.Loop() {
		state := fw.NewCycleState()
		state.SetSnapshot(snap)
		if s := pl.(fw.PreScorePlugin).PreScore(ctx, state, pod, nodes); !s.IsSuccess() {
			b.Fatal(s)
		}
		if s := pl.(fastpath.BatchScorePlugin).ScoreBatch(ctx, state, pod, nodes, nil, out); !s.IsSuccess() {
			b.Fatal(s)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(nodes)), "ns/node")
}
