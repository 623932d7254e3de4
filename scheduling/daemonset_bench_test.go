package scheduling

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/runtime"
	"github.com/schedkit/schedkit/internal/st"
)

// BenchmarkDaemonSetCycle measures the cycle of a DaemonSet's pod under
// kube's default profile on 5,000 nodes: a required node affinity of one
// "metadata.name In" term leaves one candidate. With "one node" every pod
// names the same node (scheduler_perf's SchedulingDaemonset); with "each
// its node" pod i names node i, as a DaemonSet's pods do, so no two pods
// in a row share their constraints.
func BenchmarkDaemonSetCycle(b *testing.B) {
	for _, each := range []bool{false, true} {
		name := map[bool]string{false: "pods=one node", true: "pods=each its node"}[each]
		b.Run(name, func(b *testing.B) {
			f, err := runtime.NewFramework(NewDefaultRegistry(), DefaultProfile())
			if err != nil {
				b.Fatal(err)
			}
			snap := benchCluster(b, 5000)
			pods := make([]*framework.PodInfo, snap.NumNodes())
			for i := range pods {
				node := snap.Nodes()[7].Name()
				if each {
					node = snap.Nodes()[i].Name()
				}
				pods[i] = framework.MustPodInfo(st.MakePod().Name(fmt.Sprintf("ds-%d", i)).Owner("apps/v1", "DaemonSet", "ds").
					Req(map[string]string{"cpu": "100m", "memory": "100Mi"}).
					RequiredNodeAffinity(api.NodeSelectorTerm{MatchFields: []api.NodeSelectorRequirement{
						{Key: "metadata.name", Operator: api.NodeSelectorOpIn, Values: []string{node}}}}).Obj())
			}
			rng := rand.New(rand.NewPCG(1, 2))
			res := &runtime.Result{}
			ctx := context.Background()
			opts := runtime.CycleOptions{Rand: rng, Reuse: res, TotalsOnly: true, SkipExplanation: true}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				r, err := f.Schedule(ctx, nil, snap, pods[i%len(pods)], opts)
				if err != nil {
					b.Fatal(err)
				}
				if r.NumFeasibleNodes() != 1 {
					b.Fatalf("pod %d: %d feasible nodes, want its own", i, r.NumFeasibleNodes())
				}
				i++
			}
		})
	}
}
