package framework

import (
	"fmt"
	"slices"
	"testing"

	"github.com/schedkit/schedkit/framework/api"
)

// TestCloneUpdatesKeepTheSelectionIndex: on a clone, a pod joining an
// existing affinity group copies the group (copy-on-write); the group
// list keeps its order with the copy in place, the selection index stays,
// and every answer holds the clone's current groups, while the original's
// answers keep its own.
func TestCloneUpdatesKeepTheSelectionIndex(t *testing.T) {
	nodes := testNodes(4)
	termPod := func(name string, app int, node string) *api.Pod {
		term := api.PodAffinityTerm{TopologyKey: "kubernetes.io/hostname",
			LabelSelector: &api.LabelSelector{MatchLabels: map[string]string{"app": fmt.Sprintf("app%d", app)}}}
		return &api.Pod{ObjectMeta: api.ObjectMeta{Name: name, UID: name, Namespace: "a", Labels: map[string]string{"app": fmt.Sprintf("app%d", app)}},
			Spec: api.PodSpec{NodeName: node, Affinity: &api.Affinity{PodAntiAffinity: &api.PodAntiAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: []api.PodAffinityTerm{term}}}}}
	}
	var pods []*api.Pod
	for i := range 40 {
		pods = append(pods, termPod(fmt.Sprintf("e%d", i), i, nodes[i%4].Name))
	}
	orig := MustSnapshot(nodes, pods, WithNamespaces(piNamespaces...))
	incoming := func(i int) *api.Pod {
		return &api.Pod{ObjectMeta: api.ObjectMeta{Name: "in", Namespace: "a", Labels: map[string]string{"app": fmt.Sprintf("app%d", i), "set": fmt.Sprint(i)}}}
	}
	check := func(stage string, s *Snapshot, from int) {
		t.Helper()
		for i := from; i < from+12; i++ {
			pod := incoming(i)
			var want []*AffinityGroup
			for _, g := range s.AffinityGroups() {
				if g.Term.Matches(pod, s.NamespaceLabels("a")) {
					want = append(want, g)
				}
			}
			if got := s.AffinityGroupsSelecting(pod); len(want) != 1 || !slices.Equal(got, want) {
				t.Fatalf("%s: %d groups selecting app%d, want %d (the one of app%d)", stage, len(got), i, len(want), i)
			}
		}
	}
	check("original", orig, 0)
	clone := orig.Clone()
	check("clone, first look", clone, 0)
	if clone.podIdx.selIx == nil {
		t.Fatal("the clone built no selection index after 12 label sets")
	}
	// Each pod joins an existing group: the clone copies it.
	for i := range 6 {
		if err := clone.AddPod(termPod(fmt.Sprintf("j%d", i), i, nodes[(i+1)%4].Name)); err != nil {
			t.Fatal(err)
		}
		if clone.podIdx.selIx == nil {
			t.Fatalf("after %d pods joined groups the clone's selection index was dropped", i+1)
		}
		check(fmt.Sprintf("clone, after %d joined", i+1), clone, 0)
	}
	check("original, after the clone's changes", orig, 0)
	for _, g := range clone.AffinityGroups() {
		if g.slot == nil || g.slot.g != g {
			t.Fatalf("the clone lists group %s, not its slot's", g.key)
		}
	}
}
