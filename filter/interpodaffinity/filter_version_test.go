package interpodaffinity

import (
	"context"
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
)

// The incoming pod's namespace selector made only of NotIn or
// DoesNotExist requirements, in both releases. kube v1.36.4's
// interpodaffinity/plugin.go:mergeAffinityTermNamespacesIfNotEmpty takes
// the term by value, so the pod's term keeps its selector, and
// filtering.go matches the incoming pod's terms with nil namespace labels
// (podMatchesAllAffinityTerms for the affinity counts and the
// self-affinity check, getIncomingAffinityAntiAffinityCounts and
// updateWithPod for the anti-affinity counts): such a selector matches
// every namespace (kubernetes/kubernetes#141526). v1.37.2 takes the term by pointer:
// only the namespaces the selector lists count.
//
// Namespaces a (team=a) and b (team=b); node n1 (hostname n1) holds p1,
// in a with app=x. Term T selects app=x over the hostname, in namespaces
// whose team is not a.

const ipaVerHost = "kubernetes.io/hostname"

var ipaVerNamespaces = []api.Namespace{
	{Name: "a", Labels: map[string]string{"team": "a"}},
	{Name: "b", Labels: map[string]string{"team": "b"}},
}

func ipaVerTerm(nsSel *api.LabelSelector) api.PodAffinityTerm {
	return api.PodAffinityTerm{LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"app": "x"}},
		TopologyKey: ipaVerHost, NamespaceSelector: nsSel}
}

func ipaVerPod(name, ns, node string, labels map[string]string, affinity, anti []api.PodAffinityTerm) *api.Pod {
	p := ipaPodWithTerms(ns, node, labels, affinity, anti)
	p.Name, p.UID = name, name
	return p
}

var (
	ipaVerNotInA = ipaExprs(ipaReq(api.LabelSelectorOpNotIn, "team", "a"))
	ipaVerNoTeam = ipaExprs(ipaReq(api.LabelSelectorOpDoesNotExist, "team"))
	ipaVerInB    = ipaExprs(ipaReq(api.LabelSelectorOpIn, "team", "b"))
	ipaVerInA    = ipaExprs(ipaReq(api.LabelSelectorOpIn, "team", "a"))
	ipaVerP1     = ipaVerPod("p1", "a", "n1", map[string]string{"app": "x"}, nil, nil)
	ipaVerX      = map[string]string{"app": "x"}
	ipaVerNode   = ipaNode("n1", map[string]string{ipaVerHost: "n1"})
)

// ipaVerFilter runs PreFilter (from the pod index when told its nodes are
// the snapshot's own list, by the walk over the pods otherwise) and Filter on
// every node, for release v.
func ipaVerFilter(t *testing.T, v fw.KubeVersion, walk bool, pod *api.Pod, pods []*api.Pod) []*fw.Status {
	t.Helper()
	snap := fw.MustSnapshot([]*api.Node{ipaVerNode, ipaNode("n2", map[string]string{ipaVerHost: "n2"})}, pods, fw.WithNamespaces(ipaVerNamespaces...))
	state := fw.NewCycleState()
	state.SetSnapshot(snap)
	nodes := snap.Nodes()
	state.SetAllNodes(!walk)
	pl := ipaNewFilterFor(t, 1, v)
	pi := fw.MustPodInfo(pod)
	if _, st := pl.PreFilter(context.Background(), state, pi, nodes); !st.IsSuccess() {
		t.Fatalf("PreFilter: %v", st)
	}
	var out []*fw.Status
	for _, ni := range snap.Nodes() {
		out = append(out, pl.Filter(context.Background(), state, pi, ni))
	}
	return out
}

