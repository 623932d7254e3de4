package interpodaffinity

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/schedkit/schedkit/config"
	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/runtime"
	"github.com/schedkit/schedkit/internal/st"
)

// The cases below are kube-scheduler v1.36's
// pkg/scheduler/framework/plugins/interpodaffinity/scoring_test.go,
// rewritten in schedkit's types (pods keep kube's "" namespace).

var ipaScoreNamespaces = []api.Namespace{
	{Name: "subteam1.team1", Labels: map[string]string{"team": "team1"}},
	{Name: "subteam2.team1", Labels: map[string]string{"team": "team1"}},
	{Name: "subteam1.team2", Labels: map[string]string{"team": "team2"}},
	{Name: "subteam2.team2", Labels: map[string]string{"team": "team2"}},
}

func ipaScoreRand() *rand.Rand { return rand.New(rand.NewPCG(3, 4)) }

func ipaN(name string, labels map[string]string) *api.Node {
	return &api.Node{ObjectMeta: api.ObjectMeta{Name: name, Labels: labels}}
}

// ipaP is a pod in namespace ns with labels, on node (may be ""), with
// affinity a.
func ipaP(ns, node string, labels map[string]string, a *api.Affinity) *api.Pod {
	return &api.Pod{ObjectMeta: api.ObjectMeta{Namespace: ns, Labels: labels}, Spec: api.PodSpec{NodeName: node, Affinity: a}}
}

func ipaSel(op api.LabelSelectorOperator, key string, vals ...string) api.LabelSelectorRequirement {
	return api.LabelSelectorRequirement{Key: key, Operator: op, Values: vals}
}

func ipaWeighted(weight int32, topologyKey string, reqs ...api.LabelSelectorRequirement) api.WeightedPodAffinityTerm {
	return api.WeightedPodAffinityTerm{Weight: weight, PodAffinityTerm: api.PodAffinityTerm{
		LabelSelector: &api.LabelSelector{MatchExpressions: reqs}, TopologyKey: topologyKey,
	}}
}

func ipaNewScore(t testing.TB, args InterPodAffinityArgs, par int) *InterPodAffinity {
	t.Helper()
	pl, err := New(args, ipaHandle(par, fw.KubeVersion{}))
	if err != nil {
		t.Fatal(err)
	}
	return pl.(*InterPodAffinity)
}

// ipaScoreAll runs PreScore, Score on every node (snapshot order) and
// NormalizeScore. On a non-success PreScore it returns that status.
func ipaScoreAll(t testing.TB, pl *InterPodAffinity, pod *api.Pod, pods []*api.Pod, nodes []*api.Node, ns []api.Namespace) (fw.NodeScoreList, *fw.Status) {
	t.Helper()
	snap, err := fw.NewSnapshot(nodes, pods, fw.WithNamespaces(ns...))
	if err != nil {
		t.Fatal(err)
	}
	state := fw.NewCycleState()
	state.SetSnapshot(snap)
	pi := fw.MustPodInfo(pod)
	ctx := context.Background()
	if s := pl.PreScore(ctx, state, pi, snap.Nodes()); !s.IsSuccess() {
		return nil, s
	}
	list := make(fw.NodeScoreList, 0, len(nodes))
	for _, ni := range snap.Nodes() {
		v, s := pl.Score(ctx, state, pi, ni)
		if !s.IsSuccess() {
			t.Fatalf("Score(%s): %v", ni.Name(), s)
		}
		list = append(list, fw.NodeScore{Name: ni.Name(), Score: v})
	}
	if s := pl.NormalizeScore(ctx, state, pi, list); !s.IsSuccess() {
		t.Fatalf("NormalizeScore: %v", s)
	}
	return list, nil
}

