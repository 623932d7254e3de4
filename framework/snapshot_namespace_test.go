package framework_test

import (
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
)

// A namespace added, relabelled or removed changes what namespace
// selectors match at once: the memoized PodCounts and
// AffinityGroupsSelecting answers are those of the new labels, and a clone
// taken before keeps the old ones.
func TestSnapshotSetNamespace(t *testing.T) {
	nodes := []*api.Node{builder.MakeNode().Name("n0").Label("zone", "z").Obj()}
	existing := builder.MakePod().Name("e").Namespace("team").Label("app", "web").
		PodAffinityTerm(builder.PodAntiAffinityWithRequiredReq, 1, api.PodAffinityTerm{TopologyKey: "zone",
			LabelSelector:     &api.LabelSelector{MatchLabels: map[string]string{"app": "db"}},
			NamespaceSelector: &api.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}}).
		Node("n0").Obj()
	snap, err := framework.NewSnapshot(nodes, []*api.Pod{existing}, framework.WithNamespaces(api.Namespace{Name: "team", Labels: map[string]string{"env": "dev"}}))
	if err != nil {
		t.Fatal(err)
	}
	sel := api.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}
	q := framework.PodQuery{Terms: []framework.PodTerm{{NamespaceSelector: sel.MustCompile(), Selector: api.Selector{}}}}
	incoming := builder.MakePod().Name("i").Namespace("team").Label("app", "db").Obj()
	if c := snap.PodCounts(q)[0]; c != 0 {
		t.Fatalf("dev namespace: %d pods match env=prod", c)
	}
	if g := snap.AffinityGroupsSelecting(incoming); len(g) != 0 {
		t.Fatalf("dev namespace: %d groups select the incoming pod", len(g))
	}
	clone := snap.Clone()
	old, had := snap.SetNamespace("team", map[string]string{"env": "prod"})
	if !had || old["env"] != "dev" {
		t.Fatalf("SetNamespace returned %v, %v", old, had)
	}
	if c := snap.PodCounts(q)[0]; c != 1 {
		t.Errorf("relabelled prod: %d pods match env=prod, want 1", c)
	}
	if g := snap.AffinityGroupsSelecting(incoming); len(g) != 1 {
		t.Errorf("relabelled prod: %d groups select the incoming pod, want 1", len(g))
	}
	if c := clone.PodCounts(q)[0]; c != 0 || clone.NamespaceLabels("team")["env"] != "dev" {
		t.Errorf("the clone sees the new labels: %d, %v", c, clone.NamespaceLabels("team"))
	}
	snap.SetNamespace("team", nil)
	if snap.NamespaceLabels("team") != nil || snap.PodCounts(q)[0] != 0 {
		t.Errorf("removed namespace still matches: %v", snap.NamespaceLabels("team"))
	}
}
