package framework

import (
	"fmt"
	"slices"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/schedkit/schedkit/framework/api"
	"pgregory.net/rapid"
)

// piNamespaces are the namespaces of the pod index tests, with labels for
// namespace selectors.
var piNamespaces = []api.Namespace{
	{Name: "a", Labels: map[string]string{"team": "x"}},
	{Name: "b", Labels: map[string]string{"team": "y"}},
	{Name: "c", Labels: map[string]string{"team": "x", "env": "prod"}},
}

func piSel(ls *api.LabelSelector) api.Selector {
	s, err := ls.Compile()
	if err != nil {
		panic(err)
	}
	return s
}

// piQueries is a fixed set of queries covering single and several
// namespaces, namespace selectors (nothing, everything, by labels), label
// selectors (nothing, everything, In, NotIn, Exists), conjunctions and
// terminating pods.
func piQueries() []PodQuery {
	app := func(v ...string) api.Selector {
		return piSel(&api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "app", Operator: api.LabelSelectorOpIn, Values: v}}})
	}
	teamX := piSel(&api.LabelSelector{MatchLabels: map[string]string{"team": "x"}})
	return []PodQuery{
		{Terms: []PodTerm{{Namespaces: []string{"a"}, NamespaceSelector: api.NothingSelector(), Selector: app("web")}}, SkipTerminating: true},
		{Terms: []PodTerm{{Namespaces: []string{"a"}, NamespaceSelector: api.NothingSelector(), Selector: app("web")}}},
		{Terms: []PodTerm{{Namespaces: []string{"b", "a"}, NamespaceSelector: api.NothingSelector(), Selector: app("web", "db")}}},
		{Terms: []PodTerm{{NamespaceSelector: teamX, Selector: app("db")}}},
		{Terms: []PodTerm{{Namespaces: []string{"b"}, NamespaceSelector: teamX, Selector: api.Selector{}}}},
		{Terms: []PodTerm{{NamespaceSelector: api.Selector{}, Selector: piSel(&api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "tier", Operator: api.LabelSelectorOpExists}}})}}},
		{Terms: []PodTerm{{NamespaceSelector: api.Selector{}, Selector: piSel(&api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "app", Operator: api.LabelSelectorOpNotIn, Values: []string{"web"}}}})}}},
		{Terms: []PodTerm{{Namespaces: []string{"a"}, NamespaceSelector: api.NothingSelector(), Selector: api.NothingSelector()}}},
		{Terms: []PodTerm{
			{Namespaces: []string{"a", "c"}, NamespaceSelector: api.NothingSelector(), Selector: app("web", "cache")},
			{NamespaceSelector: teamX, Selector: piSel(&api.LabelSelector{MatchLabels: map[string]string{"tier": "front"}})},
		}, SkipTerminating: true},
		{}, // no terms: nothing
	}
}

// piBruteCount recounts q on every node of s from scratch, with the
// matching rules written out independently of podMatcher.
func piBruteCount(s *Snapshot, q PodQuery) []int32 {
	out := make([]int32, s.NumNodes())
	for i, ni := range s.Nodes() {
		for _, pi := range ni.Pods {
			p := pi.Pod
			if len(q.Terms) == 0 || q.SkipTerminating && p.DeletionTimestamp != nil {
				continue
			}
			ok := true
			for _, t := range q.Terms {
				listed := false
				for _, n := range t.Namespaces {
					listed = listed || n == p.Namespace
				}
				if !listed && !t.NamespaceSelector.Matches(s.NamespaceLabels(p.Namespace)) {
					ok = false
				}
				if !t.Selector.Matches(p.Labels) {
					ok = false
				}
			}
			if ok {
				out[i]++
			}
		}
	}
	return out
}

// piFatal is what the pod index checks need of a test: *testing.T and
// *rapid.T both are one.
type piFatal interface {
	Helper()
	Fatalf(format string, args ...any)
}

// piCheckCounts fails unless every query of queries that s memoizes has
// the counts piBruteCount recounts; what names s in the failure.
func piCheckCounts(t piFatal, what string, s *Snapshot, queries []PodQuery) {
	t.Helper()
	for qi, q := range queries {
		if !s.podCountsCached(q) {
			continue
		}
		want := piBruteCount(s, q)
		if got := s.PodCounts(q); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%s query %d: memo %v, recount %v", what, qi, got, want)
		}
		// The bitmap kept beside the counts, once built, marks exactly
		// the nodes whose recount is not zero.
		s.podIdx.mu.Lock()
		sl := s.podIdx.slots[string(q.appendKey(nil))]
		s.podIdx.mu.Unlock()
		if p := sl.e.nonZero.Load(); p != nil {
			if got, wantBits := fmt.Sprint(*p), fmt.Sprint(piNonZero(want)); got != wantBits {
				t.Fatalf("%s query %d: kept bitmap %v, recount's %v (recount %v)", what, qi, got, wantBits, want)
			}
		}
	}
}