// Kube: scoring_test.go TestPreferredAffinity.
func TestInterPodAffinityPreferredAffinity(t *testing.T) {
	labelRgChina := map[string]string{"region": "China"}
	labelRgIndia := map[string]string{"region": "India"}
	labelAzAz1 := map[string]string{"az": "az1"}
	labelAzAz2 := map[string]string{"az": "az2"}
	labelRgChinaAzAz1 := map[string]string{"region": "China", "az": "az1"}
	s1 := map[string]string{"security": "S1"}
	s2 := map[string]string{"security": "S2"}
	const max = fw.MaxNodeScore

	stayWithS1InRegion := &api.Affinity{PodAffinity: &api.PodAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []api.WeightedPodAffinityTerm{
		ipaWeighted(5, "region", ipaSel(api.LabelSelectorOpIn, "security", "S1")),
	}}}
	stayWithS2InRegion := &api.Affinity{PodAffinity: &api.PodAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []api.WeightedPodAffinityTerm{
		ipaWeighted(6, "region", ipaSel(api.LabelSelectorOpIn, "security", "S2")),
	}}}
	affinity3 := &api.Affinity{PodAffinity: &api.PodAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []api.WeightedPodAffinityTerm{
		ipaWeighted(8, "region", ipaSel(api.LabelSelectorOpNotIn, "security", "S1"), ipaSel(api.LabelSelectorOpIn, "security", "S2")),
		ipaWeighted(2, "region", ipaSel(api.LabelSelectorOpExists, "security"), ipaSel(api.LabelSelectorOpDoesNotExist, "wrongkey")),
	}}}
	hardAffinity := &api.Affinity{PodAffinity: &api.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []api.PodAffinityTerm{
		{LabelSelector: &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{ipaSel(api.LabelSelectorOpIn, "security", "S1", "value2")}}, TopologyKey: "region"},
		{LabelSelector: &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{ipaSel(api.LabelSelectorOpExists, "security"), ipaSel(api.LabelSelectorOpDoesNotExist, "wrongkey")}}, TopologyKey: "region"},
	}}}
	awayFromS1InAz := &api.Affinity{PodAntiAffinity: &api.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []api.WeightedPodAffinityTerm{
		ipaWeighted(5, "az", ipaSel(api.LabelSelectorOpIn, "security", "S1")),
	}}}
	awayFromS2InAz := &api.Affinity{PodAntiAffinity: &api.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []api.WeightedPodAffinityTerm{
		ipaWeighted(5, "az", ipaSel(api.LabelSelectorOpIn, "security", "S2")),
	}}}
	stayWithS1InRegionAwayFromS2InAz := &api.Affinity{
		PodAffinity: &api.PodAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []api.WeightedPodAffinityTerm{
			ipaWeighted(8, "region", ipaSel(api.LabelSelectorOpIn, "security", "S1")),
		}},
		PodAntiAffinity: &api.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []api.WeightedPodAffinityTerm{
			ipaWeighted(5, "az", ipaSel(api.LabelSelectorOpIn, "security", "S2")),
		}},
	}
	nsTerm := func() api.WeightedPodAffinityTerm {
		w := ipaWeighted(5, "region", ipaSel(api.LabelSelectorOpIn, "security", "S1"))
		w.PodAffinityTerm.Namespaces = []string{"subteam2.team2"}
		w.PodAffinityTerm.NamespaceSelector = &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{ipaSel(api.LabelSelectorOpIn, "team", "team1")}}
		return w
	}
	affinityNamespaceSelector := &api.Affinity{PodAffinity: &api.PodAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []api.WeightedPodAffinityTerm{nsTerm()}}}
	antiAffinityNamespaceSelector := &api.Affinity{PodAntiAffinity: &api.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []api.WeightedPodAffinityTerm{nsTerm()}}}

	tests := []struct {
		name     string
		pod      *api.Pod
		pods     []*api.Pod
		nodes    []*api.Node
		ignore   bool
		want     []int64
		wantSkip bool
	}{
		{
			name:     "all nodes are same priority as Affinity is nil",
			pod:      ipaP("", "", s1, nil),
			nodes:    []*api.Node{ipaN("node1", labelRgChina), ipaN("node2", labelRgIndia), ipaN("node3", labelAzAz1)},
			wantSkip: true,
		},
		{
			// node1 has the key and a matching pod; node3 a matching pod but
			// not the key; node2 the key but no matching pod.
			name: "Affinity: pod that matches topology key & pods in nodes will get high score comparing to others" +
				"which doesn't match either pods in nodes or in topology key",
			pod:   ipaP("", "", s1, stayWithS1InRegion),
			pods:  []*api.Pod{ipaP("", "node1", s1, nil), ipaP("", "node2", s2, nil), ipaP("", "node3", s1, nil)},
			nodes: []*api.Node{ipaN("node1", labelRgChina), ipaN("node2", labelRgIndia), ipaN("node3", labelAzAz1)},
			want:  []int64{max, 0, 0},
		},
		{
			name:  "All the nodes that have the same topology key & label value with one of them has an existing pod that match the affinity rules, have the same score",
			pod:   ipaP("", "", nil, stayWithS1InRegion),
			pods:  []*api.Pod{ipaP("", "node1", s1, nil)},
			nodes: []*api.Node{ipaN("node1", labelRgChina), ipaN("node2", labelRgChinaAzAz1), ipaN("node3", labelRgIndia)},
			want:  []int64{max, max, 0},
		},
		{
			// China has 4 S2 pods (6 each = 24), India 2 (12): 24→100, 12→0.
			name: "Affinity: nodes in one region has more matching pods comparing to other region, so the region which has more matches will get high score",
			pod:  ipaP("", "", s1, stayWithS2InRegion),
			pods: []*api.Pod{
				ipaP("", "node1", s2, nil), ipaP("", "node1", s2, nil), ipaP("", "node2", s2, nil),
				ipaP("", "node3", s2, nil), ipaP("", "node4", s2, nil), ipaP("", "node5", s2, nil),
			},
			nodes: []*api.Node{
				ipaN("node1", labelRgChina), ipaN("node2", labelRgIndia), ipaN("node3", labelRgChina),
				ipaN("node4", labelRgChina), ipaN("node5", labelRgIndia),
			},
			want: []int64{max, 0, max, max, 0},
		},
		{
			// Raw: China 2 (term 2 on the S1 pod), India 8+2=10, node3 no
			// region 0 → 20, 100, 0.
			name:  "Affinity: different Label operators and values for pod affinity scheduling preference, including some match failures ",
			pod:   ipaP("", "", s1, affinity3),
			pods:  []*api.Pod{ipaP("", "node1", s1, nil), ipaP("", "node2", s2, nil), ipaP("", "node3", s1, nil)},
			nodes: []*api.Node{ipaN("node1", labelRgChina), ipaN("node2", labelRgIndia), ipaN("node3", labelAzAz1)},
			want:  []int64{20, max, 0},
		},
		{
			name: "Affinity symmetry: considered only the preferredDuringSchedulingIgnoredDuringExecution in pod affinity symmetry",
			pod:  ipaP("", "", s2, nil),
			pods: []*api.Pod{
				ipaP("", "node1", s1, stayWithS1InRegion),
				ipaP("", "node2", s2, stayWithS2InRegion),
			},
			nodes: []*api.Node{ipaN("node1", labelRgChina), ipaN("node2", labelRgIndia), ipaN("node3", labelAzAz1)},
			want:  []int64{0, max, 0},
		},
		{
			name: "Affinity symmetry with namespace selector",
			pod:  ipaP("subteam1.team1", "", s1, nil),
			pods: []*api.Pod{
				ipaP("", "node1", s1, affinityNamespaceSelector),
				ipaP("", "node2", s2, stayWithS2InRegion),
			},
			nodes: []*api.Node{ipaN("node1", labelRgChina), ipaN("node2", labelRgIndia), ipaN("node3", labelAzAz1)},
			want:  []int64{max, 0, 0},
		},
		{
			name: "AntiAffinity symmetry with namespace selector",
			pod:  ipaP("subteam1.team1", "", s1, nil),
			pods: []*api.Pod{
				ipaP("", "node1", s1, antiAffinityNamespaceSelector),
				ipaP("", "node2", s2, stayWithS2InRegion),
			},
			nodes: []*api.Node{ipaN("node1", labelRgChina), ipaN("node2", labelRgIndia), ipaN("node3", labelAzAz1)},
			want:  []int64{0, max, max},
		},
		{
			name: "Affinity symmetry: considered RequiredDuringSchedulingIgnoredDuringExecution in pod affinity symmetry",
			pod:  ipaP("", "", s1, nil),
			pods: []*api.Pod{
				ipaP("", "node1", s1, hardAffinity),
				ipaP("", "node2", s2, hardAffinity),
			},
			nodes: []*api.Node{ipaN("node1", labelRgChina), ipaN("node2", labelRgIndia), ipaN("node3", labelAzAz1)},
			want:  []int64{max, max, 0},
		},
		{
			name:  "Anti Affinity: pod that does not match existing pods in node will get high score ",
			pod:   ipaP("", "", s1, awayFromS1InAz),
			pods:  []*api.Pod{ipaP("", "node1", s1, nil), ipaP("", "node2", s2, nil)},
			nodes: []*api.Node{ipaN("node1", labelAzAz1), ipaN("node2", labelRgChina)},
			want:  []int64{0, max},
		},
		{
			name:  "Anti Affinity: pod that does not match topology key & match the pods in nodes will get higher score comparing to others ",
			pod:   ipaP("", "", s1, awayFromS1InAz),
			pods:  []*api.Pod{ipaP("", "node1", s1, nil), ipaP("", "node2", s1, nil)},
			nodes: []*api.Node{ipaN("node1", labelAzAz1), ipaN("node2", labelRgChina)},
			want:  []int64{0, max},
		},
		{
			name:  "Anti Affinity: one node has more matching pods comparing to other node, so the node which has more unmatches will get high score",
			pod:   ipaP("", "", s1, awayFromS1InAz),
			pods:  []*api.Pod{ipaP("", "node1", s1, nil), ipaP("", "node1", s1, nil), ipaP("", "node2", s2, nil)},
			nodes: []*api.Node{ipaN("node1", labelAzAz1), ipaN("node2", labelRgIndia)},
			want:  []int64{0, max},
		},
		{
			name: "Anti Affinity symmetry: the existing pods in node which has anti affinity match will get high score",
			pod:  ipaP("", "", s2, nil),
			pods: []*api.Pod{
				ipaP("", "node1", s1, awayFromS2InAz),
				ipaP("", "node2", s2, awayFromS1InAz),
			},
			nodes: []*api.Node{ipaN("node1", labelAzAz1), ipaN("node2", labelAzAz2)},
			want:  []int64{0, max},
		},
		{
			name:  "Affinity and Anti Affinity: considered only preferredDuringSchedulingIgnoredDuringExecution in both pod affinity & anti affinity",
			pod:   ipaP("", "", s1, stayWithS1InRegionAwayFromS2InAz),
			pods:  []*api.Pod{ipaP("", "node1", s1, nil), ipaP("", "node2", s1, nil)},
			nodes: []*api.Node{ipaN("node1", labelRgChina), ipaN("node2", labelAzAz1)},
			want:  []int64{max, 0},
		},
		{
			name: "Affinity and Anti Affinity: considering both affinity and anti-affinity, the pod to schedule and existing pods have the same labels",
			pod:  ipaP("", "", s1, stayWithS1InRegionAwayFromS2InAz),
			pods: []*api.Pod{
				ipaP("", "node1", s1, nil), ipaP("", "node1", s1, nil), ipaP("", "node2", s1, nil),
				ipaP("", "node3", s1, nil), ipaP("", "node3", s1, nil), ipaP("", "node4", s1, nil), ipaP("", "node5", s1, nil),
			},
			nodes: []*api.Node{
				ipaN("node1", labelRgChinaAzAz1), ipaN("node2", labelRgIndia), ipaN("node3", labelRgChina),
				ipaN("node4", labelRgChina), ipaN("node5", labelRgIndia),
			},
			want: []int64{max, 0, max, max, 0},
		},
		{
			// Weights per node: affinity 8,0,0,0; anti 0,-5,0,0; affinity
			// symmetry 0,0,8,0; anti symmetry 0,0,0,-5.
			name: "Affinity and Anti Affinity and symmetry: considered only preferredDuringSchedulingIgnoredDuringExecution in both pod affinity & anti affinity & symmetry",
			pod:  ipaP("", "", s1, stayWithS1InRegionAwayFromS2InAz),
			pods: []*api.Pod{
				ipaP("", "node1", s1, nil), ipaP("", "node2", s2, nil),
				ipaP("", "node3", nil, stayWithS1InRegionAwayFromS2InAz), ipaP("", "node4", nil, awayFromS1InAz),
			},
			nodes: []*api.Node{ipaN("node1", labelRgChina), ipaN("node2", labelAzAz1), ipaN("node3", labelRgIndia), ipaN("node4", labelAzAz2)},
			want:  []int64{max, 0, max, 0},
		},
		{
			// kubernetes/kubernetes#82796.
			name:  "Avoid panic when partial nodes in a topology don't have pods with affinity",
			pod:   ipaP("", "", s1, nil),
			pods:  []*api.Pod{ipaP("", "node1", s1, nil), ipaP("", "node2", nil, stayWithS1InRegionAwayFromS2InAz)},
			nodes: []*api.Node{ipaN("node1", labelRgChina), ipaN("node2", labelRgChina)},
			want:  []int64{0, 0},
		},
		// Kube's "invalid (Anti)Affinity fails PreScore" cases need label
		// value syntax validation, which api.LabelSelector does not do.
		{
			name: "Affinity with pods matching NamespaceSelector",
			pod:  ipaP("subteam1.team1", "", s1, affinityNamespaceSelector),
			pods: []*api.Pod{
				ipaP("subteam1.team1", "node1", s1, nil), ipaP("subteam1.team1", "node1", s1, nil),
				ipaP("subteam1.team2", "node1", s1, nil), ipaP("subteam2.team1", "node2", s1, nil),
			},
			nodes: []*api.Node{ipaN("node1", labelRgChina), ipaN("node2", labelRgIndia)},
			want:  []int64{max, 0},
		},
		{
			name: "Affinity with pods matching both NamespaceSelector and Namespaces fields",
			pod:  ipaP("subteam1.team1", "", s1, affinityNamespaceSelector),
			pods: []*api.Pod{
				ipaP("subteam1.team1", "node1", s1, nil), ipaP("subteam1.team1", "node1", s1, nil),
				ipaP("subteam2.team2", "node1", s1, nil), ipaP("subteam2.team1", "node2", s1, nil),
			},
			nodes: []*api.Node{ipaN("node1", labelRgChina), ipaN("node2", labelRgIndia)},
			want:  []int64{max, 0},
		},
		{
			name: "Affinity with pods matching NamespaceSelector (anti-affinity)",
			pod:  ipaP("subteam1.team1", "", s1, antiAffinityNamespaceSelector),
			pods: []*api.Pod{
				ipaP("subteam1.team1", "node1", s1, nil), ipaP("subteam1.team1", "node1", s1, nil),
				ipaP("subteam1.team2", "node1", s1, nil), ipaP("subteam2.team1", "node2", s1, nil),
			},
			nodes: []*api.Node{ipaN("node1", labelRgChina), ipaN("node2", labelRgIndia)},
			want:  []int64{0, max},
		},
		{
			name: "Affinity with pods matching both NamespaceSelector and Namespaces fields (anti-affinity)",
			pod:  ipaP("subteam1.team1", "", s1, antiAffinityNamespaceSelector),
			pods: []*api.Pod{
				ipaP("subteam1.team1", "node1", s1, nil), ipaP("subteam1.team1", "node1", s1, nil),
				ipaP("subteam2.team2", "node1", s1, nil), ipaP("subteam2.team1", "node2", s1, nil),
			},
			nodes: []*api.Node{ipaN("node1", labelRgChina), ipaN("node2", labelRgIndia)},
			want:  []int64{0, max},
		},
		{
			name: "Ignore preferred terms of existing pods",
			pod:  ipaP("", "", s2, nil),
			pods: []*api.Pod{
				ipaP("", "node1", s1, stayWithS1InRegionAwayFromS2InAz),
				ipaP("", "node2", s2, stayWithS2InRegion),
			},
			nodes:    []*api.Node{ipaN("node1", labelRgChina), ipaN("node2", labelRgIndia)},
			ignore:   true,
			wantSkip: true,
		},
		{
			name: "Do not ignore preferred terms of existing pods",
			pod:  ipaP("", "", s2, nil),
			pods: []*api.Pod{
				ipaP("", "node1", s1, stayWithS1InRegionAwayFromS2InAz),
				ipaP("", "node2", s2, stayWithS2InRegion),
			},
			nodes: []*api.Node{ipaN("node1", labelRgChina), ipaN("node2", labelRgIndia)},
			want:  []int64{0, max},
		},
		{
			name:     "No nodes to score",
			pod:      ipaP("", "", s2, nil),
			wantSkip: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, par := range []int{1, 4} {
				args := InterPodAffinityArgs{HardPodAffinityWeight: 1, IgnorePreferredTermsOfExistingPods: tc.ignore}
				got, s := ipaScoreAll(t, ipaNewScore(t, args, par), tc.pod, tc.pods, tc.nodes, ipaScoreNamespaces)
				if tc.wantSkip {
					if !s.IsSkip() {
						t.Fatalf("PreScore = %v, want Skip", s)
					}
					continue
				}
				if s != nil {
					t.Fatalf("PreScore = %v, want success", s)
				}
				if diff := cmp.Diff(tc.want, ipaScoreValues(got)); diff != "" {
					t.Errorf("parallelism %d: normalized scores (-want +got):\n%s", par, diff)
				}
			}
		})
	}
}

