package interpodaffinity

import (
	"context"

	"github.com/schedkit/schedkit/filter"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
)

var _ framework.EnqueueExtensions = (*InterPodAffinity)(nil)

// EventsToRegister: placed pods added, relabelled or deleted; nodes added
// or relabelled (interpodaffinity/plugin.go).
func (pl *InterPodAffinity) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{Event: filter.PodEvent(framework.Add | framework.UpdatePodLabel | framework.Delete), QueueingHintFn: pl.afterPodChange},
		{Event: filter.NodeEvent(framework.Add | framework.UpdateNodeLabel), QueueingHintFn: pl.afterNodeChange},
	}, nil
}

// matchesAllTerms reports whether pod matches every term (false without
// terms); namespace selectors see no namespace labels, as kube's
// podMatchesAllAffinityTerms.
func matchesAllTerms(terms []framework.AffinityTerm, pod *api.Pod) bool {
	if len(terms) == 0 {
		return false
	}
	for i := range terms {
		if !terms[i].Matches(pod, nil) {
			return false
		}
	}
	return true
}

// matchesAnyTerm reports whether pod matches some term (false without
// terms), as kube v1.37's podMatchesAnyAffinityTerms.
func matchesAnyTerm(terms []framework.AffinityTerm, pod *api.Pod) bool {
	for i := range terms {
		if terms[i].Matches(pod, nil) {
			return true
		}
	}
	return false
}

// afterPodChange is kube's isSchedulableAfterPodChange (v1.37:
// isSchedulableAfterAssignedPodChange and
// isSchedulableAfterTargetPodUpdateLabel): Queue when the rejected pod's
// own labels changed; a placed pod added that matches all its affinity
// terms; a placed pod updated to match all its affinity terms or to stop
// matching its anti-affinity terms; a placed pod deleted that matched its
// anti-affinity terms, or whose own anti-affinity the rejected pod matched.
// For anti-affinity, v1.36 asks that every term match and v1.37 that some
// term match (kubernetes/kubernetes#139161); affinity asks every term in both.
func (pl *InterPodAffinity) afterPodChange(_ *framework.Snapshot, pod *framework.PodInfo, oldObj, newObj any) (framework.QueueingHint, error) {
	original, modified, err := framework.EventObjects[framework.PodInfo](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if modified != nil && original != nil && framework.SamePod(modified.Pod, pod.Pod) {
		return framework.Queue, nil
	}
	unplaced := func(p *framework.PodInfo) bool {
		return p != nil && p.Pod.Spec.NodeName == "" && p.Pod.Status.NominatedNodeName == ""
	}
	if unplaced(modified) || unplaced(original) {
		return framework.QueueSkip, nil
	}
	terms, anti := pod.RequiredAffinityTerms, pod.RequiredAntiAffinityTerms
	antiMatch := matchesAllTerms
	if pl.anyAntiHint {
		antiMatch = matchesAnyTerm
	}
	switch {
	case modified != nil && original != nil:
		if !matchesAllTerms(terms, original.Pod) && matchesAllTerms(terms, modified.Pod) {
			return framework.Queue, nil
		}
		if antiMatch(anti, original.Pod) && !antiMatch(anti, modified.Pod) {
			return framework.Queue, nil
		}
		return framework.QueueSkip, nil
	case modified != nil:
		if matchesAllTerms(terms, modified.Pod) {
			return framework.Queue, nil
		}
		return framework.QueueSkip, nil
	}
	if antiMatch(anti, original.Pod) || antiMatch(original.RequiredAntiAffinityTerms, pod.Pod) {
		return framework.Queue, nil
	}
	return framework.QueueSkip, nil
}

// afterNodeChange is kube's isSchedulableAfterNodeChange: Queue when a node
// with an affinity term's topology key was added, got the key, or moved to
// another domain of it; for anti-affinity, when any node was added, or a
// node lost an anti-affinity term's key or moved to another domain of it.
func (pl *InterPodAffinity) afterNodeChange(_ *framework.Snapshot, pod *framework.PodInfo, oldObj, newObj any) (framework.QueueingHint, error) {
	oldNode, newNode, err := framework.EventObjects[api.Node](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	for i := range pod.RequiredAffinityTerms {
		key := pod.RequiredAffinityTerms[i].TopologyKey
		if oldNode == nil {
			if _, ok := newNode.Labels[key]; ok {
				return framework.Queue, nil
			}
			continue
		}
		ov, oh := oldNode.Labels[key]
		nv, nh := newNode.Labels[key]
		if !oh && nh || oh && nh && ov != nv {
			return framework.Queue, nil
		}
	}
	for i := range pod.RequiredAntiAffinityTerms {
		if oldNode == nil {
			return framework.Queue, nil
		}
		key := pod.RequiredAntiAffinityTerms[i].TopologyKey
		ov, oh := oldNode.Labels[key]
		nv, nh := newNode.Labels[key]
		if oh && !nh || oh && nh && ov != nv {
			return framework.Queue, nil
		}
	}
	return framework.QueueSkip, nil
}
