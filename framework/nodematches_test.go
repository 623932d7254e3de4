package framework

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/framework/api"
	"pgregory.net/rapid"
)

// nmDrawPod draws a pod with a nodeSelector, a required node affinity of
// one or two terms of one or two expressions, both, or neither, over the
// labels nmDrawNode gives.
func nmDrawPod(t *rapid.T) *api.Pod {
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "p", Namespace: "a"}}
	if rapid.Bool().Draw(t, "nodeSelector") {
		p.Spec.NodeSelector = map[string]string{"zone": rapid.SampledFrom([]string{"z0", "z1"}).Draw(t, "selZone")}
	}
	if rapid.Bool().Draw(t, "affinity") {
		var terms []api.NodeSelectorTerm
		for range rapid.IntRange(1, 2).Draw(t, "terms") {
			var exprs []api.NodeSelectorRequirement
			for range rapid.IntRange(1, 2).Draw(t, "exprs") {
				switch rapid.IntRange(0, 3).Draw(t, "op") {
				case 0:
					exprs = append(exprs, api.NodeSelectorRequirement{Key: "zone", Operator: api.NodeSelectorOpIn, Values: []string{rapid.SampledFrom([]string{"z0", "z1", "z2"}).Draw(t, "in")}})
				case 1:
					exprs = append(exprs, api.NodeSelectorRequirement{Key: "rack", Operator: api.NodeSelectorOpExists})
				case 2:
					exprs = append(exprs, api.NodeSelectorRequirement{Key: "gen", Operator: api.NodeSelectorOpGt, Values: []string{"1"}})
				default:
					exprs = append(exprs, api.NodeSelectorRequirement{Key: "zone", Operator: api.NodeSelectorOpNotIn, Values: []string{"z1"}})
				}
			}
			terms = append(terms, api.NodeSelectorTerm{MatchExpressions: exprs})
		}
		p.Spec.Affinity = &api.Affinity{NodeAffinity: &api.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &api.NodeSelector{NodeSelectorTerms: terms}}}
	}
	return p
}

// nmDrawNode draws a node with some of the zone, rack and gen labels.
func nmDrawNode(t *rapid.T, name string) *api.Node {
	n := &api.Node{ObjectMeta: api.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/hostname": name}}}
	if z := rapid.IntRange(-1, 2).Draw(t, "zone"); z >= 0 {
		n.Labels["zone"] = fmt.Sprintf("z%d", z)
	}
	if rapid.Bool().Draw(t, "rack") {
		n.Labels["rack"] = "r"
	}
	if g := rapid.IntRange(-1, 3).Draw(t, "gen"); g >= 0 {
		n.Labels["gen"] = fmt.Sprint(g)
	}
	return n
}

// nmChange changes the nodes of s, one of snaps, as op says: 1
// relabels a node, 2 removes one (when s has more than one), 3 adds a
// clone of s to snaps, which it returns.
func nmChange(t *rapid.T, snaps []*Snapshot, s *Snapshot, op int) []*Snapshot {
	switch op {
	case 1:
		name := s.Nodes()[rapid.IntRange(0, s.NumNodes()-1).Draw(t, "relabel")].Name()
		if err := s.UpdateNode(nmDrawNode(t, name)); err != nil {
			t.Fatal(err)
		}
	case 2:
		if s.NumNodes() > 1 {
			if err := s.RemoveNode(s.Nodes()[rapid.IntRange(0, s.NumNodes()-1).Draw(t, "remove")].Name()); err != nil {
				t.Fatal(err)
			}
		}
	case 3:
		snaps = append(snaps, s.Clone())
	}
	return snaps
}

// nmSibling returns a copy of p whose constraints name other values
// (each zone the next one, gen's bound 2) and are otherwise alike.
func nmSibling(p *api.Pod) *api.Pod {
	next := map[string]string{"z0": "z1", "z1": "z2", "z2": "z0", "1": "2"}
	c := *p
	if p.Spec.NodeSelector != nil {
		c.Spec.NodeSelector = map[string]string{}
		for k, v := range p.Spec.NodeSelector {
			c.Spec.NodeSelector[k] = next[v]
		}
	}
	if a := p.Spec.Affinity; a != nil {
		var terms []api.NodeSelectorTerm
		for _, tm := range a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms {
			var exprs []api.NodeSelectorRequirement
			for _, e := range tm.MatchExpressions {
				var vals []string
				for _, v := range e.Values {
					vals = append(vals, next[v])
				}
				exprs = append(exprs, api.NodeSelectorRequirement{Key: e.Key, Operator: e.Operator, Values: vals})
			}
			terms = append(terms, api.NodeSelectorTerm{MatchExpressions: exprs})
		}
		c.Spec.Affinity = &api.Affinity{NodeAffinity: &api.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &api.NodeSelector{NodeSelectorTerms: terms}}}
	}
	return &c
}

