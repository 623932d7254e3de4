package framework

import (
	"fmt"
	"slices"
	"testing"

	"github.com/schedkit/schedkit/framework/api"
	"pgregory.net/rapid"
)

// TestPropTopologyTuples: every node's combination lists its values of the
// keys as TopologyValues numbers them, combinations are distinct and each
// is some node's; the numbering is cached and follows node changes.
func TestPropTopologyTuples(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 40).Draw(t, "nodes")
		keys := []string{"a", "b", "c"}
		label := func(labels map[string]string) {
			for _, k := range keys {
				if v := rapid.IntRange(-1, 3).Draw(t, "value"); v >= 0 {
					labels[k] = fmt.Sprint(v)
				}
			}
		}
		nodes := testNodes(n)
		for _, nd := range nodes {
			label(nd.Labels)
		}
		s := MustSnapshot(nodes, nil)
		ask := rapid.SliceOfN(rapid.SampledFrom(keys), 1, 4).Draw(t, "keys")
		check := func(when string) {
			tt := s.TopologyTuples(ask)
			if tt == nil || !slices.Equal(tt.Keys, ask) || len(tt.Domain) != s.NumNodes() {
				t.Fatalf("%s: TopologyTuples(%v) = %+v", when, ask, tt)
			}
			if s.TopologyTuples(ask) != tt {
				t.Fatalf("%s: TopologyTuples(%v) not cached", when, ask)
			}
			used := make([]bool, len(tt.Parts))
			for i := range s.Nodes() {
				c := tt.Domain[i]
				used[c] = true
				for x, k := range ask {
					if got, want := tt.Parts[c][x], s.TopologyValues(k).Domain[i]; got != want {
						t.Fatalf("%s: node %d key %s: combination %d has value %d, TopologyValues %d", when, i, k, c, got, want)
					}
				}
			}
			for c := range tt.Parts {
				if !used[c] {
					t.Fatalf("%s: combination %d %v is no node's", when, c, tt.Parts[c])
				}
				for d := range c {
					if slices.Equal(tt.Parts[c], tt.Parts[d]) {
						t.Fatalf("%s: combinations %d and %d are both %v", when, d, c, tt.Parts[c])
					}
				}
			}
		}
		check("built")
		if n > 0 {
			upd := *nodes[rapid.IntRange(0, n-1).Draw(t, "updated")]
			upd.Labels = map[string]string{}
			label(upd.Labels)
			if err := s.UpdateNode(&upd); err != nil {
				t.Fatal(err)
			}
			check("after UpdateNode")
		}
		if err := s.AddNode(&api.Node{ObjectMeta: api.ObjectMeta{Name: "added", Labels: map[string]string{"a": "9"}}}); err != nil {
			t.Fatal(err)
		}
		check("after AddNode")
	})
}

func TestTopologyTuplesKeyCount(t *testing.T) {
	s := MustSnapshot(testNodes(2), nil)
	if tt := s.TopologyTuples(nil); tt != nil {
		t.Fatalf("no keys: %+v, want nil", tt)
	}
	if tt := s.TopologyTuples(make([]string, TopologyTuplesMaxKeys+1)); tt != nil {
		t.Fatalf("%d keys: %+v, want nil", TopologyTuplesMaxKeys+1, tt)
	}
	if tt := s.TopologyTuples(make([]string, TopologyTuplesMaxKeys)); tt == nil || len(tt.Parts) != 1 {
		t.Fatalf("%d keys no node has: %+v, want one combination", TopologyTuplesMaxKeys, tt)
	}
}
