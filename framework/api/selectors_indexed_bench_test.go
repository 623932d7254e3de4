package api_test

import (
	"fmt"
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
)

// BenchmarkIndexedNodeMatchHostname measures matching every node of a
// 5,000-node snapshot (each with 12 labels) against a node selector term
// over the hostname key, whose values outgrow a verdict table, conjoined
// with one over a zone key, which has a table.
func BenchmarkIndexedNodeMatchHostname(b *testing.B) {
	const n = 5000
	nodes := make([]*api.Node, n)
	for i := range nodes {
		labels := map[string]string{
			"kubernetes.io/hostname":      fmt.Sprintf("node-%d", i),
			"topology.kubernetes.io/zone": fmt.Sprintf("zone-%d", i%3),
		}
		for j := range 10 {
			labels[fmt.Sprintf("example.com/label-%d", j)] = fmt.Sprintf("v%d", (i+j)%5)
		}
		nodes[i] = &api.Node{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("node-%d", i), Labels: labels}}
	}
	snap := fw.MustSnapshot(nodes, nil)
	tm, err := api.CompileNodeSelectorTerm(&api.NodeSelectorTerm{MatchExpressions: []api.NodeSelectorRequirement{
		{Key: "kubernetes.io/hostname", Operator: api.NodeSelectorOpNotIn, Values: []string{"node-1", "node-3"}},
		{Key: "topology.kubernetes.io/zone", Operator: api.NodeSelectorOpIn, Values: []string{"zone-0", "zone-1"}},
	}})
	if err != nil {
		b.Fatal(err)
	}
	m := tm.Indexed(snap)
	matched := 0
	for b.Loop() {
		matched = 0
		for k := range n {
			if m.Match(k) {
				matched++
			}
		}
	}
	if want := 3332; matched != want { // zones 0 and 1 hold 3,334 nodes; node-1 and node-3 are two of them
		b.Fatalf("%d nodes matched, want %d", matched, want)
	}
}
