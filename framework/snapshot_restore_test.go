package framework

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/schedkit/schedkit/framework/api"
	"pgregory.net/rapid"
)

// restoreImages counts, for each image of the nodes, the nodes holding it
// (ImageNumNodes), and checks that every node is found by name at its
// position.
func restoreImages(t *rapid.T, s *Snapshot, nodes []*api.Node) map[string]int {
	out := map[string]int{}
	for _, n := range nodes {
		for _, img := range n.Status.Images {
			for _, name := range img.Names {
				out[name] = s.ImageNumNodes(name)
			}
		}
	}
	for i, ni := range s.Nodes() {
		if got, ok := s.Get(ni.Name()); !ok || got != ni || ni.Index() != i || s.Index(ni.Name()) != i {
			t.Fatalf("node %s at %d: Get %v %v, Index() %d, Index(name) %d", ni.Name(), i, got == ni, ok, ni.Index(), s.Index(ni.Name()))
		}
	}
	return out
}

// TestPropSnapshotRestoreNode: node removals by RemoveNodeKept mixed with
// pod adds, undone in reverse order (RestoreNode, removeLastPodInfo), leave
// the snapshot as it was — node by node (order, pods and their order,
// affinity lists, sums, host ports, Resources and Free rows; Generation
// only counts up, and not at all without pod adds),
// the affinity node lists, image counts, every memoized PodCounts entry
// with its per-zone sums and the affinity groups — and in every step the
// pod index equals that of a snapshot built afresh from its nodes and
// pods. Nodes may be shared with a clone (copy on write), which the
// removals and restores must not reach.
func TestPropSnapshotRestoreNode(t *testing.T) {
	queries := piQueries()
	rapid.Check(t, func(t *rapid.T) {
		nodes := testNodes(rapid.IntRange(1, 6).Draw(t, "nodes"))
		for i, n := range nodes {
			n.Labels["zone"] = fmt.Sprintf("z%d", i%2)
			if rapid.Bool().Draw(t, fmt.Sprintf("image%d", i)) {
				n.Status.Images = []api.ContainerImage{{Names: []string{rapid.SampledFrom([]string{"img-a", "img-b"}).Draw(t, "img")}, SizeBytes: 1 << 20}}
			}
		}
		var bound []*api.Pod
		for i := range rapid.IntRange(0, 10).Draw(t, "bound") {
			bound = append(bound, undoDrawPod(t, nodes, fmt.Sprintf("old%d", i)))
		}
		s := MustSnapshot(nodes, bound, WithNamespaces(piNamespaces...))
		s.labelIDs.fromMaps.Store(labelRowsAfter) // zone's numbering from the label rows
		for qi := range queries {
			if rapid.Bool().Draw(t, fmt.Sprintf("query%d", qi)) {
				s.PodCounts(queries[qi])
				s.PodDomainCounts(queries[qi], "zone")
			}
		}
		if rapid.Bool().Draw(t, "groups") {
			s.AffinityGroups()
		}
		var keep *Snapshot
		if rapid.Bool().Draw(t, "clone") {
			keep = s.Clone()
		}
		before, genBefore, images := undoCapture(s, queries, false), undoCapture(s, queries, true), restoreImages(t, s, nodes)
		podSteps := false

		type step struct {
			node *RemovedNode
			pod  *PodInfo
		}
		var steps []step
		for i := range rapid.IntRange(1, 10).Draw(t, "steps") {
			cur := s.Nodes()
			if len(cur) > 0 && rapid.Bool().Draw(t, "remove") {
				name := cur[rapid.IntRange(0, len(cur)-1).Draw(t, "victim")].Name()
				r, err := s.RemoveNodeKept(name)
				if err != nil {
					t.Fatal(err)
				}
				steps = append(steps, step{node: r})
			} else if len(cur) > 0 {
				on := make([]*api.Node, len(cur))
				for k, ni := range cur {
					on[k] = ni.Node()
				}
				pi := MustPodInfo(undoDrawPod(t, on, fmt.Sprintf("new%d", i)))
				if _, err := s.AddPodInfo(pi, PodAdd{Unique: true}); err != nil {
					t.Fatal(err)
				}
				steps = append(steps, step{pod: pi})
				podSteps = true
			}
			restoreFresh(t, s, queries)
		}
		for i := len(steps) - 1; i >= 0; i-- {
			var err error
			if steps[i].node != nil {
				err = s.RestoreNode(steps[i].node)
			} else {
				err = s.removeLastPodInfo(steps[i].pod)
			}
			if err != nil {
				t.Fatal(err)
			}
			restoreFresh(t, s, queries)
		}
		if diff := cmp.Diff(before, undoCapture(s, queries, false), cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("after undoing every step (-before +after):\n%s", diff)
		}
		// A removal and its restore keep every Generation; a pod's add and
		// its undo count up on its node.
		for i, n := range undoCapture(s, queries, true).Nodes {
			if g0 := genBefore.Nodes[i].Generation; n.Generation < g0 || (!podSteps && n.Generation != g0) {
				t.Fatalf("node %s: Generation %d, before %d (pods added: %v)", n.Name, n.Generation, g0, podSteps)
			}
		}
		if diff := cmp.Diff(images, restoreImages(t, s, nodes)); diff != "" {
			t.Fatalf("image counts (-before +after):\n%s", diff)
		}
		if keep != nil {
			omCheckShared(t, keep)
			restoreImages(t, keep, nodes)
		}
	})
}

