package podtopologyspread

import (
	"context"
	"fmt"
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
)

// ptsBenchPod is a web pod with zone and hostname constraints of action
// when: hard (DoNotSchedule) for the filter's benchmarks, soft
// (ScheduleAnyway) for the score's (kube-scheduler's
// "two-Constraints-zone-node" benchmark shape).
func ptsBenchPod(when api.UnsatisfiableConstraintAction) *api.Pod {
	web := st.PtsMatchLabels("app", "web")
	return st.MakePod().Name("incoming").Label("app", "web").
		SpreadConstraint(st.PtsConstraint(1, "topology.kubernetes.io/zone", when, web, nil, nil, nil, nil)).
		SpreadConstraint(st.PtsConstraint(1, "kubernetes.io/hostname", when, web, nil, nil, nil, nil)).Obj()
}

// BenchmarkPodTopologySpreadFilter measures one cycle of the filter half
// over every node (PreFilter, then Filter on each node, sequentially) on a
// cluster with 2 pods per node spread over 3 zones; "perNode" measures the
// Filter calls alone, which must not allocate.
func BenchmarkPodTopologySpreadFilter(b *testing.B) {
	for _, nodes := range []int{1000, 5000, 15000} {
		ns, ps := st.PtsSpreadCluster(nodes, 3)
		snap := fw.MustSnapshot(ns, ps)
		pl := ptsNewFilter(b, ptsListArgs)
		pod := fw.MustPodInfo(ptsBenchPod(api.DoNotSchedule))
		ctx := context.Background()
		b.Run(fmt.Sprintf("nodes=%d/cycle", nodes), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				state := fw.NewCycleState()
				state.SetSnapshot(snap)
				state.SetAllNodes(true)
				if _, s := pl.PreFilter(ctx, state, pod, snap.Nodes()); !s.IsSuccess() {
					b.Fatal(s)
				}
				for _, ni := range snap.Nodes() {
					pl.Filter(ctx, state, pod, ni)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*nodes), "ns/node")
		})
		b.Run(fmt.Sprintf("nodes=%d/perNode", nodes), func(b *testing.B) {
			state := fw.NewCycleState()
			state.SetSnapshot(snap)
			state.SetAllNodes(true)
			if _, s := pl.PreFilter(ctx, state, pod, snap.Nodes()); !s.IsSuccess() {
				b.Fatal(s)
			}
			b.ReportAllocs()
			for b.Loop() {
				for _, ni := range snap.Nodes() {
					pl.Filter(ctx, state, pod, ni)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*nodes), "ns/node")
		})
	}
}

// The per-node Filter path does not allocate (fast path, and the slow path
// of a copied NodeInfo).
func TestPodTopologySpreadFilterAllocs(t *testing.T) {
	ns, ps := st.PtsSpreadCluster(60, 3)
	snap := fw.MustSnapshot(ns, ps)
	pl := ptsNewFilter(t, ptsListArgs)
	pod := fw.MustPodInfo(ptsBenchPod(api.DoNotSchedule))
	state := fw.NewCycleState()
	state.SetSnapshot(snap)
	ctx := context.Background()
	state.SetAllNodes(true)
	if _, s := pl.PreFilter(ctx, state, pod, snap.Nodes()); !s.IsSuccess() {
		t.Fatal(s)
	}
	clone := snap.Nodes()[7].Clone()
	if a := testing.AllocsPerRun(20, func() {
		for _, ni := range snap.Nodes() {
			pl.Filter(ctx, state, pod, ni)
		}
		pl.Filter(ctx, state, pod, clone)
	}); a != 0 {
		t.Errorf("Filter allocates %.1f times per pass", a)
	}
}

// BenchmarkPreFilterNodeConstraints measures PreFilter over 5,000 nodes
// (3 zones, 2 pods a node) for ptsBenchPod's constraints under the
// default nodeAffinityPolicy (Honor) with a required node affinity that
// no node fails (every: zone Exists), none (none), and one that excludes
// a zone (some). A pod whose constraints every node meets counts as one
// without them.
func BenchmarkPreFilterNodeConstraints(b *testing.B) {
	ns, ps := st.PtsSpreadCluster(5000, 3)
	snap := fw.MustSnapshot(ns, ps)
	pl := ptsNewFilter(b, ptsListArgs)
	ctx := context.Background()
	zones := map[string]bool{}
	for _, n := range ns {
		zones[n.Labels["topology.kubernetes.io/zone"]] = true
	}
	var two []string
	for z := range zones {
		if len(two) < len(zones)-1 {
			two = append(two, z)
		}
	}
	for _, c := range []struct {
		name string
		req  *api.NodeSelectorRequirement
	}{
		{"none", nil},
		{"every", &api.NodeSelectorRequirement{Key: "topology.kubernetes.io/zone", Operator: api.NodeSelectorOpExists}},
		{"some", &api.NodeSelectorRequirement{Key: "topology.kubernetes.io/zone", Operator: api.NodeSelectorOpIn, Values: two}},
	} {
		pod := ptsBenchPod(api.DoNotSchedule)
		if c.req != nil {
			pod.Spec.Affinity = &api.Affinity{NodeAffinity: &api.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &api.NodeSelector{
				NodeSelectorTerms: []api.NodeSelectorTerm{{MatchExpressions: []api.NodeSelectorRequirement{*c.req}}}}}}
		}
		pi := fw.MustPodInfo(pod)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				state := fw.NewCycleState()
				state.SetSnapshot(snap)
				state.SetAllNodes(true)
				if _, s := pl.PreFilter(ctx, state, pi, snap.Nodes()); !s.IsSuccess() {
					b.Fatal(s)
				}
				state.Release()
			}
		})
	}
}
