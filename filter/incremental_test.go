package filter

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/schedkit/schedkit/config"
	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/internal/st"
)

// PreFilterAfterAdd on hand-checked replica runs: n1 and n2 in zone a, n3
// in zone b; after each placement, the status and every node's verdict
// ("" passes, else the rejection's reason).
func TestPreFilterAfterAddReplicas(t *testing.T) {
	nodes := []*api.Node{
		st.MakeNode().Name("n1").Label("zone", "a").Obj(),
		st.MakeNode().Name("n2").Label("zone", "a").Obj(),
		st.MakeNode().Name("n3").Label("zone", "b").Obj(),
	}
	web := func() *st.PodWrapper { return st.MakePod().Name("web").Label("app", "web") }
	hostAnti := api.PodAffinityTerm{LabelSelector: st.PtsMatchLabels("app", "web"), TopologyKey: "kubernetes.io/hostname"}
	guard := st.MakePod().Name("guard").Label("app", "guard").PodAffinityTerm(builder.PodAntiAffinityWithRequiredReq, 0, hostAnti).Obj()
	type step struct {
		pod    *api.Pod // nil: a replica of the template
		node   string
		status fw.Code
		reject map[string]string
	}
	tests := []struct {
		name  string
		ipa   bool
		tmpl  *api.Pod
		steps []step
	}{
		{
			name: "hard zone spread: the zone ahead is rejected until the other catches up",
			tmpl: web().SpreadConstraint(st.PtsConstraint(1, "zone", api.DoNotSchedule, st.PtsMatchLabels("app", "web"), nil, nil, nil, nil)).Obj(),
			steps: []step{
				{node: "n1", status: fw.Success, reject: map[string]string{"n1": ErrReasonTopologySpreadConstraintsNotMatch, "n2": ErrReasonTopologySpreadConstraintsNotMatch}},
				{node: "n3", status: fw.Success, reject: map[string]string{}},
				{node: "n3", status: fw.Success, reject: map[string]string{"n3": ErrReasonTopologySpreadConstraintsNotMatch}},
			},
		},
		{
			name:  "no hard constraint: Skip, whatever is placed",
			tmpl:  web().SpreadConstraint(st.PtsConstraint(1, "zone", api.ScheduleAnyway, st.PtsMatchLabels("app", "web"), nil, nil, nil, nil)).Obj(),
			steps: []step{{node: "n1", status: fw.Skip}},
		},
		{
			name: "required hostname anti-affinity: each replica's node is rejected",
			ipa:  true,
			tmpl: web().PodAffinityTerm(builder.PodAntiAffinityWithRequiredReq, 0, hostAnti).Obj(),
			steps: []step{
				{node: "n1", status: fw.Success, reject: map[string]string{"n1": ReasonInterPodAntiAffinityRulesNotMatch}},
				{node: "n3", status: fw.Success, reject: map[string]string{"n1": ReasonInterPodAntiAffinityRulesNotMatch, "n3": ReasonInterPodAntiAffinityRulesNotMatch}},
			},
		},
		{
			name: "Skip until a placed pod's required anti-affinity selects the template",
			ipa:  true,
			tmpl: web().Obj(),
			steps: []step{
				{node: "n1", status: fw.Skip},
				{pod: guard, node: "n2", status: fw.Success, reject: map[string]string{"n2": ReasonInterPodExistingAntiAffinityRulesNotMatch}},
				{node: "n2", status: fw.Success, reject: map[string]string{"n2": ReasonInterPodExistingAntiAffinityRulesNotMatch}},
			},
		},
	}
	ctx := context.Background()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var pl incrPlugin
			if tc.ipa {
				pl = ipaNewFilter(t, 1)
			} else {
				p, err := NewPodTopologySpread(config.DefaultPodTopologySpreadArgs(), nil)
				if err != nil {
					t.Fatal(err)
				}
				pl = p.(*PodTopologySpread)
			}
			snap := fw.MustSnapshot(nodes, nil)
			tmpl := fw.MustPodInfo(tc.tmpl)
			state := fw.NewCycleState()
			state.SetSnapshot(snap)
			state.SetAllNodes(true)
			if _, s := pl.PreFilter(ctx, state, tmpl, snap.Nodes()); !s.IsSuccess() && !s.IsSkip() {
				t.Fatalf("PreFilter: %v", s)
			}
			for i, step := range tc.steps {
				var pi *fw.PodInfo
				if step.pod != nil {
					p := *step.pod
					p.Spec.NodeName = step.node
					pi = fw.MustPodInfo(&p)
				} else {
					pi = st.Replica(tmpl, "web-"+string(rune('a'+i)), step.node)
				}
				added, err := st.AddedPods(snap, []*fw.PodInfo{pi})
				if err != nil {
					t.Fatal(err)
				}
				incoming := st.Replica(tmpl, "next", "")
				s := pl.PreFilterAfterAdd(ctx, state, incoming, added)
				if s.Code() != step.status {
					t.Fatalf("step %d: PreFilterAfterAdd = %v, want %v", i, s, step.status)
				}
				if !s.IsSuccess() {
					continue
				}
				got := map[string]string{}
				for _, ni := range snap.Nodes() {
					if v := pl.Filter(ctx, state, incoming, ni); !v.IsSuccess() {
						got[ni.Name()] = v.Message()
					}
				}
				if diff := cmp.Diff(step.reject, got); diff != "" {
					t.Fatalf("step %d: rejections (-want +got):\n%s", i, diff)
				}
			}
		})
	}
}