func ipaScoreValues(l fw.NodeScoreList) []int64 {
	out := make([]int64, len(l))
	for i := range l {
		out[i] = l[i].Score
	}
	return out
}

// Kube: scoring_test.go TestPreferredAffinityWithHardPodAffinitySymmetricWeight.
func TestInterPodAffinityHardPodAffinitySymmetricWeight(t *testing.T) {
	serviceS1 := map[string]string{"service": "S1"}
	labelRgChina := map[string]string{"region": "China"}
	labelRgIndia := map[string]string{"region": "India"}
	labelAzAz1 := map[string]string{"az": "az1"}
	hardPodAffinity := &api.Affinity{PodAffinity: &api.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []api.PodAffinityTerm{{
		LabelSelector:     &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{ipaSel(api.LabelSelectorOpIn, "service", "S1")}},
		Namespaces:        []string{"", "subteam2.team2"},
		NamespaceSelector: &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{ipaSel(api.LabelSelectorOpIn, "team", "team1")}},
		TopologyKey:       "region",
	}}}}
	pods := []*api.Pod{ipaP("", "node1", nil, hardPodAffinity), ipaP("", "node2", nil, hardPodAffinity)}
	nodes := []*api.Node{ipaN("node1", labelRgChina), ipaN("node2", labelRgIndia), ipaN("node3", labelAzAz1)}
	const max = fw.MaxNodeScore
	tests := []struct {
		name     string
		podNS    string
		weight   int32
		want     []int64
		wantSkip bool
	}{
		{name: "with default weight", podNS: "", weight: DefaultHardPodAffinityWeight, want: []int64{max, max, 0}},
		{name: "with zero weight", podNS: "", weight: 0, wantSkip: true},
		{name: "with no matching namespace", podNS: "subteam1.team2", weight: 1, wantSkip: true},
		{name: "with matching NamespaceSelector", podNS: "subteam1.team1", weight: 1, want: []int64{max, max, 0}},
		{name: "with matching Namespaces", podNS: "subteam2.team2", weight: 1, want: []int64{max, max, 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pl := ipaNewScore(t, InterPodAffinityArgs{HardPodAffinityWeight: tc.weight}, 1)
			got, s := ipaScoreAll(t, pl, ipaP(tc.podNS, "", serviceS1, nil), pods, nodes, ipaScoreNamespaces)
			if tc.wantSkip {
				if !s.IsSkip() {
					t.Fatalf("PreScore = %v, want Skip", s)
				}
				return
			}
			if s != nil {
				t.Fatalf("PreScore = %v", s)
			}
			if diff := cmp.Diff(tc.want, ipaScoreValues(got)); diff != "" {
				t.Errorf("normalized scores (-want +got):\n%s", diff)
			}
		})
	}
}

