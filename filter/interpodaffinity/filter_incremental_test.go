package interpodaffinity

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/internal/st"
)

// TestPropInterPodAffinityPreFilterAfterAddShapeMemo: PreFilterAfterAdd
// keeps the Shape of the last added pod that changed none of the state's
// counts. Rounds that add replicas interleaved with pods sharing only
// part of the Shape (labels map, namespace, term slices) and with pods of
// their own leave what a fresh PreFilter gives: the status and every
// node's verdict.
func TestPropInterPodAffinityPreFilterAfterAddShapeMemo(t *testing.T) {
	ctx := context.Background()
	rapid.Check(t, func(t *rapid.T) {
		c := ipaGenCluster(t)
		if len(c.nodes) == 0 {
			return
		}
		for range 2 { // mostly a pod with required terms: a state to keep
			if c.pod.Spec.Affinity == nil {
				c.pod = ipaGenPod(t, "incoming", "", 2)
			}
		}
		snap := fw.MustSnapshot(c.nodes, c.pods, fw.WithNamespaces(ipaGenNamespaces...))
		pl := ipaNewFilter(t, 1)
		tmpl := fw.MustPodInfo(c.pod)
		carried := fw.NewCycleState()
		carried.SetSnapshot(snap)
		carried.SetAllNodes(true)
		if _, s := pl.PreFilter(ctx, carried, tmpl, snap.Nodes()); !s.IsSuccess() && !s.IsSkip() {
			t.Fatalf("PreFilter: %v", s)
		}
		nodes := snap.Nodes()
		own := func(name, node string) *api.Pod { return ipaGenPod(t, name, node, 2) }
		seq := 0
		for round := range rapid.IntRange(1, 12).Draw(t, "rounds") {
			added := st.DrawShapeVariants(t, snap, tmpl, []string{"n1", "n2", "n3"}, []string{"a", "b", "c"}, own, &seq)
			pi := st.Replica(tmpl, fmt.Sprintf("in%d", round), "")
			got := pl.PreFilterAfterAdd(ctx, carried, pi, added)
			fresh := fw.NewCycleState()
			fresh.SetSnapshot(snap)
			fresh.SetAllNodes(true)
			_, want := pl.PreFilter(ctx, fresh, pi, nodes)
			if !got.Equal(want) {
				t.Fatalf("round %d: PreFilterAfterAdd = %v, PreFilter = %v", round, got, want)
			}
			if !want.IsSuccess() {
				continue
			}
			if diff := cmp.Diff(st.IncrVerdicts(pl, fresh, pi, snap), st.IncrVerdicts(pl, carried, pi, snap)); diff != "" {
				t.Fatalf("round %d: verdicts differ (-PreFilter +PreFilterAfterAdd):\n%s", round, diff)
			}
		}
	})
}