// piNonZero is the bitmap of the non-zero entries of counts.
func piNonZero(counts []int32) []uint64 {
	nz := make([]uint64, (len(counts)+63)/64)
	for i, c := range counts {
		if c != 0 {
			nz[i/64] |= 1 << (i % 64)
		}
	}
	return nz
}

// piRemoveAny removes one of s's pods, drawn, and reports whether s had
// any.
func piRemoveAny(t *rapid.T, s *Snapshot) bool {
	var all []*api.Pod
	for _, ni := range s.Nodes() {
		for _, pi := range ni.Pods {
			all = append(all, pi.Pod)
		}
	}
	if len(all) == 0 {
		return false
	}
	if err := s.RemovePod(all[rapid.IntRange(0, len(all)-1).Draw(t, "victim")]); err != nil {
		t.Fatal(err)
	}
	return true
}

// piGroupView renders affinity groups as kind/term → node name → count and
// weight, so that memo and brute force compare independently of order.
func piGroupView(s *Snapshot, groups []*AffinityGroup) map[string]map[string][2]int64 {
	out := map[string]map[string][2]int64{}
	for _, g := range groups {
		if len(g.Nodes) != len(g.Count) || len(g.Nodes) != len(g.Weight) {
			panic("ragged group")
		}
		k := piTermKey(g.Kind, g.Term)
		if out[k] != nil {
			panic("duplicate group " + k)
		}
		m := map[string][2]int64{}
		for j, n := range g.Nodes {
			m[s.Nodes()[n].Name()] = [2]int64{int64(g.Count[j]), g.Weight[j]}
		}
		out[k] = m
	}
	return out
}

func piTermKey(kind TermKind, t *AffinityTerm) string {
	ns := make([]string, 0, len(t.Namespaces))
	for n := range t.Namespaces {
		ns = append(ns, n)
	}
	sort.Strings(ns)
	return fmt.Sprintf("%d|%s|%v|%#v|%#v", kind, t.TopologyKey, ns, t.NamespaceSelector, t.Selector)
}

func piBruteGroups(s *Snapshot) map[string]map[string][2]int64 {
	out := map[string]map[string][2]int64{}
	add := func(kind TermKind, t *AffinityTerm, w int32, node string) {
		k := piTermKey(kind, t)
		if out[k] == nil {
			out[k] = map[string][2]int64{}
		}
		v := out[k][node]
		out[k][node] = [2]int64{v[0] + 1, v[1] + int64(w)}
	}
	for _, ni := range s.Nodes() {
		for _, pi := range ni.Pods {
			for i := range pi.RequiredAffinityTerms {
				add(TermRequiredAffinity, &pi.RequiredAffinityTerms[i], 0, ni.Name())
			}
			for i := range pi.RequiredAntiAffinityTerms {
				add(TermRequiredAntiAffinity, &pi.RequiredAntiAffinityTerms[i], 0, ni.Name())
			}
			for i := range pi.PreferredAffinityTerms {
				add(TermPreferredAffinity, &pi.PreferredAffinityTerms[i].AffinityTerm, pi.PreferredAffinityTerms[i].Weight, ni.Name())
			}
			for i := range pi.PreferredAntiAffinityTerms {
				add(TermPreferredAntiAffinity, &pi.PreferredAntiAffinityTerms[i].AffinityTerm, pi.PreferredAntiAffinityTerms[i].Weight, ni.Name())
			}
		}
	}
	return out
}

