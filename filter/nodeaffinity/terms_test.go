package nodeaffinity

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	fw "github.com/schedkit/schedkit/framework"
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

// TestPropPreFilterBound: when PreFilterBound bounds a pod's result,
// PreFilter, against a snapshot or without one, rejects the pod or names
// no more nodes than the bound; when it does not, the pod has a term
// naming no node by metadata.name In, and PreFilter allows every node.
func TestPropPreFilterBound(t *testing.T) {
	pl, err := New(DefaultNodeAffinityArgs(), nil)
	if err != nil {
		t.Fatal(err)
	}
	na := pl.(*NodeAffinity)
	var nodes []*api.Node
	for i := range 6 {
		nodes = append(nodes, &api.Node{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("n%d", i), Labels: map[string]string{"zone": fmt.Sprint(i % 2)}}})
	}
	snap := fw.MustSnapshot(nodes, nil)
	rapid.Check(t, func(t *rapid.T) {
		names := rapid.SliceOfN(rapid.SampledFrom([]string{"n0", "n1", "n2", "n3", "n4", "n5", "gone"}), 0, 3)
		var terms []api.NodeSelectorTerm
		for range rapid.IntRange(1, 3).Draw(t, "terms") {
			var term api.NodeSelectorTerm
			for range rapid.IntRange(0, 2).Draw(t, "fields") {
				op := rapid.SampledFrom([]api.NodeSelectorOperator{api.NodeSelectorOpIn, api.NodeSelectorOpNotIn}).Draw(t, "op")
				term.MatchFields = append(term.MatchFields, api.NodeSelectorRequirement{Key: "metadata.name", Operator: op, Values: names.Draw(t, "names")})
			}
			if rapid.Bool().Draw(t, "label") {
				term.MatchExpressions = []api.NodeSelectorRequirement{{Key: "zone", Operator: api.NodeSelectorOpIn, Values: []string{"0"}}}
			}
			terms = append(terms, term)
		}
		pod := fw.MustPodInfo(&api.Pod{ObjectMeta: api.ObjectMeta{Name: "p", UID: "p"}, Spec: api.PodSpec{Affinity: &api.Affinity{NodeAffinity: &api.NodeAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: &api.NodeSelector{NodeSelectorTerms: terms}}}}})
		bound, ok := na.PreFilterBound(pod)
		for _, withSnap := range []bool{false, true} {
			state := fw.NewCycleState()
			if withSnap {
				state.SetSnapshot(snap)
			}
			res, st := na.PreFilter(context.Background(), state, pod, snap.Nodes())
			switch {
			case ok && st.IsSuccess() && (res.AllNodes() || len(res.NodeNames) > bound):
				t.Fatalf("bound %d, PreFilter names %v (snapshot %v)", bound, res, withSnap)
			case !ok && (!st.IsSuccess() || !res.AllNodes()):
				t.Fatalf("no bound, PreFilter %v, %v (snapshot %v)", res, st, withSnap)
			}
		}
	})
}
