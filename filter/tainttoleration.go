package filter

import (
	"context"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
)

// ReasonUntoleratedTaint is kube-scheduler v1.36 TaintToleration's filter
// reason. Since v1.35 (PR #134740) it no longer names the taint's key and
// value ("node(s) had untolerated taint {key: value}" before).
const ReasonUntoleratedTaint = "node(s) had untolerated taint(s)"

// TaintToleration is the filter half of kube-scheduler v1.36's
// TaintToleration: a node with a NoSchedule or NoExecute taint that none of
// the pod's tolerations tolerates is rejected (UnschedulableAndUnresolvable).
// Toleration operators Lt and Gt (feature-gated, off by default in v1.36)
// tolerate nothing.
type TaintToleration struct{ reject *framework.Status }

var (
	_ framework.FilterPlugin      = (*TaintToleration)(nil)
	_ framework.BatchFilterPlugin = (*TaintToleration)(nil)
)

// NewTaintToleration builds the filter half of TaintToleration.
// It takes no args (args must be nil), so it is itself a framework.Factory.
func NewTaintToleration(args any, _ framework.Handle) (framework.Plugin, error) {
	if err := config.NoArgs(config.TaintTolerationName, args); err != nil {
		return nil, err
	}
	return &TaintToleration{reject: framework.NewStatus(framework.UnschedulableAndUnresolvable, ReasonUntoleratedTaint)}, nil
}

// Name returns "TaintToleration".
func (pl *TaintToleration) Name() string { return config.TaintTolerationName }

// Filter rejects node when one of its NoSchedule/NoExecute taints is not
// tolerated.
func (pl *TaintToleration) Filter(_ context.Context, _ *framework.CycleState, pod *framework.PodInfo, node *framework.NodeInfo) *framework.Status {
	return pl.filter(pod.Pod.Spec.Tolerations, node.Node().Spec.Taints)
}

// FilterBatch is Filter over nodes (framework.BatchFilterPlugin); an
// untainted node costs one length check.
func (pl *TaintToleration) FilterBatch(_ context.Context, _ *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, _ []int32, out []*framework.Status) {
	tols := pod.Pod.Spec.Tolerations
	for i, node := range nodes {
		if taints := node.Node().Spec.Taints; len(taints) > 0 {
			out[i] = pl.filter(tols, taints)
		}
	}
}

func (pl *TaintToleration) filter(tols []framework.Toleration, taints []framework.Taint) *framework.Status {
	for i := range taints {
		t := &taints[i]
		if t.Effect != framework.TaintEffectNoSchedule && t.Effect != framework.TaintEffectNoExecute {
			continue
		}
		if !framework.TolerationsTolerateTaint(tols, t) {
			return pl.reject
		}
	}
	return nil
}
