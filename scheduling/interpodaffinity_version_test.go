package scheduling_test

import (
	"context"
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

// TestInterPodAffinityNamespaceSelectorMessages: the FitError text of an
// incoming pod whose required (anti-)affinity term has a namespaceSelector
// of only NotIn, under the default profile of both releases. In kube
// v1.36.4 the selector matches every namespace
// (interpodaffinity/plugin.go:mergeAffinityTermNamespacesIfNotEmpty takes
// the term by value; kubernetes/kubernetes#141526), in v1.37.2 only those it lists.
// Namespaces a (team=a) and b (team=b); node n1 holds p1 (in a, app=x); q
// (in b) has the term app=x over the hostname in namespaces whose team is
// not a. Anti-affinity rejects with Unschedulable (preemption finds no
// lower-priority pod), affinity with UnschedulableAndUnresolvable
// (preemption is not helpful); filtering.go's reasons. In v1.36
// DynamicResources' PostFilter, which runs before DefaultPreemption, adds
// "no new claims to deallocate" for a pod without claims.
func TestInterPodAffinityNamespaceSelectorMessages(t *testing.T) {
	term := api.PodAffinityTerm{LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"app": "x"}}, TopologyKey: "kubernetes.io/hostname",
		NamespaceSelector: &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: "team", Operator: api.LabelSelectorOpNotIn, Values: []string{"a"}}}}}
	q := func(a *api.Affinity) *api.Pod {
		return &api.Pod{ObjectMeta: api.ObjectMeta{Name: "q", Namespace: "b", UID: "q"}, Spec: api.PodSpec{Affinity: a}}
	}
	tests := []struct {
		name             string
		pod              *api.Pod
		want136, want137 string // "" for scheduled on n1
	}{
		{
			name:    "required anti-affinity",
			pod:     q(&api.Affinity{PodAntiAffinity: &api.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []api.PodAffinityTerm{term}}}),
			want136: "0/1 nodes are available: 1 node(s) didn't match pod anti-affinity rules. no new claims to deallocate, preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.",
		},
		{
			name:    "required affinity",
			pod:     q(&api.Affinity{PodAffinity: &api.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []api.PodAffinityTerm{term}}}),
			want137: "0/1 nodes are available: 1 node(s) didn't match pod affinity rules. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
		},
	}
	for _, tc := range tests {
		for _, v := range framework.KubeVersions() {
			t.Run(tc.name+"/"+v.String(), func(t *testing.T) {
				want := tc.want137
				if !v.AtLeast(framework.KubeV137) {
					want = tc.want136
				}
				node := st.MakeNode().Name("n1").Label("kubernetes.io/hostname", "n1").Capacity(map[string]string{"cpu": "4", "memory": "8Gi", "pods": "10"}).Obj()
				p1 := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "p1", Namespace: "a", UID: "p1", Labels: map[string]string{"app": "x"}}, Spec: api.PodSpec{NodeName: "n1"}}
				c, err := cluster.NewFrom([]*api.Node{node}, []*api.Pod{p1}, framework.WithNamespaces(
					api.Namespace{Name: "a", Labels: map[string]string{"team": "a"}}, api.Namespace{Name: "b", Labels: map[string]string{"team": "b"}}))
				if err != nil {
					t.Fatal(err)
				}
				s, err := scheduling.New(c, scheduling.NewDefaultRegistry(), []framework.Profile{scheduling.DefaultProfileFor(v)}, scheduling.WithSeed(1), scheduling.WithKubeVersion(v))
				if err != nil {
					t.Fatal(err)
				}
				d, err := s.SchedulePod(context.Background(), tc.pod)
				if err != nil {
					t.Fatal(err)
				}
				switch {
				case want == "" && (d.Outcome != scheduling.OutcomeScheduled || d.Node != "n1"):
					t.Errorf("decision %s %q on %q, want scheduled on n1", d.Outcome, d.Message, d.Node)
				case want != "" && (d.Outcome != scheduling.OutcomeUnschedulable || d.Message != want):
					t.Errorf("decision %s %q, want Unschedulable %q", d.Outcome, d.Message, want)
				}
			})
		}
	}
}