// Raw scores and normalization worked by hand, including negative totals,
// truncation of the float and the min of a set that does not contain 0.
func TestInterPodAffinityRawAndNormalizedScores(t *testing.T) {
	zoneNode := func(name, zone string) *api.Node {
		return ipaN(name, map[string]string{"zone": zone, "host": name})
	}
	web := map[string]string{"app": "web"}
	db := map[string]string{"app": "db"}
	// Incoming: prefer zones with web (weight 7), avoid hosts with db
	// (weight 3). Pods: a: web, web, db; b: web; c: db, db; d: none.
	// Zones: a,b in z1; c in z2; d in z3.
	// zone z1: 7×3 = 21; z2: 0 contributions; host a: −3; host c: −6.
	// Raw: a = 21−3 = 18, b = 21, c = −6, d = 0 (no domain).
	// min −6, max 21, diff 27: a → 100×24/27 = 88.88 → 88; b → 100;
	// c → 0; d → 100×6/27 = 22.2 → 22.
	pod := ipaP("", "", nil, &api.Affinity{
		PodAffinity: &api.PodAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []api.WeightedPodAffinityTerm{
			ipaWeighted(7, "zone", ipaSel(api.LabelSelectorOpIn, "app", "web")),
		}},
		PodAntiAffinity: &api.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []api.WeightedPodAffinityTerm{
			ipaWeighted(3, "host", ipaSel(api.LabelSelectorOpIn, "app", "db")),
		}},
	})
	pods := []*api.Pod{
		ipaP("", "a", web, nil), ipaP("", "a", web, nil), ipaP("", "a", db, nil),
		ipaP("", "b", web, nil), ipaP("", "c", db, nil), ipaP("", "c", db, nil),
	}
	nodes := []*api.Node{zoneNode("a", "z1"), zoneNode("b", "z1"), zoneNode("c", "z2"), zoneNode("d", "z3")}
	snap := fw.MustSnapshot(nodes, pods)
	state := fw.NewCycleState()
	state.SetSnapshot(snap)
	pl := ipaNewScore(t, DefaultInterPodAffinityArgs(), 1)
	pi := fw.MustPodInfo(pod)
	if s := pl.PreScore(context.Background(), state, pi, snap.Nodes()); s != nil {
		t.Fatal(s)
	}
	var raw []int64
	list := fw.NodeScoreList{}
	for _, ni := range snap.Nodes() {
		v, s := pl.Score(context.Background(), state, pi, ni)
		if s != nil {
			t.Fatal(s)
		}
		raw = append(raw, v)
		list = append(list, fw.NodeScore{Name: ni.Name(), Score: v})
	}
	if diff := cmp.Diff([]int64{18, 21, -6, 0}, raw); diff != "" {
		t.Fatalf("raw scores (-want +got):\n%s", diff)
	}
	if s := pl.NormalizeScore(context.Background(), state, pi, list); s != nil {
		t.Fatal(s)
	}
	if diff := cmp.Diff([]int64{88, 100, 0, 22}, ipaScoreValues(list)); diff != "" {
		t.Fatalf("normalized (-want +got):\n%s", diff)
	}
}

