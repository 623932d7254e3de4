package interpodaffinity

import (
	"context"
	"fmt"
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
// pkg/scheduler/framework/plugins/interpodaffinity/filtering_test.go,
// rewritten in schedkit's types. Kube's tests put pods without an explicit
// namespace in ""; st.MakePod puts them in "default" — the same namespace
// for every such pod, so matching is unchanged.

var (
	ipaWantAffinity = fw.NewStatus(fw.UnschedulableAndUnresolvable, ErrReasonAffinityRulesNotMatch)
	ipaWantAnti     = fw.NewStatus(fw.Unschedulable, ErrReasonAntiAffinityRulesNotMatch)
	ipaWantExisting = fw.NewStatus(fw.Unschedulable, ErrReasonExistingAntiAffinityRulesNotMatch)
	ipaWantSkip     = fw.NewStatus(fw.Skip)
)

// ipaTestNamespaces are kube's scoring_test.go `namespaces`.
var ipaTestNamespaces = []api.Namespace{
	{Name: "subteam1.team1", Labels: map[string]string{"team": "team1"}},
	{Name: "subteam2.team1", Labels: map[string]string{"team": "team1"}},
	{Name: "subteam1.team2", Labels: map[string]string{"team": "team2"}},
	{Name: "subteam2.team2", Labels: map[string]string{"team": "team2"}},
}

// ipaNode is a node with exactly the given labels (st.MakeNode would add a
// hostname label kube's cases do not have).
func ipaNode(name string, labels map[string]string) *api.Node {
	return &api.Node{ObjectMeta: api.ObjectMeta{Name: name, Labels: labels}}
}

func ipaReq(op api.LabelSelectorOperator, key string, vals ...string) api.LabelSelectorRequirement {
	return api.LabelSelectorRequirement{Key: key, Operator: op, Values: vals}
}

func ipaExprs(reqs ...api.LabelSelectorRequirement) *api.LabelSelector {
	return &api.LabelSelector{MatchExpressions: reqs}
}

// ipaPodWithTerms is kube's createPodWithAffinityTerms.
func ipaPodWithTerms(ns, nodeName string, labels map[string]string, affinity, anti []api.PodAffinityTerm) *api.Pod {
	return &api.Pod{
		ObjectMeta: api.ObjectMeta{Namespace: ns, Labels: labels},
		Spec: api.PodSpec{
			NodeName: nodeName,
			Affinity: &api.Affinity{
				PodAffinity:     &api.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: affinity},
				PodAntiAffinity: &api.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: anti},
			},
		},
	}
}

// ipaTB is what the helpers need of *testing.T, *testing.B and *rapid.T.
type ipaTB interface {
	Helper()
	Fatal(args ...any)
}

func ipaNewFilter(t ipaTB, parallelism int) *InterPodAffinity {
	t.Helper()
	return ipaNewFilterFor(t, parallelism, fw.DefaultKubeVersion)
}

// ipaNewFilterFor is ipaNewFilter for kube-scheduler release v.
func ipaNewFilterFor(t ipaTB, parallelism int, v fw.KubeVersion) *InterPodAffinity {
	t.Helper()
	pl, err := New(DefaultInterPodAffinityArgs(), ipaHandle(parallelism, v))
	if err != nil {
		t.Fatal(err)
	}
	return pl.(*InterPodAffinity)
}

// ipaHandle is a handle with a parallelism and a release (the zero
// release: framework.DefaultKubeVersion).
func ipaHandle(p int, v fw.KubeVersion) fw.Handle {
	if v.IsZero() {
		v = fw.DefaultKubeVersion
	}
	return fw.NewHandle(fw.RealClock{}, p, v)
}

