// Package nodeports is kube-scheduler's NodePorts plugin: a node where one
// of the pod's host ports is already in use rejects the pod. Its verdicts
// and reason are those of v1.37 (the default release) and v1.36 alike.
package nodeports

import (
	"context"
	"fmt"
	"math/bits"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/filter"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/fastpath"
)

// Reason is NodePorts' filter reason.
const Reason = "node(s) didn't have free ports for the requested pod ports"

// npPreFilterKey is kube's "PreFilter"+NodePorts state key.
const npPreFilterKey framework.StateKey = "PreFilter" + config.NodePortsName

// npPreFilterState holds the host ports the pod wants and, for the
// snapshot the runner's PreFilter ran on (snap, at its ChangeSeq seq), the
// nodes where they conflict for sure and those where they may
// (holders.conflicts).
type npPreFilterState struct {
	ports       []api.ContainerPort
	snap        *framework.Snapshot
	seq         uint64
	sure, maybe []uint64
}

// Clone returns the state itself: other pods never change it.
func (s *npPreFilterState) Clone() framework.StateData { return s }

// NodePorts is kube-scheduler's NodePorts filter. PreFilter collects
// the host ports (hostPort > 0) of the pod's containers and of its sidecar
// (restartable) init containers — plain init containers do not count — and
// returns Skip when there are none. Filter rejects a node where one of them
// conflicts with a port in use (Unschedulable: evicting the user may help),
// with kube's wildcard rules: host IP 0.0.0.0 (or empty) conflicts with
// every IP on the same protocol and port, a specific IP with itself and
// 0.0.0.0; an empty protocol means TCP.
type NodePorts struct {
	reject *framework.Status
	// held are the nodes binding the ports recent pods asked for.
	held holders
}

var (
	_ framework.PreFilterPlugin             = (*NodePorts)(nil)
	_ framework.FilterPlugin                = (*NodePorts)(nil)
	_ fastpath.BatchFilterPlugin            = (*NodePorts)(nil)
	_ fastpath.TrustedRejectingFilterPlugin = (*NodePorts)(nil)
)

// New builds the NodePorts filter.
// It takes no args (args must be nil), so it is itself a framework.Factory.
func New(args any, _ framework.Handle) (framework.Plugin, error) {
	if err := config.NoArgs(config.NodePortsName, args); err != nil {
		return nil, err
	}
	return &NodePorts{reject: framework.NewStatus(framework.Unschedulable, Reason)}, nil
}

// Name returns "NodePorts".
func (pl *NodePorts) Name() string { return config.NodePortsName }

// PreFilter stores the pod's host ports, or returns Skip when it has none.
// Over the snapshot's own nodes (the runner's PreFilter) it also stores
// the nodes binding them (holders), which FilterRejects reads instead of
// each node's ports while the snapshot stays as it is.
func (pl *NodePorts) PreFilter(_ context.Context, state *framework.CycleState, pod *framework.PodInfo, _ []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	ports := pod.HostPorts()
	if len(ports) == 0 {
		return nil, framework.NewStatus(framework.Skip)
	}
	s := &npPreFilterState{ports: ports}
	if snap := state.Snapshot(); snap != nil && state.AllNodes() {
		s.snap, s.seq = snap, snap.ChangeSeq()
		s.sure, s.maybe = pl.held.conflicts(snap, ports)
	}
	state.Write(npPreFilterKey, s)
	return nil, nil
}

// PreFilterExtensions returns nil.
func (pl *NodePorts) PreFilterExtensions() framework.PreFilterExtensions { return nil }

// VictimRemoval reports that removing pods from a node keeps a pass
// (removing pods only frees host ports; runtime.VictimRemovalFilter).
func (pl *NodePorts) VictimRemoval(*framework.PodInfo) (unchanged, keepsPass bool) {
	return false, true
}

// Filter rejects node when a wanted host port is in use there. Without
// PreFilter state it returns an Error, as kube does.
func (pl *NodePorts) Filter(_ context.Context, state *framework.CycleState, _ *framework.PodInfo, node *framework.NodeInfo) *framework.Status {
	s, st := npReadPreFilterState(state)
	if st != nil {
		return st
	}
	return pl.filter(s.ports, node)
}

func npReadPreFilterState(state *framework.CycleState) (*npPreFilterState, *framework.Status) {
	d, err := state.Read(npPreFilterKey)
	if err != nil {
		return nil, framework.AsStatus(fmt.Errorf("reading %q from cycleState: %w", npPreFilterKey, err))
	}
	s, ok := d.(*npPreFilterState)
	if !ok {
		return nil, framework.AsStatus(fmt.Errorf("%+v  convert to nodeports.preFilterState error", d))
	}
	return s, nil
}

// FilterBatch is Filter over nodes (fastpath.BatchFilterPlugin), by way
// of FilterRejects.
func (pl *NodePorts) FilterBatch(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32, out []*framework.Status) {
	fastpath.FilterBatchFromRejects(ctx, pl, state, pod, nodes, idx, out)
}

