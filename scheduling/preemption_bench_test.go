package scheduling

import (
	"context"
	"fmt"
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	st "github.com/schedkit/schedkit/framework/builder"
)

// BenchmarkPreemptionDryRun is DefaultPreemption's candidate search, with
// kube's default profile's filters, on a
// full cluster (every node 16 pods of 500m/1Gi on 8 cpu, their priorities
// 0, 100 and 200 mixed differently on each node), from a different start
// node each run: "victims" is a preemptor of priority 150 needing 1 cpu,
// which finds candidates on every node and stops at kube's candidate count
// (10 % of the nodes, at least 100); "none" is a preemptor of priority 0,
// which has no victim anywhere and examines every node, as every failed
// attempt of an ordinary pod does on an overloaded cluster.
func BenchmarkPreemptionDryRun(b *testing.B) {
	for _, n := range []int{1000, 5000} {
		var nodes []*api.Node
		var pods []*api.Pod
		for i := range n {
			name := fmt.Sprintf("node-%05d", i)
			nodes = append(nodes, st.MakeNode().Name(name).Capacity(map[string]string{"cpu": "8", "memory": "32Gi", "pods": "110"}).Obj())
			for j := range 16 {
				pods = append(pods, ppPod(fmt.Sprintf("p-%05d-%02d", i, j)).Node(name).Priority(int32((i*7+j)%3*100)).
					Req(map[string]string{"cpu": "500m", "memory": "1Gi"}).StartTime(ppEpoch).Obj())
			}
		}
		for _, c := range []struct {
			name string
			prio int32
		}{{"victims", 150}, {"none", 0}} {
			b.Run(fmt.Sprintf("%s/nodes=%d", c.name, n), func(b *testing.B) {
				e := newPPEnvWith(b, framework.DefaultKubeVersion, NewDefaultRegistry(), DefaultProfile(), nodes, pods, nil, ppPod("preemptor").Priority(c.prio).Req(map[string]string{"cpu": "1", "memory": "1Gi"}).Obj())
				h, _ := handleFrom(e.state)
				all := e.state.Snapshot().Nodes()
				num := e.pl.numCandidates(len(all))
				i := 0
				for b.Loop() {
					cands, _, err := e.pl.dryRun(context.Background(), h, e.state, e.pi, nil, all, i%len(all), num)
					if err != nil || (c.prio > 0) != (len(cands) > 0) {
						b.Fatalf("%d candidates, error %v", len(cands), err)
					}
					i += 7
				}
			})
		}
	}
}
