package nodeaffinity

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"pgregory.net/rapid"
)

// namedDrawTerm draws a required term over nodes n0…n4: mostly one
// "metadata.name In" of one value (the shape pods naming their node
// take), else one of the shapes beside it: two values, NotIn, a label
// expression besides, two field requirements, or none.
func namedDrawTerm(t *rapid.T) api.NodeSelectorTerm {
	name := func(label string) string { return fmt.Sprintf("n%d", rapid.IntRange(0, 5).Draw(t, label)) }
	in := func(values ...string) api.NodeSelectorRequirement {
		return api.NodeSelectorRequirement{Key: objectNameField, Operator: api.NodeSelectorOpIn, Values: values}
	}
	switch rapid.IntRange(0, 9).Draw(t, "shape") {
	case 0:
		return api.NodeSelectorTerm{MatchFields: []api.NodeSelectorRequirement{in(name("a"), name("b"))}}
	case 1:
		return api.NodeSelectorTerm{MatchFields: []api.NodeSelectorRequirement{{Key: objectNameField, Operator: api.NodeSelectorOpNotIn, Values: []string{name("not")}}}}
	case 2:
		return api.NodeSelectorTerm{MatchFields: []api.NodeSelectorRequirement{in(name("with"))},
			MatchExpressions: []api.NodeSelectorRequirement{{Key: "zone", Operator: api.NodeSelectorOpIn, Values: []string{"a"}}}}
	case 3:
		return api.NodeSelectorTerm{MatchFields: []api.NodeSelectorRequirement{in(name("x")), in(name("y"))}}
	case 4:
		return api.NodeSelectorTerm{}
	default:
		return api.NodeSelectorTerm{MatchFields: []api.NodeSelectorRequirement{in(name("one"))}}
	}
}

// TestPropNamedNodesMatchCompiled: whatever the shape of a pod's
// required node affinity, next to the one that only names nodes (with a
// nodeSelector or not; the pod before it with the same terms, a prefix
// of them, one more, or others),
// PreFilter's result is kube's (the union of the terms' names) and the
// verdicts of Filter and FilterRejects after it, on every node, are
// those of a Filter that compiles the constraints afresh.
func TestPropNamedNodesMatchCompiled(t *testing.T) {
	named := 0
	rapid.Check(t, func(t *rapid.T) {
		pl, err := New(NodeAffinityArgs{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		na := pl.(*NodeAffinity)
		var nodes []*api.Node
		for i := range 5 {
			nodes = append(nodes, &api.Node{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("n%d", i), Labels: map[string]string{"zone": []string{"a", "b"}[i%2]}}})
		}
		snap := fw.MustSnapshot(nodes, nil)
		var prev []api.NodeSelectorTerm
		for p := range rapid.IntRange(1, 4).Draw(t, "pods") {
			var terms []api.NodeSelectorTerm
			switch from := rapid.IntRange(0, 3).Draw(t, "from"); {
			case prev != nil && from == 0: // the same terms again
				terms = prev
			case prev != nil && from == 1: // the previous pod's terms but the last
				terms = prev[:max(len(prev)-1, 1)]
			case prev != nil && from == 2: // the previous pod's terms and one more
				terms = append(slices.Clone(prev), namedDrawTerm(t))
			default:
				// Half the pods only name nodes, so that the next pod
				// often finds them shared.
				onlyNames := rapid.Bool().Draw(t, "onlyNames")
				for range rapid.IntRange(1, 3).Draw(t, "terms") {
					if onlyNames {
						terms = append(terms, api.NodeSelectorTerm{MatchFields: []api.NodeSelectorRequirement{
							{Key: objectNameField, Operator: api.NodeSelectorOpIn, Values: []string{fmt.Sprintf("n%d", rapid.IntRange(0, 5).Draw(t, "name"))}}}})
						continue
					}
					terms = append(terms, namedDrawTerm(t))
				}
			}
			prev = terms
			pod := &api.Pod{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("p%d", p)}, Spec: api.PodSpec{
				Affinity: &api.Affinity{NodeAffinity: &api.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &api.NodeSelector{NodeSelectorTerms: slices.Clone(terms)}}}}}
			if rapid.IntRange(0, 4).Draw(t, "nodeSelector") == 0 {
				pod.Spec.NodeSelector = map[string]string{"zone": "a"}
			}
			if len(namedTerms(&pod.Spec)) > 0 {
				named++
			}
			pi := fw.MustPodInfo(pod)
			state := fw.NewCycleState()
			if rapid.Bool().Draw(t, "snapshot") {
				state.SetSnapshot(snap)
			}
			res, st := na.PreFilter(context.Background(), state, pi, snap.Nodes())
			want, all := nodeNames(terms)
			switch {
			case all && !res.AllNodes():
				t.Fatalf("pod %d: PreFilterResult %v, want every node", p, res.NodeNames)
			case !all && len(want) == 0 && st.Code() != fw.UnschedulableAndUnresolvable:
				t.Fatalf("pod %d: status %v, want the conflict", p, st)
			case !all && len(want) > 0 && (res.AllNodes() || !maps.Equal(res.NodeNames, want)):
				t.Fatalf("pod %d: PreFilterResult %v, want %v", p, res, want)
			}
			if !st.IsSuccess() {
				continue
			}
			idx := make([]int32, snap.NumNodes())
			for i := range idx {
				idx[i] = int32(i)
			}
			rejected := map[int32]bool{}
			for _, r := range na.FilterRejects(context.Background(), state, pi, snap.Nodes(), idx, nil) {
				rejected[r.Node] = true
			}
			for i, ni := range snap.Nodes() {
				got := na.Filter(context.Background(), state, pi, ni).IsSuccess()
				fresh := na.Filter(context.Background(), fw.NewCycleState(), pi, ni).IsSuccess()
				if got != fresh || rejected[int32(i)] == fresh {
					t.Fatalf("pod %d (terms %+v, nodeSelector %v), node %s: fits %v after PreFilter (FilterRejects rejects %v), %v compiled afresh", p, terms, pod.Spec.NodeSelector, ni.Name(), got, rejected[int32(i)], fresh)
				}
			}
		}
	})
	if named == 0 {
		t.Fatal("no pod only named nodes")
	}
}
