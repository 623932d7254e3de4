package framework

import (
	"fmt"
	"maps"
	"math/bits"
	"slices"
	"sync"
	"testing"

	"github.com/schedkit/schedkit/framework/api"
	"pgregory.net/rapid"
)

// pdKeys are the topology keys of the per-domain tests: a value per node,
// a few shared values (absent on some nodes), and a key no node has.
var pdKeys = []string{"kubernetes.io/hostname", "zone", "absent"}

// pdNode returns node name with its zone label (none for "").
func pdNode(name, zone string) *api.Node {
	n := testNode(name, 1000)
	if zone != "" {
		n.Labels["zone"] = zone
	}
	return n
}

// pdBrute sums per-node counts (by node name) by the nodes' values of key,
// read from the node labels, keeping positive sums only.
func pdBrute(s *Snapshot, key string, perNode func(i int, name string) (int64, int64)) map[string][2]int64 {
	out := map[string][2]int64{}
	for i, ni := range s.Nodes() {
		v, ok := ni.Node().Labels[key]
		if !ok {
			continue
		}
		c, w := perNode(i, ni.Name())
		if c == 0 && w == 0 {
			continue
		}
		sum := out[v]
		out[v] = [2]int64{sum[0] + c, sum[1] + w}
	}
	maps.DeleteFunc(out, func(_ string, v [2]int64) bool { return v[0] == 0 })
	return out
}

// pdView renders d as value → count and weight (positive counts only),
// checking Hit, NonZero, EachHit, EachCount, Hits and KeptHits against
// each other on the way: from Count and Weight, or from Hits for sums
// held as Hits alone.
func pdView(t *rapid.T, d *DomainCounts) map[string][2]int64 {
	if d.Count == nil {
		return pdViewHits(t, d)
	}
	out := map[string][2]int64{}
	nonZero := 0
	for id, c := range d.Count {
		hit := d.Hit[id>>6]&(1<<(id&63)) != 0
		if hit != (c > 0) {
			t.Fatalf("value %q: count %d, hit %v", d.Values.Values[id], c, hit)
		}
		if c == 0 {
			continue
		}
		nonZero++
		var w int64
		if d.Weight != nil {
			w = d.Weight[id]
		}
		out[d.Values.Values[id]] = [2]int64{int64(c), w}
	}
	if nonZero != d.NonZero {
		t.Fatalf("NonZero %d, %d values counted", d.NonZero, nonZero)
	}
	var ids []int32
	d.EachHit(func(id int32) { ids = append(ids, id) })
	if len(ids) != nonZero || !slices.IsSorted(ids) {
		t.Fatalf("EachHit gave %v for %d values", ids, nonZero)
	}
	pdCheckEachCount(t, d)
	// Hits lists the same values with their counts and weights, also
	// after a change to counts it listed before.
	hits := d.Hits()
	if len(hits) != len(ids) {
		t.Fatalf("Hits gave %d values, EachHit %d", len(hits), len(ids))
	}
	for k, h := range hits {
		var w int64
		if d.Weight != nil {
			w = d.Weight[h.ID]
		}
		if h.ID != ids[k] || h.Count != d.Count[h.ID] || h.Weight != w {
			t.Fatalf("Hits[%d] = %+v, want id %d count %d weight %d", k, h, ids[k], d.Count[ids[k]], w)
		}
	}
	// Built, they are kept until the next change.
	if kept, ok := d.KeptHits(); !ok || len(kept) != len(hits) || len(kept) > 0 && &kept[0] != &hits[0] {
		t.Fatalf("KeptHits after Hits: %d values, %v; want Hits' %d", len(kept), ok, len(hits))
	}
	return out
}

