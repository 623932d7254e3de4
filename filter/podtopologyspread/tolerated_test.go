package podtopologyspread

import (
	"fmt"
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"pgregory.net/rapid"
)

// TestPropToleratedNodes: toleratedNodes sets exactly the bits of the
// nodes whose NoSchedule and NoExecute taints the tolerations tolerate,
// for several toleration lists asked in turn of one snapshot, some one
// field apart (each list gets its own bitmap from the snapshot's memo,
// asked again or not), and again on a clone after the original lost a
// node.
func TestPropToleratedNodes(t *testing.T) {
	taints := []api.Taint{
		{Key: "gpu", Value: "true", Effect: api.TaintEffectNoSchedule},
		{Key: "gpu", Value: "false", Effect: api.TaintEffectNoSchedule},
		{Key: "spot", Effect: api.TaintEffectPreferNoSchedule},
		{Key: "maint", Value: "x", Effect: api.TaintEffectNoExecute},
	}
	tolerations := []api.Toleration{
		{Key: "gpu", Operator: api.TolerationOpEqual, Value: "true", Effect: api.TaintEffectNoSchedule},
		{Key: "gpu", Operator: api.TolerationOpEqual, Value: "false", Effect: api.TaintEffectNoSchedule},
		{Key: "gpu", Operator: api.TolerationOpExists},
		{Key: "gpu", Value: "false"},
		{Key: "maint", Operator: api.TolerationOpExists, Effect: api.TaintEffectNoExecute},
		{Operator: api.TolerationOpExists},
		{Key: "spot", Operator: api.TolerationOpExists},
	}
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 150).Draw(t, "nodes")
		var nodes []*api.Node
		for i := range n {
			node := &api.Node{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("n%d", i)}}
			for _, tt := range taints {
				if rapid.IntRange(0, 3).Draw(t, "taint") == 0 {
					node.Spec.Taints = append(node.Spec.Taints, tt)
				}
			}
			nodes = append(nodes, node)
		}
		snap := framework.MustSnapshot(nodes, nil)
		check := func(what string, s *framework.Snapshot, tols []api.Toleration) {
			got := toleratedNodes(s, tols)
			for k, ni := range s.Nodes() {
				want := !hasUntoleratedTaint(ni.Node().Spec.Taints, tols)
				if has := got[k>>6]&(1<<(k&63)) != 0; has != want {
					t.Fatalf("%s: tolerations %v: node %s at %d: bit %v, want %v", what, tols, ni.Name(), k, has, want)
				}
			}
		}
		// Each toleration alone, in turn (lists one field apart), then
		// lists of several.
		var lists [][]api.Toleration
		for _, tol := range tolerations {
			lists = append(lists, []api.Toleration{tol})
			check("original", snap, lists[len(lists)-1])
		}
		for range rapid.IntRange(1, 4).Draw(t, "lists") {
			var tols []api.Toleration
			for range rapid.IntRange(0, 3).Draw(t, "tolerations") {
				tols = append(tols, rapid.SampledFrom(tolerations).Draw(t, "toleration"))
			}
			lists = append(lists, tols)
			check("original", snap, tols)
		}
		clone := snap.Clone()
		if n > 1 {
			if err := snap.RemoveNode(nodes[rapid.IntRange(0, n-1).Draw(t, "removed")].Name); err != nil {
				t.Fatal(err)
			}
		}
		for _, tols := range lists {
			check("clone", clone, tols)
			check("original after the removal", snap, tols)
		}
	})
}
