package framework_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/scheduling"
)

// BenchmarkIncrementalRuns places replicas of the soft-spread template of
// BenchmarkIncrementalFill ("spread-preferred") with Incremental on 5,000
// roomy nodes (16 CPUs: no node fills during the run) of which the last
// 11 of every 97 are tainted: each cycle's ~560 evaluated nodes hold ~500
// feasible ones in ~6 runs, some cycles wrapping round the node order, as
// a capacity question's cycles on a real cluster (a few node pools the
// template does not tolerate) see them. One op is one replica's cycle and its placement.
func BenchmarkIncrementalRuns(b *testing.B) {
	const n = 5000
	var nodes []*framework.Node
	for i := range n {
		w := builder.MakeNode().Name(fmt.Sprintf("n%04d", i)).Label("zone", fmt.Sprintf("z%d", i%4)).
			Label("kubernetes.io/hostname", fmt.Sprintf("n%04d", i)).
			Allocatable(map[string]string{"cpu": "16", "memory": "64Gi", "pods": "110"})
		if i%97 >= 86 {
			w = w.Taint("pool", "gpu", framework.TaintEffectNoSchedule)
		}
		nodes = append(nodes, w.Obj())
	}
	base, err := framework.NewSnapshot(nodes, nil)
	if err != nil {
		b.Fatal(err)
	}
	fw, err := framework.NewFramework(scheduling.NewDefaultRegistry(), scheduling.DefaultProfile())
	if err != nil {
		b.Fatal(err)
	}
	web := &framework.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	tmpl, err := framework.NewPodInfo(builder.MakePod().Name("web").Label("app", "web").Req(map[string]string{"cpu": "500m", "memory": "256Mi"}).
		SpreadConstraint(framework.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: framework.ScheduleAnyway, LabelSelector: web}).
		PodAntiAffinityIn("app", "kubernetes.io/hostname", []string{"web"}, builder.PodAntiAffinityWithPreferredReq).Obj())
	if err != nil {
		b.Fatal(err)
	}
	benchFill(b, fw, base, tmpl)
}

// benchFill places replicas of tmpl one by one with Incremental (Schedule
// when it hands a cycle back) on a copy of base, one per op, from
// round-robin start 0 with kube's adaptive sample, starting over on a
// fresh copy when the cluster is full.
func benchFill(b *testing.B, fw *framework.Framework, base *framework.Snapshot, tmpl *framework.PodInfo) {
	ctx := context.Background()
	snap := base.Clone()
	inc := fw.NewIncremental(nil)
	defer inc.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	res := &framework.Result{}
	n := snap.NumNodes()
	k := framework.NumFeasibleNodesToFind(n, 0)
	start, i := 0, 0
	for b.Loop() {
		pod := *tmpl.Pod
		pod.Name = fmt.Sprintf("web-%d", i)
		pod.UID = pod.Name
		pi := *tmpl
		pi.Pod = &pod
		i++
		opts := framework.CycleOptions{Rand: rng, StartIndex: start, NumFeasibleToFind: k, SkipExplanation: true, Reuse: res}
		r, ok := inc.Schedule(ctx, snap, &pi, opts)
		if !ok {
			var err error
			r, err = fw.Schedule(ctx, nil, snap, &pi, opts)
			if _, full := err.(*framework.FitError); full {
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
		if err := snap.AddPodInfo(&pi); err != nil {
			b.Fatal(err)
		}
		inc.Added(&pi, node)
	}
}
