package scheduling

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/runtime"
	"github.com/schedkit/schedkit/internal/procstat"
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
	ns := make([]*api.Node, nodes)
	pods := make([]*api.Pod, 0, 2*nodes)
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
				w = w.Affinity(&api.Affinity{PodAntiAffinity: &api.PodAntiAffinity{
					PreferredDuringSchedulingIgnoredDuringExecution: []api.WeightedPodAffinityTerm{{
						Weight: 10, PodAffinityTerm: api.PodAffinityTerm{
							LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"app": app}}, TopologyKey: benchHostKey},
					}}}})
			case 2:
				w = w.SpreadConstraint(api.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: benchZoneKey,
					WhenUnsatisfiable: api.ScheduleAnyway, LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"app": app}}})
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
	sel := &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	return framework.MustPodInfo(st.MakePod().Name("incoming").Label("app", "web").
		Req(map[string]string{"cpu": "1", "memory": "2Gi"}).
		SpreadConstraint(api.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: benchZoneKey, WhenUnsatisfiable: api.ScheduleAnyway, LabelSelector: sel}).
		SpreadConstraint(api.TopologySpreadConstraint{MaxSkew: 5, TopologyKey: benchHostKey, WhenUnsatisfiable: api.DoNotSchedule, LabelSelector: sel}).
		Affinity(&api.Affinity{PodAntiAffinity: &api.PodAntiAffinity{
			PreferredDuringSchedulingIgnoredDuringExecution: []api.WeightedPodAffinityTerm{{
				Weight: 50, PodAffinityTerm: api.PodAffinityTerm{LabelSelector: sel, TopologyKey: benchHostKey}}}}}).
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
				f, err := runtime.NewFramework(NewDefaultRegistry(), prof)
				if err != nil {
					b.Fatal(err)
				}
				snap := benchCluster(b, nodes)
				pod := benchIncoming()
				rng := rand.New(rand.NewPCG(1, 2))
				res := &runtime.Result{}
				ctx := context.Background()
				b.ReportAllocs()
				b.ResetTimer()
				cpu0, ok0 := procstat.CPUTime()
				for b.Loop() {
					if _, err := f.Schedule(ctx, nil, snap, pod, runtime.CycleOptions{Rand: rng, Reuse: res}); err != nil {
						b.Fatal(err)
					}
				}
				cpu1, ok1 := procstat.CPUTime()
				b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/pod")
				if ok0 && ok1 {
					b.ReportMetric(float64((cpu1-cpu0).Microseconds())/float64(b.N), "cpu-µs/pod")
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*nodes), "ns/node")
			})
		}
	}
}

// benchAntiAffinityCluster is benchCluster where every third pod also has
// required anti-affinity to its own app across hostnames, so that
// InterPodAffinity's filter runs (existing pods' anti-affinity terms select
// the incoming web pod on a third of the nodes).
func benchAntiAffinityCluster(b *testing.B, nodes int) *framework.Snapshot {
	b.Helper()
	apps := []string{"web", "db", "cache", "batch"}
	ns := make([]*api.Node, nodes)
	pods := make([]*api.Pod, 0, 2*nodes)
	for i := range ns {
		name := fmt.Sprintf("node-%05d", i)
		ns[i] = st.MakeNode().Name(name).Label(benchZoneKey, fmt.Sprintf("zone-%d", i%10)).Label(benchHostKey, name).
			Capacity(map[string]string{"cpu": "16", "memory": "64Gi", "pods": "110"}).Obj()
		for j := range 2 {
			app := apps[(i+j)%len(apps)]
			w := st.MakePod().Name(fmt.Sprintf("p-%d-%d", i, j)).Label("app", app).Node(name).
				Req(map[string]string{"cpu": "500m", "memory": "1Gi"})
			if (i+j)%3 == 0 {
				w = w.Affinity(&api.Affinity{PodAntiAffinity: &api.PodAntiAffinity{
					RequiredDuringSchedulingIgnoredDuringExecution: []api.PodAffinityTerm{{
						LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"app": app}}, TopologyKey: benchHostKey}},
				}})
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

// BenchmarkProfileCycleVariants measures the default profile in the
// situations BenchmarkProfileCycle leaves out: "warm" runs one cycle
// before timing (the pod index and topology numbering are built, as in a
// scheduler's steady state), and "antiaffinity" adds required
// anti-affinity on existing pods and on the incoming pod, so that
// InterPodAffinity filters.
func BenchmarkProfileCycleVariants(b *testing.B) {
	anti := func() *framework.PodInfo {
		pi := benchIncoming()
		p := *pi.Pod
		a := *p.Spec.Affinity
		aa := *a.PodAntiAffinity
		aa.RequiredDuringSchedulingIgnoredDuringExecution = []api.PodAffinityTerm{{
			LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"app": "db"}}, TopologyKey: benchHostKey}}
		a.PodAntiAffinity = &aa
		p.Spec.Affinity = &a
		return framework.MustPodInfo(&p)
	}
	for _, v := range []struct {
		name    string
		cluster func(*testing.B, int) *framework.Snapshot
		pod     func() *framework.PodInfo
		warm    bool
	}{
		{"warm", benchCluster, benchIncoming, true},
		{"antiaffinity", benchAntiAffinityCluster, anti, false},
	} {
		for _, nodes := range []int{1000, 5000, 15000} {
			b.Run(fmt.Sprintf("%s/nodes=%d", v.name, nodes), func(b *testing.B) {
				f, err := runtime.NewFramework(NewDefaultRegistry(), DefaultProfile())
				if err != nil {
					b.Fatal(err)
				}
				snap := v.cluster(b, nodes)
				pod := v.pod()
				rng := rand.New(rand.NewPCG(1, 2))
				res := &runtime.Result{}
				ctx := context.Background()
				if v.warm {
					if _, err := f.Schedule(ctx, nil, snap, pod, runtime.CycleOptions{Rand: rng, Reuse: res}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportAllocs()
				b.ResetTimer()
				cpu0, ok0 := procstat.CPUTime()
				for b.Loop() {
					if _, err := f.Schedule(ctx, nil, snap, pod, runtime.CycleOptions{Rand: rng, Reuse: res}); err != nil {
						b.Fatal(err)
					}
				}
				cpu1, ok1 := procstat.CPUTime()
				b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/pod")
				if ok0 && ok1 {
					b.ReportMetric(float64((cpu1-cpu0).Microseconds())/float64(b.N), "cpu-µs/pod")
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*nodes), "ns/node")
			})
		}
	}
}
