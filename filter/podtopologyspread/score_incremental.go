package podtopologyspread

import (
	"context"
	"slices"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/fastpath"
	"github.com/schedkit/schedkit/scoring"
)

var _ fastpath.IncrementalPreScorePlugin = (*PodTopologySpread)(nil)

// ptsSlotCounts are, for the constraints of a fast-mode state that count
// per node (not kubernetes.io/hostname), the pods PreScore counts by value
// of the constraint's key over every node that counts (every key when
// requireAll, the inclusion policies): bySlot[c][slot], where slot is the
// node's value id, or missing[c] for a node without the key. They do not
// depend on the scored nodes, so PreScoreAfterAdd keeps them from cycle to
// cycle, adding the added pods, and derives each cycle's domain counts
// from them in O(values) instead of walking every node (or, when every
// node carries every key and counts, querying the snapshot's per-value
// sums, as PreScore does).
type ptsSlotCounts struct {
	snap       *framework.Snapshot
	nodeSeq    uint64 // snap's NodeChangeSeq when counted
	tvs        []*api.TopologyValues
	missing    []int32
	indexed    *indexedInclusion // nil: every node is included
	requireAll bool
	bySlot     [][]int64 // nil for hostname constraints
}

// newPTSSlotCounts counts, from the snapshot's per-node matching counts
// perNode (nil for a selector that counts nothing), what PreScore's walk
// over every node counts, by value slot.
func newPTSSlotCounts(snap *framework.Snapshot, tvs []*api.TopologyValues, cs []constraint, missing []int32, indexed *indexedInclusion, requireAll bool, perNode [][]int32) *ptsSlotCounts {
	// tvs and missing are the state's buffers, which a later cycle reuses.
	sc := &ptsSlotCounts{snap: snap, nodeSeq: snap.NodeChangeSeq(), tvs: slices.Clone(tvs), missing: slices.Clone(missing), indexed: indexed, requireAll: requireAll, bySlot: make([][]int64, len(cs))}
	for c := range cs {
		if cs[c].IsHostname() {
			continue
		}
		by := make([]int64, len(tvs[c].Values)+1)
		sc.bySlot[c] = by
		for k, n := range perNode[c] {
			if n != 0 && sc.counts(cs, c, k) {
				by[sc.slot(c, k)] += int64(n)
			}
		}
	}
	return sc
}

// counts reports whether snapshot node k counts for constraint c.
func (sc *ptsSlotCounts) counts(cs []constraint, c, k int) bool {
	if sc.requireAll {
		for _, tv := range sc.tvs {
			if tv.Domain[k] < 0 {
				return false
			}
		}
	}
	return sc.indexed == nil || sc.indexed.Eval(k).Includes(&cs[c])
}

// slot returns the value slot of snapshot node k for constraint c.
func (sc *ptsSlotCounts) slot(c, k int) int32 {
	if id := sc.tvs[c].Domain[k]; id >= 0 {
		return id
	}
	return sc.missing[c]
}

// add counts the added pods that PreScore counts (CountMatching's rule)
// for constraints cs of a pod in namespace ns.
func (sc *ptsSlotCounts) add(cs []constraint, ns string, added []fastpath.AddedPod) {
	for _, a := range added {
		k := a.Node.Index()
		for c := range cs {
			if sc.bySlot[c] != nil && countsPod(a.Pod, &cs[c].Selector, ns) && sc.counts(cs, c, k) {
				sc.bySlot[c][sc.slot(c, k)]++
			}
		}
	}
}

// PreScoreAfterAdd has the effect of PreScore on the current snapshot
// given the state PreScore or PreScoreAfterAdd wrote for a pod sharing
// pod's PodInfo before the pods in added were added
// (fastpath.IncrementalPreScorePlugin). The constraints (built from the
// pod alone) are kept; what depends on the scored nodes (membership,
// ignored nodes, the domains among them and the weights ln(domains + 2))
// is computed again by PreScore's own code, in O(len(nodes)) when some
// node can be ignored (every key is required and some snapshot node lacks
// one) and otherwise only until every value of the non-hostname
// constraints' keys has been seen among nodes, which must then be the
// snapshot's own NodeInfos (as the runner passes them); the counts
// come from the snapshot's live per-node counts (hostname constraints) or
// from the counts by value the state keeps (ptsSlotCounts), to which the
// added pods are added: O(added × constraints + values), not O(nodes) nor
// O(pods). When PreScore skipped, it skips again (the pods play no part
// in that); a state it cannot update (PreScore ran over nodes that are not
// the snapshot's own, or the snapshot's nodes changed) is computed again
// by PreScore.
func (pl *PodTopologySpread) PreScoreAfterAdd(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, added []fastpath.AddedPod) *framework.Status {
	if _, err := state.Read(ptsPreScoreStateKey); err != nil {
		// PreScore skipped: the pod has no soft constraint or the
		// snapshot no node, whatever the pods.
		return framework.NewStatus(framework.Skip)
	}
	old, err := ptsReadPreScoreState(state)
	snap := state.Snapshot()
	if err != nil || snap == nil || !old.fast() || old.snap != snap || old.nodeSeq != snap.NodeChangeSeq() || !ptsSameValues(snap, old.tvs) || !scoring.AddedOnSnapshot(snap, added) {
		return pl.preScoreAgain(ctx, state, pod, nodes, old)
	}
	slots := old.slots
	if slots != nil && (slots.snap != snap || slots.nodeSeq != snap.NodeChangeSeq() || !slices.Equal(slots.tvs, old.tvs) && !ptsSameValues(snap, slots.tvs)) {
		// (old.tvs are the snapshot's numbering: checked above.)
		slots = nil
	}
	if slots != nil {
		slots.add(old.Constraints, old.namespace, added)
	}
	// old is the plugin's own (the runner releases no value this
	// replaces, and Clone copies what is reused): it is updated in place,
	// and stays the value under the key.
	st := pl.calPreScoreStateFast(pod.Pod, old.Constraints, nodes, nil, snap, old.requireAll, &slots, old)
	if st == nil { // some node is not the snapshot's own
		return pl.preScoreAgain(ctx, state, pod, nodes, old)
	}
	st.finish()
	return nil
}

// preScoreAgain runs PreScore (releasing old, the state it replaces, when
// there is one) and returns its status.
func (pl *PodTopologySpread) preScoreAgain(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, old *ptsPreScoreState) *framework.Status {
	state.Delete(ptsPreScoreStateKey)
	st := pl.PreScore(ctx, state, pod, nodes)
	if old != nil {
		old.Release()
	}
	return st
}

// ptsSameValues reports whether tvs are still the snapshot's numbering of
// their keys (a node change that moves a key's values renumbers it).
func ptsSameValues(snap *framework.Snapshot, tvs []*api.TopologyValues) bool {
	for _, tv := range tvs {
		if snap.TopologyValues(tv.Key) != tv {
			return false
		}
	}
	return true
}
