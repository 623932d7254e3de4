package filter

import (
	"context"

	"github.com/schedkit/schedkit/framework"
)

var _ framework.RejectingFilterPlugin = (*NodeResourcesFit)(nil)

// FilterRejects is FilterBatch reporting the rejected nodes alone
// (framework.RejectingFilterPlugin): with the runner's snapshot indices, a
// node is checked on the snapshot's dense numbers and only a node short of
// something takes a status; without them, each node takes Filter's path.
func (pl *NodeResourcesFit) FilterRejects(_ context.Context, state *framework.CycleState, _ *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32, rejected []framework.NodeRejection) []framework.NodeRejection {
	s, st := nrfReadPreFilterState(state)
	if st != nil {
		for i := range nodes {
			_, st := nrfReadPreFilterState(state)
			rejected = append(rejected, framework.NodeRejection{Node: int32(i), Status: st})
		}
		return rejected
	}
	snap := state.Snapshot()
	if idx == nil || snap == nil {
		for i, node := range nodes {
			if st := pl.filter(s, node); st != nil {
				rejected = append(rejected, framework.NodeRejection{Node: int32(i), Status: st})
			}
		}
		return rejected
	}
	res := snap.Resources()
	if len(s.scalars) > 0 {
		// A node without scalar resources misses every scalar the pod
		// requests: its status follows from the dense numbers.
		for i, x := range idx {
			r := &res[x]
			var st *framework.Status
			if r.HasScalars {
				st = pl.filter(s, nodes[i])
			} else {
				st = pl.missingStatus(s, s.rowMask(r))
			}
			if st != nil {
				rejected = append(rejected, framework.NodeRejection{Node: int32(i), Status: st})
			}
		}
		return rejected
	}
	for i, x := range idx {
		r := &res[x]
		if s.short(r.NumPods, r.AllocatablePods, r.AllocatableMilliCPU-r.RequestedMilliCPU,
			r.AllocatableMemory-r.RequestedMemory, r.AllocatableEphemeralStorage-r.RequestedEphemeralStorage) {
			rejected = append(rejected, framework.NodeRejection{Node: int32(i), Status: pl.rowStatus(s, r)})
		}
	}
	return rejected
}
