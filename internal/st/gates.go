package st

import (
	"context"

	fw "github.com/schedkit/schedkit/framework"
)

// HotGate is a Filter plugin, "HotGate", that rejects nodes labelled
// hot=true whatever their pods: a verdict removing preemption victims
// cannot change.
type HotGate struct{}

var hotGateStatus = fw.NewStatus(fw.Unschedulable, "node(s) were hot")

// Name returns "HotGate".
func (HotGate) Name() string { return "HotGate" }

// Filter rejects a node labelled hot=true.
func (HotGate) Filter(_ context.Context, _ *fw.CycleState, _ *fw.PodInfo, ni *fw.NodeInfo) *fw.Status {
	if ni.Node().Labels["hot"] == "true" {
		return hotGateStatus
	}
	return nil
}

// PromisingHotGate is HotGate telling preemption so
// (runtime.VictimRemovalFilter).
type PromisingHotGate struct{ HotGate }

// VictimRemoval reports that removing pods changes no verdict.
func (PromisingHotGate) VictimRemoval(*fw.PodInfo) (unchanged, keepsPass bool) { return true, true }
