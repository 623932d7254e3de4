package framework_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"pgregory.net/rapid"
)

// TestPropAffinityGroupsSelecting: the memoized answer is, pod after pod,
// the groups of AffinityGroups whose term matches the pod, in the same
// order — with pods of repeated and of new labels, while pods with
// affinity terms (selectors of one label, of In over two values beside
// another label, of NotIn alone, of everything) come and go, and on
// clones that change apart.
func TestPropAffinityGroupsSelecting(t *testing.T) {
	apps := []string{"web", "db", "cache"}
	namespaces := []api.Namespace{
		{Name: "prod", Labels: map[string]string{"env": "prod"}},
		{Name: "dev", Labels: map[string]string{"env": "dev"}},
	}
	rapid.Check(t, func(t *rapid.T) {
		var nodes []*api.Node
		for i := range 6 {
			nodes = append(nodes, builder.MakeNode().Name(fmt.Sprintf("n%d", i)).Label("zone", fmt.Sprintf("z%d", i%2)).Obj())
		}
		drawPod := func(name string, terms bool) *api.Pod {
			w := builder.MakePod().Name(name).Namespace(rapid.SampledFrom([]string{"prod", "dev"}).Draw(t, "ns")).
				Label("app", rapid.SampledFrom(apps).Draw(t, "app"))
			if rapid.Bool().Draw(t, "tier") {
				w = w.Label("tier", "a")
			}
			if terms {
				for range rapid.IntRange(0, 2).Draw(t, "terms") {
					kind := builder.PodAffinityKind(rapid.IntRange(1, 4).Draw(t, "kind"))
					sel := &api.LabelSelector{MatchLabels: map[string]string{"app": rapid.SampledFrom(apps).Draw(t, "selects")}}
					switch rapid.IntRange(0, 4).Draw(t, "selector") {
					case 1: // In over two apps, and a label of another key
						sel = &api.LabelSelector{MatchLabels: map[string]string{"tier": "a"}, MatchExpressions: []api.LabelSelectorRequirement{
							{Key: "app", Operator: api.LabelSelectorOpIn, Values: []string{apps[0], rapid.SampledFrom(apps).Draw(t, "second")}}}}
					case 2: // no In requirement
						sel = &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{
							{Key: "app", Operator: api.LabelSelectorOpNotIn, Values: []string{rapid.SampledFrom(apps).Draw(t, "notIn")}}}}
					case 3: // everything
						sel = &api.LabelSelector{}
					}
					term := api.PodAffinityTerm{TopologyKey: "zone", LabelSelector: sel}
					if rapid.Bool().Draw(t, "nsSelector") {
						term.NamespaceSelector = &api.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}
					}
					w = w.PodAffinityTerm(kind, rapid.Int32Range(1, 100).Draw(t, "weight"), term)
				}
			}
			return w.Node(nodes[rapid.IntRange(0, len(nodes)-1).Draw(t, "node")].Name).Obj()
		}
		var pods []*api.Pod
		for i := range rapid.IntRange(0, 8).Draw(t, "pods") {
			pods = append(pods, drawPod(fmt.Sprintf("e%d", i), true))
		}
		snap, err := framework.NewSnapshot(nodes, pods, framework.WithNamespaces(namespaces...))
		if err != nil {
			t.Fatal(err)
		}
		snaps := []*framework.Snapshot{snap}
		for step := range 30 {
			s := snaps[rapid.IntRange(0, len(snaps)-1).Draw(t, "snap")]
			switch rapid.IntRange(0, 5).Draw(t, "op") {
			case 0:
				p := drawPod(fmt.Sprintf("a%d", step), true)
				if err := s.AddPod(p); err != nil {
					t.Fatal(err)
				}
				pods = append(pods, p)
			case 1:
				if len(pods) > 0 {
					_ = s.RemovePod(pods[rapid.IntRange(0, len(pods)-1).Draw(t, "remove")]) // may be on another snapshot only
				}
			case 2:
				snaps = append(snaps, s.Clone())
			default:
				pod := drawPod("in", false)
				nsLabels := s.NamespaceLabels(pod.Namespace)
				var want []*framework.AffinityGroup
				for _, g := range s.AffinityGroups() {
					if g.Term.Matches(pod, nsLabels) {
						want = append(want, g)
					}
				}
				if got := s.AffinityGroupsSelecting(pod); !slices.Equal(got, want) {
					t.Fatalf("step %d: %d groups selecting %s/%v, want %d", step, len(got), pod.Namespace, pod.Labels, len(want))
				}
			}
		}
	})
}