// nmCheck fails unless bits has one bit per node of s, set exactly where
// r matches the node.
func nmCheck(t *rapid.T, s *Snapshot, r *api.RequiredNodeAffinity, bits []uint64, what string) {
	if len(bits) != (s.NumNodes()+63)/64 {
		t.Fatalf("%s: %d words for %d nodes", what, len(bits), s.NumNodes())
	}
	for k, ni := range s.Nodes() {
		if got, want := bits[k>>6]&(1<<(k&63)) != 0, r.Match(ni.Node()); got != want {
			t.Fatalf("%s: node %s (position %d): bit %v, Match %v", what, ni.Name(), k, got, want)
		}
	}
}

// TestPropNodesMatchingEqualsMatch: the memoized bitmaps of
// NodesMatching and RepeatedNodesMatching (nil on a key's first call, the
// bitmap from its second) set exactly the nodes the constraints match, as
// nodes are added, relabelled and removed and clones change apart.
func TestPropNodesMatchingEqualsMatch(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var nodes []*api.Node
		for i := range rapid.IntRange(1, 70).Draw(t, "nodes") {
			nodes = append(nodes, nmDrawNode(t, fmt.Sprintf("n%d", i)))
		}
		snaps := []*Snapshot{MustSnapshot(nodes, nil)}
		seq := len(nodes)
		for range rapid.IntRange(1, 12).Draw(t, "steps") {
			s := snaps[rapid.IntRange(0, len(snaps)-1).Draw(t, "snap")]
			switch op := rapid.IntRange(0, 5).Draw(t, "op"); op {
			case 0:
				seq++
				if err := s.AddNode(nmDrawNode(t, fmt.Sprintf("n%d", seq))); err != nil {
					t.Fatal(err)
				}
			case 1, 2, 3:
				snaps = nmChange(t, snaps, s, op)
			default:
				// Several constraints in a row on one snapshot: each
				// reads its own bitmap.
				for range rapid.IntRange(1, 4).Draw(t, "asks") {
					pod := nmDrawPod(t)
					r := api.GetRequiredNodeAffinity(pod)
					// A sibling written alike but for its values, asked
					// right after: its key must differ.
					sib := api.GetRequiredNodeAffinity(nmSibling(pod))
					nmCheck(t, s, &r, s.NodesMatching(&r), "NodesMatching")
					key := r.AppendKey(nil)
					m := r.Indexed(s)
					first := s.RepeatedNodesMatching(key, &m)
					second := s.RepeatedNodesMatching(key, &m)
					if second == nil {
						t.Fatal("RepeatedNodesMatching: nil on a key's second call")
					}
					nmCheck(t, s, &r, second, "RepeatedNodesMatching")
					if first != nil {
						nmCheck(t, s, &r, first, "RepeatedNodesMatching (first)")
					}
					nmCheck(t, s, &sib, s.NodesMatching(&sib), "NodesMatching (sibling)")
				}
			}
		}
	})
}