// pdViewHits is pdView for sums held as Hits alone: no Weight either, the
// hits in increasing order of value with positive counts, Hit marking
// exactly their values, NonZero their number, and KeptHits giving them
// from the first call.
func pdViewHits(t *rapid.T, d *DomainCounts) map[string][2]int64 {
	if d.Weight != nil {
		t.Fatalf("sums held as Hits have weights %v", d.Weight)
	}
	kept, ok := d.KeptHits()
	hits := d.Hits()
	if !ok || len(kept) != len(hits) || len(kept) > 0 && &kept[0] != &hits[0] {
		t.Fatalf("KeptHits of sums held as Hits: %d values, %v; want Hits' %d", len(kept), ok, len(hits))
	}
	if len(hits) != d.NonZero {
		t.Fatalf("NonZero %d, %d hits", d.NonZero, len(hits))
	}
	marked := 0
	for _, w := range d.Hit {
		marked += bits.OnesCount64(w)
	}
	if marked != len(hits) {
		t.Fatalf("Hit marks %d values, %d hits", marked, len(hits))
	}
	out := map[string][2]int64{}
	for k, h := range hits {
		if k > 0 && hits[k-1].ID >= h.ID {
			t.Fatalf("hits out of order: %+v after %+v", h, hits[k-1])
		}
		if h.Count <= 0 || d.Hit[h.ID>>6]&(1<<(h.ID&63)) == 0 {
			t.Fatalf("hit %+v: count not positive or value not marked", h)
		}
		out[d.Values.Values[h.ID]] = [2]int64{int64(h.Count), h.Weight}
	}
	var ids []int32
	d.EachHit(func(id int32) { ids = append(ids, id) })
	if len(ids) != len(hits) {
		t.Fatalf("EachHit gave %v for %d hits", ids, len(hits))
	}
	pdCheckEachCount(t, d)
	return out
}

// pdCheckEachCount checks that EachCount visits what Hits lists.
func pdCheckEachCount(t *rapid.T, d *DomainCounts) {
	var got []DomainHit
	d.EachCount(func(id, count int32, weight int64) {
		got = append(got, DomainHit{ID: id, Count: count, Weight: weight})
	})
	if want := d.Hits(); !slices.Equal(got, want) {
		t.Fatalf("EachCount gave %v, Hits %v", got, want)
	}
}

// TestPropDomainCountsMatchRecount: after any sequence of pod additions,
// removals and updates (a pod replaced by one of other labels, terms or
// node), node additions, removals and relabellings, and clones, on any of
// the live snapshots, every snapshot's PodDomainCounts and
// AffinityGroupDomainCounts equal a from-scratch recount of its pods by
// the nodes' labels; the sums asked before a change are kept up to date by
// it (asked again, they are the same memo), and none leaks between a
// snapshot and its clones.
func TestPropDomainCountsMatchRecount(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) { pdCheckRecount(t, 1, 5, 40) })
}

// TestPropSparseGroupSumsMatchRecount is TestPropDomainCountsMatchRecount
// on enough nodes (a value each by kubernetes.io/hostname) for the sums of
// an affinity group on a node or two to be held as Hits alone
// (sparseGroup), dropped and summed again as the group changes.
func TestPropSparseGroupSumsMatchRecount(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) { pdCheckRecount(t, 2*sparseGroupSpread, 3*sparseGroupSpread, 15) })
}

