package cluster_test

import (
	"reflect"
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

// Namespaces, Services and controllers change in place; inside a fork
// each change is undone by Revert and kept by Commit.
func TestClusterObjectsForkRevert(t *testing.T) {
	c, err := cluster.New(framework.WithNamespaces(api.Namespace{Name: "a", Labels: map[string]string{"env": "dev"}}),
		framework.WithServices(api.Service{Namespace: "a", Name: "s", Selector: map[string]string{"app": "x"}}))
	if err != nil {
		t.Fatal(err)
	}
	snap := c.Snapshot()
	type state struct {
		a, b map[string]string
		svc  []api.Service
		ctl  []api.WorkloadController
	}
	now := func() state {
		return state{snap.NamespaceLabels("a"), snap.NamespaceLabels("b"), snap.Services, snap.Controllers}
	}
	before := now()
	c.Fork()
	c.SetNamespace(api.Namespace{Name: "a", Labels: map[string]string{"env": "prod"}})
	c.SetNamespace(api.Namespace{Name: "b"})
	c.DeleteNamespace("a")
	c.SetServices(nil)
	c.SetControllers([]api.WorkloadController{{Kind: "ReplicaSet", Namespace: "a", Name: "rs"}})
	mid := now()
	if mid.a != nil || mid.b == nil || len(mid.b) != 0 || len(mid.svc) != 0 || len(mid.ctl) != 1 {
		t.Fatalf("in the fork: %+v", mid)
	}
	if err := c.Revert(); err != nil {
		t.Fatal(err)
	}
	if after := now(); !reflect.DeepEqual(before, after) {
		t.Fatalf("after Revert %+v, want %+v", after, before)
	}
	c.Fork()
	c.SetNamespace(api.Namespace{Name: "a", Labels: map[string]string{"env": "prod"}})
	if err := c.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := snap.NamespaceLabels("a")["env"]; got != "prod" {
		t.Errorf("after Commit env=%q, want prod", got)
	}
	// Outside a fork nothing is journaled.
	c.DeleteNamespace("a")
	c.DeleteNamespace("unknown")
	if c.JournalLen() != 0 || snap.NamespaceLabels("a") != nil {
		t.Errorf("journal %d, labels %v", c.JournalLen(), snap.NamespaceLabels("a"))
	}
}
