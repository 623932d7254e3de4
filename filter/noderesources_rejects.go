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
			rejected = append(rejected, framework.NodeRejection{Node: int32(i), Status: pl.maskStatus(nrfRowShortfalls(s, r))})
		}
	}
	return rejected
}

// nrfRowShortfalls is rowMask (the nrfMasks mask of a node's shortfalls
// in pods, cpu, memory and ephemeral storage) written out without
// shortMask's loop, for the nodes FilterRejects finds short.
func nrfRowShortfalls(s *nrfPreFilterState, r *framework.NodeResources) uint {
	var mask uint
	if r.NumPods+1 > r.AllocatablePods {
		mask = 1
	}
	if s.podsOnly {
		return mask
	}
	if s.cpu > 0 && s.cpu > r.AllocatableMilliCPU-r.RequestedMilliCPU {
		mask |= 1 << 1
		if s.cpu > r.AllocatableMilliCPU {
			mask |= 1 << 2
		}
	}
	if s.mem > 0 && s.mem > r.AllocatableMemory-r.RequestedMemory {
		mask |= 1 << 3
		if s.mem > r.AllocatableMemory {
			mask |= 1 << 4
		}
	}
	if s.eph > 0 && s.eph > r.AllocatableEphemeralStorage-r.RequestedEphemeralStorage {
		mask |= 1 << 5
		if s.eph > r.AllocatableEphemeralStorage {
			mask |= 1 << 6
		}
	}
	return mask
}