// TestInterPodAffinityPreFilterAfterAddShapeParts: after a replica that
// changes none of the counts (its Shape kept), a pod sharing all of the
// replica's Shape but one part — the namespace, the labels map, the term
// slices — does change them, and PreFilterAfterAdd must see it: the node
// it lands on is rejected as a fresh PreFilter rejects it. The template
// (namespace n1, app=a) avoids app=a pods of n2 and app=b pods of n1 on
// its host; an added pod whose own term avoids app=a rejects it too.
func TestInterPodAffinityPreFilterAfterAddShapeParts(t *testing.T) {
	ctx := context.Background()
	avoid := func(app string, ns ...string) api.PodAffinityTerm {
		return api.PodAffinityTerm{LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"app": app}}, Namespaces: ns, TopologyKey: "host"}
	}
	tmpl := fw.MustPodInfo(st.MakePod().Name("t").Namespace("n1").Label("app", "a").
		PodAffinityTerm(st.PodAntiAffinityWithRequiredReq, 0, avoid("a", "n2")).
		PodAffinityTerm(st.PodAntiAffinityWithRequiredReq, 0, avoid("b")).Obj())
	variants := []struct {
		name string
		make func(name, node string) *fw.PodInfo
	}{
		{"namespace", func(name, node string) *fw.PodInfo {
			pi := st.Replica(tmpl, name, node)
			pi.Pod.Namespace = "n2"
			return pi
		}},
		{"labels", func(name, node string) *fw.PodInfo {
			pi := st.Replica(tmpl, name, node)
			pi.Pod.Labels = map[string]string{"app": "b"}
			return pi
		}},
		{"terms", func(name, node string) *fw.PodInfo {
			p := st.MakePod().Name(name).Namespace("n1").Node(node).PodAffinityTerm(st.PodAntiAffinityWithRequiredReq, 0, avoid("a")).Obj()
			p.Labels = tmpl.Pod.Labels
			return fw.MustPodInfo(p)
		}},
	}
	for _, v := range variants {
		for _, together := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/together=%v", v.name, together), func(t *testing.T) {
				var nodes []*api.Node
				for _, n := range []string{"node0", "node1"} {
					nodes = append(nodes, &api.Node{ObjectMeta: api.ObjectMeta{Name: n, Labels: map[string]string{"host": n}}})
				}
				snap := fw.MustSnapshot(nodes, nil, fw.WithNamespaces(ipaGenNamespaces...))
				pl := ipaNewFilter(t, 1)
				carried := fw.NewCycleState()
				carried.SetSnapshot(snap)
				carried.SetAllNodes(true)
				if _, s := pl.PreFilter(ctx, carried, tmpl, snap.Nodes()); !s.IsSuccess() {
					t.Fatalf("PreFilter: %v", s)
				}
				rounds := [][]*fw.PodInfo{{st.Replica(tmpl, "r1", "node0"), v.make("v", "node1")}}
				if !together {
					rounds = [][]*fw.PodInfo{rounds[0][:1], rounds[0][1:]}
				}
				for i, pods := range rounds {
					added, err := st.AddedPods(snap, pods)
					if err != nil {
						t.Fatal(err)
					}
					pi := st.Replica(tmpl, fmt.Sprintf("in%d", i), "")
					if s := pl.PreFilterAfterAdd(ctx, carried, pi, added); !s.IsSuccess() {
						t.Fatalf("round %d: PreFilterAfterAdd: %v", i, s)
					}
					fresh := fw.NewCycleState()
					fresh.SetSnapshot(snap)
					fresh.SetAllNodes(true)
					if _, s := pl.PreFilter(ctx, fresh, pi, snap.Nodes()); !s.IsSuccess() {
						t.Fatalf("round %d: PreFilter: %v", i, s)
					}
					want, got := st.IncrVerdicts(pl, fresh, pi, snap), st.IncrVerdicts(pl, carried, pi, snap)
					if diff := cmp.Diff(want, got); diff != "" {
						t.Fatalf("round %d: verdicts differ (-PreFilter +PreFilterAfterAdd):\n%s", i, diff)
					}
				}
				if s := pl.Filter(ctx, carried, tmpl, snap.Nodes()[1]); s.IsSuccess() {
					t.Fatalf("node1, holding the %s variant: Filter passes, want a rejection", v.name)
				}
			})
		}
	}
}

// InterPodAffinity's PreFilterAfterAdd on hand-checked replica runs: n1
// and n2 in zone a, n3 in zone b; after each placement, the status and
// every node's verdict.
func TestInterPodAffinityPreFilterAfterAddReplicas(t *testing.T) {
	nodes := []*api.Node{
		st.MakeNode().Name("n1").Label("zone", "a").Obj(),
		st.MakeNode().Name("n2").Label("zone", "a").Obj(),
		st.MakeNode().Name("n3").Label("zone", "b").Obj(),
	}
	web := func() *st.PodWrapper { return st.MakePod().Name("web").Label("app", "web") }
	hostAnti := api.PodAffinityTerm{LabelSelector: st.PtsMatchLabels("app", "web"), TopologyKey: "kubernetes.io/hostname"}
	guard := st.MakePod().Name("guard").Label("app", "guard").PodAffinityTerm(builder.PodAntiAffinityWithRequiredReq, 0, hostAnti).Obj()
	tests := []struct {
		name  string
		tmpl  *api.Pod
		steps []st.AfterAddFilterStep
	}{
		{
			name: "required hostname anti-affinity: each replica's node is rejected",
			tmpl: web().PodAffinityTerm(builder.PodAntiAffinityWithRequiredReq, 0, hostAnti).Obj(),
			steps: []st.AfterAddFilterStep{
				{Node: "n1", Status: fw.Success, Reject: map[string]string{"n1": ErrReasonAntiAffinityRulesNotMatch}},
				{Node: "n3", Status: fw.Success, Reject: map[string]string{"n1": ErrReasonAntiAffinityRulesNotMatch, "n3": ErrReasonAntiAffinityRulesNotMatch}},
			},
		},
		{
			name: "Skip until a placed pod's required anti-affinity selects the template",
			tmpl: web().Obj(),
			steps: []st.AfterAddFilterStep{
				{Node: "n1", Status: fw.Skip},
				{Pod: guard, Node: "n2", Status: fw.Success, Reject: map[string]string{"n2": ErrReasonExistingAntiAffinityRulesNotMatch}},
				{Node: "n2", Status: fw.Success, Reject: map[string]string{"n2": ErrReasonExistingAntiAffinityRulesNotMatch}},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st.RunAfterAddFilterSteps(t, ipaNewFilter(t, 1), nodes, tc.tmpl, tc.steps)
		})
	}
}
