package podtopologyspread

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
)

// TestInclusionEveryNode: a pod whose node constraints or tolerations
// every node meets, under constraints that honour them, counts the
// snapshot's sums by value as a pod without them does (the identity
// numbering), and its PreFilter state and Filter verdicts equal the
// reference walk's; a pod whose constraints exclude a node takes the walk
// of the included nodes.
func TestInclusionEveryNode(t *testing.T) {
	var nodes []*api.Node
	for i := range 12 {
		w := st.MakeNode().Name(fmt.Sprintf("n%d", i)).Label("zone", fmt.Sprintf("z%d", i%3)).Label("os", "linux")
		if i%4 == 1 {
			w = w.Taint("spot", "", api.TaintEffectPreferNoSchedule)
		}
		if i == 5 {
			w = w.Taint("gpu", "", api.TaintEffectNoSchedule)
		}
		nodes = append(nodes, w.Obj())
	}
	var existing []*api.Pod
	for i := range 20 {
		existing = append(existing, st.MakePod().Name(fmt.Sprintf("e%d", i)).Label("app", "web").Node(fmt.Sprintf("n%d", i*7%12)).Obj())
	}
	snap := fw.MustSnapshot(nodes, existing)
	honour := api.NodeInclusionPolicyHonor
	constraint := api.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: api.DoNotSchedule,
		LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, NodeTaintsPolicy: &honour}
	gpu := []api.Toleration{{Key: "gpu", Operator: api.TolerationOpExists}}
	pl := ptsNewFilter(t, ptsListArgs)
	for _, tc := range []struct {
		name        string
		selector    map[string]string
		tolerations []api.Toleration
		identity    bool
	}{
		{"a nodeSelector every node meets, every taint tolerated", map[string]string{"os": "linux"}, gpu, true},
		{"no nodeSelector, every taint tolerated", nil, gpu, true},
		{"a nodeSelector every node meets, a NoSchedule taint not tolerated", map[string]string{"os": "linux"}, nil, false},
		{"a nodeSelector of one zone", map[string]string{"zone": "z1"}, gpu, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := st.MakePod().Name("p").Label("app", "web").Obj()
			pod.Spec.NodeSelector = tc.selector
			pod.Spec.Tolerations = tc.tolerations
			pod.Spec.TopologySpreadConstraints = []api.TopologySpreadConstraint{constraint}
			pi := fw.MustPodInfo(pod)
			fast, ref, s1, s2 := ptsFastAndReference(pl, snap, pi)
			if !s1.IsSuccess() || !s2.IsSuccess() {
				t.Fatalf("PreFilter: %v, reference %v", s1, s2)
			}
			fs := ptsState(t, fast)
			if identity := fs.domOf[0] == nil; identity != tc.identity {
				t.Fatalf("identity numbering %v, want %v", identity, tc.identity)
			}
			if diff := cmp.Diff(ptsExactViewOf(ptsState(t, ref)), ptsExactViewOf(fs), cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("state differs from the reference (-ref +fast):\n%s", diff)
			}
			if diff := cmp.Diff(ptsCodes(pl, ref, pi, snap.Nodes()), ptsCodes(pl, fast, pi, snap.Nodes())); diff != "" {
				t.Fatalf("verdicts differ (-ref +fast):\n%s", diff)
			}
		})
	}
}
