package topologyaware

import (
	"context"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
)

type podGroups = framework.PodGroupManager

// taHandle holds one zoned group with the scheduled pods placed, and the
// cluster's snapshot.
type taHandle struct {
	framework.Handle
	podGroups
	placed []*api.Pod
	snap   *framework.Snapshot
}

func (h taHandle) PodGroupManager() framework.PodGroupManager { return h }
func (h taHandle) SnapshotLister() framework.SnapshotLister   { return h }
func (h taHandle) Snapshot() *framework.Snapshot              { return h.snap }

func (h taHandle) WorkloadPodGroup(ns, name string) (*api.WorkloadPodGroup, bool) {
	return &api.WorkloadPodGroup{ObjectMeta: api.ObjectMeta{Namespace: ns, Name: name}, Spec: api.WorkloadPodGroupSpec{
		SchedulingConstraints: &api.PodGroupSchedulingConstraints{Topology: []api.TopologyConstraint{{Key: api.LabelTopologyZone}}}}}, true
}

func (h taHandle) WorkloadPodGroupPods(string, string) ([]*api.Pod, []*api.Pod) { return nil, h.placed }

// TestGeneratePlacements: without the group (outside a scheduler) it is
// the lister's NotFound; a cycle without a snapshot reads the handle's,
// and without either it is an error; placed pods pin their zone.
func TestGeneratePlacements(t *testing.T) {
	zone := func(name, z string) *api.Node {
		return st.MakeNode().Name(name).Label(api.LabelTopologyZone, z).Obj()
	}
	snap := framework.MustSnapshot([]*api.Node{zone("a1", "a"), zone("b1", "b")}, nil)
	group := &framework.PodGroupInfo{Namespace: "ns", Name: "pg"}
	parent := &framework.Placement{Nodes: snap.Nodes()}
	gen := func(h framework.Handle) ([]*framework.Placement, *framework.Status) {
		pl, err := New(nil, h)
		if err != nil {
			t.Fatal(err)
		}
		return pl.(*TopologyPlacementGenerator).GeneratePlacements(context.Background(), framework.NewCycleState(), group, parent)
	}
	if _, st := gen(nil); st.Code() != framework.Error || st.Message() != `podgroup.scheduling.k8s.io "pg" not found` {
		t.Errorf("without a scheduler: %v", st)
	}
	if _, st := gen(taHandle{}); st.Code() != framework.Error || !strings.Contains(st.Message(), "no snapshot") {
		t.Errorf("without a snapshot: %v", st)
	}
	placed := st.MakePod().Namespace("ns").Name("p").Node("b1").Obj()
	ps, status := gen(taHandle{snap: snap, placed: []*api.Pod{placed}})
	if !status.IsSuccess() || len(ps) != 1 || ps[0].Name != "b" || len(ps[0].Nodes) != 1 || ps[0].Nodes[0].Name() != "b1" {
		t.Errorf("placements %v, %v; want zone b with b1", ps, status)
	}
}