// pdCheckRecount runs up to maxOps random changes on a snapshot of
// minNodes to maxNodes nodes and its clones, checking every snapshot's
// sums against a recount after each.
func pdCheckRecount(t *rapid.T, minNodes, maxNodes, maxOps int) {
	queries := piQueries()
	zones := []string{"", "z1", "z2", "z3"}
	n0 := rapid.IntRange(minNodes, maxNodes).Draw(t, "nodes")
	var nodes []*api.Node
	for i := range n0 {
		nodes = append(nodes, pdNode(fmt.Sprintf("n%d", i), rapid.SampledFrom(zones).Draw(t, "zone")))
	}
	s0 := MustSnapshot(nodes, nil, WithNamespaces(piNamespaces...))
	snaps := []*Snapshot{s0}
	podSeq, nodeSeq := 0, n0
	allPods := func(s *Snapshot) []*api.Pod {
		var all []*api.Pod
		for _, ni := range s.Nodes() {
			for _, pi := range ni.Pods {
				all = append(all, pi.Pod)
			}
		}
		return all
	}
	for range rapid.IntRange(1, maxOps).Draw(t, "ops") {
		s := snaps[rapid.IntRange(0, len(snaps)-1).Draw(t, "snap")]
		randomNode := func() string { return s.Nodes()[rapid.IntRange(0, s.NumNodes()-1).Draw(t, "node")].Name() }
		switch op := rapid.IntRange(0, 10).Draw(t, "op"); {
		case op <= 3: // add a pod
			podSeq++
			if err := s.AddPod(piDrawPod(t, fmt.Sprintf("p%d", podSeq), randomNode())); err != nil {
				t.Fatal(err)
			}
		case op <= 4: // remove a pod
			if all := allPods(s); len(all) > 0 {
				if err := s.RemovePod(all[rapid.IntRange(0, len(all)-1).Draw(t, "victim")]); err != nil {
					t.Fatal(err)
				}
			}
		case op <= 6: // update a pod: same name, new labels, terms and maybe node
			if all := allPods(s); len(all) > 0 {
				old := all[rapid.IntRange(0, len(all)-1).Draw(t, "updated")]
				if err := s.RemovePod(old); err != nil {
					t.Fatal(err)
				}
				if err := s.AddPod(piDrawPod(t, old.Name, randomNode())); err != nil {
					t.Fatal(err)
				}
			}
		case op == 7:
			snaps = append(snaps, s.Clone())
		case op == 8:
			nodeSeq++
			if err := s.AddNode(pdNode(fmt.Sprintf("n%d", nodeSeq), rapid.SampledFrom(zones).Draw(t, "zone"))); err != nil {
				t.Fatal(err)
			}
		case op == 9: // relabel a node
			if err := s.UpdateNode(pdNode(randomNode(), rapid.SampledFrom(zones).Draw(t, "zone"))); err != nil {
				t.Fatal(err)
			}
		default:
			if s.NumNodes() > 1 {
				if err := s.RemoveNode(randomNode()); err != nil {
					t.Fatal(err)
				}
			}
		}
		for k, sn := range snaps {
			for qi, q := range queries {
				brute := piBruteCount(sn, q)
				for _, key := range pdKeys {
					got := pdView(t, sn.PodDomainCounts(q, key))
					want := pdBrute(sn, key, func(i int, _ string) (int64, int64) { return int64(brute[i]), 0 })
					if fmt.Sprint(got) != fmt.Sprint(want) {
						t.Fatalf("snapshot %d query %d key %s: sums %v, recount %v", k, qi, key, got, want)
					}
				}
			}
			bruteGroups := piBruteGroups(sn)
			for _, g := range sn.AffinityGroups() {
				perNode := bruteGroups[piTermKey(g.Kind, g.Term)]
				got := pdView(t, sn.AffinityGroupDomainCounts(g))
				want := pdBrute(sn, g.Term.TopologyKey, func(_ int, name string) (int64, int64) {
					v := perNode[name]
					return v[0], v[1]
				})
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("snapshot %d group %s: sums %v, recount %v", k, piTermKey(g.Kind, g.Term), got, want)
				}
			}
		}
	}
}

// TestDomainCountsKeptNotRebuilt: a pod added after the sums were asked
// updates the same memo (no rebuild) on the snapshot that added it, while
// its clone keeps the sums it shared, unchanged.
func TestDomainCountsKeptNotRebuilt(t *testing.T) {
	s := MustSnapshot([]*api.Node{pdNode("a", "z1"), pdNode("b", "z1"), pdNode("c", "z2")}, nil, WithNamespaces(piNamespaces...))
	web := func(name, node string) *api.Pod {
		return &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, UID: name, Namespace: "a", Labels: map[string]string{"app": "web"}}, Spec: api.PodSpec{NodeName: node}}
	}
	if err := s.AddPod(web("p1", "a")); err != nil {
		t.Fatal(err)
	}
	q := piQueries()[1] // app=web in namespace a
	before := s.PodDomainCounts(q, "zone")
	clone := s.Clone()
	for _, p := range []*api.Pod{web("p2", "b"), web("p3", "c")} {
		if err := s.AddPod(p); err != nil {
			t.Fatal(err)
		}
	}
	after := s.PodDomainCounts(q, "zone")
	if got := after.Count; fmt.Sprint(got) != "[2 1]" || after.NonZero != 2 {
		t.Errorf("after two more pods: counts %v (NonZero %d), want [2 1] (2)", got, after.NonZero)
	}
	if again := s.PodDomainCounts(q, "zone"); again != after {
		t.Errorf("asked again without a change: a new DomainCounts, want the memo")
	}
	if got := clone.PodDomainCounts(q, "zone"); got != before || fmt.Sprint(got.Count) != "[1 0]" || got.NonZero != 1 {
		t.Errorf("clone: counts %v (NonZero %d, same memo %v), want the shared [1 0] (1)", got.Count, got.NonZero, got == before)
	}
}

