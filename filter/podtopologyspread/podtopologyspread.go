// Package podtopologyspread is kube-scheduler's PodTopologySpread plugin: a
// node where placing the pod would spread the pods its DoNotSchedule
// topology spread constraints select more unevenly than maxSkew allows
// rejects it, and nodes whose domains hold fewer of the pods its
// ScheduleAnyway constraints select score higher; the args' default
// constraints stand in for a pod's own when it has none. It reproduces
// v1.37 (the default release) and v1.36, with its args
// (PodTopologySpreadArgs).
package podtopologyspread

import (
	"context"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/slicepool"
)

// Filter reasons of PodTopologySpread, kube-scheduler's exact texts.
const (
	// ErrReasonConstraintsNotMatch: placing the pod on the
	// node would exceed a DoNotSchedule constraint's maxSkew.
	ErrReasonConstraintsNotMatch = "node(s) didn't match pod topology spread constraints"
	// ErrReasonNodeLabelNotMatch: the node lacks a hard
	// constraint's topology key.
	ErrReasonNodeLabelNotMatch = ErrReasonConstraintsNotMatch + " (missing required label)"
)

// PodTopologySpread is kube-scheduler's PodTopologySpread plugin.
//
// Its filter enforces the pod's whenUnsatisfiable: DoNotSchedule topology
// spread constraints, or the configured default constraints when the pod
// has none. PreFilter counts the matching pods of every eligible domain
// over all nodes; Filter rejects a node that lacks a constraint's
// topology key (UnschedulableAndUnresolvable) or where
// count + selfMatch − minMatch > maxSkew (Unschedulable). AddPod and
// RemovePod update the counts in O(1) for nominated pods and preemption.
//
// Its score prefers nodes whose domains hold fewer pods matching the
// pod's whenUnsatisfiable: ScheduleAnyway topology spread constraints (or
// the configured defaults when the pod has none). Per node,
// raw = round(Σ_c cnt_c·ln(domains_c + 2) + (maxSkew_c − 1)), where
// the sum runs over the constraints whose topology key the node carries,
// cnt_c is the number of matching pods in the node's domain (on the node
// itself for kubernetes.io/hostname) and domains_c the number of distinct
// values among the scored nodes (for hostname: the number of scored nodes).
// NormalizeScore maps raw to 100·(max + min − raw)/max, 100 for every node
// when max is 0, and 0 for ignored nodes.
type PodTopologySpread struct {
	defaults        []api.TopologySpreadConstraint
	systemDefaulted bool
	// h runs the walks over every node on the framework's workers (nil:
	// on the calling goroutine).
	h framework.Handle

	// Pre-built rejection statuses (never mutated by the runner).
	missingLabel *framework.Status
	notMatch     *framework.Status

	// pools recycles the per-domain slices of released PreFilter states
	// and members the membership bitmaps (a bit per snapshot node) of
	// released PreScore states (framework.ReleasableStateData).
	pools   *ptsPools
	members *slicepool.Pool[uint64]
}

// New builds PodTopologySpread from args, a PodTopologySpreadArgs or a
// pointer to one (nil: DefaultPodTopologySpreadArgs()): unset fields get
// kube-scheduler's defaults (defaultingType System), then the args are
// validated (PodTopologySpreadArgs.Validate). h may be nil; loops then run
// on the calling goroutine, as with parallelism 1. It is the plugin's
// framework.Factory.
func New(args any, h framework.Handle) (framework.Plugin, error) {
	return config.NewPlugin(config.PodTopologySpreadName, args, h, DefaultPodTopologySpreadArgs, newPodTopologySpread)
}

func newPodTopologySpread(args PodTopologySpreadArgs, h framework.Handle) (framework.Plugin, error) {
	args.SetDefaults()
	if err := args.Validate(); err != nil {
		return nil, err
	}
	pl := &PodTopologySpread{
		defaults:        args.EffectiveDefaultConstraints(),
		systemDefaulted: args.DefaultingType == SystemDefaulting,
		h:               h,
		missingLabel:    framework.NewStatus(framework.UnschedulableAndUnresolvable, ErrReasonNodeLabelNotMatch),
		notMatch:        framework.NewStatus(framework.Unschedulable, ErrReasonConstraintsNotMatch),
		pools:           &ptsPools{},
		members:         &slicepool.Pool[uint64]{},
	}
	return pl, nil
}

// Name returns "PodTopologySpread".
func (pl *PodTopologySpread) Name() string { return config.PodTopologySpreadName }

var (
	_ framework.SignPlugin  = (*PodTopologySpread)(nil)
	_ framework.SignRefuser = (*PodTopologySpread)(nil)
)

// SignPod refuses pods with topology spread constraints, and every pod
// when default constraints apply (podtopologyspread/plugin.go): the
// verdicts and scores depend on where other pods are.
func (pl *PodTopologySpread) SignPod(_ context.Context, pod *framework.PodInfo) ([]framework.SignFragment, *framework.Status) {
	if len(pod.Pod.Spec.TopologySpreadConstraints) > 0 {
		return nil, framework.NewStatus(framework.Unschedulable, "pods with topology constraints are not signable")
	}
	if pl.RefusesSign(pod) {
		return nil, framework.NewStatus(framework.Unschedulable, "pods with default topology constraints are not signable")
	}
	return nil, nil
}

// RefusesSign reports whether SignPod refuses pod: it has topology spread
// constraints, or default constraints apply.
func (pl *PodTopologySpread) RefusesSign(pod *framework.PodInfo) bool {
	return len(pod.Pod.Spec.TopologySpreadConstraints) > 0 || len(pl.defaults) > 0
}

// parallelizer is the handle's Parallelizer, Sequential without one.
func (pl *PodTopologySpread) parallelizer() framework.Parallelizer {
	if pl.h == nil {
		return framework.Sequential{}
	}
	return pl.h.Parallelizer()
}
