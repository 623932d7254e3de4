package framework

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/schedkit/schedkit/framework/api"
)

// TestTopologyValuesFromLabelRows: a key's numbering read from the label
// rows equals one counted from the nodes' labels maps, for keys on every
// node, on some, on none, on no node ever seen, with a value shared by
// two keys (the family numbers values across keys, a key's numbering
// counts its own), on nodes without labels and on no nodes.
func TestTopologyValuesFromLabelRows(t *testing.T) {
	labelled := func(sets ...map[string]string) []*api.Node {
		nodes := testNodes(len(sets))
		for i, l := range sets {
			nodes[i].Labels = l
		}
		return nodes
	}
	tests := []struct {
		name  string
		nodes []*api.Node
		keys  []string
	}{
		{"no nodes", nil, []string{"zone"}},
		{"every node", labelled(map[string]string{"zone": "a"}, map[string]string{"zone": "b"}, map[string]string{"zone": "a"}), []string{"zone"}},
		{"some nodes", labelled(map[string]string{"zone": "a"}, nil, map[string]string{"rack": "a", "zone": "c"}), []string{"zone", "rack"}},
		{"a key no node has", labelled(map[string]string{"zone": "a"}, map[string]string{}), []string{"region"}},
		{"a value of two keys", labelled(map[string]string{"x": "v", "y": "w"}, map[string]string{"x": "w", "y": "v"}), []string{"y", "x"}},
		{"an empty value", labelled(map[string]string{"gpu": ""}, map[string]string{"gpu": "true"}), []string{"gpu"}},
		{"one value per node", labelled(map[string]string{"h": "n0"}, map[string]string{"h": "n1"}, map[string]string{"h": "n2"}), []string{"h"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := MustSnapshot(tt.nodes, nil)
			s.labelIDs.fromMaps.Store(labelRowsAfter) // the rows from the first key on
			for _, k := range tt.keys {
				tv := s.TopologyValues(k)
				wantTopologyValues(t, tt.name, s, k, tv)
				if diff := cmp.Diff(s.mapValues(k), tv, cmpopts.EquateEmpty()); diff != "" {
					t.Fatalf("key %s (-maps +rows):\n%s", k, diff)
				}
			}
			if got := len(s.labelRows); got != len(tt.nodes) {
				t.Fatalf("%d label rows for %d nodes", got, len(tt.nodes))
			}
		})
	}
}

// TestLabelRowsMadeAfterTwoKeys: a snapshot numbers its first two keys
// from the labels maps and makes the label rows at the third, which its
// clones share, and a clone made before then counts toward the same
// family's keys.
func TestLabelRowsMadeAfterTwoKeys(t *testing.T) {
	nodes := testNodes(3)
	for i, n := range nodes {
		n.Labels["a"], n.Labels["b"], n.Labels["c"] = "x", fmt.Sprint(i), "z"
	}
	s := MustSnapshot(nodes, nil)
	early := s.Clone()
	s.TopologyValues("a")
	early.TopologyValues("b")
	if s.labelRows != nil || early.labelRows != nil {
		t.Fatalf("label rows made after two keys: %v, %v", s.labelRows != nil, early.labelRows != nil)
	}
	s.TopologyValues("c")
	if len(s.labelRows) != len(nodes) {
		t.Fatalf("%d label rows after three keys, want %d", len(s.labelRows), len(nodes))
	}
	late := s.Clone()
	if &late.labelRows[0] != &s.labelRows[0] {
		t.Fatal("a clone made after the rows does not share them")
	}
	wantTopologyValues(t, "a clone", late, "b", late.TopologyValues("b"))
}

// BenchmarkTopologyValuesNewKey numbers a label key over 5,000 nodes of
// ten labels each: "maps" from the nodes' labels maps (a snapshot's
// first keys), "first" with the label rows made in the same call, "later"
// from rows already made (a key met after others); "hostname" a key with
// a value per node, from the maps and from the rows.
func BenchmarkTopologyValuesNewKey(b *testing.B) {
	nodes := testNodes(5000)
	for i, n := range nodes {
		n.Labels["kubernetes.io/hostname"] = n.Name
		n.Labels["topology.kubernetes.io/zone"] = fmt.Sprintf("zone-%d", i%3)
		n.Labels["topology.kubernetes.io/region"] = "region-1"
		n.Labels["node.kubernetes.io/instance-type"] = fmt.Sprintf("type-%d", i%7)
		n.Labels["kubernetes.io/os"] = "linux"
		n.Labels["kubernetes.io/arch"] = "amd64"
		n.Labels["rack"] = fmt.Sprintf("rack-%d", i%40)
		n.Labels["pool"] = fmt.Sprintf("pool-%d", i%5)
		if i%10 == 0 {
			n.Labels["gpu"] = "true"
		}
	}
	s := MustSnapshot(nodes, nil)
	for _, c := range []struct {
		name, key string
		rows      int // 0: from the labels maps; 1: with the rows made; 2: from the rows
	}{
		{"maps", "topology.kubernetes.io/zone", 0},
		{"first", "topology.kubernetes.io/zone", 1},
		{"later", "topology.kubernetes.io/zone", 2},
		{"hostname/maps", "kubernetes.io/hostname", 0},
		{"hostname", "kubernetes.io/hostname", 2},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				s.topo.Store(nil)
				if c.rows < 2 {
					s.labelRows = nil
				}
				s.labelIDs.fromMaps.Store(int64(c.rows * labelRowsAfter))
				if tv := s.TopologyValues(c.key); len(tv.Domain) != len(nodes) {
					b.Fatalf("%d domains", len(tv.Domain))
				}
			}
		})
	}
}

// TestLabelRowsConcurrentClones: clones of one snapshot number keys and
// add nodes with new label values at the same time, each in its own
// goroutine (the family's numbering of label strings is shared); each
// clone's numberings are those of its own nodes. Run with -race.
func TestLabelRowsConcurrentClones(t *testing.T) {
	nodes := testNodes(40)
	for i, n := range nodes {
		n.Labels["zone"], n.Labels["rack"] = fmt.Sprint("z", i%3), fmt.Sprint("r", i%7)
	}
	s := MustSnapshot(nodes, nil)
	s.labelIDs.fromMaps.Store(labelRowsAfter)
	s.TopologyValues("zone") // the rows, shared by the clones below
	// A node added gives the rows' slice room to grow in place.
	if err := s.AddNode(testNode("extra", 1000)); err != nil {
		t.Fatal(err)
	}
	clones := []*Snapshot{s.Clone(), s.Clone(), s.Clone()}
	errs := make(chan error, len(clones))
	for c, cl := range clones {
		go func() {
			for k := range 5 {
				n := testNode(fmt.Sprintf("c%d-added%d", c, k), 1000)
				n.Labels["zone"], n.Labels["pool"] = fmt.Sprint("new-z", c, k), fmt.Sprint("p", c)
				if err := cl.AddNode(n); err != nil {
					errs <- err
					return
				}
				cl.TopologyValues("pool")
				cl.TopologyValues("rack")
			}
			errs <- nil
		}()
	}
	for range clones {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	for c, cl := range clones {
		for _, k := range []string{"zone", "rack", "pool"} {
			wantTopologyValues(t, fmt.Sprint("clone ", c), cl, k, cl.TopologyValues(k))
		}
	}
	for _, k := range []string{"zone", "rack", "pool"} {
		wantTopologyValues(t, "the original", s, k, s.TopologyValues(k))
	}
}
