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
	"github.com/schedkit/schedkit/scheduling"
)

// BenchmarkIncrementalFill places replicas one by one with Incremental on
// 5,000 nodes of 1 CPU each (4 zones) until the cluster is full, then
// starts over on a fresh copy: the late cycles of a capacity question,
// where most nodes are full and the filter walk goes round the whole
// cluster to find kube's adaptive sample. "spread" is a 500m template
// with a soft zone spread (node-local filters only: 10,000 replicas fill
// the cluster); "one-per-node" adds a required hostname anti-affinity on
// its own app (a non-local filter after the node-local ones: 5,000
// replicas); "spread-preferred" makes that anti-affinity preferred (two
// non-local Score plugins, as the capacity questions' soft-spread
// template). One op is one replica's cycle and its placement.
func BenchmarkIncrementalFill(b *testing.B) {
	fw, base := fillSetup(b, "1", func(int) bool { return false })
	for _, tc := range []struct {
		name string
		pod  *api.Pod
	}{
		{"spread", softSpread().Obj()},
		{"spread-preferred", softSpread().PodAntiAffinityIn("app", "kubernetes.io/hostname", []string{"web"}, builder.PodAntiAffinityWithPreferredReq).Obj()},
		{"one-per-node", softSpread().PodAntiAffinityIn("app", "kubernetes.io/hostname", []string{"web"}, builder.PodAntiAffinityWithRequiredReq).Obj()},
	} {
		tmpl, err := framework.NewPodInfo(tc.pod)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(tc.name, func(b *testing.B) { benchFill(b, fw, base, tmpl) })
	}
}

// BenchmarkIncrementalRuns places replicas of the soft-spread template of
// BenchmarkIncrementalFill ("spread-preferred") with Incremental on 5,000
// nodes of 16 CPUs (no node fills during a run) of which the last
// 11 of every 97 are tainted: each cycle's ~560 evaluated nodes hold ~500
// feasible ones in ~6 runs, some cycles wrapping round the node order, as
// a capacity question's cycles on a real cluster (a few node pools the
// template does not tolerate) see them. One op is one replica's cycle and
// its placement.
func BenchmarkIncrementalRuns(b *testing.B) {
	fw, base := fillSetup(b, "16", func(i int) bool { return i%97 >= 86 })
	tmpl, err := framework.NewPodInfo(softSpread().PodAntiAffinityIn("app", "kubernetes.io/hostname", []string{"web"}, builder.PodAntiAffinityWithPreferredReq).Obj())
	if err != nil {
		b.Fatal(err)
	}
	benchFill(b, fw, base, tmpl)
}

// fillSetup returns kube's default profile and a snapshot of 5,000 nodes
// in 4 zones with cpu CPUs each, those for which tainted says so tainted
// (NoSchedule).
func fillSetup(b *testing.B, cpu string, tainted func(i int) bool) (*runtime.Framework, *framework.Snapshot) {
	var nodes []*api.Node
	for i := range 5000 {
		w := builder.MakeNode().Name(fmt.Sprintf("n%04d", i)).Label("zone", fmt.Sprintf("z%d", i%4)).
			Label("kubernetes.io/hostname", fmt.Sprintf("n%04d", i)).
			Allocatable(map[string]string{"cpu": cpu, "memory": "8Gi", "pods": "110"})
		if tainted(i) {
			w = w.Taint("pool", "gpu", api.TaintEffectNoSchedule)
		}
		nodes = append(nodes, w.Obj())
	}
	base, err := framework.NewSnapshot(nodes, nil)
	if err != nil {
		b.Fatal(err)
	}
	fw, err := runtime.NewFramework(scheduling.NewDefaultRegistry(), scheduling.DefaultProfile())
	if err != nil {
		b.Fatal(err)
	}
	return fw, base
}

// softSpread is the 500m template with a soft zone spread on its own app
// (a new wrapper each time: the affinity methods change it).
func softSpread() *builder.PodWrapper {
	web := &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	return builder.MakePod().Name("web").Label("app", "web").Req(map[string]string{"cpu": "500m", "memory": "256Mi"}).
		SpreadConstraint(api.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: api.ScheduleAnyway, LabelSelector: web})
}

// benchFill places replicas of tmpl one by one with Incremental (Schedule
// when it hands a cycle back) on a copy of base, one per op, from
// round-robin start 0 with kube's adaptive sample, starting over on a
// fresh copy when the cluster is full.
func benchFill(b *testing.B, fw *runtime.Framework, base *framework.Snapshot, tmpl *framework.PodInfo) {
	ctx := context.Background()
	snap := base.Clone()
	inc := fw.NewIncremental(nil)
	defer inc.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	res := &runtime.Result{}
	n := snap.NumNodes()
	k := runtime.NumFeasibleNodesToFind(n, 0)
	start, i := 0, 0
	for b.Loop() {
		pod := *tmpl.Pod
		pod.Name = fmt.Sprintf("web-%d", i)
		pod.UID = pod.Name
		pi := *tmpl
		pi.Pod = &pod
		i++
		opts := runtime.CycleOptions{Rand: rng, StartIndex: start, NumFeasibleToFind: k, SkipExplanation: true, Reuse: res}
		r, ok := inc.Schedule(ctx, snap, &pi, opts)
		if !ok {
			var err error
			r, err = fw.Schedule(ctx, nil, snap, &pi, opts)
			if _, full := err.(*runtime.FitError); full {
				snap = base.Clone() // the cluster is full: start over
				inc.Close()
				continue
			}
			if err != nil {
				b.Fatal(err)
			}
		}
		start = (start + r.EvaluatedNodes()) % n
		node := r.SelectedNode()
		pod.Spec.NodeName = node
		if _, err := snap.AddPodInfo(&pi, framework.PodAdd{}); err != nil {
			b.Fatal(err)
		}
		inc.Added(&pi, node)
	}
}
