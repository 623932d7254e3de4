package loadaware

import (
	"context"
	"fmt"
	"testing"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
)

// laBenchCluster builds n nodes (64 CPU / 256Gi), each with a fresh
// NodeMetric reporting usage for two pods and three assigned pods (one not
// yet reported), every tenth node annotated with its own thresholds.
func laBenchCluster(b *testing.B, n int) (*LoadAwareScheduling, []*framework.NodeInfo) {
	b.Helper()
	p, err := newLoadAwareScheduling(config.LoadAwareSchedulingArgs{}, st.LAHandle(framework.NewFakeClock(laNow)))
	if err != nil {
		b.Fatal(err)
	}
	nodes := make([]*framework.NodeInfo, n)
	for i := range n {
		name := fmt.Sprintf("node-%05d", i)
		w := st.MakeNode().Name(name).Capacity(map[string]string{"cpu": "64", "memory": "256Gi", "pods": "110"})
		if i%10 == 0 {
			w = w.Annotation("scheduling.koordinator.sh/usage-thresholds", `{"usageThresholds":{"cpu":70,"memory":90}}`)
		}
		ni, err := framework.NewNodeInfo(w.Obj())
		if err != nil {
			b.Fatal(err)
		}
		nodes[i] = ni
		for j := range 3 {
			pod := st.MakePod().Name(fmt.Sprintf("%s-p%d", name, j)).Node(name).Req(laM("2", "4Gi")).
				Condition(api.PodScheduled, api.ConditionTrue, laNow.Add(-30e9)).Obj()
			if err := p.Cache().AddPod(pod); err != nil {
				b.Fatal(err)
			}
		}
		m := st.MakeNodeMetric(name).UpdateTime(laNow).Usage(laM(fmt.Sprint(10+i%40), fmt.Sprintf("%dGi", 40+i%150))).
			Pod("default", name+"-p0", "koord-prod", laM("1", "3Gi")).
			Pod("default", name+"-p1", "koord-prod", laM("2", "5Gi")).Obj()
		if err := p.Cache().UpdateNodeMetric(m); err != nil {
			b.Fatal(err)
		}
	}
	return p, nodes
}

// BenchmarkLoadAwareFilterScore runs, per op, one pod's cycle as the
// framework does: PreFilter, Filter on every node, PreScore, Score on the
// feasible ones; it reports ns/node (over all nodes).
func BenchmarkLoadAwareFilterScore(b *testing.B) {
	for _, n := range []int{1000, 5000, 15000} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			p, nodes := laBenchCluster(b, n)
			pod := framework.MustPodInfo(st.MakePod().Name("incoming").Req(laM("4", "8Gi")).Obj())
			ctx := context.Background()
			feasible := make([]*framework.NodeInfo, 0, n)
			warm := framework.NewCycleState()
			p.PreFilter(ctx, warm, pod, nodes)
			for _, ni := range nodes { // fill the per-node capacity and annotation memos
				p.Filter(ctx, warm, pod, ni)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				cs := framework.NewCycleState()
				p.PreFilter(ctx, cs, pod, nodes)
				feasible = feasible[:0]
				for _, ni := range nodes { // as the framework: filter every node, then score the feasible
					if p.Filter(ctx, cs, pod, ni).IsSuccess() {
						feasible = append(feasible, ni)
					}
				}
				p.PreScore(ctx, cs, pod, feasible)
				for _, ni := range feasible {
					if _, s := p.Score(ctx, cs, pod, ni); !s.IsSuccess() {
						b.Fatal(s)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/node")
			b.ReportMetric(float64(len(feasible)), "feasible")
		})
	}
}
