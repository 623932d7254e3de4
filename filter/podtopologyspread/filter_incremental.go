package podtopologyspread

import (
	"context"

	"github.com/schedkit/schedkit/filter"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/fastpath"
)

var _ fastpath.IncrementalPreFilterPlugin = (*PodTopologySpread)(nil)

// PreFilterAfterAdd brings the state PreFilter wrote for a pod sharing
// pod's PodInfo up to date after the pods in added were added to the
// snapshot (fastpath.IncrementalPreFilterPlugin). Each added pod that
// PreFilter would count (CountMatching's rule: the incoming pod's
// namespace, not being deleted, matching the constraint's selector) on a
// node that counts (every topology key, the inclusion policies) adds one
// to its domain's count, and the critical paths are rebuilt when that
// domain was one of them (counts only grow, so another domain cannot
// displace them): O(added × constraints), plus O(domains) when a critical
// domain grows. The state holds copies of the snapshot's sums, so the
// additions are not already in it. When PreFilter skipped (no hard
// constraint: a property of the pod alone) it skips again; a state it
// cannot update (PreFilter ran over another node list, or the snapshot's
// nodes changed since) is recomputed by PreFilter.
func (pl *PodTopologySpread) PreFilterAfterAdd(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, added []fastpath.AddedPod) *framework.Status {
	s, err := ptsReadPreFilterState(state)
	if err == errPTSNoPreFilterState {
		// PreFilter skipped: the pod has no hard constraint, whatever the
		// pods.
		return framework.NewStatus(framework.Skip)
	}
	snap := state.Snapshot()
	if err != nil || snap == nil || !s.incremental(snap, added) {
		return filter.PreFilterAfresh(ctx, state, pl, ptsPreFilterStateKey, pod)
	}
	ns := pod.Pod.Namespace
	keyed := true
	for _, tv := range s.tvs {
		keyed = keyed && tv.Unkeyed == 0
	}
	for _, a := range added {
		k := a.Node.Index()
		if !keyed && !ptsHasAll(s.tvs, k) {
			continue
		}
		var verdict nodeVerdict
		evaluated := false
		for c := range s.Constraints {
			tc := &s.Constraints[c]
			if !countsPod(a.Pod, &tc.Selector, ns) {
				continue
			}
			if !evaluated {
				verdict, evaluated = s.inclusion.Eval(a.Node.Node()), true
			}
			if !verdict.Includes(tc) {
				continue
			}
			d := s.domainOfID(c, s.tvs[c].Domain[k])
			if d < 0 { // cannot happen: PreFilter numbered every counted node's value
				return filter.PreFilterAfresh(ctx, state, pl, ptsPreFilterStateKey, pod)
			}
			s.Counts[c][d]++
			if p := &s.Paths[c]; d == p[0].Domain || d == p[1].Domain {
				*p = ptsPathsOf(s.Counts[c])
			}
		}
	}
	return nil
}

// incremental reports whether PreFilterAfterAdd can update s in place for
// added on snap: s is a fast-mode state over snap's nodes as they are
// (no node changed since) and current numbering, and every added pod's
// node is snap's own NodeInfo.
func (s *ptsPreFilterState) incremental(snap *framework.Snapshot, added []fastpath.AddedPod) bool {
	if s.tvs == nil || s.snap != snap || s.nodeSeq != snap.NodeChangeSeq() {
		return false
	}
	for c, tv := range s.tvs {
		if snap.TopologyValues(s.Constraints[c].TopologyKey) != tv {
			return false
		}
	}
	all := snap.Nodes()
	for _, a := range added {
		if a.Pod == nil || a.Pod.Pod == nil || a.Node == nil {
			return false
		}
		if k := a.Node.Index(); k < 0 || k >= len(all) || all[k] != a.Node {
			return false
		}
	}
	return true
}