// TestRepeatedNodesMatchingFirstCallOnly: a key's first call returns nil
// and matches no node; the second computes and keeps the bitmap, which a
// clone of the same nodes reads too, and a node change drops it.
func TestRepeatedNodesMatchingFirstCallOnly(t *testing.T) {
	nodes := []*api.Node{
		{ObjectMeta: api.ObjectMeta{Name: "a", Labels: map[string]string{"zone": "z1", "rack": "r"}}},
		{ObjectMeta: api.ObjectMeta{Name: "b", Labels: map[string]string{"zone": "z1"}}},
		{ObjectMeta: api.ObjectMeta{Name: "c", Labels: map[string]string{"zone": "z2", "rack": "r"}}},
	}
	s := MustSnapshot(nodes, nil)
	pod := &api.Pod{Spec: api.PodSpec{Affinity: &api.Affinity{NodeAffinity: &api.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &api.NodeSelector{
		NodeSelectorTerms: []api.NodeSelectorTerm{{MatchExpressions: []api.NodeSelectorRequirement{
			{Key: "zone", Operator: api.NodeSelectorOpIn, Values: []string{"z1"}},
			{Key: "rack", Operator: api.NodeSelectorOpExists},
		}}}}}}}}
	r := api.GetRequiredNodeAffinity(pod)
	key := r.AppendKey(nil)
	m := r.Indexed(s)
	if b := s.RepeatedNodesMatching(key, &m); b != nil {
		t.Fatalf("first call: %b, want nil", b)
	}
	b := s.RepeatedNodesMatching(key, &m)
	if len(b) != 1 || b[0] != 0b001 {
		t.Fatalf("second call: %b, want [1] (node a only)", b)
	}
	c := s.Clone()
	cm := r.Indexed(c)
	if cb := c.RepeatedNodesMatching(key, &cm); len(cb) != 1 || &cb[0] != &b[0] {
		t.Fatalf("clone of the same nodes: %b, want the kept bitmap", cb)
	}
	if err := c.UpdateNode(&api.Node{ObjectMeta: api.ObjectMeta{Name: "b", Labels: map[string]string{"zone": "z1", "rack": "r"}}}); err != nil {
		t.Fatal(err)
	}
	cm = r.Indexed(c)
	if cb := c.RepeatedNodesMatching(key, &cm); cb != nil {
		t.Fatalf("after a node change, first call: %b, want nil", cb)
	}
	if cb := c.RepeatedNodesMatching(key, &cm); len(cb) != 1 || cb[0] != 0b011 {
		t.Fatalf("after a node change: %b, want [11] (nodes a and b)", cb)
	}
	if b2 := s.RepeatedNodesMatching(key, &m); len(b2) != 1 || b2[0] != 0b001 {
		t.Fatalf("the original after its clone changed: %b, want [1]", b2)
	}
}