// ipaFramework is a framework of profile prof over a registry of
// InterPodAffinity alone.
func ipaFramework(t testing.TB, prof fw.Profile) *runtime.Framework {
	t.Helper()
	reg := fw.NewRegistry()
	if err := reg.Register(config.InterPodAffinityName, New); err != nil {
		t.Fatal(err)
	}
	f, err := runtime.NewFramework(reg, prof)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func ipaRand() *rand.Rand { return rand.New(rand.NewPCG(1, 2)) }

// ipaRun runs PreFilter and then Filter on every node (in snapshot order).
func ipaRun(t testing.TB, pl *InterPodAffinity, pod *api.Pod, pods []*api.Pod, nodes []*api.Node, ns []api.Namespace) (*fw.Status, []*fw.Status, *fw.CycleState, *fw.Snapshot) {
	t.Helper()
	snap, err := fw.NewSnapshot(nodes, pods, fw.WithNamespaces(ns...))
	if err != nil {
		t.Fatal(err)
	}
	state := fw.NewCycleState()
	state.SetSnapshot(snap)
	pi := fw.MustPodInfo(pod)
	ctx := context.Background()
	state.SetAllNodes(true)
	_, pre := pl.PreFilter(ctx, state, pi, snap.Nodes())
	if !pre.IsSuccess() {
		return pre, nil, state, snap
	}
	out := make([]*fw.Status, len(snap.Nodes()))
	for i, ni := range snap.Nodes() {
		out[i] = pl.Filter(ctx, state, pi, ni)
	}
	return pre, out, state, snap
}

func ipaCheckStatus(t *testing.T, what string, got, want *fw.Status) {
	t.Helper()
	if !got.Equal(want) {
		t.Errorf("%s: got %v, want %v", what, got, want)
	}
}

// Kube: filtering_test.go TestRequiredAffinitySingleNode.
func TestInterPodAffinityRequiredAffinitySingleNode(t *testing.T) {
	podLabel := map[string]string{"service": "securityscan"}
	pod := st.MakePod().Labels(podLabel).Node("node1").Obj()
	labels1 := map[string]string{"region": "r1", "zone": "z11"}
	podLabel2 := map[string]string{"security": "S1"}
	node1 := ipaNode("node1", labels1)
	const def = "default"
	inSecurityScan := ipaExprs(ipaReq(api.LabelSelectorOpIn, "service", "securityscan", "value2"))

	tests := []struct {
		name          string
		pod           *api.Pod
		pods          []*api.Pod
		extraNodes    []*api.Node
		wantPreFilter *fw.Status
		want          *fw.Status
	}{
		{
			name:          "A pod that has no required pod affinity scheduling rules can schedule onto a node with no existing pods",
			pod:           st.MakePod().Obj(),
			wantPreFilter: ipaWantSkip,
		},
		{
			name: "satisfies with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using In operator that matches the existing pod",
			pod:  st.MakePod().Labels(podLabel2).PodAffinityIn("service", "region", []string{"securityscan", "value2"}, st.PodAffinityWithRequiredReq).Obj(),
			pods: []*api.Pod{pod},
		},
		{
			name: "satisfies the pod with requiredDuringSchedulingIgnoredDuringExecution in PodAffinity using not in operator in labelSelector that matches the existing pod",
			pod:  st.MakePod().Labels(podLabel2).PodAffinityNotIn("service", "region", []string{"securityscan3", "value3"}, st.PodAffinityWithRequiredReq).Obj(),
			pods: []*api.Pod{pod},
		},
		{
			name: "Does not satisfy the PodAffinity with labelSelector because of diff Namespace",
			pod: ipaPodWithTerms(def, "", podLabel2, []api.PodAffinityTerm{{
				LabelSelector: inSecurityScan,
				Namespaces:    []string{"DiffNameSpace"},
			}}, nil),
			pods: []*api.Pod{st.MakePod().Namespace("ns").Label("service", "securityscan").Node("node1").Obj()},
			want: ipaWantAffinity,
		},
		{
			name: "Doesn't satisfy the PodAffinity because of unmatching labelSelector with the existing pod",
			pod:  st.MakePod().Labels(podLabel).PodAffinityIn("service", "", []string{"antivirusscan", "value2"}, st.PodAffinityWithRequiredReq).Obj(),
			pods: []*api.Pod{pod},
			want: ipaWantAffinity,
		},
		{
			name: "satisfies the PodAffinity with different label Operators in multiple RequiredDuringSchedulingIgnoredDuringExecution ",
			pod: ipaPodWithTerms(def, "", podLabel2, []api.PodAffinityTerm{
				{LabelSelector: ipaExprs(ipaReq(api.LabelSelectorOpExists, "service"), ipaReq(api.LabelSelectorOpDoesNotExist, "wrongkey")), TopologyKey: "region"},
				{LabelSelector: ipaExprs(ipaReq(api.LabelSelectorOpIn, "service", "securityscan"), ipaReq(api.LabelSelectorOpNotIn, "service", "WrongValue")), TopologyKey: "region"},
			}, nil),
			pods: []*api.Pod{pod},
		},
		{
			name: "The labelSelector requirements(items of matchExpressions) are ANDed, the pod cannot schedule onto the node because one of the matchExpression item don't match.",
			pod: ipaPodWithTerms(def, "", podLabel2, []api.PodAffinityTerm{
				{LabelSelector: ipaExprs(ipaReq(api.LabelSelectorOpExists, "service"), ipaReq(api.LabelSelectorOpDoesNotExist, "wrongkey")), TopologyKey: "region"},
				{LabelSelector: ipaExprs(ipaReq(api.LabelSelectorOpIn, "service", "securityscan2"), ipaReq(api.LabelSelectorOpNotIn, "service", "WrongValue")), TopologyKey: "region"},
			}, nil),
			pods: []*api.Pod{pod},
			want: ipaWantAffinity,
		},
		{
			name: "satisfies the PodAffinity and PodAntiAffinity with the existing pod",
			pod: st.MakePod().Labels(podLabel2).
				PodAffinityIn("service", "region", []string{"securityscan", "value2"}, st.PodAffinityWithRequiredReq).
				PodAntiAffinityIn("service", "node", []string{"antivirusscan", "value2"}, st.PodAntiAffinityWithRequiredReq).Obj(),
			pods: []*api.Pod{pod},
		},
		{
			name: "satisfies the PodAffinity and PodAntiAffinity and PodAntiAffinity symmetry with the existing pod",
			pod: st.MakePod().Labels(podLabel2).
				PodAffinityIn("service", "region", []string{"securityscan", "value2"}, st.PodAffinityWithRequiredReq).
				PodAntiAffinityIn("service", "node", []string{"antivirusscan", "value2"}, st.PodAntiAffinityWithRequiredReq).Obj(),
			pods: []*api.Pod{st.MakePod().Node("node1").Labels(podLabel).
				PodAntiAffinityIn("service", "node", []string{"antivirusscan", "value2"}, st.PodAntiAffinityWithRequiredReq).Obj()},
		},
		{
			name: "satisfies the PodAffinity but doesn't satisfy the PodAntiAffinity with the existing pod",
			pod: st.MakePod().Labels(podLabel2).
				PodAffinityIn("service", "region", []string{"securityscan", "value2"}, st.PodAffinityWithRequiredReq).
				PodAntiAffinityIn("service", "zone", []string{"securityscan", "value2"}, st.PodAntiAffinityWithRequiredReq).Obj(),
			pods: []*api.Pod{pod},
			want: ipaWantAnti,
		},
		{
			name: "satisfies the PodAffinity and PodAntiAffinity but doesn't satisfy PodAntiAffinity symmetry with the existing pod",
			pod: st.MakePod().Labels(podLabel).
				PodAffinityIn("service", "region", []string{"securityscan", "value2"}, st.PodAffinityWithRequiredReq).
				PodAntiAffinityIn("service", "node", []string{"antivirusscan", "value2"}, st.PodAntiAffinityWithRequiredReq).Obj(),
			pods: []*api.Pod{st.MakePod().Labels(podLabel).Node("node1").
				PodAntiAffinityIn("service", "zone", []string{"securityscan", "value2"}, st.PodAntiAffinityWithRequiredReq).Obj()},
			want: ipaWantExisting,
		},
		{
			// Kube puts the existing pod on a node2 that has no Node object;
			// a schedkit snapshot needs the node, so node2 exists here with
			// no labels. The existing pod does not match the NotIn term
			// either way, and the incoming pod does not match its own term.
			name:       "pod matches its own Label in PodAffinity and that matches the existing pod Labels",
			pod:        st.MakePod().Labels(podLabel).PodAffinityNotIn("service", "region", []string{"securityscan", "value2"}, st.PodAffinityWithRequiredReq).Obj(),
			pods:       []*api.Pod{st.MakePod().Label("service", "securityscan").Node("node2").Obj()},
			extraNodes: []*api.Node{ipaNode("node2", nil)},
			want:       ipaWantAffinity,
		},
		{
			name: "verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity constraints. doesn't satisfy PodAntiAffinity symmetry with the existing pod",
			pod:  st.MakePod().Labels(podLabel).Obj(),
			pods: []*api.Pod{st.MakePod().Node("node1").Labels(podLabel).
				PodAntiAffinityIn("service", "zone", []string{"securityscan", "value2"}, st.PodAntiAffinityWithRequiredReq).Obj()},
			want: ipaWantExisting,
		},
		{
			name: "verify that PodAntiAffinity from existing pod is respected when pod has no AntiAffinity constraints. satisfy PodAntiAffinity symmetry with the existing pod",
			pod:  st.MakePod().Labels(podLabel).Obj(),
			pods: []*api.Pod{st.MakePod().Node("node1").Labels(podLabel).
				PodAntiAffinityNotIn("service", "zone", []string{"securityscan", "value2"}, st.PodAntiAffinityWithRequiredReq).Obj()},
			wantPreFilter: ipaWantSkip,
		},
		{
			name: "satisfies the PodAntiAffinity with existing pod but doesn't satisfy PodAntiAffinity symmetry with incoming pod",
			pod: st.MakePod().Labels(podLabel).
				PodAntiAffinityExists("service", "region", st.PodAntiAffinityWithRequiredReq).
				PodAntiAffinityExists("security", "region", st.PodAntiAffinityWithRequiredReq).Obj(),
			pods: []*api.Pod{st.MakePod().Node("node1").Labels(podLabel2).
				PodAntiAffinityExists("security", "zone", st.PodAntiAffinityWithRequiredReq).Obj()},
			want: ipaWantAnti,
		},
		{
			name: "PodAntiAffinity symmetry check a1: incoming pod and existing pod partially match each other on AffinityTerms",
			pod: st.MakePod().Labels(podLabel).
				PodAntiAffinityExists("service", "zone", st.PodAntiAffinityWithRequiredReq).
				PodAntiAffinityExists("security", "zone", st.PodAntiAffinityWithRequiredReq).Obj(),
			pods: []*api.Pod{st.MakePod().Node("node1").Labels(podLabel2).
				PodAntiAffinityExists("security", "zone", st.PodAntiAffinityWithRequiredReq).Obj()},
			want: ipaWantAnti,
		},
		{
			name: "PodAntiAffinity symmetry check a2: incoming pod and existing pod partially match each other on AffinityTerms",
			pod: st.MakePod().Labels(podLabel2).
				PodAntiAffinityExists("security", "zone", st.PodAntiAffinityWithRequiredReq).Obj(),
			pods: []*api.Pod{st.MakePod().Node("node1").Labels(podLabel).
				PodAntiAffinityExists("service", "zone", st.PodAntiAffinityWithRequiredReq).
				PodAntiAffinityExists("security", "zone", st.PodAntiAffinityWithRequiredReq).Obj()},
			want: ipaWantExisting,
		},
		{
			name: "PodAntiAffinity symmetry check b1: incoming pod and existing pod partially match each other on AffinityTerms",
			pod: st.MakePod().Labels(map[string]string{"abc": "", "xyz": ""}).
				PodAntiAffinityExists("abc", "zone", st.PodAntiAffinityWithRequiredReq).
				PodAntiAffinityExists("def", "zone", st.PodAntiAffinityWithRequiredReq).Obj(),
			pods: []*api.Pod{st.MakePod().Node("node1").Labels(map[string]string{"def": "", "xyz": ""}).
				PodAntiAffinityExists("abc", "zone", st.PodAntiAffinityWithRequiredReq).
				PodAntiAffinityExists("def", "zone", st.PodAntiAffinityWithRequiredReq).Obj()},
			want: ipaWantAnti,
		},
		{
			name: "PodAntiAffinity symmetry check b2: incoming pod and existing pod partially match each other on AffinityTerms",
			pod: st.MakePod().Labels(map[string]string{"def": "", "xyz": ""}).
				PodAntiAffinityExists("abc", "zone", st.PodAntiAffinityWithRequiredReq).
				PodAntiAffinityExists("def", "zone", st.PodAntiAffinityWithRequiredReq).Obj(),
			pods: []*api.Pod{st.MakePod().Node("node1").Labels(map[string]string{"abc": "", "xyz": ""}).
				PodAntiAffinityExists("abc", "zone", st.PodAntiAffinityWithRequiredReq).
				PodAntiAffinityExists("def", "zone", st.PodAntiAffinityWithRequiredReq).Obj()},
			want: ipaWantAnti,
		},
		// Kube's two "fails PreFilter with an invalid (anti)affinity label
		// syntax" cases are not reproducible here: api.LabelSelector
		// does not validate label-value syntax, so "{{.bad-value.}}" is an
		// ordinary value that matches nothing (see the report).
		{
			name: "affinity with NamespaceSelector",
			pod: ipaPodWithTerms(def, "", podLabel2, []api.PodAffinityTerm{{
				LabelSelector:     inSecurityScan,
				NamespaceSelector: ipaExprs(ipaReq(api.LabelSelectorOpIn, "team", "team1")),
				TopologyKey:       "region",
			}}, nil),
			pods: []*api.Pod{{Spec: api.PodSpec{NodeName: "node1"}, ObjectMeta: api.ObjectMeta{Namespace: "subteam1.team1", Labels: podLabel}}},
		},
		{
			name: "affinity with non-matching NamespaceSelector",
			pod: ipaPodWithTerms(def, "", podLabel2, []api.PodAffinityTerm{{
				LabelSelector:     inSecurityScan,
				NamespaceSelector: ipaExprs(ipaReq(api.LabelSelectorOpIn, "team", "team1")),
				TopologyKey:       "region",
			}}, nil),
			pods: []*api.Pod{{Spec: api.PodSpec{NodeName: "node1"}, ObjectMeta: api.ObjectMeta{Namespace: "subteam1.team2", Labels: podLabel}}},
			want: ipaWantAffinity,
		},
		{
			name: "anti-affinity with matching NamespaceSelector",
			pod: ipaPodWithTerms("subteam1.team1", "", podLabel2, nil, []api.PodAffinityTerm{{
				LabelSelector:     inSecurityScan,
				NamespaceSelector: ipaExprs(ipaReq(api.LabelSelectorOpIn, "team", "team1")),
				TopologyKey:       "zone",
			}}),
			pods: []*api.Pod{{Spec: api.PodSpec{NodeName: "node1"}, ObjectMeta: api.ObjectMeta{Namespace: "subteam2.team1", Labels: podLabel}}},
			want: ipaWantAnti,
		},
		{
			name: "anti-affinity with matching all NamespaceSelector",
			pod: ipaPodWithTerms("subteam1.team1", "", podLabel2, nil, []api.PodAffinityTerm{{
				LabelSelector:     inSecurityScan,
				NamespaceSelector: &api.LabelSelector{},
				TopologyKey:       "zone",
			}}),
			pods: []*api.Pod{{Spec: api.PodSpec{NodeName: "node1"}, ObjectMeta: api.ObjectMeta{Namespace: "subteam2.team1", Labels: podLabel}}},
			want: ipaWantAnti,
		},
		{
			name: "anti-affinity with non-matching NamespaceSelector",
			pod: ipaPodWithTerms("subteam1.team1", "", podLabel2, nil, []api.PodAffinityTerm{{
				LabelSelector:     inSecurityScan,
				NamespaceSelector: ipaExprs(ipaReq(api.LabelSelectorOpIn, "team", "team1")),
				TopologyKey:       "zone",
			}}),
			pods: []*api.Pod{{Spec: api.PodSpec{NodeName: "node1"}, ObjectMeta: api.ObjectMeta{Namespace: "subteam1.team2", Labels: podLabel}}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			nodes := append([]*api.Node{node1}, tc.extraNodes...)
			for _, par := range []int{1, 4} {
				pre, got, _, _ := ipaRun(t, ipaNewFilter(t, par), tc.pod, tc.pods, nodes, ipaTestNamespaces)
				ipaCheckStatus(t, "PreFilter", pre, tc.wantPreFilter)
				if !pre.IsSuccess() {
					continue
				}
				ipaCheckStatus(t, "Filter(node1)", got[0], tc.want)
			}
		})
	}
}

// Kube: filtering_test.go TestRequiredAffinityMultipleNodes.
func TestInterPodAffinityRequiredAffinityMultipleNodes(t *testing.T) {
	podLabelA := map[string]string{"foo": "bar"}
	labelRgChina := map[string]string{"region": "China"}
	labelRgChinaAzAz1 := map[string]string{"region": "China", "az": "az1"}
	labelRgIndia := map[string]string{"region": "India"}
	hostLabels := func(region, zone, host string) map[string]string {
		return map[string]string{"region": region, "zone": zone, "hostname": host}
	}

	tests := []struct {
		name          string
		pod           *api.Pod
		pods          []*api.Pod
		nodes         []*api.Node
		wantPreFilter *fw.Status
		want          []*fw.Status
	}{
		{
			name: "A pod can be scheduled onto all the nodes that have the same topology key & label value with one of them has an existing pod that matches the affinity rules",
			pod:  st.MakePod().PodAffinityIn("foo", "region", []string{"bar"}, st.PodAffinityWithRequiredReq).Obj(),
			pods: []*api.Pod{st.MakePod().Name("p1").Node("node1").Labels(podLabelA).Obj()},
			nodes: []*api.Node{
				ipaNode("node1", labelRgChina), ipaNode("node2", labelRgChinaAzAz1), ipaNode("node3", labelRgIndia),
			},
			want: []*fw.Status{nil, nil, ipaWantAffinity},
		},
		{
			name: "The affinity rule is to schedule all of the pods of this collection to the same zone. The first pod of the collection " +
				"should not be blocked from being scheduled onto any node, even there's no existing pod that matches the rule anywhere.",
			pod: st.MakePod().Labels(map[string]string{"foo": "bar", "service": "securityscan"}).
				PodAffinityIn("foo", "zone", []string{"bar"}, st.PodAffinityWithRequiredReq).
				PodAffinityIn("service", "zone", []string{"securityscan"}, st.PodAffinityWithRequiredReq).Obj(),
			pods: []*api.Pod{st.MakePod().Name("p1").Node("nodeA").Labels(map[string]string{"foo": "bar"}).Obj()},
			nodes: []*api.Node{
				ipaNode("nodeA", map[string]string{"zone": "az1", "hostname": "h1"}),
				ipaNode("nodeB", map[string]string{"zone": "az2", "hostname": "h2"}),
			},
			want: []*fw.Status{nil, nil},
		},
		{
			name: "The first pod of the collection can only be scheduled on nodes labelled with the requested topology keys",
			pod: st.MakePod().Labels(map[string]string{"foo": "bar", "service": "securityscan"}).
				PodAffinityIn("foo", "zone", []string{"bar"}, st.PodAffinityWithRequiredReq).
				PodAffinityIn("service", "zone", []string{"securityscan"}, st.PodAffinityWithRequiredReq).Obj(),
			pods: []*api.Pod{st.MakePod().Name("p1").Node("nodeA").Labels(map[string]string{"foo": "bar"}).Obj()},
			nodes: []*api.Node{
				ipaNode("nodeA", map[string]string{"zoneLabel": "az1", "hostname": "h1"}),
				ipaNode("nodeB", map[string]string{"zoneLabel": "az2", "hostname": "h2"}),
			},
			want: []*fw.Status{ipaWantAffinity, ipaWantAffinity},
		},
		{
			name: "NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that matches the inter pod affinity rule. The pod can not be scheduled onto nodeA and nodeB.",
			pod:  st.MakePod().PodAntiAffinityIn("foo", "region", []string{"abc"}, st.PodAntiAffinityWithRequiredReq).Obj(),
			pods: []*api.Pod{st.MakePod().Node("nodeA").Labels(map[string]string{"foo": "abc"}).Obj()},
			nodes: []*api.Node{
				ipaNode("nodeA", map[string]string{"region": "r1", "hostname": "nodeA"}),
				ipaNode("nodeB", map[string]string{"region": "r1", "hostname": "nodeB"}),
			},
			want: []*fw.Status{ipaWantAnti, ipaWantAnti},
		},
		{
			name: "This test ensures that anti-affinity matches a pod when any term of the anti-affinity rule matches a pod.",
			pod: st.MakePod().PodAntiAffinityIn("foo", "region", []string{"abc"}, st.PodAntiAffinityWithRequiredReq).
				PodAntiAffinityIn("service", "zone", []string{"securityscan"}, st.PodAntiAffinityWithRequiredReq).Obj(),
			pods: []*api.Pod{st.MakePod().Node("nodeA").Labels(map[string]string{"foo": "abc", "service": "securityscan"}).Obj()},
			nodes: []*api.Node{
				ipaNode("nodeA", hostLabels("r1", "z1", "nodeA")),
				ipaNode("nodeB", hostLabels("r1", "z2", "nodeB")),
			},
			want: []*fw.Status{ipaWantAnti, ipaWantAnti},
		},
		{
			name: "NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that matches the inter pod affinity rule. The pod can not be scheduled onto nodeA and nodeB but can be scheduled onto nodeC",
			pod:  st.MakePod().PodAntiAffinityIn("foo", "region", []string{"abc"}, st.PodAntiAffinityWithRequiredReq).Obj(),
			pods: []*api.Pod{st.MakePod().Node("nodeA").Labels(map[string]string{"foo": "abc"}).Obj()},
			nodes: []*api.Node{
				ipaNode("nodeA", labelRgChina), ipaNode("nodeB", labelRgChinaAzAz1), ipaNode("nodeC", labelRgIndia),
			},
			want: []*fw.Status{ipaWantAnti, ipaWantAnti, nil},
		},
		{
			name: "NodeA and nodeB have same topologyKey and label value. NodeA has an existing pod that matches the inter pod affinity rule. The pod can not be scheduled onto nodeA, nodeB, but can be scheduled onto nodeC (NodeC has an existing pod that match the inter pod affinity rule but in different namespace)",
			pod:  st.MakePod().Namespace("NS1").Labels(map[string]string{"foo": "123"}).PodAntiAffinityIn("foo", "region", []string{"bar"}, st.PodAntiAffinityWithRequiredReq).Obj(),
			pods: []*api.Pod{
				st.MakePod().Node("nodeA").Namespace("NS1").Labels(map[string]string{"foo": "bar"}).Obj(),
				st.MakePod().Node("nodeC").Namespace("NS2").PodAntiAffinityIn("foo", "region", []string{"123"}, st.PodAntiAffinityWithRequiredReq).Obj(),
			},
			nodes: []*api.Node{
				ipaNode("nodeA", labelRgChina), ipaNode("nodeB", labelRgChinaAzAz1), ipaNode("nodeC", labelRgIndia),
			},
			want: []*fw.Status{ipaWantAnti, ipaWantAnti, nil},
		},
		{
			name: "Test existing pod's anti-affinity: if an existing pod has a term with invalid topologyKey, labelSelector of the term is firstly checked, and then topologyKey of the term is also checked",
			pod:  st.MakePod().Label("foo", "").Obj(),
			pods: []*api.Pod{st.MakePod().Node("nodeA").PodAntiAffinityExists("foo", "invalid-node-label", st.PodAntiAffinityWithRequiredReq).Obj()},
			nodes: []*api.Node{
				ipaNode("nodeA", hostLabels("r1", "z1", "nodeA")),
				ipaNode("nodeB", hostLabels("r1", "z1", "nodeB")),
			},
			wantPreFilter: ipaWantSkip,
		},
		{
			name: "Test incoming pod's anti-affinity: even if labelSelector matches, we still check if topologyKey matches",
			pod:  st.MakePod().Node("nodeA").PodAntiAffinityExists("foo", "invalid-node-label", st.PodAntiAffinityWithRequiredReq).Obj(),
			pods: []*api.Pod{st.MakePod().Node("nodeA").Labels(map[string]string{"foo": ""}).Obj()},
			nodes: []*api.Node{
				ipaNode("nodeA", hostLabels("r1", "z1", "nodeA")),
				ipaNode("nodeB", hostLabels("r1", "z1", "nodeB")),
			},
			want: []*fw.Status{nil, nil},
		},
		{
			name: "Test existing pod's anti-affinity: incoming pod wouldn't considered as a fit as it violates each existingPod's terms on all nodes",
			pod:  st.MakePod().Label("foo", "").Label("bar", "").Obj(),
			pods: []*api.Pod{
				st.MakePod().Node("nodeA").PodAntiAffinityExists("foo", "zone", st.PodAntiAffinityWithRequiredReq).Obj(),
				st.MakePod().Node("nodeA").PodAntiAffinityExists("bar", "region", st.PodAntiAffinityWithRequiredReq).Obj(),
			},
			nodes: []*api.Node{
				ipaNode("nodeA", hostLabels("r1", "z1", "nodeA")),
				ipaNode("nodeB", hostLabels("r1", "z2", "nodeB")),
			},
			want: []*fw.Status{ipaWantExisting, ipaWantExisting},
		},
		{
			name: "Test incoming pod's anti-affinity: incoming pod wouldn't considered as a fit as it at least violates one anti-affinity rule of existingPod",
			pod: st.MakePod().PodAntiAffinityExists("foo", "zone", st.PodAntiAffinityWithRequiredReq).
				PodAntiAffinityExists("bar", "region", st.PodAntiAffinityWithRequiredReq).Obj(),
			pods: []*api.Pod{
				st.MakePod().Node("nodeA").Labels(map[string]string{"foo": ""}).Obj(),
				st.MakePod().Node("nodeB").Labels(map[string]string{"bar": ""}).Obj(),
			},
			nodes: []*api.Node{
				ipaNode("nodeA", hostLabels("r1", "z1", "nodeA")),
				ipaNode("nodeB", hostLabels("r1", "z2", "nodeB")),
			},
			want: []*fw.Status{ipaWantAnti, ipaWantAnti},
		},
		{
			name: "Test existing pod's anti-affinity: only when labelSelector and topologyKey both match, it's counted as a single term match - case when one term has invalid topologyKey",
			pod:  st.MakePod().Label("foo", "").Label("bar", "").Obj(),
			pods: []*api.Pod{
				st.MakePod().Node("nodeA").PodAntiAffinityExists("foo", "invalid-node-label", st.PodAntiAffinityWithRequiredReq).
					PodAntiAffinityExists("bar", "zone", st.PodAntiAffinityWithRequiredReq).Obj(),
			},
			nodes: []*api.Node{
				ipaNode("nodeA", hostLabels("r1", "z1", "nodeA")),
				ipaNode("nodeB", hostLabels("r1", "z2", "nodeB")),
			},
			want: []*fw.Status{ipaWantExisting, nil},
		},
		{
			name: "Test incoming pod's anti-affinity: only when labelSelector and topologyKey both match, it's counted as a single term match - case when one term has invalid topologyKey",
			pod: st.MakePod().PodAntiAffinityExists("foo", "invalid-node-label", st.PodAntiAffinityWithRequiredReq).
				PodAntiAffinityExists("bar", "zone", st.PodAntiAffinityWithRequiredReq).Obj(),
			pods: []*api.Pod{st.MakePod().Name("podA").Node("nodeA").Labels(map[string]string{"foo": "", "bar": ""}).Obj()},
			nodes: []*api.Node{
				ipaNode("nodeA", hostLabels("r1", "z1", "nodeA")),
				ipaNode("nodeB", hostLabels("r1", "z2", "nodeB")),
			},
			want: []*fw.Status{ipaWantAnti, nil},
		},
		{
			name: "Test existing pod's anti-affinity: only when labelSelector and topologyKey both match, it's counted as a single term match - case when all terms have valid topologyKey",
			pod:  st.MakePod().Label("foo", "").Label("bar", "").Obj(),
			pods: []*api.Pod{
				st.MakePod().Node("nodeA").PodAntiAffinityExists("foo", "region", st.PodAntiAffinityWithRequiredReq).
					PodAntiAffinityExists("bar", "zone", st.PodAntiAffinityWithRequiredReq).Obj(),
			},
			nodes: []*api.Node{
				ipaNode("nodeA", hostLabels("r1", "z1", "nodeA")),
				ipaNode("nodeB", hostLabels("r1", "z2", "nodeB")),
			},
			want: []*fw.Status{ipaWantExisting, ipaWantExisting},
		},
		{
			name: "Test incoming pod's anti-affinity: only when labelSelector and topologyKey both match, it's counted as a single term match - case when all terms have valid topologyKey",
			pod: st.MakePod().PodAntiAffinityExists("foo", "region", st.PodAntiAffinityWithRequiredReq).
				PodAntiAffinityExists("bar", "zone", st.PodAntiAffinityWithRequiredReq).Obj(),
			pods: []*api.Pod{st.MakePod().Node("nodeA").Labels(map[string]string{"foo": "", "bar": ""}).Obj()},
			nodes: []*api.Node{
				ipaNode("nodeA", hostLabels("r1", "z1", "nodeA")),
				ipaNode("nodeB", hostLabels("r1", "z2", "nodeB")),
			},
			want: []*fw.Status{ipaWantAnti, ipaWantAnti},
		},
		{
			name: "Test existing pod's anti-affinity: existingPod on nodeA and nodeB has at least one anti-affinity term matches incoming pod, so incoming pod can only be scheduled to nodeC",
			pod:  st.MakePod().Label("foo", "").Label("bar", "").Obj(),
			pods: []*api.Pod{
				st.MakePod().Node("nodeA").PodAntiAffinityExists("foo", "zone", st.PodAntiAffinityWithRequiredReq).
					PodAntiAffinityExists("labelA", "zone", st.PodAntiAffinityWithRequiredReq).Obj(),
				st.MakePod().Node("nodeB").PodAntiAffinityExists("bar", "zone", st.PodAntiAffinityWithRequiredReq).
					PodAntiAffinityExists("labelB", "zone", st.PodAntiAffinityWithRequiredReq).Obj(),
			},
			nodes: []*api.Node{
				ipaNode("nodeA", hostLabels("r1", "z1", "nodeA")),
				ipaNode("nodeB", hostLabels("r1", "z2", "nodeB")),
				ipaNode("nodeC", hostLabels("r1", "z3", "nodeC")),
			},
			want: []*fw.Status{ipaWantExisting, ipaWantExisting, nil},
		},
		{
			name: "Test incoming pod's affinity: firstly check if all affinityTerms match, and then check if all topologyKeys match",
			pod: st.MakePod().PodAffinityExists("foo", "region", st.PodAffinityWithRequiredReq).
				PodAffinityExists("bar", "zone", st.PodAffinityWithRequiredReq).Obj(),
			pods: []*api.Pod{st.MakePod().Name("pod1").Labels(map[string]string{"foo": "", "bar": ""}).Node("nodeA").Obj()},
			nodes: []*api.Node{
				ipaNode("nodeA", hostLabels("r1", "z1", "nodeA")),
				ipaNode("nodeB", hostLabels("r1", "z1", "nodeB")),
			},
			want: []*fw.Status{nil, nil},
		},
		{
			name: "Test incoming pod's affinity: firstly check if all affinityTerms match, and then check if all topologyKeys match, and the match logic should be satisfied on the same pod",
			pod: st.MakePod().PodAffinityExists("foo", "region", st.PodAffinityWithRequiredReq).
				PodAffinityExists("bar", "zone", st.PodAffinityWithRequiredReq).Obj(),
			pods: []*api.Pod{
				st.MakePod().Node("nodeA").Name("pod1").Labels(map[string]string{"foo": ""}).Obj(),
				st.MakePod().Node("nodeB").Name("pod2").Labels(map[string]string{"bar": ""}).Obj(),
			},
			nodes: []*api.Node{
				ipaNode("nodeA", hostLabels("r1", "z1", "nodeA")),
				ipaNode("nodeB", hostLabels("r1", "z2", "nodeB")),
			},
			want: []*fw.Status{ipaWantAffinity, ipaWantAffinity},
		},
	}
	ns := []api.Namespace{{Name: "NS1"}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, par := range []int{1, 3} {
				pre, got, _, _ := ipaRun(t, ipaNewFilter(t, par), tc.pod, tc.pods, tc.nodes, ns)
				ipaCheckStatus(t, "PreFilter", pre, tc.wantPreFilter)
				if !pre.IsSuccess() {
					continue
				}
				for i := range got {
					ipaCheckStatus(t, "Filter("+tc.nodes[i].Name+")", got[i], tc.want[i])
				}
			}
		})
	}
}

