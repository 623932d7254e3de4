package framework

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/schedkit/schedkit/framework/api"
	"pgregory.net/rapid"
)

// TestPropPodIndexSharedObjects: a snapshot whose pods are copies of a few
// template PodInfos (sharing their labels maps and compiled affinity terms,
// as a capacity question's replicas and assumed pods do, which the pod
// index's class, group-key and pod-shape memos recognize by identity)
// keeps the same index as one whose every pod is built afresh (its own
// labels map, its terms compiled again): label classes per node, memoized
// pod counts with their per-zone sums and the affinity groups with theirs,
// after every add, removal (the last one, or any), query, clone and node
// removal, in any interleaving; and the sums it keeps equal the sums of its counts.
func TestPropPodIndexSharedObjects(t *testing.T) {
	queries := piQueries()
	rapid.Check(t, func(t *rapid.T) {
		nodes := undoDrawNodes(t)
		var tmpls []*PodInfo
		for i := range rapid.IntRange(1, 4).Draw(t, "templates") {
			tmpls = append(tmpls, MustPodInfo(piDrawPod(t, fmt.Sprintf("t%d", i), "")))
		}
		shared := MustSnapshot(nodes, nil, WithNamespaces(piNamespaces...))
		fresh := MustSnapshot(nodes, nil, WithNamespaces(piNamespaces...))
		type added struct{ shared, fresh *PodInfo }
		var pods []added
		for i := range rapid.IntRange(1, 40).Draw(t, "ops") {
			switch op := rapid.IntRange(0, 10).Draw(t, "op"); {
			case op <= 4: // add a copy of a template
				tm := tmpls[rapid.IntRange(0, len(tmpls)-1).Draw(t, "template")]
				node := shared.Nodes()[rapid.IntRange(0, shared.NumNodes()-1).Draw(t, "node")].Name()
				sp := *tm.Pod
				sp.Name, sp.UID, sp.Spec.NodeName = fmt.Sprintf("p%d", i), fmt.Sprintf("p%d", i), node
				si := *tm
				si.Pod = &sp
				fp := sp
				fp.Labels = maps.Clone(sp.Labels)
				fi := MustPodInfo(&fp)
				if _, err := shared.AddPodInfo(&si, PodAdd{Unique: true}); err != nil {
					t.Fatal(err)
				}
				if _, err := fresh.AddPodInfo(fi, PodAdd{}); err != nil {
					t.Fatal(err)
				}
				pods = append(pods, added{&si, fi})
			case op <= 6: // remove the last pod added, or any
				if len(pods) == 0 {
					continue
				}
				k := len(pods) - 1
				if rapid.Bool().Draw(t, "any") {
					k = rapid.IntRange(0, k).Draw(t, "victim")
				}
				if err := shared.removeLastPodInfo(pods[k].shared); err != nil {
					t.Fatal(err)
				}
				if err := fresh.RemovePod(pods[k].fresh.Pod); err != nil {
					t.Fatal(err)
				}
				pods = slices.Delete(pods, k, k+1)
			case op <= 8: // query both
				q := queries[rapid.IntRange(0, len(queries)-1).Draw(t, "query")]
				for _, s := range []*Snapshot{shared, fresh} {
					s.PodCounts(q)
					s.PodDomainCounts(q, "zone")
					for _, g := range s.AffinityGroups() {
						s.AffinityGroupDomainCounts(g)
					}
				}
			case op == 9: // go on with clones (the others are dropped)
				shared, fresh = shared.Clone(), fresh.Clone()
			default: // remove a node and its pods (groups may go with them)
				if shared.NumNodes() == 1 {
					continue
				}
				node := shared.Nodes()[rapid.IntRange(0, shared.NumNodes()-1).Draw(t, "removed")].Name()
				for _, s := range []*Snapshot{shared, fresh} {
					if err := s.RemoveNode(node); err != nil {
						t.Fatal(err)
					}
				}
				pods = slices.DeleteFunc(pods, func(a added) bool { return a.shared.Pod.Spec.NodeName == node })
			}
			if diff := cmp.Diff(undoCapture(fresh, queries, false), undoCapture(shared, queries, false)); diff != "" {
				t.Fatalf("op %d (-fresh objects +shared objects):\n%s", i, diff)
			}
			if diff := cmp.Diff(fresh.podIdx.nodeClasses, shared.podIdx.nodeClasses, cmp.AllowUnexported(podClassCount{})); diff != "" {
				t.Fatalf("op %d: label classes per node (-fresh objects +shared objects):\n%s", i, diff)
			}
			// Both sides use the memos: check them against what they stand
			// for, too.
			for _, q := range queries {
				if shared.podCountsCached(q) {
					if got, want := shared.PodCounts(q), piBruteCount(shared, q); !slices.Equal(got, want) {
						t.Fatalf("op %d: PodCounts %v, recount %v", i, got, want)
					}
				}
			}
			if got, want := memoClassView(shared), keyClassView(shared); !maps.Equal(got, want) {
				t.Fatalf("op %d: label classes per node %v, by class key %v", i, got, want)
			}
			if diff := cmp.Diff(groupSumsView(fresh, false), groupSumsView(shared, false)); diff != "" {
				t.Fatalf("op %d: affinity groups' domain sums (-fresh objects +shared objects):\n%s", i, diff)
			}
			if diff := cmp.Diff(groupSumsView(shared, true), groupSumsView(shared, false)); diff != "" {
				t.Fatalf("op %d: affinity groups' domain sums (-summed now +kept):\n%s", i, diff)
			}
		}
	})
}

