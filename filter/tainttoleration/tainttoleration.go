// Package tainttoleration is kube-scheduler's TaintToleration plugin: a
// node with a NoSchedule or NoExecute taint the pod does not tolerate
// rejects it, and nodes with fewer untolerated PreferNoSchedule taints
// score higher. It reproduces v1.37 (the default release, whose no-op
// PreFilter it has) and v1.36.
package tainttoleration

import (
	"context"
	"sync/atomic"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/filter"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/fastpath"
)

// ReasonUntoleratedTaint is TaintToleration's filter
// reason. Since v1.35 (kubernetes/kubernetes#134740) it no longer names the
// taint's key and value ("node(s) had untolerated taint {key: value}"
// before).
const ReasonUntoleratedTaint = "node(s) had untolerated taint(s)"

// TaintToleration is kube-scheduler's TaintToleration plugin. Filter
// rejects a node with a NoSchedule or NoExecute taint that none of the
// pod's tolerations tolerates (UnschedulableAndUnresolvable); toleration
// operators Lt and Gt (feature-gated, off by default) tolerate nothing.
// Score counts the node's PreferNoSchedule taints that none of the pod's
// tolerations with effect PreferNoSchedule or empty tolerates;
// NormalizeScore reverses the counts with DefaultNormalizeScore(100,
// reverse=true), so nodes with the fewest such taints score 100 (all 100
// when no node has any).
type TaintToleration struct {
	reject *framework.Status
	// noTolerations is the PreScore state of every pod without a
	// toleration that scoring reads; states are read-only, so one serves
	// all cycles.
	noTolerations *ttPreScoreState
	// verdicts holds the verdicts by taint class of the last few sets of
	// tolerations pods brought, on the classes they were decided on.
	verdicts *atomic.Pointer[ttVerdictMemo]
}

var (
	_ framework.FilterPlugin                = (*TaintToleration)(nil)
	_ fastpath.BatchFilterPlugin            = (*TaintToleration)(nil)
	_ fastpath.TrustedRejectingFilterPlugin = (*TaintToleration)(nil)
	_ framework.PreScorePlugin              = (*TaintToleration)(nil)
	_ framework.ScorePlugin                 = (*TaintToleration)(nil)
	_ fastpath.BatchScorePlugin             = (*TaintToleration)(nil)
	_ framework.ScoreExtensions             = (*TaintToleration)(nil)
	_ fastpath.BatchScoreExtensions         = (*TaintToleration)(nil)
)

// New builds TaintToleration for the handle's release (with v1.37's no-op
// PreFilter from v1.37; a nil handle means DefaultKubeVersion).
// It takes no args (args must be nil), so it is itself a framework.Factory.
func New(args any, h framework.Handle) (framework.Plugin, error) {
	if err := config.NoArgs(config.TaintTolerationName, args); err != nil {
		return nil, err
	}
	pl := &TaintToleration{reject: framework.NewStatus(framework.UnschedulableAndUnresolvable, ReasonUntoleratedTaint), noTolerations: &ttPreScoreState{}, verdicts: &atomic.Pointer[ttVerdictMemo]{}}
	if filter.Release(h).AtLeast(framework.KubeV137) {
		return taintTolerationPreFilter{pl}, nil
	}
	return pl, nil
}

// Name returns "TaintToleration".
func (pl *TaintToleration) Name() string { return config.TaintTolerationName }

var _ fastpath.NodeLocalPlugin = (*TaintToleration)(nil)

// NodeLocal is true: the verdict reads the node's taints, the score counts
// the node's intolerable PreferNoSchedule taints.
func (pl *TaintToleration) NodeLocal(*framework.PodInfo) bool { return true }

var _ framework.SignPlugin = (*TaintToleration)(nil)

// SignPod signs the pod's tolerations (tainttoleration/taint_toleration.go).
func (pl *TaintToleration) SignPod(_ context.Context, pod *framework.PodInfo) ([]framework.SignFragment, *framework.Status) {
	return []framework.SignFragment{{Key: framework.SignerTolerations, Value: framework.SignTolerations(pod.Pod)}}, nil
}

// ttMaskClasses is how many taint classes a 64-bit mask holds: with at
// most this many, FilterRejects reads a class's verdict from a mask of
// the rejected classes and ScoreBatchBounds marks the classes met in one;
// with more (a per-node taint value, such as cluster-autoscaler's
// DeletionCandidateOfClusterAutoscaler timestamp, makes a class of each
// such node), both read a table by class instead.
const ttMaskClasses = 64

// taintTolerationPreFilter is TaintToleration with kube-scheduler v1.37's PreFilter
// (tainttoleration/taint_toleration.go:PreFilter), which does nothing with kube's default feature
// gates: it skips only a pod whose resize is deferred, under the alpha
// InPlacePodVerticalScalingSchedulerPreemption gate, which schedkit does
// not model. It makes the plugin a PreFilter plugin of the default
// profile, as in kube.
type taintTolerationPreFilter struct{ *TaintToleration }

var _ framework.PreFilterPlugin = taintTolerationPreFilter{}

// PreFilter returns no result and no status: every node is filtered.
func (taintTolerationPreFilter) PreFilter(context.Context, *framework.CycleState, *framework.PodInfo, []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	return nil, nil
}

// PreFilterExtensions returns nil: nothing to update per pod.
func (taintTolerationPreFilter) PreFilterExtensions() framework.PreFilterExtensions { return nil }