func TestInterPodAffinityFilterNamespaceSelectorByVersion(t *testing.T) {
	tests := []struct {
		name string
		pod  *api.Pod
		pods []*api.Pod
		// The verdicts on n1 and n2.
		want136, want137 []*fw.Status
	}{
		{
			// p1's namespace a is excluded: v1.37 ignores it; v1.36 counts it.
			name:    "required anti-affinity, NotIn",
			pod:     ipaVerPod("q", "b", "", nil, nil, []api.PodAffinityTerm{ipaVerTerm(ipaVerNotInA)}),
			pods:    []*api.Pod{ipaVerP1},
			want136: []*fw.Status{ipaWantAnti, nil},
			want137: []*fw.Status{nil, nil},
		},
		{
			// No namespace lacks team: the selector lists none in v1.37.
			name:    "required anti-affinity, DoesNotExist",
			pod:     ipaVerPod("q", "b", "", nil, nil, []api.PodAffinityTerm{ipaVerTerm(ipaVerNoTeam)}),
			pods:    []*api.Pod{ipaVerP1},
			want136: []*fw.Status{ipaWantAnti, nil},
			want137: []*fw.Status{nil, nil},
		},
		{
			// v1.36: p1 satisfies the term on n1; n2 has no matching pod
			// while one exists. v1.37: no pod matches anywhere and q does
			// not match its own term (no app=x): both nodes fail.
			name:    "required affinity, NotIn",
			pod:     ipaVerPod("q", "b", "", nil, []api.PodAffinityTerm{ipaVerTerm(ipaVerNotInA)}, nil),
			pods:    []*api.Pod{ipaVerP1},
			want136: []*fw.Status{nil, ipaWantAffinity},
			want137: []*fw.Status{ipaWantAffinity, ipaWantAffinity},
		},
		{
			// The first pod of a self-affine group: q, in the excluded
			// namespace a, matches its own term only in v1.36.
			name:    "self-affinity in the excluded namespace",
			pod:     ipaVerPod("q", "a", "", ipaVerX, []api.PodAffinityTerm{ipaVerTerm(ipaVerNotInA)}, nil),
			want136: []*fw.Status{nil, nil},
			want137: []*fw.Status{ipaWantAffinity, ipaWantAffinity},
		},
		{
			name:    "self-affinity in a selected namespace",
			pod:     ipaVerPod("q", "b", "", ipaVerX, []api.PodAffinityTerm{ipaVerTerm(ipaVerNotInA)}, nil),
			want136: []*fw.Status{nil, nil},
			want137: []*fw.Status{nil, nil},
		},
		{
			// In fails on empty labels: the same in both releases.
			name:    "required anti-affinity, In the other namespace",
			pod:     ipaVerPod("q", "b", "", nil, nil, []api.PodAffinityTerm{ipaVerTerm(ipaVerInB)}),
			pods:    []*api.Pod{ipaVerP1},
			want136: []*fw.Status{nil, nil},
			want137: []*fw.Status{nil, nil},
		},
		{
			name:    "required anti-affinity, In p1's namespace",
			pod:     ipaVerPod("q", "b", "", nil, nil, []api.PodAffinityTerm{ipaVerTerm(ipaVerInA)}),
			pods:    []*api.Pod{ipaVerP1},
			want136: []*fw.Status{ipaWantAnti, nil},
			want137: []*fw.Status{ipaWantAnti, nil},
		},
		{
			// An existing pod's term is matched against q's namespace
			// labels in both releases: p2's NotIn team=b spares q (in b).
			name: "existing pod's anti-affinity, NotIn",
			pod:  ipaVerPod("q", "b", "", ipaVerX, nil, nil),
			pods: []*api.Pod{ipaVerPod("p2", "a", "n1", nil, nil, []api.PodAffinityTerm{ipaVerTerm(ipaExprs(ipaReq(api.LabelSelectorOpNotIn, "team", "b")))}),
				ipaVerPod("p3", "a", "n2", nil, nil, []api.PodAffinityTerm{ipaVerTerm(ipaVerNotInA)})},
			want136: []*fw.Status{nil, ipaWantExisting},
			want137: []*fw.Status{nil, ipaWantExisting},
		},
	}
	for _, tc := range tests {
		for _, v := range fw.KubeVersions() {
			for _, walk := range []bool{false, true} {
				name := tc.name + "/" + v.String() + "/index"
				if walk {
					name = tc.name + "/" + v.String() + "/walk"
				}
				t.Run(name, func(t *testing.T) {
					want := tc.want137
					if !v.AtLeast(fw.KubeV137) {
						want = tc.want136
					}
					got := ipaVerFilter(t, v, walk, tc.pod, tc.pods)
					for i := range want {
						ipaCheckStatus(t, []string{"n1", "n2"}[i], got[i], want[i])
					}
				})
			}
		}
	}
}

// TestInterPodAffinityNamespaceSelectorAddRemoveByVersion: AddPod and
// RemovePod (preemption's dry runs, nominated pods) use the same rule as
// PreFilter: v1.36's updateWithPod matches the incoming pod's
// anti-affinity terms with nil namespace labels. q (in b) has required
// anti-affinity T; adding p1 (in the excluded namespace a) to n1 rejects
// n1 only in v1.36; removing it again restores the verdict.
func TestInterPodAffinityNamespaceSelectorAddRemoveByVersion(t *testing.T) {
	q := fw.MustPodInfo(ipaVerPod("q", "b", "", nil, nil, []api.PodAffinityTerm{ipaVerTerm(ipaVerNotInA)}))
	for _, tc := range []struct {
		v         fw.KubeVersion
		afterAdd  *fw.Status
		afterDrop *fw.Status
	}{{fw.KubeV136, ipaWantAnti, nil}, {fw.KubeV137, nil, nil}} {
		t.Run(tc.v.String(), func(t *testing.T) {
			snap := fw.MustSnapshot([]*api.Node{ipaVerNode}, nil, fw.WithNamespaces(ipaVerNamespaces...))
			state := fw.NewCycleState()
			state.SetSnapshot(snap)
			pl := ipaNewFilterFor(t, 1, tc.v)
			ctx := context.Background()
			state.SetAllNodes(true)
			if _, st := pl.PreFilter(ctx, state, q, snap.Nodes()); !st.IsSuccess() {
				t.Fatalf("PreFilter: %v", st)
			}
			n1 := snap.Nodes()[0]
			p1 := fw.MustPodInfo(ipaVerP1)
			if st := pl.AddPod(ctx, state, q, p1, n1); !st.IsSuccess() {
				t.Fatalf("AddPod: %v", st)
			}
			ipaCheckStatus(t, "after AddPod", pl.Filter(ctx, state, q, n1), tc.afterAdd)
			if st := pl.RemovePod(ctx, state, q, p1, n1); !st.IsSuccess() {
				t.Fatalf("RemovePod: %v", st)
			}
			ipaCheckStatus(t, "after RemovePod", pl.Filter(ctx, state, q, n1), tc.afterDrop)
		})
	}
}