// memoClassView is the index's label classes of each node (node/key →
// multiplicity), named by each class's key.
func memoClassView(s *Snapshot) map[string]int32 {
	x := &s.podIdx
	out := map[string]int32{}
	if x.classes == nil { // no pod yet
		return out
	}
	reps := x.classes.representatives()
	for i, list := range x.nodeClasses {
		for _, cc := range list {
			out[fmt.Sprintf("%d/%q", i, appendPodClassKey(nil, reps[cc.class]))] += cc.n
		}
	}
	return out
}

// keyClassView is the same, built from the node's pods.
func keyClassView(s *Snapshot) map[string]int32 {
	out := map[string]int32{}
	for i, ni := range s.Nodes() {
		for _, pi := range ni.Pods {
			out[fmt.Sprintf("%d/%q", i, appendPodClassKey(nil, pi.Pod))]++
		}
	}
	return out
}

// groupSumsView is the domain sums of the affinity groups of s whose sums
// are kept (by term key): the kept ones, or with recount, the group's
// counts summed now.
func groupSumsView(s *Snapshot, recount bool) map[string]string {
	x := &s.podIdx
	out := map[string]string{}
	for _, sl := range x.groups {
		d := sl.dom.Load()
		if d == nil {
			continue
		}
		if recount {
			d = groupDomainCountsOf(d.Values, sl.g)
		}
		var sums []DomainHit
		d.EachCount(func(id, count int32, weight int64) {
			sums = append(sums, DomainHit{ID: id, Count: count, Weight: weight})
		})
		out[piTermKey(sl.g.Kind, sl.g.Term)] = fmt.Sprint(d.Values.Values, sums, d.Count, d.Weight, d.Hit, d.NonZero)
	}
	return out
}

