package framework

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/framework/api"
)

// TestSnapshotAffinityListsConcurrentReaders: cycles running at once on one
// snapshot may read the affinity lists while they are rebuilt (run with -race).
func TestSnapshotAffinityListsConcurrentReaders(t *testing.T) {
	pod := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "a", Namespace: "default", UID: "a"},
		Spec: api.PodSpec{NodeName: "n0", Affinity: &api.Affinity{PodAntiAffinity: &api.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []api.PodAffinityTerm{{TopologyKey: "kubernetes.io/hostname",
				LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"app": "x"}}}}}}}}
	s := MustSnapshot(testNodes(3), []*api.Pod{pod})
	c := s.Clone()
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if len(c.NodesWithPodAffinity()) != 1 || len(c.NodesWithRequiredAntiAffinity()) != 1 {
				t.Error("wrong affinity lists")
			}
		}()
	}
	wg.Wait()
}

func TestNodeIndexAndTopologyValues(t *testing.T) {
	nodes := testNodes(4) // n0..n3
	nodes[0].Labels["zone"] = "a"
	nodes[1].Labels["zone"] = "b"
	nodes[3].Labels["zone"] = "a"
	s := MustSnapshot(nodes, nil)
	for i, n := range s.Nodes() {
		if n.Index() != i {
			t.Fatalf("node %s index %d, want %d", n.Name(), n.Index(), i)
		}
	}
	tv := s.TopologyValues("zone")
	if got := fmt.Sprint(tv.Values, tv.Domain); got != "[a b] [0 1 -1 0]" {
		t.Fatalf("TopologyValues = %s", got)
	}
	if s.TopologyValues("zone") != tv {
		t.Fatal("TopologyValues not cached")
	}
	c := s.Clone()
	if err := c.RemoveNode("n1"); err != nil {
		t.Fatal(err)
	}
	for i, n := range c.Nodes() {
		if n.Index() != i {
			t.Fatalf("after RemoveNode: node %s index %d, want %d", n.Name(), n.Index(), i)
		}
	}
	for i, n := range s.Nodes() {
		if n.Index() != i {
			t.Fatalf("RemoveNode on a clone changed the original: %s index %d", n.Name(), n.Index())
		}
	}
	if got := fmt.Sprint(c.TopologyValues("zone").Domain); got != "[0 -1 0]" {
		t.Fatalf("clone after RemoveNode: %s", got)
	}
	if got := fmt.Sprint(s.TopologyValues("zone").Domain); got != "[0 1 -1 0]" {
		t.Fatalf("original changed: %s", got)
	}
	upd := *nodes[2]
	upd.Labels = map[string]string{"zone": "c"}
	if err := s.UpdateNode(&upd); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(s.TopologyValues("zone").Values, s.TopologyValues("zone").Domain); got != "[a b c] [0 1 2 0]" {
		t.Fatalf("after UpdateNode: %s", got)
	}
	if err := s.AddNode(testNode("n9", 1000)); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(s.TopologyValues("zone").Domain); got != "[0 1 2 0 -1]" || s.Nodes()[4].Index() != 4 {
		t.Fatalf("after AddNode: %s", got)
	}
	if ni, _ := NewNodeInfo(testNode("x", 1)); ni.Index() != -1 {
		t.Fatal("a NodeInfo outside a snapshot must have index -1")
	}
}

func TestTaintClasses(t *testing.T) {
	nodes := testNodes(5) // n0..n4
	spot := api.Taint{Key: "spot", Value: "true", Effect: api.TaintEffectPreferNoSchedule}
	db := api.Taint{Key: "dedicated", Value: "db", Effect: api.TaintEffectNoSchedule}
	nodes[0].Spec.Taints = []api.Taint{spot}
	nodes[1].Spec.Taints = []api.Taint{spot, db}
	nodes[2].Spec.Taints = []api.Taint{db, spot} // another order: another class
	nodes[3].Spec.Taints = []api.Taint{spot}
	nodes[4].Spec.Unschedulable = true
	s := MustSnapshot(nodes, nil)
	tc := s.TaintClasses()
	if got := fmt.Sprint(tc.Class, tc.Unschedulable); got != "[0 1 2 0 3] [false false false true]" {
		t.Fatalf("TaintClasses = %s", got)
	}
	if got := fmt.Sprint(tc.Taints); got != fmt.Sprint([][]api.Taint{{spot}, {spot, db}, {db, spot}, nil}) {
		t.Fatalf("TaintClasses.Taints = %s", got)
	}
	if s.TaintClasses() != tc {
		t.Fatal("TaintClasses not cached")
	}
	c := s.Clone()
	upd := *nodes[3]
	upd.Spec.Taints = nil
	if err := c.UpdateNode(&upd); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(c.TaintClasses().Class); got != "[0 1 2 3 4]" {
		t.Fatalf("clone after UpdateNode: %s", got)
	}
	if s.TaintClasses() != tc {
		t.Fatal("UpdateNode on a clone changed the original's classes")
	}
	if err := c.RemoveNode("n0"); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(c.TaintClasses().Class); got != "[0 1 2 3]" {
		t.Fatalf("clone after RemoveNode: %s", got)
	}
	if err := s.AddNode(testNode("n9", 1000)); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(s.TaintClasses().Class); got != "[0 1 2 0 3 4]" {
		t.Fatalf("after AddNode: %s", got)
	}
}

