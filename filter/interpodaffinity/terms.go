package interpodaffinity

// The incoming pod's terms, which PreFilter and PreScore share, with their
// namespace selectors resolved against the cycle's snapshot as the
// plugin's kube-scheduler release resolves them.

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

// selectsEveryNamespace reports whether kube-scheduler release v matches
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
func selectsEveryNamespace(sel api.Selector, v framework.KubeVersion) bool {
	return !v.AtLeast(framework.KubeV137) && !sel.IsNothing() && !sel.IsEverything() && sel.Matches(nil)
}

// affTerm is one affinity term of the pod being scheduled, prepared for
// matching existing pods. kube-scheduler (mergeAffinityTermNamespacesIfNotEmpty)
// unrolls a non-empty namespace selector of the incoming pod's terms into
// the set of namespaces it selects at the start of the cycle; matching an
// existing pod's namespace against that set is the same as matching the
// selector against that namespace's labels, which is what affTerm does, reading
// the labels from the cycle's Snapshot. (A namespace the snapshot does not
// know has no labels here; kube would not list it. Pods only live in
// namespaces that exist, so the two agree on consistent input.) In v1.36, a
// selector of only NotIn and DoesNotExist requirements selects every
// namespace instead (selectsEveryNamespace).
type affTerm struct {
	*framework.AffinityTerm
	// Weight is the preferred term's weight (0 for required terms).
	Weight int32
	mode   nsMode
	// oneNS holds the only namespace of the list when it has exactly one
	// (the common case), so matching compares strings instead of hashing.
	oneNS  string
	single bool
}

// newAffTerm prepares t (a term of the incoming pod) for matching as
// kube-scheduler release v does.
func newAffTerm(t *framework.AffinityTerm, weight int32, v framework.KubeVersion) affTerm {
	m := nsLookup
	switch {
	case t.NamespaceSelector.IsNothing():
		m = nsListOnly
	case t.NamespaceSelector.IsEverything(), selectsEveryNamespace(t.NamespaceSelector, v):
		m = nsAll
	}
	out := affTerm{AffinityTerm: t, Weight: weight, mode: m}
	if len(t.Namespaces) == 1 {
		for ns := range t.Namespaces {
			out.oneNS, out.single = ns, true
		}
	}
	return out
}

// weightedAffTerms prepares preferred terms for release v.
func weightedAffTerms(ts []framework.WeightedAffinityTerm, v framework.KubeVersion) []affTerm {
	if len(ts) == 0 {
		return nil
	}
	out := make([]affTerm, len(ts))
	for i := range ts {
		out[i] = newAffTerm(&ts[i].AffinityTerm, ts[i].Weight, v)
	}
	return out
}

// PodTerm returns the pod-index query term selecting what Matches selects.
func (t *affTerm) PodTerm() framework.PodTerm {
	pt := framework.PodTermOf(t.AffinityTerm)
	if t.mode == nsAll {
		pt.NamespaceSelector = api.Selector{} // every namespace
	}
	return pt
}

// podTermOf is PodTerm for a term of the incoming pod not prepared with
// newAffTerm: framework.PodTermOf, with the namespace selector release v
// applies.
func podTermOf(t *framework.AffinityTerm, v framework.KubeVersion) framework.PodTerm {
	pt := framework.PodTermOf(t)
	if selectsEveryNamespace(t.NamespaceSelector, v) {
		pt.NamespaceSelector = api.Selector{}
	}
	return pt
}

// Matches reports whether the term selects pod: pod's namespace is in the
// term's list or selected by its namespace selector, and pod's labels match
// the label selector.
func (t *affTerm) Matches(pod *api.Pod, snap *framework.Snapshot) bool {
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
