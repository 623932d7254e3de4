package nodeaffinity

import (
	"fmt"
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"pgregory.net/rapid"
)

// TestPropIndexedEqualsPlain: a pod's required node constraints
// (nodeSelector AND any of the required terms) and its preferred terms,
// resolved against a snapshot, give every snapshot node the verdict and
// the score requiredTerms.Match and preferredTerms.Score give the node itself.
func TestPropIndexedEqualsPlain(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 12).Draw(t, "nodes")
		nodes := make([]*api.Node, n)
		for i := range nodes {
			labels := map[string]string{}
			for _, key := range []string{"zone", "disk", "type"} {
				if rapid.IntRange(0, 3).Draw(t, "has"+key) > 0 {
					labels[key] = rapid.SampledFrom([]string{"a", "b", "c"}).Draw(t, key)
				}
			}
			nodes[i] = &api.Node{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("n%d", i), Labels: labels}}
		}
		snap := fw.MustSnapshot(nodes, nil)
		req := func(label string) api.NodeSelectorRequirement {
			return api.NodeSelectorRequirement{Key: rapid.SampledFrom([]string{"zone", "disk", "type", "none"}).Draw(t, label+"Key"),
				Operator: rapid.SampledFrom([]api.NodeSelectorOperator{api.NodeSelectorOpIn, api.NodeSelectorOpNotIn, api.NodeSelectorOpExists}).Draw(t, label+"Op"),
				Values:   []string{rapid.SampledFrom([]string{"a", "b"}).Draw(t, label+"Value")}}
		}
		term := func(label string) api.NodeSelectorTerm {
			var tm api.NodeSelectorTerm
			for range rapid.IntRange(0, 2).Draw(t, label+"Exprs") {
				r := req(label)
				if r.Operator == api.NodeSelectorOpExists {
					r.Values = nil
				}
				tm.MatchExpressions = append(tm.MatchExpressions, r)
			}
			if rapid.IntRange(0, 4).Draw(t, label+"Field") == 0 {
				tm.MatchFields = []api.NodeSelectorRequirement{{Key: objectNameField, Operator: api.NodeSelectorOpIn,
					Values: []string{fmt.Sprintf("n%d", rapid.IntRange(0, n-1).Draw(t, label+"FieldNode"))}}}
			}
			return tm
		}
		pod := &api.Pod{}
		if rapid.Bool().Draw(t, "nodeSelector") {
			pod.Spec.NodeSelector = map[string]string{rapid.SampledFrom([]string{"zone", "disk"}).Draw(t, "selKey"): rapid.SampledFrom([]string{"a", "b"}).Draw(t, "selValue")}
		}
		na := &api.NodeAffinity{}
		if rapid.Bool().Draw(t, "required") {
			na.RequiredDuringSchedulingIgnoredDuringExecution = &api.NodeSelector{}
			for range rapid.IntRange(0, 3).Draw(t, "terms") {
				na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms = append(na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms, term("req"))
			}
		}
		for range rapid.IntRange(0, 3).Draw(t, "preferred") {
			na.PreferredDuringSchedulingIgnoredDuringExecution = append(na.PreferredDuringSchedulingIgnoredDuringExecution,
				api.PreferredSchedulingTerm{Weight: rapid.Int32Range(0, 100).Draw(t, "weight"), Preference: term("pref")})
		}
		pod.Spec.Affinity = &api.Affinity{NodeAffinity: na}
		r := podRequired(pod)
		p, err := newPreferred(na.PreferredDuringSchedulingIgnoredDuringExecution, "p")
		if err != nil {
			t.Fatal(err)
		}
		ir, ip := r.Indexed(snap), p.Indexed(snap)
		for k, ni := range snap.Nodes() {
			if got, want := ir.Match(k), r.Match(ni.Node()); got != want {
				t.Fatalf("required on node %s %v: indexed %v, plain %v", ni.Name(), ni.Node().Labels, got, want)
			}
			if got, want := ip.Score(k), p.Score(ni.Node()); got != want {
				t.Fatalf("preferred on node %s %v: indexed %d, plain %d", ni.Name(), ni.Node().Labels, got, want)
			}
		}
		// AddScores over every node, in reverse order, onto a row of 1s.
		all := snap.Nodes()
		idx := make([]int32, len(all))
		out := make([]int64, len(all))
		for i := range idx {
			idx[i], out[i] = int32(len(all)-1-i), 1
		}
		ip.AddScores(idx, out)
		for i, k := range idx {
			if want := 1 + p.Score(all[k].Node()); out[i] != want {
				t.Fatalf("AddScores on node %s %v: %d, want %d", all[k].Name(), all[k].Node().Labels, out[i], want)
			}
		}
	})
}
