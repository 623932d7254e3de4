// Package podaffinity holds the pod (anti-)affinity helpers shared by the
// filter and score halves of InterPodAffinity: the incoming pod's terms with
// their namespace selectors resolved against the cycle's snapshot, as the
// kube-scheduler release of the plugin resolves them.
package podaffinity

import (
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
)

// nsMode says how a term's namespace selector takes part in matching.
type nsMode uint8

const (
	// nsListOnly: the selector matches no namespace (it was absent), so only
	// the term's namespace list counts.
	nsListOnly nsMode = iota
	// nsAll: the selector is empty ({}) and selects every namespace.
	nsAll
	// nsLookup: the selector has requirements; it is matched against the
	// labels of the candidate pod's namespace.
	nsLookup
)

// SelectsEveryNamespace reports whether kube-scheduler release v matches
// an incoming pod's term with namespace selector sel in every namespace,
// whatever sel selects: v1.36 does for a selector with requirements that
// all hold on an empty label set (only NotIn and DoesNotExist).
// interpodaffinity/plugin.go:mergeAffinityTermNamespacesIfNotEmpty takes
// the term by value, so the selector it replaces by labels.Nothing() stays
// on the pod's term, and the incoming pod's terms are then matched with nil
// namespace labels (filtering.go:podMatchesAllAffinityTerms,
// getIncomingAffinityAntiAffinityCounts, updateWithPod;
// scoring.go:processExistingPod) — kubernetes/kubernetes#141526, fixed in v1.37 by
// taking the term by pointer.
func SelectsEveryNamespace(sel api.Selector, v framework.KubeVersion) bool {
	return !v.AtLeast(framework.KubeV137) && !sel.IsNothing() && !sel.IsEverything() && sel.Matches(nil)
}

// Term is one affinity term of the pod being scheduled, prepared for
// matching existing pods. kube-scheduler (mergeAffinityTermNamespacesIfNotEmpty)
// unrolls a non-empty namespace selector of the incoming pod's terms into
// the set of namespaces it selects at the start of the cycle; matching an
// existing pod's namespace against that set is the same as matching the
// selector against that namespace's labels, which is what Term does, reading
// the labels from the cycle's Snapshot. (A namespace the snapshot does not
// know has no labels here; kube would not list it. Pods only live in
// namespaces that exist, so the two agree on consistent input.) In v1.36, a
// selector of only NotIn and DoesNotExist requirements selects every
// namespace instead (SelectsEveryNamespace).
type Term struct {
	*framework.AffinityTerm
	// Weight is the preferred term's weight (0 for required terms).
	Weight int32
	mode   nsMode
	// oneNS holds the only namespace of the list when it has exactly one
	// (the common case), so matching compares strings instead of hashing.
	oneNS  string
	single bool
}

// NewTerm prepares t (a term of the incoming pod) for matching as
// kube-scheduler release v does.
func NewTerm(t *framework.AffinityTerm, weight int32, v framework.KubeVersion) Term {
	m := nsLookup
	switch {
	case t.NamespaceSelector.IsNothing():
		m = nsListOnly
	case t.NamespaceSelector.IsEverything(), SelectsEveryNamespace(t.NamespaceSelector, v):
		m = nsAll
	}
	out := Term{AffinityTerm: t, Weight: weight, mode: m}
	if len(t.Namespaces) == 1 {
		for ns := range t.Namespaces {
			out.oneNS, out.single = ns, true
		}
	}
	return out
}

// Terms prepares required terms for release v.
func Terms(ts []framework.AffinityTerm, v framework.KubeVersion) []Term {
	if len(ts) == 0 {
		return nil
	}
	out := make([]Term, len(ts))
	for i := range ts {
		out[i] = NewTerm(&ts[i], 0, v)
	}
	return out
}

// WeightedTerms prepares preferred terms for release v.
func WeightedTerms(ts []framework.WeightedAffinityTerm, v framework.KubeVersion) []Term {
	if len(ts) == 0 {
		return nil
	}
	out := make([]Term, len(ts))
	for i := range ts {
		out[i] = NewTerm(&ts[i].AffinityTerm, ts[i].Weight, v)
	}
	return out
}

// PodTerm returns the pod-index query term selecting what Matches selects.
func (t *Term) PodTerm() framework.PodTerm {
	pt := framework.PodTermOf(t.AffinityTerm)
	if t.mode == nsAll {
		pt.NamespaceSelector = api.Selector{} // every namespace
	}
	return pt
}

// PodTermOf is PodTerm for a term of the incoming pod not prepared with
// NewTerm: framework.PodTermOf, with the namespace selector release v
// applies.
func PodTermOf(t *framework.AffinityTerm, v framework.KubeVersion) framework.PodTerm {
	pt := framework.PodTermOf(t)
	if SelectsEveryNamespace(t.NamespaceSelector, v) {
		pt.NamespaceSelector = api.Selector{}
	}
	return pt
}

// Matches reports whether the term selects pod: pod's namespace is in the
// term's list or selected by its namespace selector, and pod's labels match
// the label selector.
func (t *Term) Matches(pod *api.Pod, snap *framework.Snapshot) bool {
	var listed bool
	if t.single {
		listed = pod.Namespace == t.oneNS
	} else {
		_, listed = t.Namespaces[pod.Namespace]
	}
	if !listed {
		switch t.mode {
		case nsListOnly:
			return false
		case nsLookup:
			var labels map[string]string
			if snap != nil {
				labels = snap.NamespaceLabels(pod.Namespace)
			}
			if !t.NamespaceSelector.Matches(labels) {
				return false
			}
		}
	}
	return t.Selector.Matches(pod.Labels)
}

// MatchesAll reports whether pod matches every term; false when there are
// no terms (kube-scheduler's podMatchesAllAffinityTerms).
func MatchesAll(terms []Term, pod *api.Pod, snap *framework.Snapshot) bool {
	if len(terms) == 0 {
		return false
	}
	for i := range terms {
		if !terms[i].Matches(pod, snap) {
			return false
		}
	}
	return true
}
