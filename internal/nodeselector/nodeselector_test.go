package nodeselector

import (
	"fmt"
	"strings"
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"pgregory.net/rapid"
)

// TestSelectorLazyErrors: a term that fails to parse matches nothing and
// Err names it; the valid terms still match; an empty term and a nil
// selector match nothing.
func TestSelectorLazyErrors(t *testing.T) {
	node := &api.Node{ObjectMeta: api.ObjectMeta{Name: "n1", Labels: map[string]string{"zone": "a"}}}
	s := NewSelector(&api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{
		{MatchExpressions: []api.NodeSelectorRequirement{{Key: "-bad", Operator: api.NodeSelectorOpExists}}},
		{},
		{MatchExpressions: []api.NodeSelectorRequirement{{Key: "zone", Operator: api.NodeSelectorOpIn, Values: []string{"a"}}}},
	}}, "sel")
	if !s.Match(node) {
		t.Error("the valid third term should match")
	}
	if err := s.Err(); err == nil || !strings.Contains(err.Error(), `sel.nodeSelectorTerms[0].matchExpressions[0].key="-bad"`) {
		t.Errorf("Err() = %v, want the first term's key named", err)
	}
	bad := NewSelector(&api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{{}}}, "sel")
	if bad.Match(node) || bad.Err() != nil {
		t.Errorf("an empty term: Match %v, Err %v; want no match and no error", bad.Match(node), bad.Err())
	}
	if NewSelector(nil, "sel").Match(node) {
		t.Error("a nil selector must match no node")
	}
}

// TestPropIndexedEqualsMatch: a selector resolved against a snapshot gives
// every snapshot node the verdict Match gives the node itself.
func TestPropIndexedEqualsMatch(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 10).Draw(t, "nodes")
		nodes := make([]*api.Node, n)
		for i := range nodes {
			labels := map[string]string{}
			for _, key := range []string{"zone", "disk"} {
				if rapid.Bool().Draw(t, "has"+key) {
					labels[key] = rapid.SampledFrom([]string{"a", "b"}).Draw(t, key)
				}
			}
			nodes[i] = &api.Node{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("n%d", i), Labels: labels}}
		}
		var ns api.NodeSelector
		for range rapid.IntRange(0, 3).Draw(t, "terms") {
			var term api.NodeSelectorTerm
			for range rapid.IntRange(0, 2).Draw(t, "exprs") {
				r := api.NodeSelectorRequirement{Key: rapid.SampledFrom([]string{"zone", "disk"}).Draw(t, "key"),
					Operator: rapid.SampledFrom([]api.NodeSelectorOperator{api.NodeSelectorOpIn, api.NodeSelectorOpNotIn, api.NodeSelectorOpExists, api.NodeSelectorOpDoesNotExist}).Draw(t, "op")}
				if r.Operator == api.NodeSelectorOpIn || r.Operator == api.NodeSelectorOpNotIn {
					r.Values = []string{rapid.SampledFrom([]string{"a", "b"}).Draw(t, "value")}
				}
				term.MatchExpressions = append(term.MatchExpressions, r)
			}
			ns.NodeSelectorTerms = append(ns.NodeSelectorTerms, term)
		}
		s := NewSelector(&ns, "sel")
		snap := fw.MustSnapshot(nodes, nil)
		m := s.Indexed(snap)
		for k, ni := range snap.Nodes() {
			if got, want := m.Match(k), s.Match(ni.Node()); got != want {
				t.Fatalf("node %s: Indexed %v, Match %v", ni.Name(), got, want)
			}
		}
	})
}
