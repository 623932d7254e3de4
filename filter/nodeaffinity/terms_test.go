package nodeaffinity

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/schedkit/schedkit/framework/api"
)

func nameIn(vals ...string) api.NodeSelectorRequirement {
	return api.NodeSelectorRequirement{Key: objectNameField, Operator: api.NodeSelectorOpIn, Values: vals}
}

// Cases from kube-scheduler v1.36 nodeaffinity/node_affinity_test.go
// (TestNodeAffinityPreFilterResultWithNodeNames cases), as sets.
func TestNodeNames(t *testing.T) {
	label := api.NodeSelectorRequirement{Key: "zone", Operator: api.NodeSelectorOpIn, Values: []string{"a"}}
	tests := []struct {
		name  string
		terms []api.NodeSelectorTerm
		want  []string
		all   bool
	}{
		{name: "no terms", all: true},
		{name: "one term one name", terms: []api.NodeSelectorTerm{{MatchFields: []api.NodeSelectorRequirement{nameIn("n1")}}}, want: []string{"n1"}},
		{name: "intersection within a term", terms: []api.NodeSelectorTerm{{MatchFields: []api.NodeSelectorRequirement{nameIn("n1", "n2"), nameIn("n2", "n3")}}}, want: []string{"n2"}},
		{name: "union across terms", terms: []api.NodeSelectorTerm{
			{MatchFields: []api.NodeSelectorRequirement{nameIn("n1")}},
			{MatchFields: []api.NodeSelectorRequirement{nameIn("n2")}},
		}, want: []string{"n1", "n2"}},
		{name: "a term without name fields allows all", terms: []api.NodeSelectorTerm{
			{MatchFields: []api.NodeSelectorRequirement{nameIn("n1")}},
			{MatchExpressions: []api.NodeSelectorRequirement{label}},
		}, all: true},
		{name: "conflict", terms: []api.NodeSelectorTerm{{MatchFields: []api.NodeSelectorRequirement{nameIn("n1"), nameIn("n2")}}}, want: []string{}},
		{name: "NotIn is ignored", terms: []api.NodeSelectorTerm{{MatchFields: []api.NodeSelectorRequirement{{Key: objectNameField, Operator: api.NodeSelectorOpNotIn, Values: []string{"n1"}}}}}, all: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			names, all := nodeNames(tc.terms)
			if all != tc.all {
				t.Fatalf("all = %v, want %v", all, tc.all)
			}
			if tc.all {
				return
			}
			if names == nil {
				t.Fatalf("names nil, want %v", tc.want)
			}
			if diff := cmp.Diff(tc.want, sortedNames(names)); diff != "" {
				t.Errorf("names (-want,+got):\n%s", diff)
			}
		})
	}
}

func TestPreferredScore(t *testing.T) {
	node := &api.Node{ObjectMeta: api.ObjectMeta{Name: "n1", Labels: map[string]string{"zone": "a", "disk": "ssd"}}}
	p, err := newPreferred([]api.PreferredSchedulingTerm{
		{Weight: 5, Preference: api.NodeSelectorTerm{MatchExpressions: []api.NodeSelectorRequirement{{Key: "zone", Operator: api.NodeSelectorOpIn, Values: []string{"a"}}}}},
		{Weight: 3, Preference: api.NodeSelectorTerm{MatchExpressions: []api.NodeSelectorRequirement{{Key: "disk", Operator: api.NodeSelectorOpIn, Values: []string{"hdd"}}}}},
		{Weight: 7, Preference: api.NodeSelectorTerm{MatchFields: []api.NodeSelectorRequirement{nameIn("n1")}}},
		{Weight: 0, Preference: api.NodeSelectorTerm{MatchFields: []api.NodeSelectorRequirement{nameIn("n1")}}},
		{Weight: 9},
	}, "p")
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Score(node); got != 12 {
		t.Errorf("Score = %d, want 5+7 = 12", got)
	}
	if p.Len() != 3 {
		t.Errorf("Len = %d, want 3 (zero weight and empty term skipped)", p.Len())
	}
	if _, err := newPreferred([]api.PreferredSchedulingTerm{{Weight: 1, Preference: api.NodeSelectorTerm{MatchExpressions: []api.NodeSelectorRequirement{{Key: "bad key", Operator: api.NodeSelectorOpExists}}}}}, "p"); err == nil {
		t.Error("invalid key accepted")
	}
}

func TestRequiredLazyErrors(t *testing.T) {
	node := &api.Node{ObjectMeta: api.ObjectMeta{Name: "n1", Labels: map[string]string{"zone": "a"}}}
	pod := &api.Pod{Spec: api.PodSpec{Affinity: &api.Affinity{NodeAffinity: &api.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &api.NodeSelector{NodeSelectorTerms: []api.NodeSelectorTerm{
			{MatchExpressions: []api.NodeSelectorRequirement{{Key: "-bad", Operator: api.NodeSelectorOpExists}}},
			{MatchExpressions: []api.NodeSelectorRequirement{{Key: "zone", Operator: api.NodeSelectorOpIn, Values: []string{"a"}}}},
		}},
	}}}}
	r := podRequired(pod)
	if !r.Match(node) {
		t.Error("valid second term should match despite the invalid first term")
	}
	empty := &api.Pod{Spec: api.PodSpec{Affinity: &api.Affinity{NodeAffinity: &api.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &api.NodeSelector{},
	}}}}
	r2 := podRequired(empty)
	if r2.Match(node) {
		t.Error("required affinity with zero terms must match no node")
	}
}