// TestNodesMatchingConcurrentReaders: cycles on one snapshot and on its
// clones (the front step runs PodTopologySpread's and NodeAffinity's
// PreFilter side by side) ask for the same and different constraints at
// once; every answer is the nodes the constraint matches (go test -race
// checks the memo's locking).
func TestNodesMatchingConcurrentReaders(t *testing.T) {
	var nodes []*api.Node
	for i := range 300 {
		nodes = append(nodes, &api.Node{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("n%d", i), Labels: map[string]string{
			"zone": fmt.Sprintf("z%d", i%3), "gen": fmt.Sprint(i % 4)}}})
	}
	s := MustSnapshot(nodes, nil)
	snaps := []*Snapshot{s, s.Clone(), s.Clone()}
	var pods []*api.Pod
	for z := range 3 {
		for g := range 3 {
			pods = append(pods, &api.Pod{Spec: api.PodSpec{Affinity: &api.Affinity{NodeAffinity: &api.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &api.NodeSelector{
				NodeSelectorTerms: []api.NodeSelectorTerm{{MatchExpressions: []api.NodeSelectorRequirement{
					{Key: "zone", Operator: api.NodeSelectorOpIn, Values: []string{fmt.Sprintf("z%d", z)}},
					{Key: "gen", Operator: api.NodeSelectorOpGt, Values: []string{fmt.Sprint(g)}},
				}}}}}}}})
		}
	}
	errs := make(chan error, 64)
	done := make(chan struct{})
	for w := range 8 {
		go func() {
			defer func() { done <- struct{}{} }()
			for round := range 20 {
				sn := snaps[(w+round)%len(snaps)]
				r := api.GetRequiredNodeAffinity(pods[(w*7+round)%len(pods)])
				var b []uint64
				if round%2 == 0 {
					b = sn.NodesMatching(&r)
				} else {
					m := r.Indexed(sn)
					if b = sn.RepeatedNodesMatching(r.AppendKey(nil), &m); b == nil {
						continue
					}
				}
				for k, ni := range sn.Nodes() {
					if got, want := b[k>>6]&(1<<(k&63)) != 0, r.Match(ni.Node()); got != want {
						errs <- fmt.Errorf("worker %d round %d node %s: bit %v, Match %v", w, round, ni.Name(), got, want)
						return
					}
				}
			}
		}()
	}
	for range 8 {
		<-done
	}
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestPropPositionsOfEqualsLookup: a PreFilterResult (a set, or made by
// PreFilterResultOf from a list that may name a node twice) asked for
// again and again, on snapshots whose nodes are added, relabeled, removed and
// cloned between the asks, always gets the positions its names have in
// the snapshot asked, ascending, whether they were kept or looked up.
func TestPropPositionsOfEqualsLookup(t *testing.T) {
	kept := 0
	rapid.Check(t, func(t *rapid.T) {
		var nodes []*api.Node
		for i := range rapid.IntRange(1, 30).Draw(t, "nodes") {
			nodes = append(nodes, nmDrawNode(t, fmt.Sprintf("n%d", i)))
		}
		snaps := []*Snapshot{MustSnapshot(nodes, nil)}
		seq := len(nodes)
		var results []*PreFilterResult
		for range rapid.IntRange(1, 3).Draw(t, "results") {
			var list []string // some names twice at times
			for range rapid.IntRange(0, 6).Draw(t, "names") {
				list = append(list, fmt.Sprintf("n%d", rapid.IntRange(0, 40).Draw(t, "name")))
			}
			switch rapid.IntRange(0, 2).Draw(t, "made by") {
			case 1:
				r := PreFilterResultOf(list)
				results = append(results, &r)
				continue
			case 2: // one name, most times: a set the snapshot keeps
				r := snaps[0].PreFilterResultOf(list[:min(len(list), rapid.IntRange(1, 2).Draw(t, "of"))])
				results = append(results, &r)
				continue
			}
			names := map[string]struct{}{}
			for _, n := range list {
				names[n] = struct{}{}
			}
			results = append(results, &PreFilterResult{NodeNames: names})
		}
		for range rapid.IntRange(1, 30).Draw(t, "steps") {
			s := snaps[rapid.IntRange(0, len(snaps)-1).Draw(t, "snap")]
			switch op := rapid.IntRange(0, 7).Draw(t, "op"); op { // asks half the time
			case 0:
				seq++
				if err := s.AddNode(nmDrawNode(t, fmt.Sprintf("n%d", rapid.IntRange(0, seq).Draw(t, "add")))); err != nil && !strings.Contains(err.Error(), "duplicate") {
					t.Fatal(err)
				}
			case 1, 2, 3:
				snaps = nmChange(t, snaps, s, op)
			default:
				r := results[rapid.IntRange(0, len(results)-1).Draw(t, "result")]
				var want []int
				for i, ni := range s.Nodes() {
					if _, ok := r.NodeNames[ni.Name()]; ok {
						want = append(want, i)
					}
				}
				var buf [2]int
				got := s.PositionsOf(r, buf[:0])
				if k := s.matchMemo().kept.Load(); k != nil && k.r == r && len(got) > 0 && len(k.pos) > 0 && &k.pos[0] == &got[0] {
					kept++
				}
				if !slices.Equal(got, want) && len(got)+len(want) > 0 {
					var on []string
					for _, ni := range s.Nodes() {
						on = append(on, ni.Name())
					}
					t.Fatalf("PositionsOf(%v) on nodes %v = %v, want %v", slices.Sorted(maps.Keys(r.NodeNames)), on, got, want)
				}
			}
		}
	})
	if kept == 0 {
		t.Fatal("no ask read kept positions")
	}
}

// TestPositionsOfKeptFromTheSecondAsk: a result's positions are looked
// up on its first two asks and kept from the second, while the
// snapshot's nodes stay the same; a result naming every node has none.
func TestPositionsOfKeptFromTheSecondAsk(t *testing.T) {
	s := MustSnapshot([]*api.Node{
		{ObjectMeta: api.ObjectMeta{Name: "a"}},
		{ObjectMeta: api.ObjectMeta{Name: "b"}},
		{ObjectMeta: api.ObjectMeta{Name: "c"}},
	}, nil)
	r := &PreFilterResult{NodeNames: map[string]struct{}{"c": {}, "a": {}, "x": {}}}
	for ask := 1; ask <= 3; ask++ {
		if got := s.PositionsOf(r, nil); !slices.Equal(got, []int{0, 2}) {
			t.Fatalf("ask %d: %v, want [0 2]", ask, got)
		}
		if k := s.matchMemo().kept.Load(); (k != nil && k.r == r) != (ask >= 2) {
			t.Fatalf("ask %d: positions kept %v", ask, k != nil && k.r == r)
		}
	}
	if err := s.RemoveNode("a"); err != nil {
		t.Fatal(err)
	}
	if got := s.PositionsOf(r, nil); !slices.Equal(got, []int{1}) {
		t.Fatalf("after removing a: %v, want [1]", got)
	}
	if got := s.PositionsOf(nil, []int{7}); len(got) != 0 {
		t.Fatalf("nil result: %v", got)
	}
}

// TestPositionsOfListedResult: a result made by PreFilterResultOf gets the
// positions of the nodes its set names, however its list reads: names in
// any order, a name twice, names the snapshot lacks, and a copy whose set
// was replaced by another of as many names (the list then stands for
// nothing).
func TestPositionsOfListedResult(t *testing.T) {
	var nodes []*api.Node
	for _, n := range []string{"a", "b", "c", "d"} {
		nodes = append(nodes, &api.Node{ObjectMeta: api.ObjectMeta{Name: n}})
	}
	replaced := PreFilterResultOf([]string{"a", "b"})
	replaced.NodeNames = map[string]struct{}{"c": {}, "d": {}}
	cases := []struct {
		name string
		r    PreFilterResult
		want []int
	}{
		{"in snapshot order", PreFilterResultOf([]string{"a", "c"}), []int{0, 2}},
		{"in reverse", PreFilterResultOf([]string{"d", "b"}), []int{1, 3}},
		{"a name twice", PreFilterResultOf([]string{"c", "a", "c"}), []int{0, 2}},
		{"names the snapshot lacks", PreFilterResultOf([]string{"x", "b", "y"}), []int{1}},
		{"none", PreFilterResultOf(nil), nil},
		{"set replaced by one as long", replaced, []int{2, 3}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := MustSnapshot(nodes, nil)
			r := c.r
			if got := s.PositionsOf(&r, nil); !slices.Equal(got, c.want) {
				t.Errorf("PositionsOf = %v, want %v", got, c.want)
			}
		})
	}
}