// restoreFresh checks s's memoized pod counts and affinity groups against
// a snapshot built afresh from its nodes and pods.
func restoreFresh(t *rapid.T, s *Snapshot, queries []PodQuery) {
	var nodes []*api.Node
	var pods []*api.Pod
	for _, ni := range s.Nodes() {
		nodes = append(nodes, ni.Node())
		for _, pi := range ni.Pods {
			pods = append(pods, pi.Pod)
		}
	}
	f := MustSnapshot(nodes, pods, WithNamespaces(piNamespaces...))
	// The zone numbering, from the label rows the removals and restores
	// keep, equals one counted on the fresh snapshot.
	if diff := cmp.Diff(f.TopologyValues("zone"), s.TopologyValues("zone"), cmpopts.EquateEmpty()); diff != "" {
		t.Fatalf("zone numbering (-fresh +live):\n%s", diff)
	}
	for qi, q := range queries {
		if s.podCountsCached(q) {
			if got, want := fmt.Sprint(s.PodCounts(q)), fmt.Sprint(f.PodCounts(q)); got != want {
				t.Fatalf("query %d: counts %s, fresh %s", qi, got, want)
			}
		}
	}
	if s.podIdx.groups != nil {
		if diff := cmp.Diff(piGroupView(f, f.AffinityGroups()), piGroupView(s, s.AffinityGroups()), cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("affinity groups (-fresh +live):\n%s", diff)
		}
	}
	for i, ni := range s.Nodes() {
		// ImageMask numbers images in the order a snapshot met them.
		live, fresh := s.Resources()[i], f.Resources()[i]
		live.ImageMask, fresh.ImageMask = 0, 0
		if live != fresh || s.Free()[i] != f.Free()[i] {
			t.Fatalf("node %s: rows %+v %+v, fresh %+v %+v", ni.Name(), live, s.Free()[i], fresh, f.Free()[i])
		}
	}
}

// TestRestoreNodeErrors: RestoreNode refuses a nil node, a node whose name
// the snapshot holds again, and a position past the end, naming them.
func TestRestoreNodeErrors(t *testing.T) {
	s := MustSnapshot(testNodes(3), nil)
	r, err := s.RemoveNodeKept("n1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.RemoveNodeKept("n1"); err == nil || err.Error() != `framework: snapshot: unknown node "n1"` {
		t.Errorf("removing n1 twice: %v", err)
	}
	tests := []struct {
		name    string
		prepare func(*Snapshot)
		node    *RemovedNode
		want    string
	}{
		{"nil", nil, nil, "framework: snapshot: RestoreNode: nil node"},
		{"name taken", func(s *Snapshot) { _ = s.AddNode(testNode("n1", 1000)) }, r, `framework: snapshot: RestoreNode: duplicate node name "n1"`},
		{"past the end", func(s *Snapshot) { _ = s.RemoveNode("n2"); _ = s.RemoveNode("n0") }, r, `framework: snapshot: RestoreNode: node "n1" at position 1 of 0 nodes`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := s.Clone()
			if tc.prepare != nil {
				tc.prepare(c)
			}
			if err := c.RestoreNode(tc.node); err == nil || err.Error() != tc.want {
				t.Errorf("RestoreNode: %v, want %q", err, tc.want)
			}
		})
	}
	if err := s.RestoreNode(r); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, ni := range s.Nodes() {
		names = append(names, ni.Name())
	}
	if diff := cmp.Diff([]string{"n0", "n1", "n2"}, names); diff != "" {
		t.Errorf("nodes after RestoreNode (-want +got):\n%s", diff)
	}
}
