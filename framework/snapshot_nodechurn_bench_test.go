package framework_test

import (
	"fmt"
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
)

// BenchmarkSnapshotNodeChurn adds a node to a snapshot of n nodes (a
// quarter of them tainted, one in twenty cordoned), asks for the taint
// classes as the next cycle's TaintToleration does, removes the node
// and asks again: what a node coming and going costs the cycles after
// it, as in kube's SchedulingWithMixedChurn.
func BenchmarkSnapshotNodeChurn(b *testing.B) {
	for _, n := range []int{1000, 5000, 20000} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			nodes := make([]*api.Node, n)
			for i := range nodes {
				nb := st.MakeNode().Name(fmt.Sprintf("n%06d", i)).Capacity(map[string]string{"cpu": "4", "memory": "16Gi", "pods": "110"})
				if i%4 == 0 {
					nb = nb.Taint("dedicated", "batch", api.TaintEffectNoSchedule)
				}
				if i%20 == 0 {
					nb = nb.Unschedulable()
				}
				nodes[i] = nb.Obj()
			}
			s, err := fw.NewSnapshot(nodes, nil)
			if err != nil {
				b.Fatal(err)
			}
			churn := st.MakeNode().Name("churn").Capacity(map[string]string{"cpu": "4", "memory": "16Gi", "pods": "110"}).Obj()
			want := s.TaintClasses().Class[0]
			b.ReportAllocs()
			for b.Loop() {
				if err := s.AddNode(churn); err != nil {
					b.Fatal(err)
				}
				if c := s.TaintClasses().Class; len(c) != n+1 || c[0] != want {
					b.Fatalf("classes of %d nodes, node 0 in class %d; want %d nodes, class %d", len(c), c[0], n+1, want)
				}
				if err := s.RemoveNode("churn"); err != nil {
					b.Fatal(err)
				}
				if c := s.TaintClasses().Class; len(c) != n {
					b.Fatalf("classes of %d nodes; want %d", len(c), n)
				}
			}
		})
	}
}