func TestInterPodAffinityNormalizeEdgeCases(t *testing.T) {
	tests := []struct {
		name string
		in   []int64
		want []int64
	}{
		{name: "empty list", in: nil, want: []int64{}},
		{name: "all tied positive", in: []int64{5, 5, 5}, want: []int64{0, 0, 0}},
		{name: "all tied negative", in: []int64{-4, -4}, want: []int64{0, 0}},
		{name: "single node", in: []int64{9}, want: []int64{0}},
		// min is the true minimum (kube starts from MaxInt64), not 0:
		// 100×(7−3)/(10−3) = 57.14 → 57.
		{name: "all positive", in: []int64{3, 10, 7}, want: []int64{0, 100, 57}},
		// 100×(−1+3)/3 = 66.67 → 66 (truncated, not rounded).
		{name: "all negative", in: []int64{-3, 0, -1}, want: []int64{0, 100, 66}},
	}
	for _, tc := range tests {
		l := make(fw.NodeScoreList, len(tc.in))
		for i, v := range tc.in {
			l[i] = fw.NodeScore{Name: "n", Score: v}
		}
		ipaNormalize(l)
		if diff := cmp.Diff(tc.want, ipaScoreValues(l)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}

func TestInterPodAffinityScoreEdgeCases(t *testing.T) {
	ctx := context.Background()
	pl := ipaNewScore(t, DefaultInterPodAffinityArgs(), 1)
	pi := fw.MustPodInfo(st.MakePod().Obj())
	ni, _ := fw.NewNodeInfo(ipaN("n", nil))

	if _, s := pl.Score(ctx, fw.NewCycleState(), pi, ni); s.Code() != fw.Error || !strings.Contains(s.Message(), `"PreScoreInterPodAffinity"`) {
		t.Errorf("Score without PreScore = %v, want Error naming the state key", s)
	}
	if s := pl.NormalizeScore(ctx, fw.NewCycleState(), pi, nil); s.Code() != fw.Error {
		t.Errorf("NormalizeScore without PreScore = %v, want Error", s)
	}
	if s := pl.PreScore(ctx, fw.NewCycleState(), pi, nil); s.Code() != fw.Error || !strings.Contains(s.Message(), "no Snapshot") {
		t.Errorf("PreScore without snapshot = %v, want Error", s)
	}
	withSnap := fw.NewCycleState()
	withSnap.SetSnapshot(fw.MustSnapshot(nil, nil))
	if s := pl.PreScore(ctx, withSnap, nil, nil); s.Code() != fw.Error {
		t.Errorf("PreScore with a nil pod = %v, want Error", s)
	}
	if _, err := New(InterPodAffinityArgs{HardPodAffinityWeight: -1}, nil); err == nil || !strings.Contains(err.Error(), "hardPodAffinityWeight=-1") {
		t.Errorf("New with weight -1: err %v", err)
	}

	// Existing pods on nodes without labels contribute nothing; a node
	// missing the topology key scores 0.
	aff := &api.Affinity{PodAffinity: &api.PodAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []api.WeightedPodAffinityTerm{
		ipaWeighted(4, "zone", ipaSel(api.LabelSelectorOpExists, "app")),
	}}}
	got, s := ipaScoreAll(t, pl, ipaP("", "", nil, aff),
		[]*api.Pod{ipaP("", "bare", map[string]string{"app": "x"}, nil), ipaP("", "z", map[string]string{"app": "x"}, nil)},
		[]*api.Node{ipaN("bare", nil), ipaN("z", map[string]string{"zone": "1"}), ipaN("nozone", map[string]string{"other": "1"})}, nil)
	if s != nil {
		t.Fatal(s)
	}
	if diff := cmp.Diff([]int64{0, 100, 0}, ipaScoreValues(got)); diff != "" {
		t.Errorf("missing labels (-want +got):\n%s", diff)
	}

	// Contributions that cancel still create the domain: no Skip, all 0.
	cancel := &api.Affinity{
		PodAffinity: &api.PodAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []api.WeightedPodAffinityTerm{
			ipaWeighted(5, "zone", ipaSel(api.LabelSelectorOpIn, "app", "x")),
		}},
		PodAntiAffinity: &api.PodAntiAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []api.WeightedPodAffinityTerm{
			ipaWeighted(5, "zone", ipaSel(api.LabelSelectorOpIn, "app", "x")),
		}},
	}
	got, s = ipaScoreAll(t, pl, ipaP("", "", nil, cancel),
		[]*api.Pod{ipaP("", "z", map[string]string{"app": "x"}, nil)},
		[]*api.Node{ipaN("z", map[string]string{"zone": "1"}), ipaN("y", map[string]string{"zone": "2"})}, nil)
	if s != nil {
		t.Fatalf("cancelling contributions: PreScore = %v, want success", s)
	}
	if diff := cmp.Diff([]int64{0, 0}, ipaScoreValues(got)); diff != "" {
		t.Errorf("cancelling contributions (-want +got):\n%s", diff)
	}
}