// TestGroupDomainCountsWeighOnlyPreferredTerms: an affinity group's sums
// per domain carry weights for preferred terms, and none (nil) for
// required ones, whose terms weigh nothing; the counts are the same
// either way, and adding a pod keeps both right.
func TestGroupDomainCountsWeighOnlyPreferredTerms(t *testing.T) {
	s := MustSnapshot([]*api.Node{pdNode("a", "z1"), pdNode("b", "z1"), pdNode("c", "z2")}, nil, WithNamespaces(piNamespaces...))
	term := api.PodAffinityTerm{LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, TopologyKey: "zone"}
	web := func(name, node string) *api.Pod {
		return &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, UID: name, Namespace: "a", Labels: map[string]string{"app": "web"}},
			Spec: api.PodSpec{NodeName: node, Affinity: &api.Affinity{PodAntiAffinity: &api.PodAntiAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution:  []api.PodAffinityTerm{term},
				PreferredDuringSchedulingIgnoredDuringExecution: []api.WeightedPodAffinityTerm{{Weight: 30, PodAffinityTerm: term}},
			}}}}
	}
	for _, p := range []*api.Pod{web("p1", "a"), web("p2", "c")} {
		if err := s.AddPod(p); err != nil {
			t.Fatal(err)
		}
	}
	check := func(when string, wantCount, wantWeight string) {
		t.Helper()
		kinds := map[TermKind]bool{}
		for _, g := range s.AffinityGroups() {
			d := s.AffinityGroupDomainCounts(g)
			kinds[g.Kind] = true
			if got := fmt.Sprint(d.Count); got != wantCount {
				t.Errorf("%s: group of kind %d counts %s, want %s", when, g.Kind, got, wantCount)
			}
			switch g.Kind {
			case TermRequiredAntiAffinity:
				if d.Weight != nil {
					t.Errorf("%s: required group weights %v, want nil", when, d.Weight)
				}
			case TermPreferredAntiAffinity:
				if got := fmt.Sprint(d.Weight); got != wantWeight {
					t.Errorf("%s: preferred group weights %s, want %s", when, got, wantWeight)
				}
			}
		}
		if !kinds[TermRequiredAntiAffinity] || !kinds[TermPreferredAntiAffinity] {
			t.Fatalf("%s: groups of kinds %v, want a required and a preferred anti-affinity group", when, kinds)
		}
	}
	check("two pods", "[1 1]", "[30 30]")
	if err := s.AddPod(web("p3", "b")); err != nil {
		t.Fatal(err)
	}
	check("a third pod", "[2 1]", "[60 30]")
}

