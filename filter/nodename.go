package filter

import (
	"context"

	"github.com/schedkit/schedkit/config"
	fw "github.com/schedkit/schedkit/framework"
)

// ReasonNodeName is kube-scheduler v1.36 NodeName's filter reason.
const ReasonNodeName = "node(s) didn't match the requested node name"

// NodeName is kube-scheduler v1.36's NodeName filter: a pod whose
// spec.nodeName is set fits only the node of that name
// (UnschedulableAndUnresolvable elsewhere).
type NodeName struct{ reject *fw.Status }

var (
	_ fw.FilterPlugin      = (*NodeName)(nil)
	_ fw.BatchFilterPlugin = (*NodeName)(nil)
)

// NewNodeName builds the NodeName filter (it has no args).
func NewNodeName(_ fw.Handle) (fw.Plugin, error) {
	return &NodeName{reject: fw.NewStatus(fw.UnschedulableAndUnresolvable, ReasonNodeName)}, nil
}

// Name returns "NodeName".
func (pl *NodeName) Name() string { return config.NodeNameName }

// Filter rejects node unless the pod names no node or names this one.
func (pl *NodeName) Filter(_ context.Context, _ *fw.CycleState, pod *fw.PodInfo, node *fw.NodeInfo) *fw.Status {
	if n := pod.Pod.Spec.NodeName; n == "" || n == node.Name() {
		return nil
	}
	return pl.reject
}

// FilterBatch is Filter over nodes (framework.BatchFilterPlugin): nothing
// to do for a pod without spec.nodeName.
func (pl *NodeName) FilterBatch(_ context.Context, _ *fw.CycleState, pod *fw.PodInfo, nodes []*fw.NodeInfo, _ []int32, out []*fw.Status) {
	want := pod.Pod.Spec.NodeName
	if want == "" {
		return
	}
	for i, node := range nodes {
		if node.Name() != want {
			out[i] = pl.reject
		}
	}
}
