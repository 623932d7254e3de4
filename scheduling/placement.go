package scheduling

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

// Names of kube-scheduler v1.36's placement plugins (alpha,
// TopologyAwareWorkloadScheduling).
const (
	TopologyPlacementGeneratorName = "TopologyPlacementGenerator"
	PodGroupPodsCountName          = "PodGroupPodsCount"
)

// TopologyPlacementGenerator is kube-scheduler v1.36's
// TopologyPlacementGenerator (plugins/topologyaware/topology_placement.go):
// for a PodGroup with a topology constraint it proposes one placement per
// value of the key among the parent's nodes (nodes without the key are
// left out); once some pods of the group are placed (assumed or bound),
// only their domain. A group without constraint keeps the parent
// placement. Placements come in domain order (kube: map order).
type TopologyPlacementGenerator struct{}

var _ framework.PlacementGeneratePlugin = TopologyPlacementGenerator{}

// NewTopologyPlacementGenerator builds the plugin (it has no args).
func NewTopologyPlacementGenerator(args any, _ framework.Handle) (framework.Plugin, error) {
	if args != nil {
		return nil, fmt.Errorf("%s: takes no args, got %T", TopologyPlacementGeneratorName, args)
	}
	return TopologyPlacementGenerator{}, nil
}

// Name returns "TopologyPlacementGenerator".
func (TopologyPlacementGenerator) Name() string { return TopologyPlacementGeneratorName }

// GeneratePlacements proposes the placements; see TopologyPlacementGenerator.
func (TopologyPlacementGenerator) GeneratePlacements(_ context.Context, state *framework.CycleState, group *framework.PodGroupInfo, parent *framework.Placement) ([]*framework.Placement, *framework.Status) {
	s, ok := SchedulerFromCycleState(state)
	if !ok {
		return nil, framework.AsStatus(errors.New("TopologyPlacementGenerator: no scheduling.Scheduler in the CycleState"))
	}
	pg, ok := s.cluster.WorkloadPodGroup(group.Namespace, group.Name)
	if !ok {
		return nil, framework.AsStatus(errPodGroupNotFound(group.Name))
	}
	c := pg.Spec.SchedulingConstraints
	if c == nil || len(c.Topology) == 0 {
		return []*framework.Placement{parent}, nil
	}
	key := c.Topology[0].Key
	required := ""
	snap := state.Snapshot()
	if snap == nil {
		snap = s.cluster.Snapshot()
	}
	for _, r := range s.cluster.WorkloadPodGroupMembers(group.Namespace, group.Name) {
		if r.State == cluster.StatePending {
			continue
		}
		ni, ok := snap.Get(r.Pod.Spec.NodeName)
		if !ok {
			return nil, framework.AsStatus(fmt.Errorf("cannot determine domain for already scheduled pods: getting node for pod %s: nodeinfo not found for node name %q", r.Pod.Key(), r.Pod.Spec.NodeName))
		}
		domain, ok := ni.Node().Labels[key]
		if !ok {
			return nil, framework.AsStatus(fmt.Errorf("cannot determine domain for already scheduled pods: no topology domain found for pod %s", r.Pod.Key()))
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

// PodGroupPodsCount is kube-scheduler v1.36's PodGroupPodsCount placement
// score (plugins/podgrouppodscount/podgroup_pods_count.go): a placement scores the group's pods
// already placed plus those it proposes to place; scores are normalized to
// score·100/max over the candidate placements (a max of 0 is an error).
type PodGroupPodsCount struct{}

var (
	_ framework.PlacementScorePlugin     = PodGroupPodsCount{}
	_ framework.PlacementScoreExtensions = PodGroupPodsCount{}
)

// NewPodGroupPodsCount builds the plugin (it has no args).
func NewPodGroupPodsCount(args any, _ framework.Handle) (framework.Plugin, error) {
	if args != nil {
		return nil, fmt.Errorf("%s: takes no args, got %T", PodGroupPodsCountName, args)
	}
	return PodGroupPodsCount{}, nil
}

// Name returns "PodGroupPodsCount".
func (PodGroupPodsCount) Name() string { return PodGroupPodsCountName }

// ScorePlacement counts the group's placed pods and the proposed ones.
func (PodGroupPodsCount) ScorePlacement(_ context.Context, state *framework.CycleState, group *framework.PodGroupInfo, a *framework.PodGroupAssignments) (int64, *framework.Status) {
	s, ok := SchedulerFromCycleState(state)
	if !ok {
		return 0, framework.AsStatus(errors.New("PodGroupPodsCount: no scheduling.Scheduler in the CycleState"))
	}
	_, scheduled := s.cluster.WorkloadPodGroupCounts(group.Namespace, group.Name)
	return int64(scheduled + len(a.ProposedAssignments)), nil
}

// PlacementScoreExtensions returns the plugin: it normalizes.
func (pl PodGroupPodsCount) PlacementScoreExtensions() framework.PlacementScoreExtensions { return pl }

// NormalizePlacementScore maps the counts to [0, 100] by the largest.
func (PodGroupPodsCount) NormalizePlacementScore(_ context.Context, _ *framework.CycleState, _ *framework.PodGroupInfo, scores []framework.PlacementScore) *framework.Status {
	var maxCount int64
	for _, sc := range scores {
		maxCount = max(maxCount, sc.Score)
	}
	if maxCount == 0 {
		return framework.AsStatus(errors.New("no pods from pod group are assigned to any of the candidate placements"))
	}
	for i := range scores {
		scores[i].Score = framework.MinNodeScore + scores[i].Score*(framework.MaxNodeScore-framework.MinNodeScore)/maxCount
	}
	return nil
}
