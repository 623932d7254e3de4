package framework

import (
	"fmt"
	"testing"
	"time"

	"github.com/schedkit/schedkit/framework/api"
	"pgregory.net/rapid"
)

// manyQueries is a set of distinct queries larger than the memo holds on a
// small cluster (podIndexEntries(n) = podIndexMaxEntries there is 1024,
// so the tests lower nothing: they ask more than slotIndexMin of them and
// evict through podIndexEntries' own bound where they need to). It mixes
// queries with In requirements on one or two keys (listed by pair in the
// slot index), queries without any (listed apart: Exists, NotIn,
// everything), and queries that match nothing (not listed).
func manyQueries() []PodQuery {
	in := func(key string, vals ...string) api.Selector {
		return piSel(&api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: key, Operator: api.LabelSelectorOpIn, Values: vals}}})
	}
	teamX := piSel(&api.LabelSelector{MatchLabels: map[string]string{"team": "x"}})
	var qs []PodQuery
	for i := range 60 {
		qs = append(qs, PodQuery{Terms: []PodTerm{{Namespaces: []string{[]string{"a", "b", "c"}[i/20]}, NamespaceSelector: api.NothingSelector(),
			Selector: in("app", fmt.Sprintf("w%d", i%20))}}})
	}
	for i := range 30 {
		sel := in("tier", fmt.Sprintf("t%d", i%5), fmt.Sprintf("t%d", (i+1)%5))
		nsSel := teamX
		if i%3 == 0 {
			nsSel = api.Selector{}
		}
		qs = append(qs, PodQuery{Terms: []PodTerm{{NamespaceSelector: nsSel, Selector: sel}}, SkipTerminating: i%2 == 0})
	}
	for i := range 20 {
		var sel api.Selector
		switch i % 3 {
		case 0:
			sel = piSel(&api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "app", Operator: api.LabelSelectorOpNotIn, Values: []string{fmt.Sprintf("w%d", i)}}}})
		case 1:
			sel = piSel(&api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "rev", Operator: api.LabelSelectorOpExists}}})
		}
		qs = append(qs, PodQuery{Terms: []PodTerm{{Namespaces: []string{"a", "c"}[i%2:], NamespaceSelector: api.NothingSelector(), Selector: sel}}, SkipTerminating: i >= 10})
	}
	for i := range 10 {
		// Two terms: In on app in the first, on tier in the second.
		qs = append(qs, PodQuery{Terms: []PodTerm{
			{Namespaces: []string{"a"}, NamespaceSelector: teamX, Selector: in("app", fmt.Sprintf("w%d", i), fmt.Sprintf("w%d", i+1), fmt.Sprintf("w%d", i+2))},
			{NamespaceSelector: api.Selector{}, Selector: in("tier", fmt.Sprintf("t%d", i%5))},
		}})
	}
	qs = append(qs,
		PodQuery{Terms: []PodTerm{{Namespaces: []string{"a"}, NamespaceSelector: api.NothingSelector(), Selector: api.NothingSelector()}}},
		PodQuery{})
	return qs
}

// manyClassesPod draws a pod whose labels come from a space of many label
// classes (app, tier and a revision), so that pods of classes the index
// has not met keep arriving.
func manyClassesPod(t *rapid.T, name, node string) *api.Pod {
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, UID: name, Namespace: rapid.SampledFrom([]string{"a", "b", "c"}).Draw(t, "ns"),
		Labels: map[string]string{}}, Spec: api.PodSpec{NodeName: node}}
	if app := rapid.IntRange(-1, 21).Draw(t, "app"); app >= 0 {
		p.Labels["app"] = fmt.Sprintf("w%d", app)
	}
	if tier := rapid.IntRange(-1, 4).Draw(t, "tier"); tier >= 0 {
		p.Labels["tier"] = fmt.Sprintf("t%d", tier)
	}
	if rev := rapid.IntRange(-1, 40).Draw(t, "rev"); rev >= 0 {
		p.Labels["rev"] = fmt.Sprint(rev)
	}
	if rapid.IntRange(0, 5).Draw(t, "terminating") == 0 {
		ts := time.Unix(1, 0)
		p.DeletionTimestamp = &ts
	}
	return p
}

