// Package nodeunschedulable is kube-scheduler's NodeUnschedulable plugin: a
// cordoned node (spec.unschedulable) rejects pods that do not tolerate its
// node.kubernetes.io/unschedulable taint. It reproduces v1.37 (the default
// release, whose no-op PreFilter it has) and v1.36.
package nodeunschedulable

import (
	"context"
	"slices"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/filter"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/fastpath"
)

// Filter reasons of NodeUnschedulable.
const (
	// ReasonUnschedulable is reported for a cordoned node.
	ReasonUnschedulable = "node(s) were unschedulable"
	// ReasonUnknownCondition is reported for a NodeInfo without a node.
	ReasonUnknownCondition = "node(s) had unknown conditions"
)

// TaintNodeUnschedulable is the taint key a pod tolerates (with effect
// NoSchedule) to run on a cordoned node.
const TaintNodeUnschedulable = "node.kubernetes.io/unschedulable"

// NodeUnschedulable is kube-scheduler's NodeUnschedulable filter: a
// node with spec.unschedulable is rejected (UnschedulableAndUnresolvable)
// unless the pod tolerates the taint node.kubernetes.io/unschedulable with
// effect NoSchedule.
type NodeUnschedulable struct {
	reject, unknown *framework.Status
	taint           api.Taint
}

var (
	_ framework.FilterPlugin                = (*NodeUnschedulable)(nil)
	_ fastpath.BatchFilterPlugin            = (*NodeUnschedulable)(nil)
	_ fastpath.TrustedRejectingFilterPlugin = (*NodeUnschedulable)(nil)
)

// New builds the NodeUnschedulable filter of the handle's
// release (with v1.37's no-op PreFilter from v1.37; a nil handle means
// DefaultKubeVersion).
// It takes no args (args must be nil), so it is itself a framework.Factory.
func New(args any, h framework.Handle) (framework.Plugin, error) {
	if err := config.NoArgs(config.NodeUnschedulableName, args); err != nil {
		return nil, err
	}
	pl := &NodeUnschedulable{
		reject:  framework.NewStatus(framework.UnschedulableAndUnresolvable, ReasonUnschedulable),
		unknown: framework.NewStatus(framework.UnschedulableAndUnresolvable, ReasonUnknownCondition),
		taint:   api.Taint{Key: TaintNodeUnschedulable, Effect: api.TaintEffectNoSchedule},
	}
	if filter.Release(h).AtLeast(framework.KubeV137) {
		return nodeUnschedulablePreFilter{pl}, nil
	}
	return pl, nil
}

// Name returns "NodeUnschedulable".
func (pl *NodeUnschedulable) Name() string { return config.NodeUnschedulableName }

// VictimRemoval reports that removing pods from a node leaves the verdict
// unchanged (the verdict reads the node's spec alone;
// runtime.VictimRemovalFilter).
func (pl *NodeUnschedulable) VictimRemoval(*framework.PodInfo) (unchanged, keepsPass bool) {
	return true, true
}

// Filter rejects a cordoned node the pod does not tolerate.
func (pl *NodeUnschedulable) Filter(_ context.Context, _ *framework.CycleState, pod *framework.PodInfo, node *framework.NodeInfo) *framework.Status {
	if node == nil || node.Node() == nil {
		return pl.unknown
	}
	if !node.Unschedulable() {
		return nil
	}
	if api.TolerationsTolerateTaint(pod.Pod.Spec.Tolerations, &pl.taint) {
		return nil
	}
	return pl.reject
}

// FilterBatch is Filter over nodes (fastpath.BatchFilterPlugin), by way
// of FilterRejects.
func (pl *NodeUnschedulable) FilterBatch(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32, out []*framework.Status) {
	fastpath.FilterBatchFromRejects(ctx, pl, state, pod, nodes, idx, out)
}

// FilterRejects is Filter over nodes, reporting the rejected ones
// (fastpath.RejectingFilterPlugin): the pod's toleration of the cordon
// taint is decided once, at the first cordoned node; with the runner's
// snapshot indices, cordons are read from the snapshot's taint classes.
func (pl *NodeUnschedulable) FilterRejects(_ context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32, rejected []fastpath.NodeRejection) []fastpath.NodeRejection {
	tolerates := -1 // unknown until a cordoned node is met
	if idx != nil {
		// The runner's snapshot indices: the cordon flag of each node's
		// taint class, without reading the node.
		tc := state.Snapshot().TaintClasses()
		if !slices.Contains(tc.Unschedulable, true) || api.TolerationsTolerateTaint(pod.Pod.Spec.Tolerations, &pl.taint) {
			return rejected
		}
		if first, ok := state.Snapshot().IndexRun(idx); ok {
			// A run of positions: the cordoned nodes in it, by search.
			return nuAppendCordoned(rejected, tc.Cordoned, first, len(idx), len(tc.Class), pl.reject)
		}
		class, cordoned := tc.Class, tc.Unschedulable
		for i, k := range idx {
			if cordoned[class[k]] {
				rejected = append(rejected, fastpath.NodeRejection{Node: int32(i), Status: pl.reject})
			}
		}
		return rejected
	}
	for i, node := range nodes {
		if node == nil || node.Node() == nil {
			rejected = append(rejected, fastpath.NodeRejection{Node: int32(i), Status: pl.unknown})
			continue
		}
		if !node.Node().Spec.Unschedulable {
			continue
		}
		if tolerates < 0 {
			tolerates = 0
			if api.TolerationsTolerateTaint(pod.Pod.Spec.Tolerations, &pl.taint) {
				tolerates = 1
			}
		}
		if tolerates == 0 {
			rejected = append(rejected, fastpath.NodeRejection{Node: int32(i), Status: pl.reject})
		}
	}
	return rejected
}

