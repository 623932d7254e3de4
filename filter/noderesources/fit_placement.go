package noderesources

import (
	"context"

	"github.com/schedkit/schedkit/framework"
)

var _ framework.PlacementScorePlugin = (*NodeResourcesFit)(nil)

// ScorePlacement is kube-scheduler v1.36's NodeResourcesFit placement score
// (the placementScore point, alpha behind TopologyAwareWorkloadScheduling;
// plugins/noderesources resourceAllocationScorer.scorePlacement): the
// placement's nodes taken as one node, MostAllocated whatever the
// configured strategy, over the configured resources and weights. For each
// resource the requested amount is the group's proposed pods' requests
// plus every placement node's requested amount, and the capacity every
// node's allocatable (cpu and memory in the non-zero view, as Score; a
// node without allocatable of the resource, and a scalar resource the
// group does not request, count nothing).
func (pl *NodeResourcesFit) ScorePlacement(_ context.Context, _ *framework.CycleState, _ *framework.PodGroupInfo, a *framework.PodGroupAssignments) (int64, *framework.Status) {
	n := len(pl.resources)
	pods := make([]int64, n)
	for _, pa := range a.ProposedAssignments {
		for i := range pl.resources {
			pods[i] += nrfPodRequest(pa.Pod, &pl.resources[i])
		}
	}
	requested := make([]int64, n)
	capacity := make([]int64, n)
	copy(requested, pods)
	for _, ni := range a.Nodes {
		for i := range pl.resources {
			// nrfAllocRequest leaves out a scalar resource the pods do not
			// request (podReq 0), as kube's calculateNodeAllocatableRequest.
			alloc, req := nrfAllocRequest(ni, &pl.resources[i], pods[i], false)
			if alloc == 0 {
				continue
			}
			capacity[i] += alloc
			requested[i] += req - pods[i]
		}
	}
	var score, weights int64
	for i, r := range pl.resources {
		if capacity[i] == 0 {
			continue
		}
		score += MostRequestedScore(requested[i], capacity[i]) * r.weight
		weights += r.weight
	}
	if weights == 0 {
		return 0, nil
	}
	return score / weights, nil
}

// PlacementScoreExtensions returns nil: the placement score needs no
// normalization.
func (pl *NodeResourcesFit) PlacementScoreExtensions() framework.PlacementScoreExtensions { return nil }