// Kube: filtering_test.go TestPreFilterDisabled — Filter without PreFilter
// state is an Error.
func TestInterPodAffinityFilterWithoutPreFilter(t *testing.T) {
	pl := ipaNewFilter(t, 1)
	ni, _ := fw.NewNodeInfo(ipaNode("n", nil))
	got := pl.Filter(context.Background(), fw.NewCycleState(), fw.MustPodInfo(st.MakePod().Obj()), ni)
	want := `error reading "PreFilterInterPodAffinity" from cycleState: ` + fw.ErrNotFound.Error()
	if got.Code() != fw.Error || got.Message() != want {
		t.Fatalf("Filter without PreFilter = %v, want Error %q", got, want)
	}
	if s := pl.AddPod(context.Background(), fw.NewCycleState(), nil, fw.MustPodInfo(st.MakePod().Obj()), ni); s.Code() != fw.Error {
		t.Fatalf("AddPod without PreFilter = %v, want Error", s)
	}
}

func TestInterPodAffinityPreFilterNeedsSnapshot(t *testing.T) {
	pl := ipaNewFilter(t, 1)
	_, s := pl.PreFilter(context.Background(), fw.NewCycleState(), fw.MustPodInfo(st.MakePod().Obj()), nil)
	if s.Code() != fw.Error || !strings.Contains(s.Message(), "no Snapshot") {
		t.Fatalf("PreFilter without snapshot = %v, want an Error naming the snapshot", s)
	}
	state := fw.NewCycleState()
	state.SetSnapshot(fw.MustSnapshot(nil, nil))
	if _, s := pl.PreFilter(context.Background(), state, nil, nil); s.Code() != fw.Error {
		t.Fatalf("PreFilter with a nil pod = %v, want Error", s)
	}
}

