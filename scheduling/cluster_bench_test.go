package scheduling

import (
	"fmt"
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

// rmBenchPods returns node's 4 pods: one with preferred zone affinity
// (an affinity group spanning every node), three plain ones.
func rmBenchPods(node string) []*api.Pod {
	out := make([]*api.Pod, 4)
	for k := range out {
		w := st.MakePod().Name(fmt.Sprintf("p-%s-%d", node, k)).Label("app", fmt.Sprintf("a%d", k)).Req(map[string]string{"cpu": "100m"}).Node(node)
		if k == 0 {
			w = w.PodAffinityTerm(st.PodAffinityWithPreferredReq, 5, api.PodAffinityTerm{LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"app": "a1"}}, TopologyKey: "topology.kubernetes.io/zone"})
		}
		out[k] = w.Obj()
	}
	return out
}

// BenchmarkRemoveNodeInFork: 10 nodes spread over a 5,000-node cluster (4
// pods a node; the pod index holds a PodCounts entry and an affinity
// group over every node) are removed, inside a fork that is then
// reverted ("fork": removal and restore) and, for reference, outside one
// ("no-fork": the removals alone; the nodes are added back untimed). A
// removal costs O(nodes) by itself (the later nodes move up one); the
// fork adds the restore, which costs as much, and keeps only the nodes
// removed.
func BenchmarkRemoveNodeInFork(b *testing.B) {
	const nodes, removals = 5000, 10
	for _, forked := range []bool{true, false} {
		name := "no-fork"
		if forked {
			name = "fork"
		}
		b.Run(name, func(b *testing.B) {
			c, err := cluster.NewFrom(scBenchNodes(nodes), nil)
			if err != nil {
				b.Fatal(err)
			}
			byName := map[string]*api.Node{}
			for _, n := range scBenchNodes(nodes) {
				byName[n.Name] = n
				for _, p := range rmBenchPods(n.Name) {
					if err := c.AddPod(p); err != nil {
						b.Fatal(err)
					}
				}
			}
			q := framework.PodQuery{Terms: []framework.PodTerm{{Namespaces: []string{"default"}, NamespaceSelector: api.NothingSelector(),
				Selector: (&api.LabelSelector{MatchLabels: map[string]string{"app": "a2"}}).MustCompile()}}}
			_ = c.Snapshot().PodCounts(q)
			// The nodes at these positions are removed (the same positions
			// every time: no-fork adds the nodes back at the end).
			at := make([]int, removals)
			for r := range at {
				at[r] = r * (nodes - removals) / removals
			}
			targets := make([]string, removals)
			b.ReportAllocs()
			for b.Loop() {
				if forked {
					c.Fork()
				}
				for r, i := range at {
					targets[r] = c.Snapshot().Nodes()[i].Name()
					if _, err := c.RemoveNode(targets[r]); err != nil {
						b.Fatal(err)
					}
				}
				if forked {
					if err := c.Revert(); err != nil {
						b.Fatal(err)
					}
					continue
				}
				b.StopTimer()
				for _, n := range targets {
					if err := c.AddNode(byName[n]); err != nil {
						b.Fatal(err)
					}
					for _, p := range rmBenchPods(n) {
						if err := c.AddPod(p); err != nil {
							b.Fatal(err)
						}
					}
				}
				b.StartTimer()
			}
		})
	}
}
