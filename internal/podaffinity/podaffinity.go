// Package podaffinity holds the pod (anti-)affinity helpers shared by the
// filter and score halves of InterPodAffinity: the incoming pod's terms with
// their namespace selectors resolved against the cycle's snapshot.
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

// Term is one affinity term of the pod being scheduled, prepared for
// matching existing pods. kube-scheduler v1.36 (mergeAffinityTermNamespacesIfNotEmpty)
// unrolls a non-empty namespace selector of the incoming pod's terms into
// the set of namespaces it selects at the start of the cycle; matching an
// existing pod's namespace against that set is the same as matching the
// selector against that namespace's labels, which is what Term does, reading
// the labels from the cycle's Snapshot. (A namespace the snapshot does not
// know has no labels here; kube would not list it. Pods only live in
// namespaces that exist, so the two agree on consistent input.)
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

// NewTerm prepares t (a term of the incoming pod) for matching.
func NewTerm(t *framework.AffinityTerm, weight int32) Term {
	m := nsLookup
	switch {
	case t.NamespaceSelector.IsNothing():
		m = nsListOnly
	case t.NamespaceSelector.IsEverything():
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

// Terms prepares required terms.
func Terms(ts []framework.AffinityTerm) []Term {
	if len(ts) == 0 {
		return nil
	}
	out := make([]Term, len(ts))
	for i := range ts {
		out[i] = NewTerm(&ts[i], 0)
	}
	return out
}

// WeightedTerms prepares preferred terms.
func WeightedTerms(ts []framework.WeightedAffinityTerm) []Term {
	if len(ts) == 0 {
		return nil
	}
	out := make([]Term, len(ts))
	for i := range ts {
		out[i] = NewTerm(&ts[i].AffinityTerm, ts[i].Weight)
	}
	return out
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