// ipaPair and ipaView give the counts in kube's shape
// (topologyToMatchedTermCount) for comparisons.
type ipaPair struct{ Key, Value string }

func ipaView(c *ipaCounts) map[ipaPair]int64 {
	out := map[ipaPair]int64{}
	for i, k := range c.keys {
		for v, n := range c.vals[i] {
			out[ipaPair{k, v}] = n
		}
	}
	return out
}

type ipaStateView struct {
	ExistingAnti, Affinity, Anti map[ipaPair]int64
	// N are the counts' pair totals; they must equal the map sizes.
	N [3]int
}

func ipaViewState(s *ipaPreFilterState) ipaStateView {
	s.tables() // a fast PreFilter fills the maps on first read
	return ipaStateView{
		ExistingAnti: ipaView(&s.existingAnti),
		Affinity:     ipaView(&s.affinity),
		Anti:         ipaView(&s.anti),
		N:            [3]int{s.existingAnti.n, s.affinity.n, s.anti.n},
	}
}

func ipaMustState(t ipaTB, state *fw.CycleState) *ipaPreFilterState {
	t.Helper()
	s, err := ipaReadState(state)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Kube: filtering_test.go TestPreFilterStateAddRemovePod.
func TestInterPodAffinityPreFilterStateAddRemovePod(t *testing.T) {
	label1 := map[string]string{"region": "r1", "zone": "z11"}
	label2 := map[string]string{"region": "r1", "zone": "z12"}
	label3 := map[string]string{"region": "r2", "zone": "z21"}
	selector1 := map[string]string{"foo": "bar"}
	antiAffinityFooBar := &api.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []api.PodAffinityTerm{
		{LabelSelector: ipaExprs(ipaReq(api.LabelSelectorOpIn, "foo", "bar")), TopologyKey: "region"},
	}}
	complexTerms := []api.PodAffinityTerm{
		{LabelSelector: ipaExprs(ipaReq(api.LabelSelectorOpIn, "foo", "bar", "buzz")), TopologyKey: "region"},
		{LabelSelector: ipaExprs(ipaReq(api.LabelSelectorOpNotIn, "service", "bar", "security", "test")), TopologyKey: "zone"},
	}
	antiAffinityComplex := &api.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: complexTerms}
	affinityComplex := &api.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: complexTerms}
	pod := func(name, node string, labels map[string]string, a *api.Affinity) *api.Pod {
		return &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, UID: name, Namespace: "default", Labels: labels}, Spec: api.PodSpec{NodeName: node, Affinity: a}}
	}
	nodes := []*api.Node{ipaNode("nodeA", label1), ipaNode("nodeB", label2), ipaNode("nodeC", label3)}

	tests := []struct {
		name         string
		pendingPod   *api.Pod
		addedPod     *api.Pod
		existingPods []*api.Pod
		wantAnti     map[ipaPair]int64
		wantAffinity map[ipaPair]int64
	}{
		{
			name:       "preFilterState anti-affinity terms are updated correctly after adding and removing a pod",
			pendingPod: pod("pending", "", selector1, &api.Affinity{PodAntiAffinity: antiAffinityFooBar}),
			existingPods: []*api.Pod{
				pod("p1", "nodeA", selector1, nil),
				pod("p2", "nodeC", nil, &api.Affinity{PodAntiAffinity: antiAffinityFooBar}),
			},
			addedPod:     pod("addedPod", "nodeB", selector1, &api.Affinity{PodAntiAffinity: antiAffinityFooBar}),
			wantAnti:     map[ipaPair]int64{{"region", "r1"}: 2},
			wantAffinity: map[ipaPair]int64{},
		},
		{
			name:       "preFilterState anti-affinity terms are updated correctly after adding and removing a pod (complex)",
			pendingPod: pod("pending", "", selector1, &api.Affinity{PodAntiAffinity: antiAffinityComplex}),
			existingPods: []*api.Pod{
				pod("p1", "nodeA", selector1, nil),
				pod("p2", "nodeC", nil, &api.Affinity{PodAntiAffinity: antiAffinityFooBar}),
			},
			addedPod:     pod("addedPod", "nodeA", selector1, &api.Affinity{PodAntiAffinity: antiAffinityComplex}),
			wantAnti:     map[ipaPair]int64{{"region", "r1"}: 2, {"zone", "z11"}: 2, {"zone", "z21"}: 1},
			wantAffinity: map[ipaPair]int64{},
		},
		{
			name:       "preFilterState matching pod affinity and anti-affinity are updated correctly after adding and removing a pod",
			pendingPod: pod("pending", "", selector1, &api.Affinity{PodAffinity: affinityComplex}),
			existingPods: []*api.Pod{
				pod("p1", "nodeA", selector1, nil),
				pod("p2", "nodeC", nil, &api.Affinity{PodAntiAffinity: antiAffinityFooBar, PodAffinity: affinityComplex}),
			},
			addedPod:     pod("addedPod", "nodeA", selector1, &api.Affinity{PodAntiAffinity: antiAffinityComplex}),
			wantAnti:     map[ipaPair]int64{},
			wantAffinity: map[ipaPair]int64{{"region", "r1"}: 2, {"zone", "z11"}: 2},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pl := ipaNewFilter(t, 1)
			getState := func(pods []*api.Pod) (*fw.CycleState, *fw.Snapshot) {
				snap := fw.MustSnapshot(nodes, pods)
				state := fw.NewCycleState()
				state.SetSnapshot(snap)
				state.SetAllNodes(true)
				if _, s := pl.PreFilter(context.Background(), state, fw.MustPodInfo(tc.pendingPod), snap.Nodes()); !s.IsSuccess() {
					t.Fatalf("PreFilter: %v", s)
				}
				return state, snap
			}
			allState, _ := getState(append(append([]*api.Pod(nil), tc.existingPods...), tc.addedPod))
			want := ipaViewState(ipaMustState(t, allState))

			state, snap := getState(tc.existingPods)
			original := ipaViewState(ipaMustState(t, state))
			ni, _ := snap.Get(tc.addedPod.Spec.NodeName)
			added := fw.MustPodInfo(tc.addedPod)
			if s := pl.AddPod(context.Background(), state, fw.MustPodInfo(tc.pendingPod), added, ni); !s.IsSuccess() {
				t.Fatalf("AddPod: %v", s)
			}
			got := ipaViewState(ipaMustState(t, state))
			if diff := cmp.Diff(tc.wantAnti, got.Anti); diff != "" {
				t.Errorf("anti-affinity counts after AddPod (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantAffinity, got.Affinity); diff != "" {
				t.Errorf("affinity counts after AddPod (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("state after AddPod differs from PreFilter with the pod (-want +got):\n%s", diff)
			}
			if s := pl.RemovePod(context.Background(), state, fw.MustPodInfo(tc.pendingPod), added, ni); !s.IsSuccess() {
				t.Fatalf("RemovePod: %v", s)
			}
			if diff := cmp.Diff(original, ipaViewState(ipaMustState(t, state))); diff != "" {
				t.Errorf("state after AddPod+RemovePod differs from the original (-want +got):\n%s", diff)
			}
		})
	}
}

