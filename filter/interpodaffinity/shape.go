package interpodaffinity

import (
	"unsafe"

	"github.com/schedkit/schedkit/framework"
)

// podShape names, by identity, what matching an existing pod against affinity
// terms reads of its PodInfo: the pod's namespace, its labels map and its
// four compiled term slices. The replicas of a template and their assumed
// copies share all of them, so a plugin that derived something from one
// copy (which of the incoming pod's terms select it, which of its terms
// select the incoming pod) may reuse it for the next copy of the same
// podShape. A PodInfo and its pod's maps are read-only once built (the
// snapshot's contract), so one labels map means one label set and one
// slice one list of terms; podShape holds them, so their addresses are not
// reused while it is kept. The zero podShape matches no pod.
type podShape struct {
	ok        bool
	namespace string
	labels    map[string]string
	reqAff    []framework.AffinityTerm
	reqAnti   []framework.AffinityTerm
	prefAff   []framework.WeightedAffinityTerm
	prefAnti  []framework.WeightedAffinityTerm
}

// shapeOf returns pi's podShape; pi and pi.Pod must not be nil.
func shapeOf(pi *framework.PodInfo) podShape {
	return podShape{ok: true, namespace: pi.Pod.Namespace, labels: pi.Pod.Labels,
		reqAff: pi.RequiredAffinityTerms, reqAnti: pi.RequiredAntiAffinityTerms,
		prefAff: pi.PreferredAffinityTerms, prefAnti: pi.PreferredAntiAffinityTerms}
}

// Same reports whether pi (not nil, with a pod) has podShape s: the same
// namespace, the same labels map and the same term slices.
func (s *podShape) Same(pi *framework.PodInfo) bool {
	p := pi.Pod
	return s.ok && s.namespace == p.Namespace && sameMap(s.labels, p.Labels) &&
		sameSlice(s.reqAff, pi.RequiredAffinityTerms) && sameSlice(s.reqAnti, pi.RequiredAntiAffinityTerms) &&
		sameSlice(s.prefAff, pi.PreferredAffinityTerms) && sameSlice(s.prefAnti, pi.PreferredAntiAffinityTerms)
}

// sameMap reports whether a and b are the same map (both nil included).
func sameMap(a, b map[string]string) bool {
	return *(*unsafe.Pointer)(unsafe.Pointer(&a)) == *(*unsafe.Pointer)(unsafe.Pointer(&b))
}

// sameSlice reports whether a and b are the same slice: the same length,
// over the same array when not empty.
func sameSlice[T any](a, b []T) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}
