package nodeaffinity

import (
	"context"
	"fmt"
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
)

// TestRequiredMemoAcrossPodsAndClones: pods whose hard node constraints
// are written alike share them compiled and resolved in the snapshot's
// memo, and get from FilterRejects the verdicts of a Filter that compiles
// them afresh (no PreFilter state): on the snapshot that built the memo,
// on a clone sharing it after the original's nodes changed (field
// expressions read the clone's own nodes), and on the original after its
// change (which dropped the memo).
func TestRequiredMemoAcrossPodsAndClones(t *testing.T) {
	plug, err := New(NodeAffinityArgs{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	pl := plug.(*NodeAffinity)
	var nodes []*api.Node
	for i := range 6 {
		nodes = append(nodes, &api.Node{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("n%d", i),
			Labels: map[string]string{"zone": []string{"a", "b"}[i%2], "disk": "ssd"}}})
	}
	pod := func(name string) *fw.PodInfo {
		return fw.MustPodInfo(&api.Pod{ObjectMeta: api.ObjectMeta{Name: name}, Spec: api.PodSpec{
			NodeSelector: map[string]string{"disk": "ssd"},
			Affinity: &api.Affinity{NodeAffinity: &api.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &api.NodeSelector{
				NodeSelectorTerms: []api.NodeSelectorTerm{
					{MatchExpressions: []api.NodeSelectorRequirement{{Key: "zone", Operator: api.NodeSelectorOpIn, Values: []string{"a"}}}},
					{MatchFields: []api.NodeSelectorRequirement{{Key: "metadata.name", Operator: api.NodeSelectorOpIn, Values: []string{"n3"}}}},
				}}}}}})
	}
	check := func(what string, snap *fw.Snapshot, pi *fw.PodInfo) map[string]bool {
		t.Helper()
		state := fw.NewCycleState()
		state.SetSnapshot(snap)
		if _, s := pl.PreFilter(context.Background(), state, pi, snap.Nodes()); !s.IsSuccess() {
			t.Fatalf("%s: PreFilter: %v", what, s)
		}
		idx := make([]int32, snap.NumNodes())
		for i := range idx {
			idx[i] = int32(i)
		}
		rejected := map[int32]bool{}
		for _, r := range pl.FilterRejects(context.Background(), state, pi, snap.Nodes(), idx, nil) {
			rejected[r.Node] = true
		}
		fits := map[string]bool{}
		for i, ni := range snap.Nodes() {
			want := !pl.Filter(context.Background(), fw.NewCycleState(), pi, ni).IsSuccess()
			if rejected[int32(i)] != want {
				t.Fatalf("%s: node %s at %d: FilterRejects rejects %v, a fresh Filter %v", what, ni.Name(), i, rejected[int32(i)], want)
			}
			if !want {
				fits[ni.Name()] = true
			}
		}
		return fits
	}
	orig := fw.MustSnapshot(nodes, nil)
	// The first pod builds the memo; the clone's pods read it, the first
	// of them matching every node through it (which the snapshots' bitmap
	// of matched nodes then keeps), the second reading that bitmap.
	check("first pod", orig, pod("p"))
	clone := orig.Clone()
	// The original loses n1, which moves n2… down a position; the clone
	// keeps its nodes and the memo.
	if err := orig.RemoveNode("n1"); err != nil {
		t.Fatal(err)
	}
	fits := check("clone", clone, pod("q"))
	if again := check("clone, again", clone, pod("q2")); fmt.Sprint(again) != fmt.Sprint(fits) {
		t.Fatalf("clone: fits %v, then %v", fits, again)
	}
	if want := map[string]bool{"n0": true, "n2": true, "n3": true, "n4": true}; fmt.Sprint(fits) != fmt.Sprint(want) {
		t.Fatalf("clone: fits %v, want %v", fits, want)
	}
	check("original after the removal", orig, pod("r"))
}