// TestPropPodIndexManyQueriesMatchRecount: with more memoized queries than
// slotIndexMin, pods of label classes met and not met before coming and
// going, and clones taken on the way, every memoized PodCounts entry of
// every snapshot equals a brute-force recount. The classes' lists of
// matching entries (built from the slot index, brought up to date with
// the entries added and evicted since) are what keeps the counts exact.
func TestPropPodIndexManyQueriesMatchRecount(t *testing.T) {
	queries := manyQueries()
	rapid.Check(t, func(t *rapid.T) {
		nodes := testNodes(rapid.IntRange(1, 3).Draw(t, "nodes"))
		s0 := MustSnapshot(nodes, nil, WithNamespaces(piNamespaces...))
		snaps := []*Snapshot{s0}
		podSeq := 0
		check := func() {
			for k, sn := range snaps {
				piCheckCounts(t, fmt.Sprintf("snapshot %d", k), sn, queries)
			}
		}
		for range rapid.IntRange(1, 60).Draw(t, "ops") {
			s := snaps[rapid.IntRange(0, len(snaps)-1).Draw(t, "snap")]
			switch op := rapid.IntRange(0, 9).Draw(t, "op"); {
			case op <= 4:
				node := s.Nodes()[rapid.IntRange(0, s.NumNodes()-1).Draw(t, "node")].Name()
				// Copies of one pod, as a template's replicas come.
				p := manyClassesPod(t, "", node)
				for range rapid.IntRange(1, 3).Draw(t, "copies") {
					podSeq++
					c := *p
					c.Name, c.UID = fmt.Sprintf("p%d", podSeq), fmt.Sprintf("p%d", podSeq)
					if err := s.AddPod(&c); err != nil {
						t.Fatal(err)
					}
				}
			case op <= 6:
				piRemoveAny(t, s)
			case op <= 8: // a burst of queries, new and memoized
				for range rapid.IntRange(1, 40).Draw(t, "burst") {
					s.PodCounts(queries[rapid.IntRange(0, len(queries)-1).Draw(t, "query")])
				}
			default:
				snaps = append(snaps, s.Clone())
			}
			check()
		}
	})
}

// TestPodIndexClassSlotsThroughIndexAndEviction walks one sequence that
// takes every path of matchingSlotsLocked on purpose: a class met before
// more than slotIndexMin entries exist (its list brought up to date by the
// slot index), a class first met after them (its list built from the
// index: pairs and entries listed apart), and entries evicted after the
// lists were built (dropped from them). The counts must equal a recount
// after each step, and the index must have been built.
func TestPodIndexClassSlotsThroughIndexAndEviction(t *testing.T) {
	nodes := testNodes(2)
	s := MustSnapshot(nodes, nil, WithNamespaces(piNamespaces...))
	queries := manyQueries()
	pod := func(name, node string, labels map[string]string) *api.Pod {
		return &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, UID: name, Namespace: "a", Labels: labels}, Spec: api.PodSpec{NodeName: node}}
	}
	check := func(step string) {
		t.Helper()
		piCheckCounts(t, step+":", s, queries)
	}
	early := map[string]string{"app": "w3", "tier": "t1", "rev": "1"}
	if err := s.AddPod(pod("e0", "n0", early)); err != nil {
		t.Fatal(err)
	}
	for i := range queries {
		s.PodCounts(queries[i])
	}
	if s.podIdx.slotIx != nil {
		t.Fatal("slot index built before any class needed it")
	}
	// The early class's list was built from no entry: it is behind by
	// every query since, and is brought up through the index.
	if err := s.AddPod(pod("e1", "n1", early)); err != nil {
		t.Fatal(err)
	}
	check("early class after the queries")
	if s.podIdx.slotIx == nil {
		t.Fatal("slot index not built for a class behind by every entry")
	}
	// Classes never met: their lists are built from the index.
	for i, l := range []map[string]string{
		{"app": "w4", "tier": "t2"},
		{"rev": "7"},
		{},
		{"app": "w5", "tier": "t0", "rev": "2"},
	} {
		if err := s.AddPod(pod(fmt.Sprintf("n%d", i), "n0", l)); err != nil {
			t.Fatal(err)
		}
		check(fmt.Sprintf("new class %v", l))
	}
	// Evict every entry but the most recent: the classes' lists drop
	// them, and the entries built again count from scratch.
	x := &s.podIdx
	x.mu.Lock()
	for len(x.slots) > 1 {
		x.evictLocked()
	}
	x.mu.Unlock()
	for _, p := range []*api.Pod{pod("e2", "n0", early), pod("n9", "n1", map[string]string{"app": "w4", "tier": "t2"})} {
		if err := s.AddPod(p); err != nil {
			t.Fatal(err)
		}
	}
	for i := range queries {
		s.PodCounts(queries[i])
	}
	check("after evictions")
	if err := s.RemovePod(pod("e1", "n1", early)); err != nil {
		t.Fatal(err)
	}
	check("after a removal")
}