// Kube: filtering_test.go TestPreFilterStateClone.
func TestInterPodAffinityPreFilterStateClone(t *testing.T) {
	src := &ipaPreFilterState{}
	for _, p := range []struct {
		c     *ipaCounts
		value string
		n     int64
	}{
		{&src.existingAnti, "node1", 1}, {&src.existingAnti, "node2", 1},
		{&src.affinity, "nodeA", 1}, {&src.affinity, "nodeC", 2},
		{&src.anti, "nodeN", 3}, {&src.anti, "nodeM", 1},
	} {
		p.c.add(p.c.slot("name"), p.value, p.n)
	}
	clone := src.Clone().(*ipaPreFilterState)
	if clone == src {
		t.Fatal("Clone returned the same object")
	}
	if diff := cmp.Diff(ipaViewState(src), ipaViewState(clone)); diff != "" {
		t.Fatalf("clone differs (-src +clone):\n%s", diff)
	}
	clone.anti.add(0, "nodeN", -3)
	clone.affinity.add(0, "nodeZ", 1)
	if got := ipaView(&src.anti)[ipaPair{"name", "nodeN"}]; got != 3 || src.anti.n != 2 || src.affinity.n != 2 {
		t.Fatalf("changing the clone changed the source: anti nodeN=%d, n=%d/%d", got, src.anti.n, src.affinity.n)
	}
}

