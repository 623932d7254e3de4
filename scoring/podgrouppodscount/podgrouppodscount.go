// Package podgrouppodscount is kube-scheduler's PodGroupPodsCount
// placement score plugin (pkg/scheduler/framework/plugins/podgrouppodscount)
// of its alpha topology-aware workload scheduling, as v1.36 introduced it
// (schedkit's default release is v1.37). It counts the group's pods
// through its handle's PodGroupManager.
package podgrouppodscount

import (
	"context"
	"errors"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
)

// PodGroupPodsCount is kube-scheduler's PodGroupPodsCount placement score
// (podgroup_pods_count.go): a placement scores the group's pods already
// placed plus those it proposes to place; scores are normalized to
// score·100/max over the candidate placements (a max of 0 is an error).
type PodGroupPodsCount struct {
	h framework.Handle
}

var (
	_ framework.PlacementScorePlugin     = (*PodGroupPodsCount)(nil)
	_ framework.PlacementScoreExtensions = (*PodGroupPodsCount)(nil)
)

// New builds the plugin. It takes no args (args must be nil), so it is
// itself a framework.Factory; a nil h is a framework that runs on no
// scheduler (framework.NewHandle).
func New(args any, h framework.Handle) (framework.Plugin, error) {
	if err := config.NoArgs(config.PodGroupPodsCountName, args); err != nil {
		return nil, err
	}
	if h == nil {
		h = framework.NewHandle(framework.RealClock{}, 1, framework.DefaultKubeVersion)
	}
	return &PodGroupPodsCount{h: h}, nil
}

// Name returns "PodGroupPodsCount".
func (*PodGroupPodsCount) Name() string { return config.PodGroupPodsCountName }

// ScorePlacement counts the group's placed pods and the proposed ones.
func (pl *PodGroupPodsCount) ScorePlacement(_ context.Context, _ *framework.CycleState, group *framework.PodGroupInfo, a *framework.PodGroupAssignments) (int64, *framework.Status) {
	_, scheduled := pl.h.PodGroupManager().WorkloadPodGroupCounts(group.Namespace, group.Name)
	return int64(scheduled + len(a.ProposedAssignments)), nil
}

// PlacementScoreExtensions returns the plugin: it normalizes.
func (pl *PodGroupPodsCount) PlacementScoreExtensions() framework.PlacementScoreExtensions {
	return pl
}

// NormalizePlacementScore maps the counts to [0, 100] by the largest.
func (*PodGroupPodsCount) NormalizePlacementScore(_ context.Context, _ *framework.CycleState, _ *framework.PodGroupInfo, scores []framework.PlacementScore) *framework.Status {
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
