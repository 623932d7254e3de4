package framework

import (
	"context"

	"github.com/schedkit/schedkit/framework/api"
)

// Placement is a set of nodes a pod group is tried on as a whole in
// kube-scheduler v1.36's pod group scheduling cycle (alpha,
// TopologyAwareWorkloadScheduling): for instance the nodes of one zone.
type Placement struct {
	// Name identifies the placement in explanations (a topology domain).
	Name  string
	Nodes []*NodeInfo
}

// PodGroupInfo is a pod group in a pod group scheduling cycle: its
// namespace and name, and the pods the cycle tries to place, in order.
type PodGroupInfo struct {
	Namespace, Name string
	UnscheduledPods []*api.Pod
}

// ProposedAssignment is the node a pod group cycle found for one pod.
type ProposedAssignment struct {
	Pod      *PodInfo
	NodeName string
}

// PodGroupAssignments are the assignments a placement gave a pod group.
type PodGroupAssignments struct {
	*Placement
	ProposedAssignments []ProposedAssignment
}

// PlacementScore is one placement's score from one plugin.
type PlacementScore struct {
	Placement *Placement
	Score     int64
}

// PlacementGeneratePlugin proposes the placements a pod group is tried on,
// within parent (kube's placementGenerate extension point).
type PlacementGeneratePlugin interface {
	Plugin
	GeneratePlacements(ctx context.Context, state *CycleState, group *PodGroupInfo, parent *Placement) ([]*Placement, *Status)
}

// PlacementScorePlugin ranks the placements on which the group can be
// placed (kube's placementScore extension point); higher is better.
type PlacementScorePlugin interface {
	Plugin
	ScorePlacement(ctx context.Context, state *CycleState, group *PodGroupInfo, assignments *PodGroupAssignments) (int64, *Status)
	// PlacementScoreExtensions returns the normalizer, or nil.
	PlacementScoreExtensions() PlacementScoreExtensions
}

// PlacementScoreExtensions normalizes one plugin's placement scores in
// place to [MinNodeScore, MaxNodeScore].
type PlacementScoreExtensions interface {
	NormalizePlacementScore(ctx context.Context, state *CycleState, group *PodGroupInfo, scores []PlacementScore) *Status
}
