package podaffinity

import (
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
)

func TestTermMatchesNamespaceModes(t *testing.T) {
	owner := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "owner", Namespace: "home"}}
	snap := fw.MustSnapshot(nil, nil, fw.WithNamespaces(
		api.Namespace{Name: "prod", Labels: map[string]string{"env": "prod"}},
		api.Namespace{Name: "dev", Labels: map[string]string{"env": "dev"}},
	))
	web := &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	pod := func(ns string) *api.Pod {
		return &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: ns, Labels: map[string]string{"app": "web"}}}
	}
	tests := []struct {
		name string
		term api.PodAffinityTerm
		// want per candidate namespace: home, prod, dev, unknown
		want [4]bool
	}{
		// No namespaces and no selector: the owner's namespace only.
		{name: "default namespace", term: api.PodAffinityTerm{LabelSelector: web}, want: [4]bool{true, false, false, false}},
		{name: "namespace list", term: api.PodAffinityTerm{LabelSelector: web, Namespaces: []string{"dev"}}, want: [4]bool{false, false, true, false}},
		{name: "two-namespace list", term: api.PodAffinityTerm{LabelSelector: web, Namespaces: []string{"dev", "unknown"}}, want: [4]bool{false, false, true, true}},
		// {} selects every namespace, known or not.
		{name: "empty selector", term: api.PodAffinityTerm{LabelSelector: web, NamespaceSelector: &api.LabelSelector{}}, want: [4]bool{true, true, true, true}},
		// A real selector is matched against the namespace's labels; list
		// entries still count.
		{name: "selector plus list", term: api.PodAffinityTerm{LabelSelector: web, Namespaces: []string{"home"},
			NamespaceSelector: &api.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}}, want: [4]bool{true, true, false, false}},
		// An unknown namespace has no labels, so DoesNotExist selects it.
		{name: "does-not-exist selector", term: api.PodAffinityTerm{LabelSelector: web,
			NamespaceSelector: &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "env", Operator: api.LabelSelectorOpDoesNotExist}}}},
			want: [4]bool{true, false, false, true}},
	}
	for _, tc := range tests {
		at, err := fw.NewAffinityTerm(owner, &tc.term)
		if err != nil {
			t.Fatal(err)
		}
		term := NewTerm(&at, 3)
		if term.Weight != 3 {
			t.Errorf("%s: weight %d, want 3", tc.name, term.Weight)
		}
		for i, ns := range []string{"home", "prod", "dev", "unknown"} {
			if got := term.Matches(pod(ns), snap); got != tc.want[i] {
				t.Errorf("%s: Matches(pod in %q) = %v, want %v", tc.name, ns, got, tc.want[i])
			}
		}
		other := pod("home")
		other.Labels = map[string]string{"app": "db"}
		if term.Matches(other, snap) {
			t.Errorf("%s: matched a pod whose labels do not match", tc.name)
		}
	}
}

func TestTermsAndMatchesAll(t *testing.T) {
	pi := fw.MustPodInfo(&api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "ns"}, Spec: api.PodSpec{Affinity: &api.Affinity{
		PodAffinity: &api.PodAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []api.PodAffinityTerm{
				{LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"a": "1"}}, TopologyKey: "zone"},
				{LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"b": "2"}}, TopologyKey: "host"},
			},
			PreferredDuringSchedulingIgnoredDuringExecution: []api.WeightedPodAffinityTerm{
				{Weight: 7, PodAffinityTerm: api.PodAffinityTerm{LabelSelector: &api.LabelSelector{}, TopologyKey: "zone"}},
			},
		},
	}}})
	req := Terms(pi.RequiredAffinityTerms)
	pref := WeightedTerms(pi.PreferredAffinityTerms)
	if len(req) != 2 || len(pref) != 1 || pref[0].Weight != 7 || pref[0].TopologyKey != "zone" {
		t.Fatalf("Terms/WeightedTerms: %d %d %+v", len(req), len(pref), pref)
	}
	if Terms(nil) != nil || WeightedTerms(nil) != nil {
		t.Fatal("no terms should give nil")
	}
	both := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "ns", Labels: map[string]string{"a": "1", "b": "2"}}}
	onlyA := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "ns", Labels: map[string]string{"a": "1"}}}
	if !MatchesAll(req, both, nil) || MatchesAll(req, onlyA, nil) || MatchesAll(nil, both, nil) {
		t.Fatal("MatchesAll: want true for both labels, false for one, false for no terms")
	}
}