// Kube: filtering_test.go TestGetTPMapMatchingIncomingAffinityAntiAffinity.
// Kube calls getIncomingAffinityAntiAffinityCounts directly; here the cases
// with terms run PreFilter, and the two without terms check that PreFilter
// Skips (there is nothing to count).
func TestInterPodAffinityIncomingCounts(t *testing.T) {
	newPod := func(labels ...string) *api.Pod {
		w := st.MakePod().Name("normal").Node("nodeA")
		for _, l := range labels {
			w.Label(l, "")
		}
		return w.Obj()
	}
	normalPodA, normalPodB, normalPodAB := newPod("aaa"), newPod("bbb"), newPod("aaa", "bbb")
	nodeA := ipaNode("nodeA", map[string]string{"hostname": "nodeA"})
	one := map[ipaPair]int64{{"hostname", "nodeA"}: 1}
	empty := map[ipaPair]int64{}

	tests := []struct {
		name         string
		existingPods []*api.Pod
		pod          *api.Pod
		wantAffinity map[ipaPair]int64
		wantAnti     map[ipaPair]int64
	}{
		{name: "nil test", pod: st.MakePod().Name("aaa-normal").Obj()},
		{name: "incoming pod without affinity/anti-affinity causes a no-op", existingPods: []*api.Pod{normalPodA}, pod: st.MakePod().Name("aaa-normal").Obj()},
		{
			name:         "no pod has label that violates incoming pod's affinity and anti-affinity",
			existingPods: []*api.Pod{normalPodB},
			pod: st.MakePod().Name("aaa-anti").PodAffinityExists("aaa", "hostname", st.PodAffinityWithRequiredReq).
				PodAntiAffinityExists("aaa", "hostname", st.PodAntiAffinityWithRequiredReq).Obj(),
			wantAffinity: empty, wantAnti: empty,
		},
		{
			name:         "existing pod matches incoming pod's affinity and anti-affinity - single term case",
			existingPods: []*api.Pod{normalPodA},
			pod: st.MakePod().Name("affi-antiaffi").PodAffinityExists("aaa", "hostname", st.PodAffinityWithRequiredReq).
				PodAntiAffinityExists("aaa", "hostname", st.PodAntiAffinityWithRequiredReq).Obj(),
			wantAffinity: one, wantAnti: one,
		},
		{
			name:         "existing pod matches incoming pod's affinity and anti-affinity - multiple terms case",
			existingPods: []*api.Pod{normalPodAB},
			pod: st.MakePod().Name("affi-antiaffi").PodAffinityExists("aaa", "hostname", st.PodAffinityWithRequiredReq).
				PodAffinityExists("bbb", "hostname", st.PodAffinityWithRequiredReq).
				PodAntiAffinityExists("aaa", "hostname", st.PodAntiAffinityWithRequiredReq).Obj(),
			wantAffinity: map[ipaPair]int64{{"hostname", "nodeA"}: 2}, // one for each term
			wantAnti:     one,
		},
		{
			name:         "existing pod not match incoming pod's affinity but matches anti-affinity",
			existingPods: []*api.Pod{normalPodA},
			pod: st.MakePod().Name("affi-antiaffi").PodAffinityExists("aaa", "hostname", st.PodAffinityWithRequiredReq).
				PodAffinityExists("bbb", "hostname", st.PodAffinityWithRequiredReq).
				PodAntiAffinityExists("aaa", "hostname", st.PodAntiAffinityWithRequiredReq).
				PodAntiAffinityExists("bbb", "hostname", st.PodAntiAffinityWithRequiredReq).Obj(),
			wantAffinity: empty, wantAnti: one,
		},
		{
			name:         "incoming pod's anti-affinity has more than one term - existing pod violates partial term - case 1",
			existingPods: []*api.Pod{normalPodAB},
			pod: st.MakePod().Name("anaffi-antiaffiti").PodAffinityExists("aaa", "hostname", st.PodAffinityWithRequiredReq).
				PodAffinityExists("ccc", "hostname", st.PodAffinityWithRequiredReq).
				PodAntiAffinityExists("aaa", "hostname", st.PodAntiAffinityWithRequiredReq).
				PodAntiAffinityExists("ccc", "hostname", st.PodAntiAffinityWithRequiredReq).Obj(),
			wantAffinity: empty, wantAnti: one,
		},
		{
			name:         "incoming pod's anti-affinity has more than one term - existing pod violates partial term - case 2",
			existingPods: []*api.Pod{normalPodB},
			pod: st.MakePod().Name("affi-antiaffi").PodAffinityExists("aaa", "hostname", st.PodAffinityWithRequiredReq).
				PodAffinityExists("bbb", "hostname", st.PodAffinityWithRequiredReq).
				PodAntiAffinityExists("aaa", "hostname", st.PodAntiAffinityWithRequiredReq).
				PodAntiAffinityExists("bbb", "hostname", st.PodAntiAffinityWithRequiredReq).Obj(),
			wantAffinity: empty, wantAnti: one,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pre, _, state, _ := ipaRun(t, ipaNewFilter(t, 2), tc.pod, tc.existingPods, []*api.Node{nodeA}, nil)
			if tc.wantAffinity == nil {
				ipaCheckStatus(t, "PreFilter", pre, ipaWantSkip)
				return
			}
			s := ipaMustState(t, state)
			s.tables() // a fast PreFilter fills the maps on first read
			if diff := cmp.Diff(tc.wantAffinity, ipaView(&s.affinity)); diff != "" {
				t.Errorf("affinity counts (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantAnti, ipaView(&s.anti)); diff != "" {
				t.Errorf("anti-affinity counts (-want +got):\n%s", diff)
			}
		})
	}
}