// piDrawPod draws a pod in one of the test namespaces with labels from a
// small set, sometimes terminating, sometimes with affinity terms.
func piDrawPod(t *rapid.T, name, node string) *api.Pod {
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, UID: name, Namespace: rapid.SampledFrom([]string{"a", "b", "c"}).Draw(t, "ns"),
		Labels: map[string]string{}}, Spec: api.PodSpec{NodeName: node}}
	if app := rapid.SampledFrom([]string{"", "web", "db", "cache"}).Draw(t, "app"); app != "" {
		p.Labels["app"] = app
	}
	if tier := rapid.SampledFrom([]string{"", "front", "back"}).Draw(t, "tier"); tier != "" {
		p.Labels["tier"] = tier
	}
	if rapid.IntRange(0, 4).Draw(t, "terminating") == 0 {
		ts := time.Unix(1, 0)
		p.DeletionTimestamp = &ts
	}
	term := func() api.PodAffinityTerm {
		pt := api.PodAffinityTerm{TopologyKey: rapid.SampledFrom([]string{"kubernetes.io/hostname", "zone"}).Draw(t, "key"),
			LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"app": rapid.SampledFrom([]string{"web", "db"}).Draw(t, "selApp")}}}
		switch rapid.IntRange(0, 2).Draw(t, "nsKind") {
		case 1:
			pt.Namespaces = []string{"a", "b"}
		case 2:
			pt.NamespaceSelector = &api.LabelSelector{MatchLabels: map[string]string{"team": "x"}}
		}
		return pt
	}
	if rapid.Bool().Draw(t, "hasAffinity") {
		a := &api.Affinity{PodAffinity: &api.PodAffinity{}, PodAntiAffinity: &api.PodAntiAffinity{}}
		for range rapid.IntRange(0, 2).Draw(t, "nReqAff") {
			a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution, term())
		}
		for range rapid.IntRange(0, 2).Draw(t, "nReqAnti") {
			a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution = append(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution, term())
		}
		for range rapid.IntRange(0, 2).Draw(t, "nPrefAff") {
			a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution = append(a.PodAffinity.PreferredDuringSchedulingIgnoredDuringExecution,
				api.WeightedPodAffinityTerm{Weight: rapid.Int32Range(1, 100).Draw(t, "w"), PodAffinityTerm: term()})
		}
		for range rapid.IntRange(0, 2).Draw(t, "nPrefAnti") {
			a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution = append(a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution,
				api.WeightedPodAffinityTerm{Weight: rapid.Int32Range(1, 100).Draw(t, "w"), PodAffinityTerm: term()})
		}
		p.Spec.Affinity = a
	}
	return p
}

// TestPropPodIndexMatchesRecount: after any sequence of AddPod, RemovePod,
// AddNode, RemoveNode, UpdateNode and Clone on any of the live snapshots
// (forks included), every memoized PodCounts entry and the affinity groups
// of every snapshot equal a brute-force recount of that snapshot: no count
// leaks between a snapshot and its clones.
func TestPropPodIndexMatchesRecount(t *testing.T) {
	queries := piQueries()
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 4).Draw(t, "nodes")
		if rapid.IntRange(0, 3).Draw(t, "many nodes") == 0 {
			n = rapid.IntRange(65, 140).Draw(t, "nodes, several bitmap words")
		}
		nodes := testNodes(n)
		s0 := MustSnapshot(nodes, nil, WithNamespaces(piNamespaces...))
		snaps := []*Snapshot{s0}
		podSeq, nodeSeq := 0, len(nodes)
		for range rapid.IntRange(1, 40).Draw(t, "ops") {
			s := snaps[rapid.IntRange(0, len(snaps)-1).Draw(t, "snap")]
			switch op := rapid.IntRange(0, 10).Draw(t, "op"); {
			case op <= 3: // add a pod
				if s.NumNodes() == 0 {
					continue
				}
				node := s.Nodes()[rapid.IntRange(0, s.NumNodes()-1).Draw(t, "node")].Name()
				podSeq++
				if err := s.AddPod(piDrawPod(t, fmt.Sprintf("p%d", podSeq), node)); err != nil {
					t.Fatal(err)
				}
			case op <= 5: // remove a pod
				piRemoveAny(t, s)
			case op == 6: // query (creates the memo entry)
				q := queries[rapid.IntRange(0, len(queries)-1).Draw(t, "query")]
				if rapid.Bool().Draw(t, "with bitmap") {
					counts, nz := s.PodCountsBits(q)
					if got, want := fmt.Sprint(nz), fmt.Sprint(piNonZero(counts)); got != want {
						t.Fatalf("PodCountsBits: bitmap %v, of its counts %v", got, want)
					}
				} else {
					s.PodCounts(q)
				}
				if rapid.Bool().Draw(t, "groups") {
					s.AffinityGroups()
				}
			case op == 7:
				snaps = append(snaps, s.Clone())
			case op == 8:
				nodeSeq++
				if err := s.AddNode(&api.Node{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("n%d", nodeSeq), Labels: map[string]string{}}}); err != nil {
					t.Fatal(err)
				}
			case op == 9:
				if s.NumNodes() <= 1 {
					continue
				}
				name := s.Nodes()[rapid.IntRange(0, s.NumNodes()-1).Draw(t, "gone")].Name()
				if err := s.RemoveNode(name); err != nil {
					t.Fatal(err)
				}
			default: // a node removed and put back, as an undo journal does
				if s.NumNodes() <= 1 {
					continue
				}
				name := s.Nodes()[rapid.IntRange(0, s.NumNodes()-1).Draw(t, "kept")].Name()
				r, err := s.RemoveNodeKept(name)
				if err != nil {
					t.Fatal(err)
				}
				piCheckCounts(t, "after RemoveNodeKept", s, queries)
				// A bitmap built in between must not outlive the
				// renumbering the restore brings.
				s.PodCountsBits(queries[rapid.IntRange(0, len(queries)-1).Draw(t, "query before restore")])
				if err := s.RestoreNode(r); err != nil {
					t.Fatal(err)
				}
				q := queries[rapid.IntRange(0, len(queries)-1).Draw(t, "query after restore")]
				if counts, nz := s.PodCountsBits(q); fmt.Sprint(nz) != fmt.Sprint(piNonZero(piBruteCount(s, q))) {
					t.Fatalf("after RestoreNode: bitmap %v, recount's %v (counts %v)", nz, piNonZero(piBruteCount(s, q)), counts)
				}
			}
			for k, sn := range snaps {
				piCheckCounts(t, fmt.Sprintf("snapshot %d", k), sn, queries)
				if sn.podIdx.groups != nil {
					got, want := piGroupView(sn, sn.AffinityGroups()), piBruteGroups(sn)
					if fmt.Sprint(got) != fmt.Sprint(want) {
						t.Fatalf("snapshot %d groups:\nmemo    %v\nrecount %v", k, got, want)
					}
				}
			}
		}
	})
}

