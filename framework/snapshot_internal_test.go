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
	if err := sameTaintClasses(c.TaintClasses(), taintClassesOf(c.nodes)); err != nil {
		t.Fatalf("clone after UpdateNode: %v", err)
	}
	if got := c.TaintClasses().Class; got[3] == got[4] || slices.Contains(got[:3], got[3]) {
		t.Fatalf("clone after UpdateNode: classes %v, want n3 alone", got)
	}
	if s.TaintClasses() != tc {
		t.Fatal("UpdateNode on a clone changed the original's classes")
	}
	if err := c.RemoveNode("n0"); err != nil {
		t.Fatal(err)
	}
	if err := sameTaintClasses(c.TaintClasses(), taintClassesOf(c.nodes)); err != nil {
		t.Fatalf("clone after RemoveNode: %v", err)
	}
	if err := s.AddNode(testNode("n9", 1000)); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(s.TaintClasses().Class); got != "[0 1 2 0 3 4]" {
		t.Fatalf("after AddNode: %s", got)
	}
}

// TestTaintClassesConcurrentFirstReads checks that the workers of a
// cycle asking a snapshot for its taint classes at once, before any has
// computed them, all get the one numbering the snapshot keeps, equal to
// a fresh one; and that a clone made meanwhile shares it.
func TestTaintClassesConcurrentFirstReads(t *testing.T) {
	nodes := make([]*api.Node, 64)
	for i := range nodes {
		nodes[i] = testNode(fmt.Sprintf("n%d", i), 1000)
		if i%3 == 0 {
			nodes[i].Spec.Taints = []api.Taint{{Key: "k", Value: fmt.Sprint(i % 5), Effect: api.TaintEffectNoSchedule}}
		}
	}
	s := MustSnapshot(nodes, nil)
	const readers = 8
	got := make([]*TaintClasses, readers)
	var wg sync.WaitGroup
	for r := range readers {
		wg.Go(func() { got[r] = s.TaintClasses() })
	}
	c := s.Clone()
	wg.Wait()
	for r, tc := range got {
		if tc != got[0] {
			t.Fatalf("reader %d got another numbering than reader 0", r)
		}
	}
	if s.TaintClasses() != got[0] {
		t.Fatal("the snapshot keeps another numbering than its readers got")
	}
	if err := sameTaintClasses(got[0], taintClassesOf(s.nodes)); err != nil {
		t.Fatal(err)
	}
	if err := sameTaintClasses(c.TaintClasses(), taintClassesOf(c.nodes)); err != nil {
		t.Fatalf("clone: %v", err)
	}
}

// sameTaintClasses reports how got differs from want as a numbering of
// one snapshot's taint classes: the same nodes in each class (under some
// renumbering), equal taint lists and cordon flags per class, the same
// cordoned positions, and got's own class keys and sizes right, every
// class holding a node.
func sameTaintClasses(got, want *TaintClasses) error {
	if len(got.Class) != len(want.Class) || len(got.Taints) != len(want.Taints) {
		return fmt.Errorf("%d nodes in %d classes, want %d in %d", len(got.Class), len(got.Taints), len(want.Class), len(want.Taints))
	}
	if len(got.Unschedulable) != len(got.Taints) || len(got.keys) != len(got.Taints) || len(got.sizes) != len(got.Taints) {
		return fmt.Errorf("%d classes, %d cordon flags, %d keys, %d sizes", len(got.Taints), len(got.Unschedulable), len(got.keys), len(got.sizes))
	}
	toWant := make([]int32, len(got.Taints))
	for i := range toWant {
		toWant[i] = -1
	}
	sizes := make([]int32, len(got.Taints))
	for i, c := range got.Class {
		w := want.Class[i]
		switch {
		case toWant[c] == -1:
			toWant[c] = w
		case toWant[c] != w:
			return fmt.Errorf("node %d: class %d holds nodes of classes %d and %d", i, c, toWant[c], w)
		}
		sizes[c]++
	}
	if !slices.Equal(sizes, got.sizes) {
		return fmt.Errorf("sizes %v, counted %v", got.sizes, sizes)
	}
	for c, w := range toWant {
		if w == -1 {
			return fmt.Errorf("class %d holds no node", c)
		}
		gk := string(taintClassKey(nil, &api.NodeSpec{Unschedulable: got.Unschedulable[c], Taints: got.Taints[c]}))
		wk := string(taintClassKey(nil, &api.NodeSpec{Unschedulable: want.Unschedulable[w], Taints: want.Taints[w]}))
		if gk != wk || gk != got.keys[c] {
			return fmt.Errorf("class %d: taints %v cordoned %v (key %q), want %v cordoned %v", c, got.Taints[c], got.Unschedulable[c], got.keys[c], want.Taints[w], want.Unschedulable[w])
		}
	}
	if len(got.Cordoned) != len(want.Cordoned) || !slices.Equal(got.Cordoned, want.Cordoned) && len(got.Cordoned) > 0 {
		return fmt.Errorf("cordoned %v, want %v", got.Cordoned, want.Cordoned)
	}
	return nil
}