// FilterRejects is Filter over nodes, reporting the rejected ones
// (fastpath.RejectingFilterPlugin), reading the PreFilter state once. With
// the runner's indices it reads which nodes bind the pod's ports from the
// PreFilter state while the snapshot is as PreFilter saw it, and
// otherwise the ports of only the nodes whose NodeResources.HostPorts is
// set.
func (pl *NodePorts) FilterRejects(_ context.Context, state *framework.CycleState, _ *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32, rejected []fastpath.NodeRejection) []fastpath.NodeRejection {
	s, st := npReadPreFilterState(state)
	if snap := state.Snapshot(); idx != nil && snap != nil && st == nil {
		if s.snap == snap && s.seq == snap.ChangeSeq() {
			if s.sure == nil && s.maybe == nil {
				return rejected // no node binds the ports
			}
			if first, ok := snap.IndexRun(idx[:len(nodes)]); ok {
				return pl.rejectRun(s, nodes, first, snap.NumNodes(), rejected)
			}
			for i, k := range idx[:len(nodes)] {
				if has(s.sure, k) || has(s.maybe, k) && pl.filter(s.ports, nodes[i]) != nil {
					rejected = append(rejected, fastpath.NodeRejection{Node: int32(i), Status: pl.reject})
				}
			}
			return rejected
		}
		// The snapshot's dense rows say which nodes bind any host port,
		// without reading the others' maps.
		res := snap.Resources()
		for i, k := range idx[:len(nodes)] {
			if !res[k].HostPorts {
				continue
			}
			if st := pl.filter(s.ports, nodes[i]); st != nil {
				rejected = append(rejected, fastpath.NodeRejection{Node: int32(i), Status: st})
			}
		}
		return rejected
	}
	for i, node := range nodes {
		if st != nil {
			_, st := npReadPreFilterState(state)
			rejected = append(rejected, fastpath.NodeRejection{Node: int32(i), Status: st})
			continue
		}
		if st := pl.filter(s.ports, node); st != nil {
			rejected = append(rejected, fastpath.NodeRejection{Node: int32(i), Status: st})
		}
	}
	return rejected
}

// rejectRun is FilterRejects over nodes, the run of the snapshot's
// positions first, first+1, … (mod total), from the PreFilter state's
// bitmaps: it visits only the positions set in either, a word of 64
// positions at a time, where a loop over the nodes tests each node's bit
// in turn.
func (pl *NodePorts) rejectRun(s *npPreFilterState, nodes []*framework.NodeInfo, first, total int, rejected []fastpath.NodeRejection) []fastpath.NodeRejection {
	for i, lo := 0, first; i < len(nodes); lo = 0 {
		hi := min(total, lo+len(nodes)-i)
		for w := lo >> 6; w<<6 < hi; w++ {
			set := word(s.sure, w) | word(s.maybe, w)
			if w == lo>>6 {
				set &= ^uint64(0) << (lo & 63)
			}
			if (w+1)<<6 > hi {
				set &= 1<<(hi&63) - 1
			}
			for ; set != 0; set &= set - 1 {
				k := w<<6 + bits.TrailingZeros64(set)
				j := i + k - lo
				if has(s.sure, int32(k)) || pl.filter(s.ports, nodes[j]) != nil {
					rejected = append(rejected, fastpath.NodeRejection{Node: int32(j), Status: pl.reject})
				}
			}
		}
		i += hi - lo
	}
	return rejected
}

// word returns b's word w, 0 past its end.
func word(b []uint64, w int) uint64 {
	if w < len(b) {
		return b[w]
	}
	return 0
}

// RejectionsTrusted marks FilterRejects as keeping its contract
// (fastpath.TrustedRejectingFilterPlugin).
func (pl *NodePorts) RejectionsTrusted() {}

func (pl *NodePorts) filter(ports []api.ContainerPort, node *framework.NodeInfo) *framework.Status {
	for i := range ports {
		if node.UsedPorts.CheckConflict(ports[i].HostIP, ports[i].Protocol, ports[i].HostPort) {
			return pl.reject
		}
	}
	return nil
}

var _ framework.EnqueueExtensions = (*NodePorts)(nil)

// EventsToRegister: a placed pod deleted, or a node added (without a hint)
// (nodeports/node_ports.go).
func (pl *NodePorts) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{Event: filter.PodEvent(framework.Delete), QueueingHintFn: pl.afterPodDeleted},
		{Event: filter.NodeEvent(framework.Add)},
	}, nil
}

// afterPodDeleted: Queue when the deleted pod was placed (or nominated) and
// held a host port the rejected pod wants.
func (pl *NodePorts) afterPodDeleted(_ *framework.Snapshot, pod *framework.PodInfo, oldObj, _ any) (framework.QueueingHint, error) {
	deleted, _, err := framework.EventObjects[framework.PodInfo](oldObj, nil)
	if err != nil {
		return framework.Queue, err
	}
	if deleted.Pod.Spec.NodeName == "" && deleted.Pod.Status.NominatedNodeName == "" {
		return framework.QueueSkip, nil
	}
	ports := deleted.HostPorts()
	if len(ports) == 0 {
		return framework.QueueSkip, nil
	}
	inUse := framework.HostPortInfo{}
	for _, p := range ports {
		inUse.Add(p.HostIP, p.Protocol, p.HostPort)
	}
	for _, p := range pod.HostPorts() {
		if inUse.CheckConflict(p.HostIP, p.Protocol, p.HostPort) {
			return framework.Queue, nil
		}
	}
	return framework.QueueSkip, nil
}

var _ fastpath.NodeLocalPlugin = (*NodePorts)(nil)

// NodeLocal is true: the verdict reads the host ports of the node's pods
// (NodeInfo.UsedPorts).
func (pl *NodePorts) NodeLocal(*framework.PodInfo) bool { return true }

var _ framework.SignPlugin = (*NodePorts)(nil)

// SignPod signs the pod's host ports (nodeports/node_ports.go).
func (pl *NodePorts) SignPod(_ context.Context, pod *framework.PodInfo) ([]framework.SignFragment, *framework.Status) {
	return []framework.SignFragment{{Key: framework.SignerHostPorts, Value: pod.HostPorts()}}, nil
}