// Edge cases beyond kube's table.
func TestInterPodAffinityFilterEdgeCases(t *testing.T) {
	zone := func(name, z string) *api.Node {
		return ipaNode(name, map[string]string{"zone": z, "hostname": name})
	}
	tests := []struct {
		name          string
		pod           *api.Pod
		pods          []*api.Pod
		nodes         []*api.Node
		ns            []api.Namespace
		wantPreFilter *fw.Status
		want          []*fw.Status
	}{
		{
			name:  "empty node list: PreFilter succeeds with a pod that has terms",
			pod:   st.MakePod().PodAntiAffinityExists("app", "zone", st.PodAntiAffinityWithRequiredReq).Obj(),
			nodes: nil,
			want:  []*fw.Status{},
		},
		{
			name:          "empty node list and no terms: Skip",
			pod:           st.MakePod().Obj(),
			wantPreFilter: ipaWantSkip,
		},
		{
			// Nothing matches anywhere and the pod does not match its own
			// term: no first-pod exception, every node fails.
			name:  "affinity with no matching pod and no self-match fails everywhere",
			pod:   st.MakePod().Label("app", "api").PodAffinityIn("app", "zone", []string{"web"}, st.PodAffinityWithRequiredReq).Obj(),
			nodes: []*api.Node{zone("a", "z1"), zone("b", "z2"), ipaNode("c", map[string]string{"hostname": "c"})},
			want:  []*fw.Status{ipaWantAffinity, ipaWantAffinity, ipaWantAffinity},
		},
		{
			name:  "self-affinity once a matching pod exists: only its zone passes",
			pod:   st.MakePod().Label("app", "web").PodAffinityIn("app", "zone", []string{"web"}, st.PodAffinityWithRequiredReq).Obj(),
			pods:  []*api.Pod{st.MakePod().Name("w1").Label("app", "web").Node("b").Obj()},
			nodes: []*api.Node{zone("a", "z1"), zone("b", "z2"), zone("b2", "z2")},
			want:  []*fw.Status{ipaWantAffinity, nil, nil},
		},
		{
			name:  "self-affinity first pod (no matching pod yet) passes wherever the key exists",
			pod:   st.MakePod().Label("app", "web").PodAffinityIn("app", "zone", []string{"web"}, st.PodAffinityWithRequiredReq).Obj(),
			pods:  []*api.Pod{st.MakePod().Name("other").Label("app", "db").Node("b").Obj()},
			nodes: []*api.Node{zone("a", "z1"), zone("b", "z2"), ipaNode("c", nil)},
			want:  []*fw.Status{nil, nil, ipaWantAffinity},
		},
		{
			// Namespace selector against namespace labels from the snapshot;
			// pods in a namespace the snapshot does not know match a
			// DoesNotExist selector (no labels).
			name: "anti-affinity namespace selector resolved from snapshot namespaces",
			pod: st.MakePod().Namespace("prod-a").PodAffinityTerm(st.PodAntiAffinityWithRequiredReq, 0, api.PodAffinityTerm{
				LabelSelector:     &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
				NamespaceSelector: &api.LabelSelector{MatchLabels: map[string]string{"env": "prod"}},
				TopologyKey:       "zone",
			}).Obj(),
			pods: []*api.Pod{
				st.MakePod().Name("w-dev").Namespace("dev").Label("app", "web").Node("a").Obj(),
				st.MakePod().Name("w-prod").Namespace("prod-b").Label("app", "web").Node("b").Obj(),
			},
			nodes: []*api.Node{zone("a", "z1"), zone("b", "z2"), zone("c", "z3")},
			ns:    []api.Namespace{{Name: "dev", Labels: map[string]string{"env": "dev"}}, {Name: "prod-b", Labels: map[string]string{"env": "prod"}}},
			want:  []*fw.Status{nil, ipaWantAnti, nil},
		},
		{
			name: "existing pod's namespace selector reads the incoming pod's namespace labels",
			pod:  st.MakePod().Namespace("prod").Label("app", "web").Obj(),
			pods: []*api.Pod{st.MakePod().Name("guard").Namespace("ops").Node("a").PodAffinityTerm(st.PodAntiAffinityWithRequiredReq, 0, api.PodAffinityTerm{
				LabelSelector:     &api.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
				NamespaceSelector: &api.LabelSelector{MatchLabels: map[string]string{"env": "prod"}},
				TopologyKey:       "zone",
			}).Obj()},
			nodes: []*api.Node{zone("a", "z1"), zone("a2", "z1"), zone("b", "z2")},
			ns:    []api.Namespace{{Name: "prod", Labels: map[string]string{"env": "prod"}}},
			want:  []*fw.Status{ipaWantExisting, ipaWantExisting, nil},
		},
		{
			name:  "anti-affinity and existing anti-affinity both violated: anti-affinity reported first",
			pod:   st.MakePod().Label("app", "web").PodAntiAffinityIn("app", "hostname", []string{"web"}, st.PodAntiAffinityWithRequiredReq).Obj(),
			pods:  []*api.Pod{st.MakePod().Name("w").Label("app", "web").Node("a").PodAntiAffinityIn("app", "hostname", []string{"web"}, st.PodAntiAffinityWithRequiredReq).Obj()},
			nodes: []*api.Node{zone("a", "z1"), zone("b", "z1")},
			want:  []*fw.Status{ipaWantAnti, nil},
		},
		{
			name:  "all nodes tied: nothing matches the anti-affinity, every node passes",
			pod:   st.MakePod().PodAntiAffinityIn("app", "zone", []string{"web"}, st.PodAntiAffinityWithRequiredReq).Obj(),
			pods:  []*api.Pod{st.MakePod().Name("d").Label("app", "db").Node("a").Obj()},
			nodes: []*api.Node{zone("a", "z1"), zone("b", "z2"), zone("c", "z3")},
			want:  []*fw.Status{nil, nil, nil},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pre, got, _, _ := ipaRun(t, ipaNewFilter(t, 1), tc.pod, tc.pods, tc.nodes, tc.ns)
			ipaCheckStatus(t, "PreFilter", pre, tc.wantPreFilter)
			if !pre.IsSuccess() {
				return
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d verdicts, want %d", len(got), len(tc.want))
			}
			for i := range got {
				ipaCheckStatus(t, fmt.Sprintf("Filter(%s)", tc.nodes[i].Name), got[i], tc.want[i])
			}
		})
	}
}

