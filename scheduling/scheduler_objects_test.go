package scheduling

import (
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

// The object methods change the cluster the cycles read; a budget the
// snapshot would refuse is an error naming it and changes nothing.
func TestSchedulerObjectMethods(t *testing.T) {
	c, err := cluster.New()
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(c, NewDefaultRegistry(), []framework.Profile{DefaultProfile()})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetNamespace(api.Namespace{Name: "a", Labels: map[string]string{"env": "prod"}}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetServices([]api.Service{{Namespace: "a", Name: "s"}}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetControllers([]api.WorkloadController{{Kind: "ReplicaSet", Namespace: "a", Name: "r"}}); err != nil {
		t.Fatal(err)
	}
	good := api.PodDisruptionBudget{Namespace: "a", Name: "ok", DisruptionsAllowed: 1}
	if err := s.SetDisruptionBudgets([]api.PodDisruptionBudget{good}); err != nil {
		t.Fatal(err)
	}
	bad := api.PodDisruptionBudget{Namespace: "a", Name: "bad", DisruptionsAllowed: -1}
	if err := s.SetDisruptionBudgets([]api.PodDisruptionBudget{good, bad}); err == nil {
		t.Error("a negative disruptionsAllowed: no error")
	}
	snap := c.Snapshot()
	if snap.NamespaceLabels("a")["env"] != "prod" || len(snap.Services) != 1 || len(snap.Controllers) != 1 ||
		len(snap.DisruptionBudgets) != 1 || snap.DisruptionBudgets[0].Name != "ok" {
		t.Errorf("cluster: ns %v, services %v, controllers %v, budgets %v", snap.NamespaceLabels("a"), snap.Services, snap.Controllers, snap.DisruptionBudgets)
	}
	if err := s.DeleteNamespace("a"); err != nil || snap.NamespaceLabels("a") != nil {
		t.Errorf("DeleteNamespace: %v, labels %v", err, snap.NamespaceLabels("a"))
	}
	var zero Scheduler
	if err := zero.SetNamespace(api.Namespace{Name: "a"}); err == nil {
		t.Error("zero Scheduler: no error")
	}
}
