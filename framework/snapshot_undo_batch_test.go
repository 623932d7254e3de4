package framework

import (
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/schedkit/schedkit/framework/api"
	"pgregory.net/rapid"
)

// TestPropRemoveLastPodInfos: undoing the last adds of a snapshot together
// (RemoveLastPodInfos, with the node indexes AddPodInfo returned,
// none, or a wrong one; in the order added, or with two pods swapped)
// leaves it exactly as removeLastPodInfo on each in reverse order does:
// every node (pod lists and their order, sums, ports, Resources and Free
// rows, Generation), the affinity node lists, the memoized pod counts and
// their per-zone sums, the affinity groups (their nodes' order included),
// and the change journal (its count, and the nodes it lists as changed).
// Nodes may be shared with a clone.
func TestPropRemoveLastPodInfos(t *testing.T) {
	queries := piQueries()
	rapid.Check(t, func(t *rapid.T) {
		nodes := undoDrawNodes(t)
		drawPod := func(name string) *api.Pod { return undoDrawPod(t, nodes, name) }
		var bound []*api.Pod
		for i := range rapid.IntRange(0, 6).Draw(t, "bound") {
			bound = append(bound, drawPod(fmt.Sprintf("old%d", i)))
		}
		batch := MustSnapshot(nodes, bound, WithNamespaces(piNamespaces...))
		each := MustSnapshot(nodes, bound, WithNamespaces(piNamespaces...))
		var keep []*Snapshot
		asked := rapid.SliceOfN(rapid.Bool(), len(queries), len(queries)).Draw(t, "queries")
		groups, clone := rapid.Bool().Draw(t, "groups"), rapid.Bool().Draw(t, "clone")
		for _, s := range []*Snapshot{batch, each} {
			for qi, q := range queries {
				if asked[qi] {
					s.PodCounts(q)
					s.PodDomainCounts(q, "zone")
				}
			}
			if groups {
				s.AffinityGroups()
			}
			if clone {
				keep = append(keep, s.Clone())
			}
		}

		var batchAdded, eachAdded []*PodInfo
		var at []int32
		for i := range rapid.IntRange(0, 40).Draw(t, "adds") {
			p := drawPod(fmt.Sprintf("new%d", i))
			bi, ei := MustPodInfo(p), MustPodInfo(p)
			k, err := batch.AddPodInfo(bi, PodAdd{Unique: true})
			if err != nil {
				t.Fatal(err)
			}
			if want := batch.Index(p.Spec.NodeName); k != want {
				t.Fatalf("AddPodInfo(%s) = %d, the node's index is %d", p.Name, k, want)
			}
			if _, err := each.AddPodInfo(ei, PodAdd{Unique: true}); err != nil {
				t.Fatal(err)
			}
			batchAdded, eachAdded, at = append(batchAdded, bi), append(eachAdded, ei), append(at, int32(k))
		}
		// Undo the adds from first on; the earlier ones stay.
		first := rapid.IntRange(0, len(batchAdded)).Draw(t, "first")
		pis, eachPis, hints := batchAdded[first:], eachAdded[first:], slices.Clone(at[first:])
		switch rapid.IntRange(0, 3).Draw(t, "hints") {
		case 1:
			hints = nil
		case 2:
			if len(hints) > 0 {
				hints[rapid.IntRange(0, len(hints)-1).Draw(t, "wrong")] = int32(rapid.IntRange(-1, len(nodes)).Draw(t, "wrongNode"))
			}
		}
		if len(pis) >= 2 && rapid.Bool().Draw(t, "swap") {
			i, j := rapid.IntRange(0, len(pis)-1).Draw(t, "i"), rapid.IntRange(0, len(pis)-1).Draw(t, "j")
			pis, eachPis = slices.Clone(pis), slices.Clone(eachPis)
			pis[i], pis[j] = pis[j], pis[i]
			eachPis[i], eachPis[j] = eachPis[j], eachPis[i]
			if hints != nil {
				hints[i], hints[j] = hints[j], hints[i]
			}
		}
		seq := batch.ChangeSeq()
		if seq != each.ChangeSeq() {
			t.Fatalf("change counts differ before the undo: %d, %d", seq, each.ChangeSeq())
		}
		errB := batch.RemoveLastPodInfos(pis, hints)
		var errE error
		for i := len(eachPis) - 1; i >= 0; i-- {
			if err := each.removeLastPodInfo(eachPis[i]); err != nil && errE == nil {
				errE = err
			}
		}
		if fmt.Sprint(errB) != fmt.Sprint(errE) {
			t.Fatalf("RemoveLastPodInfos: %v; one by one: %v", errB, errE)
		}
		if diff := cmp.Diff(undoCapture(each, queries, true), undoCapture(batch, queries, true)); diff != "" {
			t.Fatalf("(-one by one +together):\n%s", diff)
		}
		if diff := cmp.Diff(batchGroupOrder(each), batchGroupOrder(batch)); diff != "" {
			t.Fatalf("affinity groups' nodes (-one by one +together):\n%s", diff)
		}
		if batch.ChangeSeq() != each.ChangeSeq() {
			t.Fatalf("change count %d, one by one %d", batch.ChangeSeq(), each.ChangeSeq())
		}
		cb, okB := batch.ChangedSince(seq, nil)
		ce, okE := each.ChangedSince(seq, nil)
		slices.Sort(cb)
		slices.Sort(ce)
		if okB != okE || !slices.Equal(cb, ce) {
			t.Fatalf("changed nodes %v (%v), one by one %v (%v)", cb, okB, ce, okE)
		}
		for _, c := range keep {
			omCheckShared(t, c)
		}
	})
}

// batchGroupOrder lists each affinity group's nodes in the group's order.
func batchGroupOrder(s *Snapshot) map[string][]int32 {
	if s.podIdx.groups == nil {
		return nil
	}
	out := map[string][]int32{}
	for _, g := range s.AffinityGroups() {
		out[piTermKey(g.Kind, g.Term)] = slices.Clone(g.Nodes)
	}
	return out
}
