package interpodaffinity

import (
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
)

// TestShapeSame: a copy of a PodInfo sharing its pod's labels map and its
// term slices has its podShape; a change of the namespace, of the labels map
// (even to equal labels) or of any one term slice does not.
func TestShapeSame(t *testing.T) {
	labels := map[string]string{"app": "a"}
	terms := []framework.AffinityTerm{{TopologyKey: "zone"}}
	weighted := []framework.WeightedAffinityTerm{{Weight: 3}}
	base := &framework.PodInfo{Pod: &api.Pod{ObjectMeta: api.ObjectMeta{Name: "p", Namespace: "ns", Labels: labels}},
		RequiredAffinityTerms: terms, RequiredAntiAffinityTerms: terms, PreferredAffinityTerms: weighted, PreferredAntiAffinityTerms: weighted}
	variant := func(f func(pi *framework.PodInfo)) *framework.PodInfo {
		p := *base.Pod
		pi := *base
		pi.Pod = &p
		f(&pi)
		return &pi
	}
	cases := []struct {
		name string
		pi   *framework.PodInfo
		want bool
	}{
		{"replica", variant(func(pi *framework.PodInfo) { pi.Pod.Name = "q" }), true},
		{"namespace", variant(func(pi *framework.PodInfo) { pi.Pod.Namespace = "other" }), false},
		{"equal labels, another map", variant(func(pi *framework.PodInfo) { pi.Pod.Labels = map[string]string{"app": "a"} }), false},
		{"required affinity", variant(func(pi *framework.PodInfo) {
			pi.RequiredAffinityTerms = append([]framework.AffinityTerm(nil), terms...)
		}), false},
		{"required anti-affinity", variant(func(pi *framework.PodInfo) { pi.RequiredAntiAffinityTerms = nil }), false},
		{"preferred affinity", variant(func(pi *framework.PodInfo) { pi.PreferredAffinityTerms = weighted[:0] }), false},
		{"preferred anti-affinity", variant(func(pi *framework.PodInfo) {
			pi.PreferredAntiAffinityTerms = append([]framework.WeightedAffinityTerm(nil), weighted...)
		}), false},
	}
	s := shapeOf(base)
	for _, c := range cases {
		if got := s.Same(c.pi); got != c.want {
			t.Errorf("%s: Same = %v, want %v", c.name, got, c.want)
		}
	}
	var zero podShape
	if zero.Same(base) {
		t.Error("the zero podShape matches a pod")
	}
}
