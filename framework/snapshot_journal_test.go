package framework

import (
	"fmt"
	"maps"
	"testing"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
	"pgregory.net/rapid"
)

// TestPropSnapshotJournal: after any run of snapshot changes (pods added
// and removed, a node updated, its CSINode set, nodes added or removed,
// some on a clone sharing NodeInfos), ChangedSince lists every node whose
// NodeInfo pointer or Generation moved, or reports that it cannot; and an
// unchanged ChangeSeq means no node moved; NodeChangeSeq moves exactly
// when a node object was replaced or a node added.
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
			seq, nseq := s.ChangeSeq(), s.NodeChangeSeq()
			structural, nodesChanged := false, false
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
					nodesChanged = true
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
						structural, nodesChanged = true, true
					}
				}
			}
			if moved := s.NodeChangeSeq() != nseq; moved != nodesChanged {
				t.Fatalf("NodeChangeSeq moved %v, yet nodes were replaced or added: %v", moved, nodesChanged)
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

// TestSnapshotJournalRing: the journal lists the last journalRing changes
// and reports that it cannot list more; removing nodes moves
// NodeChangeSeq, adding and removing pods does not.
func TestSnapshotJournalRing(t *testing.T) {
	nodes := []*api.Node{
		{ObjectMeta: api.ObjectMeta{Name: "a"}, Status: api.NodeStatus{Allocatable: resource.MustParseList(map[string]string{"cpu": "4", "pods": "110"})}},
		{ObjectMeta: api.ObjectMeta{Name: "b"}, Status: api.NodeStatus{Allocatable: resource.MustParseList(map[string]string{"cpu": "4", "pods": "110"})}},
	}
	s := MustSnapshot(nodes, nil)
	seq, nseq := s.ChangeSeq(), s.NodeChangeSeq()
	for i := range journalRing {
		p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("p%d", i), Namespace: "default", UID: fmt.Sprintf("p%d", i)}, Spec: api.PodSpec{NodeName: "b"}}
		if err := s.AddPod(p); err != nil {
			t.Fatal(err)
		}
	}
	changed, ok := s.ChangedSince(seq, nil)
	if !ok || len(changed) != journalRing || changed[0] != 1 || changed[journalRing-1] != 1 {
		t.Fatalf("after %d changes to node b: ChangedSince = %d entries, ok %v", journalRing, len(changed), ok)
	}
	if err := s.RemovePod(s.Nodes()[1].Pods[0].Pod); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.ChangedSince(seq, nil); ok {
		t.Fatalf("%d changes listed by a journal of %d", journalRing+1, journalRing)
	}
	if got, ok := s.ChangedSince(seq+1, nil); !ok || len(got) != journalRing {
		t.Fatalf("the last %d changes: %d listed, ok %v", journalRing, len(got), ok)
	}
	if s.NodeChangeSeq() != nseq {
		t.Fatalf("pods added and removed moved NodeChangeSeq from %d to %d", nseq, s.NodeChangeSeq())
	}
	if err := s.RemoveNode("a"); err != nil {
		t.Fatal(err)
	}
	if s.NodeChangeSeq() == nseq {
		t.Fatal("a node removed left NodeChangeSeq as it was")
	}
}
