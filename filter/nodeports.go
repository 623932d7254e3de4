package filter

import (
	"context"
	"fmt"

	"github.com/schedkit/schedkit/config"
	fw "github.com/schedkit/schedkit/framework"
)

// ReasonNodePorts is kube-scheduler v1.36 NodePorts' filter reason.
const ReasonNodePorts = "node(s) didn't have free ports for the requested pod ports"

// npPreFilterKey is kube's "PreFilter"+NodePorts state key.
const npPreFilterKey fw.StateKey = "PreFilter" + config.NodePortsName

// npPreFilterState holds the host ports the pod wants.
type npPreFilterState []fw.ContainerPort

// Clone returns the state itself: other pods never change it.
func (s npPreFilterState) Clone() fw.StateData { return s }

// NodePorts is kube-scheduler v1.36's NodePorts filter. PreFilter collects
// the host ports (hostPort > 0) of the pod's containers and of its sidecar
// (restartable) init containers — plain init containers do not count — and
// returns Skip when there are none. Filter rejects a node where one of them
// conflicts with a port in use (Unschedulable: evicting the user may help),
// with kube's wildcard rules: host IP 0.0.0.0 (or empty) conflicts with
// every IP on the same protocol and port, a specific IP with itself and
// 0.0.0.0; an empty protocol means TCP.
type NodePorts struct{ reject *fw.Status }

var (
	_ fw.PreFilterPlugin   = (*NodePorts)(nil)
	_ fw.FilterPlugin      = (*NodePorts)(nil)
	_ fw.BatchFilterPlugin = (*NodePorts)(nil)
)

// NewNodePorts builds the filter (it has no args).
func NewNodePorts(_ fw.Handle) (fw.Plugin, error) {
	return &NodePorts{reject: fw.NewStatus(fw.Unschedulable, ReasonNodePorts)}, nil
}

// Name returns "NodePorts".
func (pl *NodePorts) Name() string { return config.NodePortsName }

// PreFilter stores the pod's host ports, or returns Skip when it has none.
func (pl *NodePorts) PreFilter(_ context.Context, state *fw.CycleState, pod *fw.PodInfo, _ []*fw.NodeInfo) (*fw.PreFilterResult, *fw.Status) {
	ports := fw.HostPorts(pod.Pod)
	if len(ports) == 0 {
		return nil, fw.NewStatus(fw.Skip)
	}
	state.Write(npPreFilterKey, npPreFilterState(ports))
	return nil, nil
}

// PreFilterExtensions returns nil.
func (pl *NodePorts) PreFilterExtensions() fw.PreFilterExtensions { return nil }

// Filter rejects node when a wanted host port is in use there. Without
// PreFilter state it returns an Error, as kube does.
func (pl *NodePorts) Filter(_ context.Context, state *fw.CycleState, _ *fw.PodInfo, node *fw.NodeInfo) *fw.Status {
	ports, st := npReadPreFilterState(state)
	if st != nil {
		return st
	}
	return pl.filter(ports, node)
}

func npReadPreFilterState(state *fw.CycleState) (npPreFilterState, *fw.Status) {
	d, err := state.Read(npPreFilterKey)
	if err != nil {
		return nil, fw.AsStatus(fmt.Errorf("reading %q from cycleState: %w", npPreFilterKey, err))
	}
	ports, ok := d.(npPreFilterState)
	if !ok {
		return nil, fw.AsStatus(fmt.Errorf("%+v  convert to nodeports.preFilterState error", d))
	}
	return ports, nil
}

// FilterBatch is Filter over nodes (framework.BatchFilterPlugin), reading
// the PreFilter state once.
func (pl *NodePorts) FilterBatch(_ context.Context, state *fw.CycleState, _ *fw.PodInfo, nodes []*fw.NodeInfo, _ []int32, out []*fw.Status) {
	ports, st := npReadPreFilterState(state)
	for i, node := range nodes {
		if st != nil {
			_, out[i] = npReadPreFilterState(state)
			continue
		}
		out[i] = pl.filter(ports, node)
	}
}

func (pl *NodePorts) filter(ports npPreFilterState, node *fw.NodeInfo) *fw.Status {
	for i := range ports {
		if node.UsedPorts.CheckConflict(ports[i].HostIP, ports[i].Protocol, ports[i].HostPort) {
			return pl.reject
		}
	}
	return nil
}
