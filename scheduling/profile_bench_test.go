package scheduling

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/internal/st"
)

const (
	benchZoneKey = "topology.kubernetes.io/zone"
	benchHostKey = "kubernetes.io/hostname"
)

// benchCluster builds nodes in 10 zones with two pods each: a mix of plain
// pods, pods with preferred anti-affinity and pods with spread constraints.
func benchCluster(b *testing.B, nodes int) *framework.Snapshot {
	b.Helper()
	apps := []string{"web", "db", "cache", "batch"}
	ns := make([]*framework.Node, nodes)
	pods := make([]*framework.Pod, 0, 2*nodes)
	for i := range ns {
		name := fmt.Sprintf("node-%05d", i)
		ns[i] = st.MakeNode().Name(name).Label(benchZoneKey, fmt.Sprintf("zone-%d", i%10)).
			Capacity(map[string]string{"cpu": "16", "memory": "64Gi", "pods": "110"}).Obj()
		for j := range 2 {
			app := apps[(i+j)%len(apps)]
			w := st.MakePod().Name(fmt.Sprintf("p-%d-%d", i, j)).Label("app", app).Node(name).
				Req(map[string]string{"cpu": "500m", "memory": "1Gi"})
			switch (i + j) % 3 {
			case 1:
				w = w.Affinity(&framework.Affinity{PodAntiAffinity: &framework.PodAntiAffinity{
					PreferredDuringSchedulingIgnoredDuringExecution: []framework.WeightedPodAffinityTerm{{
						Weight: 10, PodAffinityTerm: framework.PodAffinityTerm{
							LabelSelector: &framework.LabelSelector{MatchLabels: map[string]string{"app": app}}, TopologyKey: benchHostKey},
					}}}})
			case 2:
				w = w.SpreadConstraint(framework.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: benchZoneKey,
					WhenUnsatisfiable: framework.ScheduleAnyway, LabelSelector: &framework.LabelSelector{MatchLabels: map[string]string{"app": app}}})
			}
			pods = append(pods, w.Obj())
		}
	}
	snap, err := framework.NewSnapshot(ns, pods)
	if err != nil {
		b.Fatal(err)
	}
	return snap
}

// benchIncoming is a web pod with a zone spread constraint, a hard hostname
// spread constraint and preferred anti-affinity to other web pods.
func benchIncoming() *framework.PodInfo {
	sel := &framework.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	return framework.MustPodInfo(st.MakePod().Name("incoming").Label("app", "web").
		Req(map[string]string{"cpu": "1", "memory": "2Gi"}).
		SpreadConstraint(framework.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: benchZoneKey, WhenUnsatisfiable: framework.ScheduleAnyway, LabelSelector: sel}).
		SpreadConstraint(framework.TopologySpreadConstraint{MaxSkew: 5, TopologyKey: benchHostKey, WhenUnsatisfiable: framework.DoNotSchedule, LabelSelector: sel}).
		Affinity(&framework.Affinity{PodAntiAffinity: &framework.PodAntiAffinity{
			PreferredDuringSchedulingIgnoredDuringExecution: []framework.WeightedPodAffinityTerm{{
				Weight: 50, PodAffinityTerm: framework.PodAffinityTerm{LabelSelector: sel, TopologyKey: benchHostKey}}}}}).
		Obj())
}

// resourceProfile is the resource plugins alone: NodeResourcesFit and
// NodeResourcesBalancedAllocation.
func resourceProfile() framework.Profile {
	return framework.Profile{
		SchedulerName: "resources",
		PreFilter:     []string{config.NodeResourcesFitName},
		Filter:        []string{config.NodeResourcesFitName},
		PreScore:      []string{config.NodeResourcesFitName, config.NodeResourcesBalancedAllocationName},
		Score:         []string{config.NodeResourcesFitName, config.NodeResourcesBalancedAllocationName},
		Weights:       map[string]int64{config.NodeResourcesFitName: 1, config.NodeResourcesBalancedAllocationName: 1},
	}
}

// BenchmarkProfileCycle measures one full cycle (every node filtered and
// scored, no sampling) of the default profile and of the resource plugins
// alone, on one core, with a reused Result as a scheduler would.
func BenchmarkProfileCycle(b *testing.B) {
	for _, prof := range []framework.Profile{DefaultProfile(), resourceProfile()} {
		for _, nodes := range []int{1000, 5000, 15000} {
			b.Run(fmt.Sprintf("profile=%s/nodes=%d", prof.SchedulerName, nodes), func(b *testing.B) {
				f, err := framework.NewFramework(NewDefaultRegistry(), prof)
				if err != nil {
					b.Fatal(err)
				}
				snap := benchCluster(b, nodes)
				pod := benchIncoming()
				rng := rand.New(rand.NewPCG(1, 2))
				res := &framework.Result{}
				ctx := context.Background()
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					if _, err := f.Schedule(ctx, nil, snap, pod, framework.CycleOptions{Rand: rng, Reuse: res}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/pod")
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*nodes), "ns/node")
			})
		}
	}
}