// A whole cycle through the framework runner with the kube weight 2.
func TestInterPodAffinityScoreThroughRunner(t *testing.T) {
	f := ipaFramework(t, fw.Profile{
		PreScore: []string{config.InterPodAffinityName},
		Score:    []string{config.InterPodAffinityName},
		Weights:  map[string]int64{config.InterPodAffinityName: 2},
	})
	nodes := []*api.Node{
		st.MakeNode().Name("a").Label("zone", "z1").Obj(),
		st.MakeNode().Name("b").Label("zone", "z2").Obj(),
		st.MakeNode().Name("c").Label("zone", "z2").Obj(),
	}
	pods := []*api.Pod{st.MakePod().Name("web").Label("app", "web").Node("b").Obj()}
	snap := fw.MustSnapshot(nodes, pods)
	pod := st.MakePod().Name("p").PodAffinityIn("app", "zone", []string{"web"}, st.PodAffinityWithPreferredReq).Obj()
	res, err := f.Schedule(context.Background(), nil, snap, fw.MustPodInfo(pod), runtime.CycleOptions{Rand: ipaScoreRand()})
	if err != nil {
		t.Fatal(err)
	}
	// Raw: a 0, b 1, c 1 → normalized 0, 100, 100 → weighted 0, 200, 200.
	if diff := cmp.Diff([]int64{0, 200, 200}, res.Totals); diff != "" {
		t.Fatalf("totals (-want +got):\n%s", diff)
	}
	if got := res.SelectedNode(); got != "b" && got != "c" {
		t.Fatalf("selected %q, want b or c", got)
	}
}
