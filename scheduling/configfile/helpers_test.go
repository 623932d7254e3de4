package configfile

import (
	"context"
	"slices"
	"time"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
)

// csNow is the fake clock's start in tests that run a scheduler.
var csNow = time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)

// csNode is the anchor tests' st.MakeNode().Name(name).Capacity({cpu: 4})
// (kube's wrapper also sets pods: 32).
func csNode(name string) *api.Node {
	return st.MakeNode().Name(name).Capacity(map[string]string{"cpu": "4", "pods": "32"}).Obj()
}

// gsPod is kube's st.MakePod().Namespace(ns).Name(name).UID(name).PodGroupName(group).
func gsPod(ns, name, group string) *api.Pod {
	p := st.MakePod().Namespace(ns).Name(name).Req(map[string]string{"cpu": "100m"}).Obj()
	if group != "" {
		g := group
		p.Spec.SchedulingGroup = &api.PodSchedulingGroup{PodGroupName: &g}
	}
	return p
}

// gsGang is a workload pod group with a gang policy of minCount.
func gsGang(ns, name string, minCount int32) *api.WorkloadPodGroup {
	return &api.WorkloadPodGroup{ObjectMeta: api.ObjectMeta{Namespace: ns, Name: name},
		Spec: api.WorkloadPodGroupSpec{SchedulingPolicy: api.PodGroupSchedulingPolicy{Gang: &api.GangSchedulingPolicy{MinCount: minCount}}}}
}

var gsFeatures = framework.WorkloadFeatures{GenericWorkload: true, GangScheduling: true}

// plZoneNode is a 4-cpu node in zone.
func plZoneNode(name, zone string) *api.Node {
	w := st.MakeNode().Name(name).Capacity(map[string]string{"cpu": "4", "pods": "32"})
	if zone != "" {
		w = w.Label("topology.kubernetes.io/zone", zone)
	}
	return w.Obj()
}

// plZoned is a gang of minCount constrained to one zone.
func plZoned(ns, name string, minCount int32) *api.WorkloadPodGroup {
	g := gsGang(ns, name, minCount)
	g.Spec.SchedulingConstraints = &api.PodGroupSchedulingConstraints{Topology: []api.TopologyConstraint{{Key: "topology.kubernetes.io/zone"}}}
	return g
}

// pgPlacementFake is a placementGenerate plugin that generates no
// placement: configuration tests need one under a name of their own.
type pgPlacementFake struct{ name string }

func (p *pgPlacementFake) Name() string { return p.name }

func (p *pgPlacementFake) GeneratePlacements(context.Context, *framework.CycleState, *framework.PodGroupInfo, *framework.Placement) ([]*framework.Placement, *framework.Status) {
	return nil, nil
}

func contains(s []string, x string) bool { return slices.Contains(s, x) }
