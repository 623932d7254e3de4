package runtime_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/framework/runtime"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/scheduling"
)

// BenchmarkIncrementalCycle compares one replica's cycle computed by
// Incremental with Framework.Schedule, on the varied cluster (st.NewVaried)
// at 1,000 and 5,000 nodes with the default profile and kube's adaptive
// sampling, for a capacity-style template (500m / 1Gi, soft zone spread,
// preferred hostname anti-affinity on its own app). "cycle" repeats the
// cycle on an unchanged snapshot (the evaluator's steady state: 0 allocs
// is the aim); "replica" places each replica on the node chosen, so
// the non-local plugins' state must follow (its allocations include the
// replica's own objects and the snapshot's update). At 20,000 nodes, on
// 2 workers and over every node, the passes over the totals run in
// chunks on the workers.
func BenchmarkIncrementalCycle(b *testing.B) {
	tmplPod := builder.MakePod().Name("web").Namespace("prod").Label("app", "web").
		Req(map[string]string{"cpu": "500m", "memory": "1Gi"}).
		PodAntiAffinityIn("app", st.VariedHostKey, []string{"web"}, builder.PodAntiAffinityWithPreferredReq).
		SpreadConstraint(api.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: st.VariedZoneKey, WhenUnsatisfiable: api.ScheduleAnyway,
			LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}).Obj()
	tmpl, err := framework.NewPodInfo(tmplPod)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for _, c := range []struct{ n, workers int }{{1000, 1}, {5000, 1}, {20000, 2}} {
		n := c.n
		v := st.NewVaried(st.VariedOptions{Seed: 13, Nodes: n})
		var pods []*api.Pod
		for _, p := range v.Pods {
			if api.ValidatePod(p) == nil {
				pods = append(pods, p)
			}
		}
		base, err := framework.NewSnapshot(v.Nodes, pods, framework.WithNamespaces(v.Namespaces...))
		if err != nil {
			b.Fatal(err)
		}
		fw, err := runtime.NewFramework(scheduling.NewDefaultRegistry(), scheduling.DefaultProfile(), runtime.WithParallelism(c.workers))
		if err != nil {
			b.Fatal(err)
		}
		defer fw.Close()
		k, prefix := runtime.NumFeasibleNodesToFind(n, 0), fmt.Sprintf("nodes=%d/", n)
		if c.workers > 1 {
			k, prefix = n, fmt.Sprintf("nodes=%d/workers=%d/every/", n, c.workers)
		}
		for _, place := range []bool{false, true} {
			for _, incremental := range []bool{true, false} {
				name := prefix + "cycle/"
				if place {
					name = prefix + "replica/"
				}
				name += map[bool]string{true: "incremental", false: "schedule"}[incremental]
				b.Run(name, func(b *testing.B) {
					snap := base.Clone()
					inc := fw.NewIncremental(nil)
					defer inc.Close()
					rng := rand.New(rand.NewPCG(1, 2))
					res := &runtime.Result{}
					start, i := 0, 0
					for b.Loop() {
						pi := tmpl
						if place {
							pod := *tmpl.Pod
							pod.Name = fmt.Sprintf("web-%d", i)
							pod.UID = pod.Name
							cp := *tmpl
							cp.Pod = &pod
							pi = &cp
						}
						i++
						opts := runtime.CycleOptions{Rand: rng, StartIndex: start, NumFeasibleToFind: k, SkipExplanation: true, Reuse: res}
						var r *runtime.Result
						var err error
						ok := false
						if incremental {
							r, ok = inc.Schedule(ctx, snap, pi, opts)
						}
						if !ok {
							r, err = fw.Schedule(ctx, nil, snap, pi, opts)
						}
						if _, full := err.(*runtime.FitError); full && place {
							b.StopTimer() // the cluster is full: start over
							snap = base.Clone()
							inc.Close()
							b.StartTimer()
							continue
						}
						if err != nil {
							b.Fatal(err)
						}
						start = (start + r.EvaluatedNodes()) % n
						if place {
							node := r.SelectedNode()
							pi.Pod.Spec.NodeName = node
							if _, err := snap.AddPodInfo(pi, framework.PodAdd{}); err != nil {
								b.Fatal(err)
							}
							inc.Added(pi, node)
						}
					}
				})
			}
		}
	}
}
