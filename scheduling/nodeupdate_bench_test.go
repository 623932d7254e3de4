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
	"github.com/schedkit/schedkit/resource"
)

// BenchmarkCycleAfterNodeUpdate measures a cycle over every node of
// 5,000 under kube's default profile that follows an update of one node
// (its allocatable memory, as a status update changes it, or a new zone
// label), a node added after the others, or nothing, for reference; of a
// pod spreading over zones and keeping away from its own kind's nodes:
// the cycle reads the zone and hostname numberings, which a status
// update leaves valid, an added node extends and a label update numbers
// again.
func BenchmarkCycleAfterNodeUpdate(b *testing.B) {
	for _, update := range []string{"none", "status", "zone label", "node added"} {
		b.Run("update="+update, func(b *testing.B) {
			f, err := runtime.NewFramework(NewDefaultRegistry(), DefaultProfile())
			if err != nil {
				b.Fatal(err)
			}
			snap := benchCluster(b, 5000)
			pod := framework.MustPodInfo(st.MakePod().Name("spread").Label("app", "web").
				Req(map[string]string{"cpu": "500m", "memory": "1Gi"}).
				SpreadConstraint(api.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: benchZoneKey,
					WhenUnsatisfiable: api.DoNotSchedule, LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}).
				Affinity(&api.Affinity{PodAntiAffinity: &api.PodAntiAffinity{
					PreferredDuringSchedulingIgnoredDuringExecution: []api.WeightedPodAffinityTerm{{
						Weight: 10, PodAffinityTerm: api.PodAffinityTerm{
							LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, TopologyKey: benchHostKey},
					}}}}).Obj())
			rng := rand.New(rand.NewPCG(1, 2))
			res := &runtime.Result{}
			ctx := context.Background()
			opts := runtime.CycleOptions{Rand: rng, Reuse: res, TotalsOnly: true, SkipExplanation: true}
			n := snap.NumNodes()
			// change makes cycle i's change to the cluster.
			change := func(i int) error {
				switch update {
				case "none":
					return nil
				case "node added":
					return snap.AddNode(st.MakeNode().Name(fmt.Sprintf("added-%05d", i)).Label(benchZoneKey, fmt.Sprintf("zone-%d", i%10)).
						Capacity(map[string]string{"cpu": "16", "memory": "64Gi", "pods": "110"}).Obj())
				}
				old := snap.Nodes()[i*7919%n].Node()
				upd := *old
				upd.Status.Allocatable = old.Status.Allocatable.Clone()
				upd.Status.Allocatable[resource.Memory] = resource.NewQuantity(int64(64<<30-i%2), resource.BinarySI)
				if update == "zone label" {
					upd.Labels = map[string]string{benchHostKey: old.Labels[benchHostKey], benchZoneKey: fmt.Sprintf("zone-%d", i%10)}
				}
				return snap.UpdateNode(&upd)
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if err := change(i); err != nil {
					b.Fatal(err)
				}
				r, err := f.Schedule(ctx, nil, snap, pod, opts)
				if err != nil {
					b.Fatal(err)
				}
				if r.NumFeasibleNodes() == 0 {
					b.Fatalf("cycle %d: no node fits", i)
				}
				i++
			}
		})
	}
}
