package interpodaffinity

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
)

// TestInterPodAffinityNamespaceSelectorByVersion: a preferred term of the
// incoming pod whose namespaceSelector has only NotIn or DoesNotExist
// requirements. kube v1.36.4's
// interpodaffinity/plugin.go:mergeAffinityTermNamespacesIfNotEmpty takes
// the term by value, so it keeps its selector, and
// scoring.go:processExistingPod matches the incoming pod's preferred terms
// with nil namespace labels: the selector matches every namespace
// (kubernetes/kubernetes#141526). v1.37.2 takes the term by pointer: only the
// namespaces the selector lists count. Raw scores are the sums of the
// weights of the matching pods in the node's domain; normalized scores
// are 100·(s−min)/(max−min) (scoring.go:NormalizeScore); with no
// contribution at all PreScore skips.
func TestInterPodAffinityScoreNamespaceSelectorByVersion(t *testing.T) {
	china, india := map[string]string{"region": "China"}, map[string]string{"region": "India"}
	s1 := map[string]string{"security": "S1"}
	notTeam1 := &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{ipaSel(api.LabelSelectorOpNotIn, "team", "team1")}}
	withNS := func(w api.WeightedPodAffinityTerm, sel *api.LabelSelector) api.WeightedPodAffinityTerm {
		w.PodAffinityTerm.NamespaceSelector = sel
		return w
	}
	affinity := &api.Affinity{PodAffinity: &api.PodAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []api.WeightedPodAffinityTerm{
		withNS(ipaWeighted(5, "region", ipaSel(api.LabelSelectorOpIn, "security", "S1")), notTeam1)}}}
	anti := &api.Affinity{PodAntiAffinity: &api.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []api.WeightedPodAffinityTerm{
		withNS(ipaWeighted(5, "region", ipaSel(api.LabelSelectorOpIn, "security", "S1")), notTeam1)}}}
	// kube v1.37.2 scoring_test.go TestPreferredAffinity's pods for its
	// "... correctly enforcing negative NamespaceSelector" cases: two S1
	// pods of team1 on node1 (China), one of team2 on node2 (India).
	kubePods := []*api.Pod{
		ipaP("subteam1.team1", "node1", s1, nil), ipaP("subteam1.team1", "node1", s1, nil), ipaP("subteam1.team2", "node2", s1, nil),
	}
	kubeNodes := []*api.Node{ipaN("node1", china), ipaN("node2", india)}

	hostKey := "kubernetes.io/hostname"
	abNS := []api.Namespace{{Name: "a", Labels: map[string]string{"team": "a"}}, {Name: "b", Labels: map[string]string{"team": "b"}}}
	termT := func(weight int32, sel *api.LabelSelector) api.WeightedPodAffinityTerm {
		return api.WeightedPodAffinityTerm{Weight: weight, PodAffinityTerm: api.PodAffinityTerm{
			LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"app": "x"}}, TopologyKey: hostKey, NamespaceSelector: sel}}
	}
	notA := &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{ipaSel(api.LabelSelectorOpNotIn, "team", "a")}}
	noTeam := &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{ipaSel(api.LabelSelectorOpDoesNotExist, "team")}}
	inA := &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{ipaSel(api.LabelSelectorOpIn, "team", "a")}}
	hostNodes := []*api.Node{ipaN("n1", map[string]string{hostKey: "n1"}), ipaN("n2", map[string]string{hostKey: "n2"})}
	p1 := ipaP("a", "n1", map[string]string{"app": "x"}, nil)
	prefAff := func(w api.WeightedPodAffinityTerm) *api.Affinity {
		return &api.Affinity{PodAffinity: &api.PodAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []api.WeightedPodAffinityTerm{w}}}
	}

	type want struct {
		skip      bool
		raw, norm []int64
	}
	tests := []struct {
		name             string
		pod              *api.Pod
		pods             []*api.Pod
		nodes            []*api.Node
		ns               []api.Namespace
		want136, want137 want
	}{
		{
			// v1.37: kube's expectation, node2's team2 pod alone: 0, 5 →
			// 0, 100. v1.36: all three pods: 10, 5 → 100, 0.
			name: "kube: affinity with a negative namespace selector", pod: ipaP("subteam1.team1", "", s1, affinity),
			pods: kubePods, nodes: kubeNodes, ns: ipaScoreNamespaces,
			want136: want{raw: []int64{10, 5}, norm: []int64{100, 0}},
			want137: want{raw: []int64{0, 5}, norm: []int64{0, 100}},
		},
		{
			// v1.37: kube's expectation: 0, −5 → 100, 0. v1.36: −10, −5 →
			// 0, 100.
			name: "kube: anti-affinity with a negative namespace selector", pod: ipaP("subteam1.team1", "", s1, anti),
			pods: kubePods, nodes: kubeNodes, ns: ipaScoreNamespaces,
			want136: want{raw: []int64{-10, -5}, norm: []int64{0, 100}},
			want137: want{raw: []int64{0, -5}, norm: []int64{100, 0}},
		},
		{
			// q in b, weight 100, T: p1 (in the excluded namespace a) on
			// n1 counts only in v1.36; in v1.37 nothing contributes.
			name: "affinity, NotIn", pod: ipaP("b", "", nil, prefAff(termT(100, notA))),
			pods: []*api.Pod{p1}, nodes: hostNodes, ns: abNS,
			want136: want{raw: []int64{100, 0}, norm: []int64{100, 0}},
			want137: want{skip: true},
		},
		{
			name: "affinity, DoesNotExist", pod: ipaP("b", "", nil, prefAff(termT(100, noTeam))),
			pods: []*api.Pod{p1}, nodes: hostNodes, ns: abNS,
			want136: want{raw: []int64{100, 0}, norm: []int64{100, 0}},
			want137: want{skip: true},
		},
		{
			// In fails on empty labels: the same in both releases.
			name: "affinity, In", pod: ipaP("b", "", nil, prefAff(termT(100, inA))),
			pods: []*api.Pod{p1}, nodes: hostNodes, ns: abNS,
			want136: want{raw: []int64{100, 0}, norm: []int64{100, 0}},
			want137: want{raw: []int64{100, 0}, norm: []int64{100, 0}},
		},
		{
			// An existing pod's preferred term is matched against q's
			// namespace labels in both releases: p2's NotIn team=b spares
			// q (in b).
			name: "existing pod's preferred affinity, NotIn", pod: ipaP("b", "", map[string]string{"app": "x"}, nil),
			pods:  []*api.Pod{ipaP("a", "n1", nil, prefAff(termT(7, &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{ipaSel(api.LabelSelectorOpNotIn, "team", "b")}})))},
			nodes: hostNodes, ns: abNS,
			want136: want{skip: true},
			want137: want{skip: true},
		},
	}
	for _, tc := range tests {
		for _, v := range fw.KubeVersions() {
			for _, reference := range []bool{false, true} {
				name := tc.name + "/" + v.String() + "/index"
				if reference {
					name = tc.name + "/" + v.String() + "/walk"
				}
				t.Run(name, func(t *testing.T) {
					w := tc.want137
					if !v.AtLeast(fw.KubeV137) {
						w = tc.want136
					}
					pl, err := New(DefaultInterPodAffinityArgs(), ipaHandle(1, v))
					if err != nil {
						t.Fatal(err)
					}
					p := pl.(*InterPodAffinity)
					p.reference = reference
					snap := fw.MustSnapshot(tc.nodes, tc.pods, fw.WithNamespaces(tc.ns...))
					state := fw.NewCycleState()
					state.SetSnapshot(snap)
					pi := fw.MustPodInfo(tc.pod)
					ctx := context.Background()
					s := p.PreScore(ctx, state, pi, snap.Nodes())
					if s.IsSkip() != w.skip {
						t.Fatalf("PreScore = %v, want skip %v", s, w.skip)
					}
					if w.skip {
						return
					}
					var raw []int64
					var list fw.NodeScoreList
					for _, ni := range snap.Nodes() {
						sc, st := p.Score(ctx, state, pi, ni)
						if !st.IsSuccess() {
							t.Fatal(st)
						}
						raw = append(raw, sc)
						list = append(list, fw.NodeScore{Name: ni.Name(), Score: sc})
					}
					if st := p.NormalizeScore(ctx, state, pi, list); !st.IsSuccess() {
						t.Fatal(st)
					}
					if d := cmp.Diff(w.raw, raw); d != "" {
						t.Errorf("raw scores (-want +got):\n%s", d)
					}
					if d := cmp.Diff(w.norm, ipaScoreValues(list)); d != "" {
						t.Errorf("normalized scores (-want +got):\n%s", d)
					}
				})
			}
		}
	}
}