// TestPropClassNodesForks: the inverse of the per-node label classes (the
// nodes holding each class, which a new query matching a few classes
// reads instead of every node) stays the inverse of the per-node lists in
// every snapshot of a family, clones sharing it copy-on-write, through
// adds, removals, clones and node removals applied to any member in any
// order; and a new query's counts equal a recount from scratch in every
// member.
func TestPropClassNodesForks(t *testing.T) {
	// With a value repeated in an In requirement (kube accepts it), a
	// class carrying it is a candidate twice.
	queries := append(piQueries(), PodQuery{Terms: []PodTerm{{NamespaceSelector: api.Selector{},
		Selector: piSel(&api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "app", Operator: api.LabelSelectorOpIn, Values: []string{"web", "db", "web"}}}})}}})
	rapid.Check(t, func(t *rapid.T) {
		family := []*Snapshot{MustSnapshot(undoDrawNodes(t), nil, WithNamespaces(piNamespaces...))}
		for i := range rapid.IntRange(1, 40).Draw(t, "ops") {
			s := family[rapid.IntRange(0, len(family)-1).Draw(t, "member")]
			switch op := rapid.IntRange(0, 9).Draw(t, "op"); {
			case op <= 4: // add a pod
				node := s.Nodes()[rapid.IntRange(0, s.NumNodes()-1).Draw(t, "node")].Name()
				if err := s.AddPod(piDrawPod(t, fmt.Sprintf("p%d", i), node)); err != nil {
					t.Fatal(err)
				}
			case op <= 6: // remove a pod
				var all []*PodInfo
				for _, ni := range s.Nodes() {
					all = append(all, ni.Pods...)
				}
				if len(all) == 0 {
					continue
				}
				if err := s.RemovePod(all[rapid.IntRange(0, len(all)-1).Draw(t, "victim")].Pod); err != nil {
					t.Fatal(err)
				}
			case op == 7: // clone; both go on
				family = append(family, s.Clone())
			case op == 8: // remove a node
				if s.NumNodes() == 1 {
					continue
				}
				if err := s.RemoveNode(s.Nodes()[rapid.IntRange(0, s.NumNodes()-1).Draw(t, "removed")].Name()); err != nil {
					t.Fatal(err)
				}
			default: // a new query's counts, which build the inverse
				q := queries[rapid.IntRange(0, len(queries)-1).Draw(t, "query")]
				m := compilePodQuery(&q)
				s.podIdx.countByClasses(&m, s.namespaces, make([]int32, s.NumNodes()), nil)
			}
			for k, s := range family {
				for _, q := range queries {
					m := compilePodQuery(&q)
					got := make([]int32, s.NumNodes())
					nz := make([]uint64, (s.NumNodes()+63)/64)
					s.podIdx.countByClasses(&m, s.namespaces, got, nz)
					if want := piBruteCount(s, q); !slices.Equal(got, want) {
						t.Fatalf("op %d, member %d: counts %v, recount %v", i, k, got, want)
					}
					if want := nonZeroBits(got); !slices.Equal(nz, want) {
						t.Fatalf("op %d, member %d: nonzero bits %x, of the counts %x", i, k, nz, want)
					}
				}
				if got, want := classNodesView(s), nodeClassesView(s); s.podIdx.classNodesOK && !maps.Equal(got, want) {
					t.Fatalf("op %d, member %d: inverse lists %v, per-node lists %v", i, k, got, want)
				}
			}
		}
	})
}

// classNodesView is the pod index's inverse lists as class/node pairs,
// each with the times it is listed and its multiplicity as a query reads
// it (classNodesFresh: so that a node listed twice, or a count changed
// without its list marked stale, shows).
func classNodesView(s *Snapshot) map[[2]int32][2]int32 {
	out := map[[2]int32][2]int32{}
	for c := range s.podIdx.classNodes {
		for _, e := range s.podIdx.classNodesFresh(int32(c)) {
			k := [2]int32{int32(c), e.node}
			out[k] = [2]int32{out[k][0] + 1, out[k][1] + e.n}
		}
	}
	return out
}

// nodeClassesView is the same pairs from the per-node lists.
func nodeClassesView(s *Snapshot) map[[2]int32][2]int32 {
	out := map[[2]int32][2]int32{}
	for i, l := range s.podIdx.nodeClasses {
		for _, cc := range l {
			k := [2]int32{cc.class, int32(i)}
			out[k] = [2]int32{out[k][0] + 1, out[k][1] + cc.n}
		}
	}
	return out
}
