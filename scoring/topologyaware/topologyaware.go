// Package topologyaware is kube-scheduler's TopologyPlacementGenerator
// placement plugin (pkg/scheduler/framework/plugins/topologyaware) of its
// alpha topology-aware workload scheduling, as v1.36 introduced it
// (schedkit's default release is v1.37): the placements a pod group is
// tried in. It reads the group through its handle's PodGroupManager.
package topologyaware

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
)

// TopologyPlacementGenerator is kube-scheduler's TopologyPlacementGenerator
// (topology_placement.go): for a PodGroup with a topology constraint it
// proposes one placement per value of the key among the parent's nodes
// (nodes without the key are left out); once some pods of the group are
// placed (assumed or bound), only their domain. A group without constraint
// keeps the parent placement. Placements come in domain order (kube: map
// order).
type TopologyPlacementGenerator struct {
	h framework.Handle
}

var _ framework.PlacementGeneratePlugin = (*TopologyPlacementGenerator)(nil)

// New builds the plugin. It takes no args (args must be nil), so it is
// itself a framework.Factory; a nil h is a framework that runs on no
// scheduler (framework.NewHandle).
func New(args any, h framework.Handle) (framework.Plugin, error) {
	if err := config.NoArgs(config.TopologyPlacementGeneratorName, args); err != nil {
		return nil, err
	}
	if h == nil {
		h = framework.NewHandle(framework.RealClock{}, 1, framework.DefaultKubeVersion)
	}
	return &TopologyPlacementGenerator{h: h}, nil
}

// Name returns "TopologyPlacementGenerator".
func (*TopologyPlacementGenerator) Name() string { return config.TopologyPlacementGeneratorName }

// GeneratePlacements proposes the placements; see TopologyPlacementGenerator.
func (pl *TopologyPlacementGenerator) GeneratePlacements(_ context.Context, state *framework.CycleState, group *framework.PodGroupInfo, parent *framework.Placement) ([]*framework.Placement, *framework.Status) {
	pgm := pl.h.PodGroupManager()
	pg, ok := pgm.WorkloadPodGroup(group.Namespace, group.Name)
	if !ok {
		return nil, framework.AsStatus(fmt.Errorf("podgroup.scheduling.k8s.io %q not found", group.Name))
	}
	c := pg.Spec.SchedulingConstraints
	if c == nil || len(c.Topology) == 0 {
		return []*framework.Placement{parent}, nil
	}
	key := c.Topology[0].Key
	required := ""
	snap := state.Snapshot()
	if snap == nil {
		snap = pl.h.SnapshotLister().Snapshot()
	}
	if snap == nil {
		return nil, framework.AsStatus(errors.New("topologyaware: no snapshot of the cluster"))
	}
	_, placed := pgm.WorkloadPodGroupPods(group.Namespace, group.Name)
	for _, p := range placed {
		ni, ok := snap.Get(p.Spec.NodeName)
		if !ok {
			return nil, framework.AsStatus(fmt.Errorf("cannot determine domain for already scheduled pods: getting node for pod %s: nodeinfo not found for node name %q", p.Key(), p.Spec.NodeName))
		}
		domain, ok := ni.Node().Labels[key]
		if !ok {
			return nil, framework.AsStatus(fmt.Errorf("cannot determine domain for already scheduled pods: no topology domain found for pod %s", p.Key()))
		}
		if required != "" && required != domain {
			return nil, framework.AsStatus(fmt.Errorf("cannot determine domain for already scheduled pods: more than 1 domain found for pod group: %v, %v", required, domain))
		}
		required = domain
	}
	byDomain := map[string][]*framework.NodeInfo{}
	for _, ni := range parent.Nodes {
		if d, ok := ni.Node().Labels[key]; ok && (required == "" || d == required) {
			byDomain[d] = append(byDomain[d], ni)
		}
	}
	domains := make([]string, 0, len(byDomain))
	for d := range byDomain {
		domains = append(domains, d)
	}
	sort.Strings(domains)
	out := make([]*framework.Placement, len(domains))
	for i, d := range domains {
		out[i] = &framework.Placement{Name: d, Nodes: byDomain[d]}
	}
	return out, nil
}