// RejectionsTrusted marks FilterRejects as keeping its contract
// (fastpath.TrustedRejectingFilterPlugin).
func (pl *NodeUnschedulable) RejectionsTrusted() {}

// nuAppendCordoned appends a rejection with st for each cordoned position
// (cordoned: increasing) in the run of m positions first, first+1, … mod
// n, by its index in the run, in increasing order.
func nuAppendCordoned(rejected []fastpath.NodeRejection, cordoned []int32, first, m, n int, st *framework.Status) []fastpath.NodeRejection {
	add := func(lo, hi, offset int) {
		from, _ := slices.BinarySearch(cordoned, int32(lo))
		for _, k := range cordoned[from:] {
			if int(k) >= hi {
				break
			}
			rejected = append(rejected, fastpath.NodeRejection{Node: int32(int(k) + offset), Status: st})
		}
	}
	end := first + m
	add(first, min(end, n), -first)
	if end > n {
		add(0, end-n, n-first)
	}
	return rejected
}

var _ framework.EnqueueExtensions = (*NodeUnschedulable)(nil)

// EventsToRegister: a node added or updated that is not cordoned, or a new
// toleration of the pod (nodeunschedulable/node_unschedulable.go).
func (pl *NodeUnschedulable) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{Event: filter.NodeEvent(framework.Add | framework.UpdateNodeTaint), QueueingHintFn: pl.afterNodeChange},
		{Event: filter.PodEvent(framework.UpdatePodToleration), QueueingHintFn: pl.afterPodTolerationChange},
	}, nil
}

// afterNodeChange: Queue when the node was added schedulable or was
// uncordoned.
func (pl *NodeUnschedulable) afterNodeChange(_ *framework.Snapshot, _ *framework.PodInfo, oldObj, newObj any) (framework.QueueingHint, error) {
	oldNode, newNode, err := framework.EventObjects[api.Node](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if (oldNode != nil && oldNode.Spec.Unschedulable && !newNode.Spec.Unschedulable) || (oldNode == nil && !newNode.Spec.Unschedulable) {
		return framework.Queue, nil
	}
	return framework.QueueSkip, nil
}

// afterPodTolerationChange: Queue when the rejected pod itself now
// tolerates the unschedulable taint.
func (pl *NodeUnschedulable) afterPodTolerationChange(_ *framework.Snapshot, pod *framework.PodInfo, oldObj, newObj any) (framework.QueueingHint, error) {
	_, modified, err := framework.EventObjects[framework.PodInfo](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if framework.SamePod(modified.Pod, pod.Pod) && api.TolerationsTolerateTaint(modified.Pod.Spec.Tolerations, &pl.taint) {
		return framework.Queue, nil
	}
	return framework.QueueSkip, nil
}

var _ fastpath.NodeLocalPlugin = (*NodeUnschedulable)(nil)

// NodeLocal is true: the verdict reads the node's spec and conditions.
func (pl *NodeUnschedulable) NodeLocal(*framework.PodInfo) bool { return true }

var _ framework.SignPlugin = (*NodeUnschedulable)(nil)

// SignPod signs the pod's tolerations (nodeunschedulable/node_unschedulable.go).
func (pl *NodeUnschedulable) SignPod(_ context.Context, pod *framework.PodInfo) ([]framework.SignFragment, *framework.Status) {
	return []framework.SignFragment{{Key: framework.SignerTolerations, Value: framework.SignTolerations(pod.Pod)}}, nil
}

// nodeUnschedulablePreFilter is NodeUnschedulable with kube-scheduler v1.37's PreFilter
// (nodeunschedulable/node_unschedulable.go:PreFilter), which does nothing with kube's default feature
// gates: it skips only a pod whose resize is deferred, under the alpha
// InPlacePodVerticalScalingSchedulerPreemption gate, which schedkit does
// not model. It makes the plugin a PreFilter plugin of the default
// profile, as in kube.
type nodeUnschedulablePreFilter struct{ *NodeUnschedulable }

var _ framework.PreFilterPlugin = nodeUnschedulablePreFilter{}

// PreFilter returns no result and no status: every node is filtered.
func (nodeUnschedulablePreFilter) PreFilter(context.Context, *framework.CycleState, *framework.PodInfo, []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	return nil, nil
}

// PreFilterExtensions returns nil: nothing to update per pod.
func (nodeUnschedulablePreFilter) PreFilterExtensions() framework.PreFilterExtensions { return nil }