// TestSnapshotPreFilterResultOf: a snapshot's result naming one node it
// holds has the set of that name alone, the same set every time, and
// PositionsOf finds the node on any snapshot and after the nodes move;
// other lists get the package's result.
func TestSnapshotPreFilterResultOf(t *testing.T) {
	var nodes []*api.Node
	for _, n := range []string{"a", "b", "c", "d"} {
		nodes = append(nodes, &api.Node{ObjectMeta: api.ObjectMeta{Name: n}})
	}
	s := MustSnapshot(nodes, nil)
	other := MustSnapshot([]*api.Node{nodes[3], nodes[2]}, nil)
	r := s.PreFilterResultOf([]string{"c"})
	if !maps.Equal(r.NodeNames, map[string]struct{}{"c": {}}) {
		t.Fatalf("NodeNames = %v, want {c}", r.NodeNames)
	}
	if again := s.PreFilterResultOf([]string{"c"}); mapID(again.NodeNames) != mapID(r.NodeNames) {
		t.Error("a second result naming c has a set of its own")
	}
	steps := []struct {
		name string
		snap *Snapshot
		do   func() error
		want []int
	}{
		{"on its snapshot", s, nil, []int{2}},
		{"on another snapshot", other, nil, []int{1}},
		{"after a node before it is removed", s, func() error { return s.RemoveNode("a") }, []int{1}},
		{"after it is removed", s, func() error { return s.RemoveNode("c") }, nil},
		{"after it is added again", s, func() error { return s.AddNode(nodes[2]) }, []int{2}},
	}
	for _, st := range steps {
		if st.do != nil {
			if err := st.do(); err != nil {
				t.Fatalf("%s: %v", st.name, err)
			}
		}
		if got := st.snap.PositionsOf(&r, nil); !slices.Equal(got, st.want) {
			t.Errorf("%s: PositionsOf = %v, want %v", st.name, got, st.want)
		}
	}
	for _, list := range [][]string{{"x"}, {"b", "d"}, {"b", "b"}, nil} {
		got, want := s.PreFilterResultOf(list), PreFilterResultOf(list)
		if !maps.Equal(got.NodeNames, want.NodeNames) {
			t.Errorf("PreFilterResultOf(%v).NodeNames = %v, want %v", list, got.NodeNames, want.NodeNames)
		}
		if p, w := s.PositionsOf(&got, nil), s.PositionsOf(&want, nil); !slices.Equal(p, w) {
			t.Errorf("PositionsOf(PreFilterResultOf(%v)) = %v, want %v", list, p, w)
		}
	}
}

