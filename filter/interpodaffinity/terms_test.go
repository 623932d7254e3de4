package interpodaffinity

import (
	"slices"
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
		term := newAffTerm(&at, 3, fw.DefaultKubeVersion)
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
	req := ipaPrepare(&ipaCounts{}, pi.RequiredAffinityTerms, fw.DefaultKubeVersion)
	pref := weightedAffTerms(pi.PreferredAffinityTerms, fw.DefaultKubeVersion)
	if len(req) != 2 || len(pref) != 1 || pref[0].Weight != 7 || pref[0].TopologyKey != "zone" {
		t.Fatalf("ipaPrepare/weightedAffTerms: %d %d %+v", len(req), len(pref), pref)
	}
	if ipaPrepare(&ipaCounts{}, nil, fw.DefaultKubeVersion) != nil || weightedAffTerms(nil, fw.DefaultKubeVersion) != nil {
		t.Fatal("no terms should give nil")
	}
	both := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "ns", Labels: map[string]string{"a": "1", "b": "2"}}}
	onlyA := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: "ns", Labels: map[string]string{"a": "1"}}}
	if !ipaMatchesAll(req, both, nil) || ipaMatchesAll(req, onlyA, nil) || ipaMatchesAll(nil, both, nil) {
		t.Fatal("ipaMatchesAll: want true for both labels, false for one, false for no terms")
	}
}

// TestTermNamespaceSelectorByVersion: an incoming pod's namespace selector
// in both releases. kube v1.36.4's
// interpodaffinity/plugin.go:mergeAffinityTermNamespacesIfNotEmpty takes
// the term by value, so the term keeps its selector and
// filtering.go:podMatchesAllAffinityTerms (and scoring.go:processTerms)
// match it against nil namespace labels: a selector whose requirements
// all hold on an empty label set (NotIn, DoesNotExist) selects every
// namespace. v1.37.2 takes the term by pointer and matches only the
// namespaces the selector lists.
func TestTermNamespaceSelectorByVersion(t *testing.T) {
	owner := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "owner", Namespace: "b"}}
	snap := fw.MustSnapshot(nil, nil, fw.WithNamespaces(
		api.Namespace{Name: "a", Labels: map[string]string{"team": "a"}},
		api.Namespace{Name: "b", Labels: map[string]string{"team": "b"}},
		api.Namespace{Name: "c", Labels: map[string]string{"team": "c", "env": "prod"}},
	))
	x := &api.LabelSelector{MatchLabels: map[string]string{"app": "x"}}
	req := func(key string, op api.LabelSelectorOperator, vals ...string) api.LabelSelectorRequirement {
		return api.LabelSelectorRequirement{Key: key, Operator: op, Values: vals}
	}
	exprs := func(rs ...api.LabelSelectorRequirement) *api.LabelSelector {
		return &api.LabelSelector{MatchExpressions: rs}
	}
	all := [3]bool{true, true, true}
	tests := []struct {
		name     string
		term     api.PodAffinityTerm
		every136 bool    // selectsEveryNamespace in v1.36
		want137  [3]bool // Matches(pod in a, b, c) in v1.37
		want136  [3]bool
	}{
		{name: "NotIn", term: api.PodAffinityTerm{LabelSelector: x, NamespaceSelector: exprs(req("team", api.LabelSelectorOpNotIn, "a"))},
			every136: true, want137: [3]bool{false, true, true}, want136: all},
		{name: "DoesNotExist", term: api.PodAffinityTerm{LabelSelector: x, NamespaceSelector: exprs(req("env", api.LabelSelectorOpDoesNotExist))},
			every136: true, want137: [3]bool{true, true, false}, want136: all},
		{name: "NotIn and DoesNotExist", term: api.PodAffinityTerm{LabelSelector: x, NamespaceSelector: exprs(req("team", api.LabelSelectorOpNotIn, "a"), req("env", api.LabelSelectorOpDoesNotExist))},
			every136: true, want137: [3]bool{false, true, false}, want136: all},
		// The namespace list no longer matters when every namespace is.
		{name: "NotIn with a namespace list", term: api.PodAffinityTerm{LabelSelector: x, Namespaces: []string{"a"}, NamespaceSelector: exprs(req("team", api.LabelSelectorOpNotIn, "a", "b"))},
			every136: true, want137: [3]bool{true, false, true}, want136: all},
		// An In, Exists or matchLabels requirement fails on empty labels:
		// both releases match the listed namespaces.
		{name: "NotIn and Exists", term: api.PodAffinityTerm{LabelSelector: x, NamespaceSelector: exprs(req("team", api.LabelSelectorOpNotIn, "a"), req("env", api.LabelSelectorOpExists))},
			want137: [3]bool{false, false, true}, want136: [3]bool{false, false, true}},
		{name: "In", term: api.PodAffinityTerm{LabelSelector: x, NamespaceSelector: exprs(req("team", api.LabelSelectorOpIn, "b"))},
			want137: [3]bool{false, true, false}, want136: [3]bool{false, true, false}},
		{name: "matchLabels", term: api.PodAffinityTerm{LabelSelector: x, NamespaceSelector: &api.LabelSelector{MatchLabels: map[string]string{"team": "c"}}},
			want137: [3]bool{false, false, true}, want136: [3]bool{false, false, true}},
		// {} selects every namespace and nil none but the owner's, in both.
		{name: "empty selector", term: api.PodAffinityTerm{LabelSelector: x, NamespaceSelector: &api.LabelSelector{}}, want137: all, want136: all},
		{name: "no selector", term: api.PodAffinityTerm{LabelSelector: x}, want137: [3]bool{false, true, false}, want136: [3]bool{false, true, false}},
	}
	for _, tc := range tests {
		at, err := fw.NewAffinityTerm(owner, &tc.term)
		if err != nil {
			t.Fatal(err)
		}
		if got := selectsEveryNamespace(at.NamespaceSelector, fw.KubeV136); got != tc.every136 {
			t.Errorf("%s: selectsEveryNamespace(v1.36) = %v, want %v", tc.name, got, tc.every136)
		}
		if selectsEveryNamespace(at.NamespaceSelector, fw.KubeV137) {
			t.Errorf("%s: selectsEveryNamespace(v1.37) = true", tc.name)
		}
		for _, c := range []struct {
			v    fw.KubeVersion
			want [3]bool
		}{{fw.KubeV136, tc.want136}, {fw.KubeV137, tc.want137}} {
			term := newAffTerm(&at, 0, c.v)
			pt, pto := term.PodTerm(), podTermOf(&at, c.v)
			for i, ns := range []string{"a", "b", "c"} {
				p := &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: ns, Labels: map[string]string{"app": "x"}}}
				if got := term.Matches(p, snap); got != c.want[i] {
					t.Errorf("%s %v: Matches(pod in %q) = %v, want %v", tc.name, c.v, ns, got, c.want[i])
				}
				// The pod-index term selects the same namespaces.
				for _, q := range []fw.PodTerm{pt, pto} {
					listed := slices.Contains(q.Namespaces, ns)
					if got := listed || (!q.NamespaceSelector.IsNothing() && q.NamespaceSelector.Matches(snap.NamespaceLabels(ns))); got != c.want[i] {
						t.Errorf("%s %v: PodTerm selects %q = %v, want %v", tc.name, c.v, ns, got, c.want[i])
					}
				}
			}
		}
	}
}
