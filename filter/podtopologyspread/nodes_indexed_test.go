package podtopologyspread

import (
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"pgregory.net/rapid"
)

// TestPropIndexedInclusionEqualsEval: the inclusion verdicts resolved
// against a snapshot (label values, taint classes) equal Eval on each
// node, under every combination of node inclusion policies.
func TestPropIndexedInclusionEqualsEval(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nodes, _, pod := st.BatchCluster(t)
		snap := fw.MustSnapshot(nodes, nil)
		policies := []api.NodeInclusionPolicy{api.NodeInclusionPolicyHonor, api.NodeInclusionPolicyIgnore}
		cs := []constraint{{TopologyKey: labelTopologyZone,
			NodeAffinityPolicy: rapid.SampledFrom(policies).Draw(t, "affinityPolicy"),
			NodeTaintsPolicy:   rapid.SampledFrom(policies).Draw(t, "taintsPolicy")}}
		in := newInclusion(pod, cs)
		x := in.Indexed(snap)
		for k, ni := range snap.Nodes() {
			if got, want := x.Eval(k), in.Eval(ni.Node()); got != want {
				t.Fatalf("node %s: indexed %+v, Eval %+v", ni.Name(), got, want)
			}
		}
	})
}