// TestNameSetFollowsTheNodesName: a NodeInfo's set of its name is made
// once, and made again when SetNode gives the NodeInfo another name.
func TestNameSetFollowsTheNodesName(t *testing.T) {
	ni, err := NewNodeInfo(&api.Node{ObjectMeta: api.ObjectMeta{Name: "a"}})
	if err != nil {
		t.Fatal(err)
	}
	first := ni.nameSet()
	if !maps.Equal(first, map[string]struct{}{"a": {}}) || mapID(ni.nameSet()) != mapID(first) {
		t.Fatalf("nameSet = %v, made again: %v", first, mapID(ni.nameSet()) != mapID(first))
	}
	ni.SetNode(&api.Node{ObjectMeta: api.ObjectMeta{Name: "a"}, Spec: api.NodeSpec{Unschedulable: true}})
	if mapID(ni.nameSet()) != mapID(first) {
		t.Error("the set was made again for the same name")
	}
	ni.SetNode(&api.Node{ObjectMeta: api.ObjectMeta{Name: "b"}})
	if got := ni.nameSet(); !maps.Equal(got, map[string]struct{}{"b": {}}) {
		t.Errorf("after renaming to b: nameSet = %v", got)
	}
}

// TestSnapshotPreFilterResultOfWhileItsSnapshotRenumbers: a result made
// on one snapshot is read on another while the first renumbers its nodes
// on another goroutine; the reader touches none of the first snapshot's
// NodeInfos (the race detector checks) and finds the node by name.
func TestSnapshotPreFilterResultOfWhileItsSnapshotRenumbers(t *testing.T) {
	var nodes []*api.Node
	for _, n := range []string{"a", "b", "c", "d"} {
		nodes = append(nodes, &api.Node{ObjectMeta: api.ObjectMeta{Name: n}})
	}
	first, second := MustSnapshot(nodes, nil), MustSnapshot(nodes[1:], nil)
	r := first.PreFilterResultOf([]string{"d"})
	done := make(chan error)
	go func() {
		for range 200 {
			if err := first.RemoveNode("a"); err != nil {
				done <- err
				return
			}
			if err := first.AddNode(nodes[0]); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	for range 200 {
		if got := second.PositionsOf(&r, nil); !slices.Equal(got, []int{2}) {
			t.Fatalf("PositionsOf on the second snapshot = %v, want [2]", got)
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
