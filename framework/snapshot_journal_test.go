package framework

import (
	"fmt"
	"maps"
	"testing"

	"github.com/schedkit/schedkit/framework/api"
	"pgregory.net/rapid"
)

// TestPropSnapshotJournal: after any run of snapshot changes (pods added
// and removed, a node updated, its CSINode set, nodes added or removed,
// some on a clone sharing NodeInfos), ChangedSince lists every node whose
// NodeInfo pointer or Generation moved, or reports that it cannot; and an
// unchanged ChangeSeq means no node moved.
func TestPropSnapshotJournal(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nodes := undoDrawNodes(t)
		s := MustSnapshot(nodes, nil, WithNamespaces(piNamespaces...))
		var added []*PodInfo
		steps := rapid.IntRange(0, 40).Draw(t, "steps")
		for round := range 3 {
			if rapid.Bool().Draw(t, "clone") {
				c := s.Clone()
				if rapid.Bool().Draw(t, "useClone") {
					s = c
				}
			}
			type seen struct {
				ni  *NodeInfo
				gen int64
			}
			before := make([]seen, s.NumNodes())
			for k, ni := range s.Nodes() {
				before[k] = seen{ni, ni.Generation}
			}
			seq := s.ChangeSeq()
			structural := false
			for i := range rapid.IntRange(0, steps).Draw(t, "n") {
				name := fmt.Sprintf("p%d-%d", round, i)
				all := s.Nodes()
				switch rapid.IntRange(0, 9).Draw(t, name+".op") {
				case 0, 1, 2, 3:
					p := piDrawPod(t, name, all[rapid.IntRange(0, len(all)-1).Draw(t, name+".node")].Name())
					pi, err := NewPodInfo(p)
					if err != nil {
						t.Fatal(err)
					}
					if _, err := s.AddPodInfo(pi, PodAdd{Unique: true}); err != nil {
						t.Fatal(err)
					}
					added = append(added, pi)
				case 4, 5:
					if len(added) > 0 {
						pi := added[len(added)-1]
						added = added[:len(added)-1]
						if err := s.removeLastPodInfo(pi); err != nil {
							t.Fatal(err)
						}
					}
				case 6:
					if len(added) > 0 {
						j := rapid.IntRange(0, len(added)-1).Draw(t, name+".victim")
						if err := s.RemovePod(added[j].Pod); err != nil {
							t.Fatal(err)
						}
						added = append(added[:j], added[j+1:]...)
					}
				case 7:
					n := copyNode(all[rapid.IntRange(0, len(all)-1).Draw(t, name+".upd")].Node())
					n.Labels["touched"] = name
					if err := s.UpdateNode(n); err != nil {
						t.Fatal(err)
					}
				case 8:
					node := all[rapid.IntRange(0, len(all)-1).Draw(t, name+".csi")].Name()
					if _, err := s.SetStorageObject(&api.CSINode{ObjectMeta: api.ObjectMeta{Name: node}}); err != nil {
						t.Fatal(err)
					}
				case 9:
					if rapid.Bool().Draw(t, name+".grow") {
						n := copyNode(nodes[0])
						n.Name = "extra-" + name
						if err := s.AddNode(n); err != nil {
							t.Fatal(err)
						}
						structural = true
					}
				}
			}
			changed, ok := s.ChangedSince(seq, nil)
			if structural && ok {
				t.Fatalf("a node was added, yet the journal lists only %v", changed)
			}
			if !ok {
				continue
			}
			listed := map[int32]bool{}
			for _, k := range changed {
				listed[k] = true
			}
			for k, ni := range s.Nodes() {
				if moved := ni != before[k].ni || ni.Generation != before[k].gen; moved && !listed[int32(k)] {
					t.Fatalf("node %d (%s) changed since seq %d, not listed in %v", k, ni.Name(), seq, changed)
				}
			}
			if s.ChangeSeq() == seq && len(changed) > 0 {
				t.Fatalf("ChangeSeq unchanged, yet %v listed", changed)
			}
		}
	})
}

// copyNode is n with a labels map of its own.
func copyNode(n *api.Node) *api.Node {
	c := *n
	c.Labels = maps.Clone(n.Labels)
	return &c
}