func TestImageNumbers(t *testing.T) {
	nodes := testNodes(3)
	nodes[0].Status.Images = []api.ContainerImage{{Names: []string{"a:1", "a@sha"}, SizeBytes: 10}, {Names: []string{"b:1"}, SizeBytes: 20}}
	nodes[1].Status.Images = []api.ContainerImage{{Names: []string{"b:1"}, SizeBytes: 21}, {Names: []string{"b:1"}, SizeBytes: 22}} // listed twice: the last size counts
	s := MustSnapshot(nodes, nil)
	a, sha, b := s.ImageID("a:1"), s.ImageID("a@sha"), s.ImageID("b:1")
	if a < 0 || sha < 0 || b < 0 || a == sha || a == b || s.ImageID("c:1") != -1 {
		t.Fatalf("ImageID: a:1=%d a@sha=%d b:1=%d c:1=%d", a, sha, b, s.ImageID("c:1"))
	}
	for _, c := range []struct {
		node int
		id   int32
		size int64
		ok   bool
	}{{0, a, 10, true}, {0, sha, 10, true}, {0, b, 20, true}, {1, b, 22, true}, {1, a, 0, false}, {2, b, 0, false}} {
		if size, ok := s.ImageTable().Size(c.node, c.id); size != c.size || ok != c.ok {
			t.Errorf("ImageTable().Size(%d, %d) = %d, %v; want %d, %v", c.node, c.id, size, ok, c.size, c.ok)
		}
	}
	if m := s.Resources()[0].ImageMask; m != ImageMaskBit(a)|ImageMaskBit(sha)|ImageMaskBit(b) {
		t.Errorf("ImageMask of node 0 = %b", m)
	}
	c := s.Clone()
	upd := *nodes[2]
	upd.Status.Images = []api.ContainerImage{{Names: []string{"c:1"}, SizeBytes: 30}}
	if err := c.UpdateNode(&upd); err != nil {
		t.Fatal(err)
	}
	id := c.ImageID("c:1")
	if size, ok := c.ImageTable().Size(2, id); id < 0 || size != 30 || !ok || s.ImageID("c:1") != id {
		t.Fatalf("after UpdateNode on a clone: id %d (original %d), size %d, %v", id, s.ImageID("c:1"), size, ok)
	}
	if _, ok := s.ImageTable().Size(2, id); ok {
		t.Fatal("UpdateNode on a clone changed the original's node")
	}
}

// TestSnapshotStorageLogBounded: changes with no reader in between (one
// attachment moved from node to node 10,000 times) keep the change log in
// proportion to the objects held, and the list right when read.
func TestSnapshotStorageLogBounded(t *testing.T) {
	s := MustSnapshot(nil, nil)
	pv := "pv"
	for i := range 10000 {
		va := &api.VolumeAttachment{ObjectMeta: api.ObjectMeta{Name: "va"},
			Spec: api.VolumeAttachmentSpec{Attacher: "d", NodeName: fmt.Sprintf("n%d", i%3), Source: api.VolumeAttachmentSource{PersistentVolumeName: &pv}}}
		if _, err := s.SetStorageObject(va); err != nil {
			t.Fatal(err)
		}
		if n := s.storage.logged(); n > 2+64 {
			t.Fatalf("after %d changes the log holds %d, want at most 66", i+1, n)
		}
	}
	if got := s.VolumeAttachmentsOnNode("n0"); len(got) != 1 || got[0].Spec.NodeName != "n0" {
		t.Errorf("attachments on n0 = %v, want the one moved there last", got)
	}
	if got := s.VolumeAttachmentsOnNode("n1"); len(got) != 0 {
		t.Errorf("attachments on n1 = %v, want none", got)
	}
}

