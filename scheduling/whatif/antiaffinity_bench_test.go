package whatif_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/cluster"
	"github.com/schedkit/schedkit/scheduling/whatif"
)

// BenchmarkWhatIfCapacityAntiAffinity asks how many replicas of a
// one-per-node template (2 cpu / 6Gi, required hostname anti-affinity on
// its own app, a hard zone spread) fit on the varied cluster (st.NewVaried:
// 1,000 nodes; with -whatif.large also 5,000), with kube's default profile
// and adaptive sampling: every replica placed adds a pod whose
// anti-affinity the next replicas must respect, the case where
// InterPodAffinity's PreFilter grew with the replicas placed. max=1 stops
// after one replica; the difference between the two, per replica, is the
// cost of a replica's cycle (callgrind runs each alone and subtracts, the
// cluster's setup cancelling out).
func BenchmarkWhatIfCapacityAntiAffinity(b *testing.B) {
	sizes := []int{1000}
	if *whatifLarge {
		sizes = append(sizes, 5000)
	}
	pod := builder.MakePod().Name("search-api").Namespace("prod").Label("app", "search-api").
		Req(map[string]string{"cpu": "2", "memory": "6Gi"}).
		PodAntiAffinityIn("app", st.VariedHostKey, []string{"search-api"}, builder.PodAntiAffinityWithRequiredReq).
		SpreadConstraint(api.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: st.VariedZoneKey, WhenUnsatisfiable: api.DoNotSchedule,
			LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"app": "search-api"}}}).Obj()
	ctx := context.Background()
	for _, n := range sizes {
		v := st.NewVaried(st.VariedOptions{Seed: 13, Nodes: n})
		// The generator's existing pods are not all valid API objects
		// (some repeat a spread constraint): keep those the cluster takes.
		var pods []*api.Pod
		for _, p := range v.Pods {
			if api.ValidatePod(p) == nil {
				pods = append(pods, p)
			}
		}
		c, err := cluster.NewFrom(v.Nodes, pods, framework.WithNamespaces(v.Namespaces...))
		if err != nil {
			b.Fatal(err)
		}
		w, err := whatif.New(c, scheduling.NewDefaultRegistry(), []framework.Profile{scheduling.DefaultProfile()}, scheduling.WithSeed(1))
		if err != nil {
			b.Fatal(err)
		}
		for _, max := range []int{1, 0} {
			name := fmt.Sprintf("nodes=%d/max=%d", n, max)
			if max == 0 {
				name = fmt.Sprintf("nodes=%d/all", n)
			}
			b.Run(name, func(b *testing.B) {
				replicas := 0
				for b.Loop() {
					ans, err := w.Capacity(ctx, pod, whatif.CapacityOptions{Max: max})
					if err != nil {
						b.Fatal(err)
					}
					replicas = ans.Replicas
				}
				b.ReportMetric(float64(replicas), "replicas")
				b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/float64(replicas+1), "µs/cycle")
			})
		}
	}
}
