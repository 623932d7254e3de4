package filter

import (
	"context"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/internal/podaffinity"
)

var _ framework.IncrementalPreFilterPlugin = (*InterPodAffinity)(nil)

// PreFilterAfterAdd brings the state PreFilter wrote for a pod sharing
// pod's PodInfo up to date after the pods in added were added to the
// snapshot (framework.IncrementalPreFilterPlugin). An added pod changes
// PreFilter's counts only when one of its required anti-affinity terms
// selects the incoming pod, or it matches the incoming pod's required
// affinity terms (all of them) or one of its required anti-affinity terms;
// when no added pod does, the state is kept as it is (O(added × terms);
// a copy of the last pod found to change nothing, of its podaffinity.Shape,
// is not matched again).
// Otherwise PreFilter runs again: it reads the snapshot's per-domain sums,
// which already hold the added pods (the state's dense counts may share
// them), so it costs O(terms × values/64), not O(pods). The same test
// decides a skipped PreFilter: it skips again unless an added pod's
// required anti-affinity selects the pod.
func (pl *InterPodAffinity) PreFilterAfterAdd(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, added []framework.AddedPod) *framework.Status {
	snap := state.Snapshot()
	if snap == nil || pod == nil || pod.Pod == nil {
		return preFilterAfresh(ctx, state, pl, ipaPreFilterStateKey, pod)
	}
	d, err := state.Read(ipaPreFilterStateKey)
	if err != nil {
		// PreFilter skipped: the pod has no required terms and no pod's
		// required anti-affinity selected it.
		if len(pod.RequiredAffinityTerms) > 0 || len(pod.RequiredAntiAffinityTerms) > 0 {
			return preFilterAfresh(ctx, state, pl, ipaPreFilterStateKey, pod)
		}
		var nsLabels map[string]string
		for _, a := range added {
			if a.Pod == nil || a.Pod.Pod == nil {
				return preFilterAfresh(ctx, state, pl, ipaPreFilterStateKey, pod)
			}
			if len(a.Pod.RequiredAntiAffinityTerms) == 0 {
				continue
			}
			if nsLabels == nil {
				nsLabels = snap.NamespaceLabels(pod.Pod.Namespace)
			}
			if ipaSelectsIncoming(a.Pod, pod.Pod, nsLabels) {
				return preFilterAfresh(ctx, state, pl, ipaPreFilterStateKey, pod)
			}
		}
		return framework.NewStatus(framework.Skip)
	}
	s, ok := d.(*ipaPreFilterState)
	if !ok || s.snap != snap {
		return preFilterAfresh(ctx, state, pl, ipaPreFilterStateKey, pod)
	}
	for _, a := range added {
		if a.Pod == nil || a.Pod.Pod == nil {
			return preFilterAfresh(ctx, state, pl, ipaPreFilterStateKey, pod)
		}
		if s.unchanged.Same(a.Pod) {
			continue // a copy of a pod that changed nothing
		}
		if s.countsChangeWith(a.Pod) {
			return preFilterAfresh(ctx, state, pl, ipaPreFilterStateKey, pod)
		}
		s.unchanged = podaffinity.ShapeOf(a.Pod)
	}
	return nil
}

// ipaSelectsIncoming reports whether one of p's required anti-affinity
// terms selects incoming, whose namespace has labels nsLabels.
func ipaSelectsIncoming(p *framework.PodInfo, incoming *framework.Pod, nsLabels map[string]string) bool {
	for i := range p.RequiredAntiAffinityTerms {
		if p.RequiredAntiAffinityTerms[i].Matches(incoming, nsLabels) {
			return true
		}
	}
	return false
}

// countsChangeWith reports whether adding p to some node may change one of
// s's three count tables (update's tests, without the node's keys).
func (s *ipaPreFilterState) countsChangeWith(p *framework.PodInfo) bool {
	if ipaSelectsIncoming(p, s.pod.Pod, s.nsLabels) {
		return true
	}
	if ipaMatchesAll(s.affTerms, p.Pod, s.snap) {
		return true
	}
	for i := range s.antiTerms {
		if s.antiTerms[i].Matches(p.Pod, s.snap) {
			return true
		}
	}
	return false
}