// TestPodDomainCountsByNodeShareTheCounts: for a key whose values are the
// nodes themselves (kubernetes.io/hostname here), PodDomainCounts shares
// the query's counts per node instead of copying them, and a pod added
// afterwards updates that same memo (counts, hits and the count of
// values held); a clone keeps what it shared when the original, which
// then copies its counts, changes.
func TestPodDomainCountsByNodeShareTheCounts(t *testing.T) {
	s := MustSnapshot([]*api.Node{pdNode("a", "z1"), pdNode("b", "z1"), pdNode("c", "z2")}, nil, WithNamespaces(piNamespaces...))
	web := func(name, node string) *api.Pod {
		return &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, UID: name, Namespace: "a", Labels: map[string]string{"app": "web"}}, Spec: api.PodSpec{NodeName: node}}
	}
	add := func(name, node string) {
		t.Helper()
		if err := s.AddPod(web(name, node)); err != nil {
			t.Fatal(err)
		}
	}
	check := func(when string, d *DomainCounts, counts string, nonZero int, hits string) {
		t.Helper()
		if fmt.Sprint(d.Count) != counts || d.NonZero != nonZero || fmt.Sprint(d.Hits()) != hits {
			t.Errorf("%s: counts %v, NonZero %d, hits %v; want %s, %d, %s", when, d.Count, d.NonZero, d.Hits(), counts, nonZero, hits)
		}
	}
	add("p1", "b")
	q := piQueries()[1] // app=web in namespace a
	const key = "kubernetes.io/hostname"
	if !s.TopologyValues(key).ByIndex {
		t.Fatalf("%s is not numbered by node", key)
	}
	d := s.PodDomainCounts(q, key)
	counts, bits := s.PodCountsBits(q)
	if &d.Count[0] != &counts[0] || &d.Hit[0] != &bits[0] {
		t.Errorf("the sums copy the counts per node, want them shared")
	}
	check("one pod on b", d, "[0 1 0]", 1, "[{1 1 0}]")
	add("p2", "b")
	add("p3", "c")
	if again := s.PodDomainCounts(q, key); again != d {
		t.Errorf("asked again after two pods: a new DomainCounts, want the memo updated")
	}
	check("three pods", d, "[0 2 1]", 2, "[{1 2 0} {2 1 0}]")
	clone := s.Clone()
	add("p4", "a")
	check("the original after a fourth pod", s.PodDomainCounts(q, key), "[1 2 1]", 3, "[{0 1 0} {1 2 0} {2 1 0}]")
	got := clone.PodDomainCounts(q, key)
	check("the clone", got, "[0 2 1]", 2, "[{1 2 0} {2 1 0}]")
	if got != d {
		t.Errorf("the clone's sums are new, want the ones it shared")
	}
}

// TestDomainCountsKeptHits: KeptHits builds nothing on its first call
// after the counts change, and on the second builds and keeps the hits,
// which a change drops.
func TestDomainCountsKeptHits(t *testing.T) {
	s := MustSnapshot([]*api.Node{pdNode("a", "z1"), pdNode("b", "z1"), pdNode("c", "z2")}, nil, WithNamespaces(piNamespaces...))
	add := func(i int, node string) {
		t.Helper()
		p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: fmt.Sprint("p", i), UID: fmt.Sprint("p", i), Namespace: "a", Labels: map[string]string{"app": "web"}}, Spec: api.PodSpec{NodeName: node}}
		if err := s.AddPod(p); err != nil {
			t.Fatal(err)
		}
	}
	add(0, "a")
	q := piQueries()[1] // app=web in namespace a
	d := s.PodDomainCounts(q, "zone")
	for round, want := range []string{"[{ID:0 Count:1 Weight:0}]", "[{ID:0 Count:1 Weight:0} {ID:1 Count:1 Weight:0}]", "[{ID:0 Count:1 Weight:0} {ID:1 Count:2 Weight:0}]"} {
		if h, ok := d.KeptHits(); ok {
			t.Fatalf("round %d: first KeptHits after a change kept %+v", round, h)
		}
		h, ok := d.KeptHits()
		if !ok || fmt.Sprintf("%+v", h) != want {
			t.Fatalf("round %d: second KeptHits %+v, %v; want %s", round, h, ok, want)
		}
		if again, ok := d.KeptHits(); !ok || &again[0] != &h[0] {
			t.Fatalf("round %d: third KeptHits %+v, %v; want the kept slice", round, again, ok)
		}
		add(round+1, "c")                // a change to the memo (or to its first copy)
		d = s.PodDomainCounts(q, "zone") // the memo, updated
	}
}