// A whole cycle through the framework runner: statuses carry the plugin
// name and the diagnosis histogram uses kube's reasons.
func TestInterPodAffinityFilterThroughRunner(t *testing.T) {
	f := ipaFramework(t, fw.Profile{
		PreFilter: []string{config.InterPodAffinityName},
		Filter:    []string{config.InterPodAffinityName},
	})
	nodes := []*api.Node{
		st.MakeNode().Name("a").Label("zone", "z1").Obj(),
		st.MakeNode().Name("b").Label("zone", "z2").Obj(),
	}
	pods := []*api.Pod{st.MakePod().Name("web").Label("app", "web").Node("a").Obj()}
	snap := fw.MustSnapshot(nodes, pods)
	pod := st.MakePod().Name("p").PodAntiAffinityIn("app", "zone", []string{"web"}, st.PodAntiAffinityWithRequiredReq).Obj()
	res, err := f.Schedule(context.Background(), nil, snap, fw.MustPodInfo(pod), runtime.CycleOptions{Rand: ipaRand()})
	if err != nil {
		t.Fatalf("Schedule: %v", err)
	}
	if got := res.SelectedNode(); got != "b" {
		t.Fatalf("selected %q, want b", got)
	}
}

// Nominated pods reach the counts through AddPod on a cloned state (the
// runner's two-pass filter): a higher-priority web pod nominated to b makes
// zone z2 violate the incoming pod's anti-affinity, and the original state is
// untouched for the other nodes.
func TestInterPodAffinityNominatedPods(t *testing.T) {
	f := ipaFramework(t, fw.Profile{
		PreFilter: []string{config.InterPodAffinityName},
		Filter:    []string{config.InterPodAffinityName},
	})
	nodes := []*api.Node{
		st.MakeNode().Name("a").Label("zone", "z1").Obj(),
		st.MakeNode().Name("b").Label("zone", "z2").Obj(),
		st.MakeNode().Name("c").Label("zone", "z2").Obj(),
	}
	snap := fw.MustSnapshot(nodes, nil)
	nominated := fw.MustPodInfo(st.MakePod().Name("web").Label("app", "web").Priority(10).Node("b").Obj())
	pod := st.MakePod().Name("p").PodAntiAffinityIn("app", "zone", []string{"web"}, st.PodAntiAffinityWithRequiredReq).Obj()
	res, err := f.Schedule(context.Background(), nil, snap, fw.MustPodInfo(pod), runtime.CycleOptions{
		Rand: ipaRand(),
		NominatedPods: func(node string) []*fw.PodInfo {
			if node == "b" {
				return []*fw.PodInfo{nominated}
			}
			return nil
		},
	})
	if err != nil {
		t.Fatalf("Schedule: %v", err)
	}
	got := map[string]string{}
	for _, v := range res.NodeVerdicts() {
		got[v.Node] = strings.Join(v.Reasons, ", ")
	}
	// Only b sees the nominated pod: c shares its zone but the nominated pod
	// is added for b's evaluation only, as in kube-scheduler.
	want := map[string]string{"a": "", "b": ErrReasonAntiAffinityRulesNotMatch, "c": ""}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("verdicts (-want +got):\n%s", diff)
	}
}