// cloneTaintClasses copies tc deeply, to check later that nothing wrote
// to it.
func cloneTaintClasses(tc *TaintClasses) *TaintClasses {
	out := &TaintClasses{Class: slices.Clone(tc.Class), Unschedulable: slices.Clone(tc.Unschedulable),
		Cordoned: slices.Clone(tc.Cordoned), keys: slices.Clone(tc.keys), sizes: slices.Clone(tc.sizes)}
	for _, ts := range tc.Taints {
		out.Taints = append(out.Taints, slices.Clone(ts))
	}
	return out
}

// TestPropTaintClassesFollowNodeChanges: classes a node change derives
// from the snapshot's previous ones (adding, removing, restoring and
// updating nodes, on a snapshot and its clones) number the same classes
// as classes computed afresh, and the previous ones, which readers may
// hold, do not change.
func TestPropTaintClassesFollowNodeChanges(t *testing.T) {
	taints := []api.Taint{
		{Key: "spot", Value: "true", Effect: api.TaintEffectPreferNoSchedule},
		{Key: "dedicated", Value: "db", Effect: api.TaintEffectNoSchedule},
		{Key: "dedicated", Value: "web", Effect: api.TaintEffectNoSchedule},
	}
	rapid.Check(t, func(t *rapid.T) {
		next := 0
		node := func(t *rapid.T) *api.Node {
			n := testNode(fmt.Sprintf("m%d", next), 1000)
			next++
			n.Spec.Unschedulable = rapid.IntRange(0, 3).Draw(t, "cordoned") == 0
			for range rapid.IntRange(0, 2).Draw(t, "taints") {
				n.Spec.Taints = append(n.Spec.Taints, taints[rapid.IntRange(0, len(taints)-1).Draw(t, "taint")])
			}
			return n
		}
		var nodes []*api.Node
		for range rapid.IntRange(1, 6).Draw(t, "nodes") {
			nodes = append(nodes, node(t))
		}
		snaps := []*Snapshot{MustSnapshot(nodes, nil)}
		for range rapid.IntRange(1, 30).Draw(t, "ops") {
			k := rapid.IntRange(0, len(snaps)-1).Draw(t, "snapshot")
			s := snaps[k]
			var before, held *TaintClasses
			if rapid.Bool().Draw(t, "asked") {
				held = s.TaintClasses()
				before = cloneTaintClasses(held)
			}
			n := s.NumNodes()
			var err error
			switch op := rapid.IntRange(0, 5).Draw(t, "op"); {
			case op == 0:
				err = s.AddNode(node(t))
			case op == 1 && n > 0:
				err = s.RemoveNode(s.nodes[rapid.IntRange(0, n-1).Draw(t, "at")].Name())
			case op == 2 && n > 0:
				// RestoreNode undoes the removal before it: between the
				// two, only the classes are asked for.
				var r *RemovedNode
				if r, err = s.RemoveNodeKept(s.nodes[rapid.IntRange(0, n-1).Draw(t, "at")].Name()); err != nil {
					t.Fatal(err)
				}
				if rapid.Bool().Draw(t, "asked between") {
					if err := sameTaintClasses(s.TaintClasses(), taintClassesOf(s.nodes)); err != nil {
						t.Fatalf("snapshot %d after RemoveNodeKept: %v", k, err)
					}
				}
				err = s.RestoreNode(r)
			case op == 3 && n > 0:
				upd := *s.nodes[rapid.IntRange(0, n-1).Draw(t, "at")].Node()
				fresh := node(t)
				upd.Spec.Unschedulable, upd.Spec.Taints = fresh.Spec.Unschedulable, fresh.Spec.Taints
				err = s.UpdateNode(&upd)
			case op == 4:
				snaps = append(snaps, s.Clone())
			}
			if err != nil {
				t.Fatal(err)
			}
			if err := sameTaintClasses(s.TaintClasses(), taintClassesOf(s.nodes)); err != nil {
				t.Fatalf("snapshot %d: %v", k, err)
			}
			if held != nil {
				if err := sameTaintClasses(held, before); err != nil || !slices.Equal(held.Class, before.Class) {
					t.Fatalf("snapshot %d: classes held before the change changed: %v", k, err)
				}
			}
		}
	})
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