// TestDomainCountsConcurrentReaders: readers asking the same sums at the
// same time (plugins' PreScore on several workers) all get the sums a
// recount gives, and once they are done the memo answers: the first
// readers sum without holding the index's lock, then keep one result.
func TestDomainCountsConcurrentReaders(t *testing.T) {
	s := MustSnapshot([]*api.Node{pdNode("a", "z1"), pdNode("b", "z1"), pdNode("c", "z2")}, nil, WithNamespaces(piNamespaces...))
	for i, node := range []string{"a", "b", "c", "c"} {
		p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: fmt.Sprint("p", i), UID: fmt.Sprint("p", i), Namespace: "a", Labels: map[string]string{"app": "web"}}, Spec: api.PodSpec{NodeName: node}}
		if err := s.AddPod(p); err != nil {
			t.Fatal(err)
		}
	}
	q := piQueries()[1] // app=web in namespace a
	const readers = 8
	got := make([]*DomainCounts, readers)
	var wg sync.WaitGroup
	hits := make([][]DomainHit, readers)
	for i := range readers {
		wg.Go(func() { got[i] = s.PodDomainCounts(q, "zone") })
	}
	wg.Wait()
	for i, d := range got {
		if fmt.Sprint(d.Count) != "[2 2]" || d.NonZero != 2 {
			t.Errorf("reader %d: counts %v (NonZero %d), want [2 2] (2)", i, d.Count, d.NonZero)
		}
	}
	memo := s.PodDomainCounts(q, "zone")
	if again := s.PodDomainCounts(q, "zone"); again != memo {
		t.Errorf("asked again after the readers: a new DomainCounts, want the memo")
	}
	// The memo's hits, asked by all of them at once (computed by the
	// first callers, kept by one).
	for i := range readers {
		wg.Go(func() { hits[i] = memo.Hits() })
	}
	wg.Wait()
	for i, h := range hits {
		if fmt.Sprintf("%+v", h) != "[{ID:0 Count:2 Weight:0} {ID:1 Count:2 Weight:0}]" {
			t.Errorf("reader %d: hits %+v, want values 0 and 1 with 2 pods each", i, h)
		}
	}
}

// TestPodDomainCountsByNodeConcurrentReaders: readers of a snapshot and of
// its clone, which share the query's entry, ask for the sums by a key
// numbered by node and for the counts' bitmap all at once (run with
// -race): each gets the right sums, and the bitmap the snapshot then
// updates is the one its sums share, so a pod added afterwards shows in
// both while the clone's stay as they were.
func TestPodDomainCountsByNodeConcurrentReaders(t *testing.T) {
	s := MustSnapshot([]*api.Node{pdNode("a", "z1"), pdNode("b", "z1"), pdNode("c", "z2")}, nil, WithNamespaces(piNamespaces...))
	web := func(name, node string) *api.Pod {
		return &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, UID: name, Namespace: "a", Labels: map[string]string{"app": "web"}}, Spec: api.PodSpec{NodeName: node}}
	}
	for i, node := range []string{"a", "c", "c"} {
		if err := s.AddPod(web(fmt.Sprint("p", i), node)); err != nil {
			t.Fatal(err)
		}
	}
	q := piQueries()[1] // app=web in namespace a
	const key = "kubernetes.io/hostname"
	s.PodCounts(q) // the entry, shared by the clone below
	clone := s.Clone()
	const readers = 8
	got := make([]*DomainCounts, 2*readers)
	var wg sync.WaitGroup
	for i := range readers {
		for j, sn := range []*Snapshot{s, clone} {
			wg.Go(func() {
				if i%2 == 0 {
					sn.PodCountsBits(q)
				}
				got[2*i+j] = sn.PodDomainCounts(q, key)
			})
		}
	}
	wg.Wait()
	for i, d := range got {
		if fmt.Sprint(d.Count) != "[1 0 2]" || d.NonZero != 2 || fmt.Sprint(d.Hit) != "[5]" {
			t.Errorf("reader %d: counts %v, NonZero %d, hit %v; want [1 0 2], 2, [5]", i, d.Count, d.NonZero, d.Hit)
		}
	}
	d := s.PodDomainCounts(q, key)
	if err := s.AddPod(web("p3", "b")); err != nil {
		t.Fatal(err)
	}
	after := s.PodDomainCounts(q, key)
	_, bits := s.PodCountsBits(q)
	if fmt.Sprint(after.Count) != "[1 1 2]" || after.NonZero != 3 || fmt.Sprint(after.Hit) != "[7]" || &after.Hit[0] != &bits[0] {
		t.Errorf("after a pod on b: counts %v, NonZero %d, hit %v (shared with the bitmap: %v)", after.Count, after.NonZero, after.Hit, &after.Hit[0] == &bits[0])
	}
	if got := clone.PodDomainCounts(q, key); fmt.Sprint(got.Count) != "[1 0 2]" || got.NonZero != 2 || fmt.Sprint(got.Hit) != "[5]" {
		t.Errorf("clone after the original changed: counts %v, NonZero %d, hit %v", got.Count, got.NonZero, got.Hit)
	}
	if fmt.Sprint(d.Count) != "[1 0 2]" {
		t.Errorf("sums the original shared with its clone changed: %v", d.Count)
	}
}

