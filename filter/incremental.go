package filter

import (
	"context"

	"github.com/schedkit/schedkit/framework"
)

// PreFilterAfresh runs pl's PreFilter over the cycle's snapshot's nodes
// (all of them) in place of the state stored under key, releasing that
// state (framework.ReleasableStateData) once replaced, and returns its
// status: what an IncrementalPreFilterPlugin's PreFilterAfterAdd falls
// back to when it cannot bring its state up to date.
func PreFilterAfresh(ctx context.Context, state *framework.CycleState, pl framework.PreFilterPlugin, key framework.StateKey, pod *framework.PodInfo) *framework.Status {
	var nodes []*framework.NodeInfo
	if snap := state.Snapshot(); snap != nil {
		nodes = snap.Nodes()
		defer state.SetAllNodes(state.AllNodes())
		state.SetAllNodes(true)
	}
	old, _ := state.Read(key)
	state.Delete(key)
	_, st := pl.PreFilter(ctx, state, pod, nodes)
	if r, ok := old.(framework.ReleasableStateData); ok {
		r.Release()
	}
	return st
}