// TestTopologyValuesByIndex: ByIndex is set exactly when every node has a
// value of its own numbered by its position, and follows node changes.
func TestTopologyValuesByIndex(t *testing.T) {
	tests := []struct {
		name   string
		values []string // "" leaves the node without the key
		want   bool
	}{
		{name: "no nodes", values: nil, want: true},
		{name: "one value per node", values: []string{"h0", "h1", "h2"}, want: true},
		{name: "a node without the key", values: []string{"h0", "", "h2"}, want: false},
		{name: "two nodes sharing a value", values: []string{"h0", "h1", "h0"}, want: false},
		{name: "shared value last", values: []string{"a", "b", "b"}, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nodes := testNodes(len(tt.values))
			for i, v := range tt.values {
				if v != "" {
					nodes[i].Labels["host"] = v
				}
			}
			s := MustSnapshot(nodes, nil)
			if got := s.TopologyValues("host").ByIndex; got != tt.want {
				t.Fatalf("ByIndex = %v, want %v (domain %v)", got, tt.want, s.TopologyValues("host").Domain)
			}
		})
	}
	nodes := testNodes(3)
	for i, n := range nodes {
		n.Labels["host"] = fmt.Sprintf("h%d", i)
	}
	s := MustSnapshot(nodes, nil)
	if err := s.RemoveNode("n1"); err != nil {
		t.Fatal(err)
	}
	if tv := s.TopologyValues("host"); !tv.ByIndex {
		t.Fatalf("after RemoveNode: ByIndex false, domain %v", tv.Domain)
	}
	upd := *nodes[2]
	upd.Labels = map[string]string{"host": "h0"}
	if err := s.UpdateNode(&upd); err != nil {
		t.Fatal(err)
	}
	if tv := s.TopologyValues("host"); tv.ByIndex {
		t.Fatalf("after UpdateNode to a shared value: ByIndex true, domain %v", tv.Domain)
	}
}

// TestPropTopologyValuesNumbering: the numbering of a key's values is the
// order in which the nodes first show them, whatever runs of repeated
// values or unique values (past the point where the numbering sizes
// itself for one value per node) the nodes hold; IDs inverts Values.
func TestPropTopologyValuesNumbering(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 3*distinctProbe).Draw(t, "nodes")
		unique := rapid.IntRange(0, n).Draw(t, "uniquePrefix")
		values := make([]string, n)
		for i := range values {
			switch {
			case i < unique:
				values[i] = fmt.Sprintf("h%d", i)
			default:
				values[i] = rapid.SampledFrom([]string{"", "a", "b", "h0", "h1", fmt.Sprintf("h%d", i)}).Draw(t, "value")
			}
		}
		nodes := testNodes(n)
		for i, v := range values {
			if v != "" {
				nodes[i].Labels["k"] = v
			}
		}
		tv := MustSnapshot(nodes, nil).TopologyValues("k")
		seen := map[string]int32{}
		var want []string
		byIndex := true
		for i, v := range values {
			if v == "" {
				byIndex = false
				if tv.Domain[i] != -1 {
					t.Fatalf("node %d without the key: domain %d", i, tv.Domain[i])
				}
				continue
			}
			id, ok := seen[v]
			if !ok {
				id = int32(len(want))
				seen[v] = id
				want = append(want, v)
			}
			byIndex = byIndex && id == int32(i)
			if tv.Domain[i] != id {
				t.Fatalf("node %d (%q): domain %d, want %d", i, v, tv.Domain[i], id)
			}
		}
		if !slices.Equal(tv.Values, want) && len(want)+len(tv.Values) > 0 {
			t.Fatalf("values %v, want %v", tv.Values, want)
		}
		if tv.ByIndex != byIndex {
			t.Fatalf("ByIndex %v, want %v", tv.ByIndex, byIndex)
		}
		if len(tv.IDs) != len(want) {
			t.Fatalf("%d ids for %d values", len(tv.IDs), len(want))
		}
		switch {
		case tv.Unkeyed == 0 && tv.Keyed != nil:
			t.Fatal("Keyed set with every node keyed")
		case tv.Unkeyed > 0:
			for i, v := range values {
				if got := tv.Keyed[i>>6]&(1<<(i&63)) != 0; got != (v != "") {
					t.Fatalf("node %d (%q): Keyed bit %v", i, v, got)
				}
			}
		}
		for id, v := range want {
			if got, ok := tv.ID(v); !ok || got != int32(id) {
				t.Fatalf("ID(%q) = %d, %v; want %d", v, got, ok, id)
			}
		}
	})
}
