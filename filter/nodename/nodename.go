// Package nodename is kube-scheduler's NodeName plugin: a pod that names a
// node in spec.nodeName fits only that node. It reproduces v1.37 (the
// default release; a PreFilter narrows the cycle to the named node) and
// v1.36 (Filter alone).
package nodename

import (
	"context"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/filter"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/fastpath"
)

// Reason is NodeName's filter reason (kube-scheduler v1.36 and
// v1.37). From v1.37 the other nodes are rejected by PreFilter's narrowing
// instead, with the framework's "node(s) didn't satisfy plugin(s)
// [NodeName]".
const Reason = "node(s) didn't match the requested node name"

// NodeName is kube-scheduler's NodeName filter: a pod whose spec.nodeName
// is set fits only the node of that name (UnschedulableAndUnresolvable
// elsewhere). Built for v1.37 or newer, the plugin also has v1.37's
// PreFilter (nodename/node_name.go:PreFilter), which narrows the nodes to
// spec.nodeName (a framework.PreFilterResult), so the framework filters
// only that node; v1.36's has no PreFilter.
type NodeName struct{ reject *framework.Status }

// nodeNamePreFilter is NodeName with kube-scheduler v1.37's PreFilter.
type nodeNamePreFilter struct{ *NodeName }

var _ framework.PreFilterPlugin = nodeNamePreFilter{}

// PreFilter narrows the nodes to spec.nodeName, and leaves them all when
// the pod names none.
func (pl nodeNamePreFilter) PreFilter(_ context.Context, _ *framework.CycleState, pod *framework.PodInfo, _ []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	if n := pod.Pod.Spec.NodeName; n != "" {
		return &framework.PreFilterResult{NodeNames: map[string]struct{}{n: {}}}, nil
	}
	return nil, nil
}

// PreFilterExtensions returns nil: nothing to update per pod.
func (nodeNamePreFilter) PreFilterExtensions() framework.PreFilterExtensions { return nil }

var _ fastpath.BoundedPreFilterPlugin = nodeNamePreFilter{}

// PreFilterBound is 1 for a pod that names its node
// (fastpath.BoundedPreFilterPlugin).
func (nodeNamePreFilter) PreFilterBound(pod *framework.PodInfo) (int, bool) {
	return 1, pod.Pod.Spec.NodeName != ""
}

var (
	_ framework.FilterPlugin                = (*NodeName)(nil)
	_ fastpath.BatchFilterPlugin            = (*NodeName)(nil)
	_ fastpath.TrustedRejectingFilterPlugin = (*NodeName)(nil)
)

// New builds the NodeName filter of the handle's release (with
// PreFilter from v1.37; a nil handle means DefaultKubeVersion).
// It takes no args (args must be nil), so it is itself a framework.Factory.
func New(args any, h framework.Handle) (framework.Plugin, error) {
	if err := config.NoArgs(config.NodeNameName, args); err != nil {
		return nil, err
	}
	pl := &NodeName{reject: framework.NewStatus(framework.UnschedulableAndUnresolvable, Reason)}
	if filter.Release(h).AtLeast(framework.KubeV137) {
		return nodeNamePreFilter{pl}, nil
	}
	return pl, nil
}

// Name returns "NodeName".
func (pl *NodeName) Name() string { return config.NodeNameName }

// VictimRemoval reports that removing pods from a node leaves the verdict
// unchanged (the verdict reads the node's name alone;
// runtime.VictimRemovalFilter).
func (pl *NodeName) VictimRemoval(*framework.PodInfo) (unchanged, keepsPass bool) { return true, true }

// Filter rejects node unless the pod names no node or names this one.
func (pl *NodeName) Filter(_ context.Context, _ *framework.CycleState, pod *framework.PodInfo, node *framework.NodeInfo) *framework.Status {
	if n := pod.Pod.Spec.NodeName; n == "" || n == node.Name() {
		return nil
	}
	return pl.reject
}

// FilterBatch is Filter over nodes (fastpath.BatchFilterPlugin), by way
// of FilterRejects.
func (pl *NodeName) FilterBatch(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32, out []*framework.Status) {
	fastpath.FilterBatchFromRejects(ctx, pl, state, pod, nodes, idx, out)
}

// FilterRejects is Filter over nodes, reporting the rejected ones
// (fastpath.RejectingFilterPlugin): nothing to do for a pod without
// spec.nodeName.
func (pl *NodeName) FilterRejects(_ context.Context, _ *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, _ []int32, rejected []fastpath.NodeRejection) []fastpath.NodeRejection {
	want := pod.Pod.Spec.NodeName
	if want == "" {
		return rejected
	}
	for i, node := range nodes {
		if node.Name() != want {
			rejected = append(rejected, fastpath.NodeRejection{Node: int32(i), Status: pl.reject})
		}
	}
	return rejected
}

// RejectionsTrusted marks FilterRejects as keeping its contract
// (fastpath.TrustedRejectingFilterPlugin).
func (pl *NodeName) RejectionsTrusted() {}

var _ framework.EnqueueExtensions = (*NodeName)(nil)

// EventsToRegister: a node added, without a hint (nodename/node_name.go).
func (pl *NodeName) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{{Event: filter.NodeEvent(framework.Add)}}, nil
}

var _ fastpath.NodeLocalPlugin = (*NodeName)(nil)

// NodeLocal is true: the verdict compares the pod's nodeName with the node's.
func (pl *NodeName) NodeLocal(*framework.PodInfo) bool { return true }

var _ framework.SignPlugin = (*NodeName)(nil)

// SignPod signs spec.nodeName (nodename/node_name.go).
func (pl *NodeName) SignPod(_ context.Context, pod *framework.PodInfo) ([]framework.SignFragment, *framework.Status) {
	return []framework.SignFragment{{Key: framework.SignerNodeName, Value: pod.Pod.Spec.NodeName}}, nil
}