// TestSmallGroupSumsHeldAsHits: the sums of an affinity group on a few
// nodes of a key with many more values are held as Hits alone, no array
// a value, and a group on more nodes gets the arrays; after a pod joins
// the group the sums are summed again, while a clone taken before keeps
// the ones it shared.
func TestSmallGroupSumsHeldAsHits(t *testing.T) {
	nodes := testNodes(4 * sparseGroupSpread)
	s := MustSnapshot(nodes, nil, WithNamespaces(piNamespaces...))
	term := api.PodAffinityTerm{LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, TopologyKey: "kubernetes.io/hostname"}
	web := func(name, node string) *api.Pod {
		return &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, UID: name, Namespace: "a", Labels: map[string]string{"app": "web"}},
			Spec: api.PodSpec{NodeName: node, Affinity: &api.Affinity{PodAntiAffinity: &api.PodAntiAffinity{
				PreferredDuringSchedulingIgnoredDuringExecution: []api.WeightedPodAffinityTerm{{Weight: 30, PodAffinityTerm: term}},
			}}}}
	}
	sums := func(s *Snapshot) (*DomainCounts, string) {
		t.Helper()
		groups := s.AffinityGroups()
		if len(groups) != 1 {
			t.Fatalf("%d groups, want 1", len(groups))
		}
		d := s.AffinityGroupDomainCounts(groups[0])
		var out []string
		d.EachCount(func(id, count int32, weight int64) {
			out = append(out, fmt.Sprintf("%s:%d/%d", d.Values.Values[id], count, weight))
		})
		return d, fmt.Sprint(out)
	}
	for i, node := range []string{"n9", "n3", "n9"} {
		if err := s.AddPod(web(fmt.Sprintf("p%d", i), node)); err != nil {
			t.Fatal(err)
		}
	}
	d, got := sums(s)
	if d.Count != nil || d.Weight != nil {
		t.Errorf("a group on 2 of %d nodes: counts %d and weights %d a value, want its Hits alone", len(nodes), len(d.Count), len(d.Weight))
	}
	if want := "[n3:1/30 n9:2/60]"; got != want || d.NonZero != 2 {
		t.Errorf("sums %s (NonZero %d), want %s", got, d.NonZero, want)
	}
	clone := s.Clone()
	if err := s.AddPod(web("p3", "n20")); err != nil {
		t.Fatal(err)
	}
	if _, got := sums(s); got != "[n3:1/30 n9:2/60 n20:1/30]" {
		t.Errorf("after a pod joined: sums %s", got)
	}
	if cd, got := sums(clone); cd != d || got != "[n3:1/30 n9:2/60]" {
		t.Errorf("the clone's sums %s (the same memo: %v), want the ones it shared", got, cd == d)
	}
	// On more nodes than a sixteenth of the values (sparseGroupSpread):
	// the arrays.
	for i := range sparseGroupSpread {
		if err := s.AddPod(web(fmt.Sprintf("q%d", i), fmt.Sprintf("n%d", 30+i))); err != nil {
			t.Fatal(err)
		}
	}
	if d, _ := sums(s); len(d.Count) != len(nodes) || len(d.Weight) != len(nodes) {
		t.Errorf("a group on %d of %d nodes: counts %d and weights %d a value, want the arrays", 3+sparseGroupSpread, len(nodes), len(d.Count), len(d.Weight))
	}
}