// TestPodIndexEviction: more distinct queries than the memo holds evict
// the least recently used eighth at a time, and every answer stays exact.
func TestPodIndexEviction(t *testing.T) {
	nodes := testNodes(3)
	var pods []*api.Pod
	for i := range 30 {
		pods = append(pods, &api.Pod{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("p%d", i), UID: fmt.Sprintf("p%d", i), Namespace: "a",
			Labels: map[string]string{"v": fmt.Sprint(i % 7)}}, Spec: api.PodSpec{NodeName: nodes[i%3].Name}})
	}
	s := MustSnapshot(nodes, pods)
	q := func(i int) PodQuery {
		return PodQuery{Terms: []PodTerm{{Namespaces: []string{"a"}, NamespaceSelector: api.NothingSelector(),
			Selector: piSel(&api.LabelSelector{MatchLabels: map[string]string{"v": fmt.Sprint(i)}})}}}
	}
	for i := range podIndexEntries(3) + 10 {
		if got, want := s.PodCounts(q(i)), piBruteCount(s, q(i)); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("query %d: %v, want %v", i, got, want)
		}
		if i == 0 || i == 5 {
			continue
		}
		s.PodCounts(q(0)) // keep query 0 recent
	}
	// One eviction when the memo was full dropped an eighth; the ten
	// queries since filled it up to ten more than that.
	full := podIndexEntries(3)
	if n, want := len(s.podIdx.slots), full-full/evictShare+10; n != want {
		t.Fatalf("memo holds %d entries, want %d", n, want)
	}
	if !s.podCountsCached(q(0)) {
		t.Error("the most recently used query was evicted")
	}
	for i := 1; i <= full/evictShare; i++ {
		if s.podCountsCached(q(i)) {
			t.Errorf("query %d, among the least recently used eighth, was kept", i)
		}
	}
	if !s.podCountsCached(q(full/evictShare + 2)) {
		t.Errorf("query %d, after the least recently used eighth, was evicted", full/evictShare+2)
	}
	// Exact after mutations too (evicted queries are rebuilt).
	if err := s.RemovePod(pods[0]); err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 1, 7} {
		if got, want := s.PodCounts(q(i)), piBruteCount(s, q(i)); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("after RemovePod, query %d: %v, want %v", i, got, want)
		}
	}
}

