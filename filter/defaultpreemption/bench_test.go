package defaultpreemption_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/filter/defaultpreemption"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/runtime"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/scheduling"
)

// BenchmarkPreemptionDryRun is DefaultPreemption's candidate search, with
// kube's default profile's filters, on a full cluster (every node 16 pods
// of 500m/1Gi on 8 cpu, their priorities 0, 100 and 200 mixed differently
// on each node), from a different start node each run, given the filter
// statuses the cycle found: "victims" is a preemptor of priority 150
// needing 1 cpu, which finds candidates on every node and stops at kube's
// candidate count (10 % of the nodes, at least 100); "none" is a preemptor
// of priority 0, which has no victim anywhere and examines every node, as
// every failed attempt of an ordinary pod does on an overloaded cluster;
// "kept" is a preemptor of priority 150 that fits every node but for a
// filter after the default ones that rejects every node whatever its pods
// (as LoadAware's usage thresholds do), so that no node is a candidate,
// and says so (runtime.VictimRemovalFilter); "gated" is the same with a
// filter that does not, so that every node is dry-run, as kube does.
// workers is the framework's parallelism: the search's chunks run on
// that many workers when given as many CPUs (-cpu 2). With memo, the
// plugin answers the nodes an earlier search examined from the answers
// it kept (the cluster does not change between searches); without, a
// hook of the benchmark's own turns that off and every search dry-runs
// its nodes.
func BenchmarkPreemptionDryRun(b *testing.B) {
	bEpoch := time.Unix(0, 0)
	for _, n := range []int{1000, 5000} {
		var nodes []*api.Node
		var pods []*api.Pod
		for i := range n {
			name := fmt.Sprintf("node-%05d", i)
			nodes = append(nodes, st.MakeNode().Name(name).Capacity(map[string]string{"cpu": "8", "memory": "32Gi", "pods": "110"}).Obj())
			for j := range 16 {
				pods = append(pods, st.MakePod().Name(fmt.Sprintf("p-%05d-%02d", i, j)).Node(name).Priority(int32((i*7+j)%3*100)).
					Req(map[string]string{"cpu": "500m", "memory": "1Gi"}).StartTime(bEpoch).Obj())
			}
		}
		for _, c := range []dryRunCase{{"victims", 150, nil}, {"none", 0, nil}, {"kept", 150, st.PromisingHotGate{}}, {"gated", 150, st.HotGate{}}} {
			for _, workers := range []int{1, 2} {
				for _, memo := range []bool{false, true} {
					b.Run(fmt.Sprintf("%s/nodes=%d/workers=%d/memo=%v", c.name, n, workers, memo), func(b *testing.B) {
						benchDryRun(b, c, nodes, pods, workers, memo)
					})
				}
			}
		}
	}
}

// dryRunCase is one preemptor of BenchmarkPreemptionDryRun: its
// priority, and the filter added after the default ones (nil: none).
type dryRunCase struct {
	name string
	prio int32
	gate framework.Plugin
}

// benchDryRun times searches of one preemptor on an unchanging cluster;
// without memo, a hook of the test's own keeps the plugin from reusing
// the last search's answers, so that each search dry-runs its nodes.
func benchDryRun(b *testing.B, c dryRunCase, nodes []*api.Node, pods []*api.Pod, workers int, memo bool) {
	bEpoch := time.Unix(0, 0)
	reg, prof := scheduling.NewDefaultRegistry(), scheduling.DefaultProfile()
	if c.gate != nil {
		if err := reg.Register("HotGate", func(any, framework.Handle) (framework.Plugin, error) { return c.gate, nil }); err != nil {
			b.Fatal(err)
		}
		prof.Filter = append(prof.Filter, "HotGate")
	}
	gated := nodes
	if c.gate != nil {
		gated = nil
		for _, nd := range nodes {
			hot := *nd
			hot.Labels = map[string]string{"hot": "true"}
			gated = append(gated, &hot)
		}
	}
	req := map[string]string{"cpu": "1", "memory": "1Gi"}
	if c.gate != nil {
		req = map[string]string{"memory": "1Gi"} // fits: the gate is the node's only rejection
	}
	fw, err := runtime.NewFramework(reg, prof, runtime.WithClock(framework.NewFakeClock(bEpoch.Add(time.Hour))), runtime.WithParallelism(workers))
	if err != nil {
		b.Fatal(err)
	}
	defer fw.Close()
	pl, _ := fw.Plugin(config.DefaultPreemptionName)
	dp := pl.(*defaultpreemption.DefaultPreemption)
	if !memo {
		dp.IsEligiblePod = func(*framework.NodeInfo, *framework.PodInfo, *api.Pod) bool { return true }
	}
	state := framework.NewCycleState()
	state.SetSnapshot(framework.MustSnapshot(gated, pods))
	pi := framework.MustPodInfo(st.MakePod().Name("preemptor").Priority(c.prio).Req(req).Obj())
	if _, s, _ := fw.RunPreFilterPlugins(context.Background(), state, pi); !s.IsSuccess() {
		b.Fatal(s)
	}
	all := state.Snapshot().Nodes()
	statuses := make([]*framework.Status, len(all))
	for i, ni := range all {
		statuses[i] = fw.RunFilterPlugins(context.Background(), state, pi, ni)
	}
	i := 0
	for b.Loop() {
		m := framework.NewNodeToStatus(nil)
		m.Grow(len(all))
		for k, ni := range all {
			m.SetNode(ni, statuses[k])
		}
		cands, err := dp.DryRun(context.Background(), state, pi, m, all, i%len(all))
		if err != nil || (c.prio > 0 && c.gate == nil) != (cands > 0) {
			b.Fatalf("%d candidates, error %v", cands, err)
		}
		i += 7
	}
}
