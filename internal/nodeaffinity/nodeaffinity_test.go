package nodeaffinity

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	fw "github.com/schedkit/schedkit/framework"
)

func nameIn(vals ...string) fw.NodeSelectorRequirement {
	return fw.NodeSelectorRequirement{Key: ObjectNameField, Operator: fw.NodeSelectorOpIn, Values: vals}
}

// Cases from kube-scheduler v1.36 nodeaffinity/node_affinity_test.go
// (TestNodeAffinityPreFilterResultWithNodeNames cases), as sets.
func TestNodeNames(t *testing.T) {
	label := fw.NodeSelectorRequirement{Key: "zone", Operator: fw.NodeSelectorOpIn, Values: []string{"a"}}
	tests := []struct {
		name  string
		terms []fw.NodeSelectorTerm
		want  []string
		all   bool
	}{
		{name: "no terms", all: true},
		{name: "one term one name", terms: []fw.NodeSelectorTerm{{MatchFields: []fw.NodeSelectorRequirement{nameIn("n1")}}}, want: []string{"n1"}},
		{name: "intersection within a term", terms: []fw.NodeSelectorTerm{{MatchFields: []fw.NodeSelectorRequirement{nameIn("n1", "n2"), nameIn("n2", "n3")}}}, want: []string{"n2"}},
		{name: "union across terms", terms: []fw.NodeSelectorTerm{
			{MatchFields: []fw.NodeSelectorRequirement{nameIn("n1")}},
			{MatchFields: []fw.NodeSelectorRequirement{nameIn("n2")}},
		}, want: []string{"n1", "n2"}},
		{name: "a term without name fields allows all", terms: []fw.NodeSelectorTerm{
			{MatchFields: []fw.NodeSelectorRequirement{nameIn("n1")}},
			{MatchExpressions: []fw.NodeSelectorRequirement{label}},
		}, all: true},
		{name: "conflict", terms: []fw.NodeSelectorTerm{{MatchFields: []fw.NodeSelectorRequirement{nameIn("n1"), nameIn("n2")}}}, want: []string{}},
		{name: "NotIn is ignored", terms: []fw.NodeSelectorTerm{{MatchFields: []fw.NodeSelectorRequirement{{Key: ObjectNameField, Operator: fw.NodeSelectorOpNotIn, Values: []string{"n1"}}}}}, all: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			names, all := NodeNames(tc.terms)
			if all != tc.all {
				t.Fatalf("all = %v, want %v", all, tc.all)
			}
			if tc.all {
				return
			}
			if names == nil {
				t.Fatalf("names nil, want %v", tc.want)
			}
			if diff := cmp.Diff(tc.want, SortedNames(names)); diff != "" {
				t.Errorf("names (-want,+got):\n%s", diff)
			}
		})
	}
}

func TestPreferredScore(t *testing.T) {
	node := &fw.Node{ObjectMeta: fw.ObjectMeta{Name: "n1", Labels: map[string]string{"zone": "a", "disk": "ssd"}}}
	p, err := NewPreferred([]fw.PreferredSchedulingTerm{
		{Weight: 5, Preference: fw.NodeSelectorTerm{MatchExpressions: []fw.NodeSelectorRequirement{{Key: "zone", Operator: fw.NodeSelectorOpIn, Values: []string{"a"}}}}},
		{Weight: 3, Preference: fw.NodeSelectorTerm{MatchExpressions: []fw.NodeSelectorRequirement{{Key: "disk", Operator: fw.NodeSelectorOpIn, Values: []string{"hdd"}}}}},
		{Weight: 7, Preference: fw.NodeSelectorTerm{MatchFields: []fw.NodeSelectorRequirement{nameIn("n1")}}},
		{Weight: 0, Preference: fw.NodeSelectorTerm{MatchFields: []fw.NodeSelectorRequirement{nameIn("n1")}}},
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
	if _, err := NewPreferred([]fw.PreferredSchedulingTerm{{Weight: 1, Preference: fw.NodeSelectorTerm{MatchExpressions: []fw.NodeSelectorRequirement{{Key: "bad key", Operator: fw.NodeSelectorOpExists}}}}}, "p"); err == nil {
		t.Error("invalid key accepted")
	}
}

func TestRequiredLazyErrors(t *testing.T) {
	node := &fw.Node{ObjectMeta: fw.ObjectMeta{Name: "n1", Labels: map[string]string{"zone": "a"}}}
	pod := &fw.Pod{Spec: fw.PodSpec{Affinity: &fw.Affinity{NodeAffinity: &fw.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &fw.NodeSelector{NodeSelectorTerms: []fw.NodeSelectorTerm{
			{MatchExpressions: []fw.NodeSelectorRequirement{{Key: "-bad", Operator: fw.NodeSelectorOpExists}}},
			{MatchExpressions: []fw.NodeSelectorRequirement{{Key: "zone", Operator: fw.NodeSelectorOpIn, Values: []string{"a"}}}},
		}},
	}}}}
	r := GetRequired(pod)
	if !r.Match(node) {
		t.Error("valid second term should match despite the invalid first term")
	}
	empty := &fw.Pod{Spec: fw.PodSpec{Affinity: &fw.Affinity{NodeAffinity: &fw.NodeAffinity{
		RequiredDuringSchedulingIgnoredDuringExecution: &fw.NodeSelector{},
	}}}}
	r2 := GetRequired(empty)
	if r2.Match(node) {
		t.Error("required affinity with zero terms must match no node")
	}
}
