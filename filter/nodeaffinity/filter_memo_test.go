package nodeaffinity

import (
	"context"
	"fmt"
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
)

// naMemoSetup returns the plugin with its default arguments and six nodes
// n0…n5, in zones a and b in turn, every one with disk ssd.
func naMemoSetup(t *testing.T) (*NodeAffinity, []*api.Node) {
	t.Helper()
	plug, err := New(NodeAffinityArgs{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var nodes []*api.Node
	for i := range 6 {
		nodes = append(nodes, &api.Node{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("n%d", i),
			Labels: map[string]string{"zone": []string{"a", "b"}[i%2], "disk": "ssd"}}})
	}
	return plug.(*NodeAffinity), nodes
}

// TestRequiredMemoAcrossPodsAndClones: pods whose hard node constraints
// are written alike share them compiled and resolved in the snapshot's
// memo, and get from FilterRejects the verdicts of a Filter that compiles
// them afresh (no PreFilter state): on the snapshot that built the memo,
// on a clone sharing it after the original's nodes changed (field
// expressions read the clone's own nodes), and on the original after its
// change (which dropped the memo).
func TestRequiredMemoAcrossPodsAndClones(t *testing.T) {
	pl, nodes := naMemoSetup(t)
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

// TestPreferredMemoAcrossPodsAndClones checks ScoreBatch against a fresh
// Score on every node when PreScore's preferred terms come from the
// snapshot's memo: pods whose terms are written alike share them, pods
// whose terms differ only in a weight or a value do not, and a clone
// reads the terms resolved against the original (a field term names the
// node, read from the clone's own list) after the original lost a node.
func TestPreferredMemoAcrossPodsAndClones(t *testing.T) {
	pl, nodes := naMemoSetup(t)
	pod := func(name string, zoneWeight int32, zone string) *fw.PodInfo {
		return fw.MustPodInfo(&api.Pod{ObjectMeta: api.ObjectMeta{Name: name}, Spec: api.PodSpec{
			Affinity: &api.Affinity{NodeAffinity: &api.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []api.PreferredSchedulingTerm{
				{Weight: zoneWeight, Preference: api.NodeSelectorTerm{MatchExpressions: []api.NodeSelectorRequirement{{Key: "zone", Operator: api.NodeSelectorOpIn, Values: []string{zone}}}}},
				{Weight: 7, Preference: api.NodeSelectorTerm{MatchFields: []api.NodeSelectorRequirement{{Key: "metadata.name", Operator: api.NodeSelectorOpIn, Values: []string{"n3"}}}}},
			}}}}})
	}
	check := func(what string, snap *fw.Snapshot, pi *fw.PodInfo) map[string]int64 {
		t.Helper()
		state := fw.NewCycleState()
		state.SetSnapshot(snap)
		if s := pl.PreScore(context.Background(), state, pi, snap.Nodes()); !s.IsSuccess() {
			t.Fatalf("%s: PreScore: %v", what, s)
		}
		idx := make([]int32, snap.NumNodes())
		for i := range idx {
			idx[i] = int32(i)
		}
		out := make([]int64, len(idx))
		if s := pl.ScoreBatch(context.Background(), state, pi, snap.Nodes(), idx, out); !s.IsSuccess() {
			t.Fatalf("%s: ScoreBatch: %v", what, s)
		}
		scores := map[string]int64{}
		for i, ni := range snap.Nodes() {
			want, s := pl.Score(context.Background(), fw.NewCycleState(), pi, ni)
			if !s.IsSuccess() {
				t.Fatalf("%s: Score: %v", what, s)
			}
			if out[i] != want {
				t.Fatalf("%s: node %s at %d: ScoreBatch %d, a fresh Score %d", what, ni.Name(), i, out[i], want)
			}
			scores[ni.Name()] = want
		}
		return scores
	}
	orig := fw.MustSnapshot(nodes, nil)
	check("first pod", orig, pod("p", 5, "a"))
	if got, want := check("another weight", orig, pod("w", 2, "a")), int64(2); got["n0"] != want {
		t.Fatalf("another weight: n0 scores %d, want %d", got["n0"], want)
	}
	if got := check("another zone", orig, pod("z", 5, "b")); got["n0"] != 0 || got["n1"] != 5 {
		t.Fatalf("another zone: n0 %d and n1 %d, want 0 and 5", got["n0"], got["n1"])
	}
	clone := orig.Clone()
	if err := orig.RemoveNode("n1"); err != nil {
		t.Fatal(err)
	}
	got := check("clone", clone, pod("q", 5, "a"))
	if want := map[string]int64{"n0": 5, "n1": 0, "n2": 5, "n3": 7, "n4": 5, "n5": 0}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("clone: scores %v, want %v", got, want)
	}
	check("original after the removal", orig, pod("r", 5, "a"))
}

// TestRequiredStateSharedOnASnapshot: once the bitmap of the nodes a
// constraint matches is made, the cycles of pods written alike on one
// snapshot share one PreFilter state; a clone of the same nodes gets a
// state bound to it, and a node change on the original drops the shared
// state with the memo.
func TestRequiredStateSharedOnASnapshot(t *testing.T) {
	pl, nodes := naMemoSetup(t)
	pod := fw.MustPodInfo(&api.Pod{ObjectMeta: api.ObjectMeta{Name: "p"}, Spec: api.PodSpec{
		Affinity: &api.Affinity{NodeAffinity: &api.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &api.NodeSelector{
			NodeSelectorTerms: []api.NodeSelectorTerm{{MatchExpressions: []api.NodeSelectorRequirement{
				{Key: "zone", Operator: api.NodeSelectorOpIn, Values: []string{"a"}},
				{Key: "disk", Operator: api.NodeSelectorOpExists},
			}}}}}}}})
	stateOn := func(snap *fw.Snapshot) *naPreFilterState {
		t.Helper()
		state := fw.NewCycleState()
		state.SetSnapshot(snap)
		if _, s := pl.PreFilter(context.Background(), state, pod, snap.Nodes()); !s.IsSuccess() {
			t.Fatalf("PreFilter: %v", s)
		}
		d, err := state.Read(naPreFilterKey)
		if err != nil {
			t.Fatal(err)
		}
		return d.(*naPreFilterState)
	}
	orig := fw.MustSnapshot(nodes, nil)
	first, second, third := stateOn(orig), stateOn(orig), stateOn(orig)
	if first.bits != nil || second.bits == nil {
		t.Fatalf("bitmap: first cycle %v, second %v; want none, then one", first.bits != nil, second.bits != nil)
	}
	if first == second || third != second {
		t.Fatalf("states: first==second %v, third==second %v; want false, true", first == second, third == second)
	}
	clone := orig.Clone()
	onClone := stateOn(clone)
	if onClone == second || onClone.snap != clone {
		t.Fatalf("clone: shares the original's state %v, bound to the clone %v", onClone == second, onClone.snap == clone)
	}
	if err := orig.RemoveNode("n1"); err != nil {
		t.Fatal(err)
	}
	if after := stateOn(orig); after == second || after.bits != nil {
		t.Fatalf("after a node change: the old state %v, a bitmap %v", after == second, after.bits != nil)
	}
}