// TestPodIndexWorkedExample counts by hand: web pods of namespace a, with a
// terminating one excluded or not, and one affinity group.
func TestPodIndexWorkedExample(t *testing.T) {
	nodes := testNodes(3)
	ts := time.Unix(1, 0)
	anti := &api.Affinity{PodAntiAffinity: &api.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []api.WeightedPodAffinityTerm{
		{Weight: 7, PodAffinityTerm: api.PodAffinityTerm{TopologyKey: "zone", LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}}}}}
	mk := func(name, ns, node, app string, del bool, aff *api.Affinity) *api.Pod {
		p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, UID: name, Namespace: ns, Labels: map[string]string{"app": app}},
			Spec: api.PodSpec{NodeName: node, Affinity: aff}}
		if del {
			p.DeletionTimestamp = &ts
		}
		return p
	}
	pods := []*api.Pod{
		mk("w1", "a", "n0", "web", false, anti), mk("w2", "a", "n0", "web", true, anti), mk("w3", "b", "n0", "web", false, nil),
		mk("w4", "a", "n2", "web", false, anti), mk("d1", "a", "n2", "db", false, nil),
	}
	s := MustSnapshot(nodes, pods, WithNamespaces(piNamespaces...))
	web := piSel(&api.LabelSelector{MatchLabels: map[string]string{"app": "web"}})
	q := PodQuery{Terms: []PodTerm{{Namespaces: []string{"a"}, NamespaceSelector: api.NothingSelector(), Selector: web}}}
	if got := fmt.Sprint(s.PodCounts(q)); got != "[2 0 1]" {
		t.Errorf("web pods of a per node = %s, want [2 0 1]", got)
	}
	q.SkipTerminating = true
	if got := fmt.Sprint(s.PodCounts(q)); got != "[1 0 1]" {
		t.Errorf("live web pods of a per node = %s, want [1 0 1]", got)
	}
	gs := s.AffinityGroups()
	if len(gs) != 1 || gs[0].Kind != TermPreferredAntiAffinity {
		t.Fatalf("groups = %d, want one preferred anti-affinity group", len(gs))
	}
	if got := fmt.Sprint(piGroupView(s, gs)); got != "map["+piTermKey(TermPreferredAntiAffinity, gs[0].Term)+":map[n0:[2 14] n2:[1 7]]]" {
		t.Errorf("group view %s", got)
	}
	// A fork sees its own changes only.
	c := s.Clone()
	if err := c.RemovePod(pods[0]); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(c.PodCounts(q)); got != "[0 0 1]" {
		t.Errorf("clone after removing w1: %s, want [0 0 1]", got)
	}
	if got := fmt.Sprint(s.PodCounts(q)); got != "[1 0 1]" {
		t.Errorf("original after the clone removed w1: %s, want [1 0 1]", got)
	}
	if got := fmt.Sprint(piGroupView(c, c.AffinityGroups())); got != "map["+piTermKey(TermPreferredAntiAffinity, gs[0].Term)+":map[n0:[1 7] n2:[1 7]]]" {
		t.Errorf("clone group view %s", got)
	}
	if got := fmt.Sprint(piGroupView(s, s.AffinityGroups())); got != "map["+piTermKey(TermPreferredAntiAffinity, gs[0].Term)+":map[n0:[2 14] n2:[1 7]]]" {
		t.Errorf("original group view after the clone changed %s", got)
	}
}

// TestPodIndexConcurrentReaders: cycles sharing a snapshot build and read
// entries at once (run with -race).
func TestPodIndexConcurrentReaders(t *testing.T) {
	nodes := testNodes(5)
	var pods []*api.Pod
	for i := range 40 {
		pods = append(pods, &api.Pod{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("p%d", i), UID: fmt.Sprintf("p%d", i), Namespace: "a",
			Labels: map[string]string{"app": []string{"web", "db"}[i%2]}}, Spec: api.PodSpec{NodeName: nodes[i%5].Name}})
	}
	s0 := MustSnapshot(nodes, pods, WithNamespaces(piNamespaces...))
	queries := piQueries()
	// A clone shares the entries kept so far: readers of the two
	// snapshots read them at once.
	for _, q := range queries {
		s0.PodCountsBits(q)
	}
	snaps := []*Snapshot{s0, s0.Clone()}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := snaps[g%2]
			for i := range 50 {
				q := queries[(g+i)%len(queries)]
				if got, want := s.PodCounts(q), piBruteCount(s, q); fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("concurrent read: %v, want %v", got, want)
					return
				}
				if counts, nz := s.PodCountsBits(q); fmt.Sprint(nz) != fmt.Sprint(piNonZero(counts)) {
					t.Errorf("concurrent read: bitmap %v, of its counts %v", nz, piNonZero(counts))
					return
				}
				s.AffinityGroups()
				if d := s.PodDomainCounts(q, "kubernetes.io/hostname"); d.NonZero != len(slices.DeleteFunc(piBruteCount(s, q), func(n int32) bool { return n == 0 })) {
					t.Errorf("concurrent read: %d domains with pods, want the nodes with pods", d.NonZero)
					return
				}
			}
		}()
	}
	wg.Wait()
}
