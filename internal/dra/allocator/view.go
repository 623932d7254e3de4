package allocator

import (
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
)

// ViewClasses serves a snapshot's DeviceClasses to an allocator.
type ViewClasses struct{ View framework.DRAView }

// DeviceClass returns the named class of the view.
func (l ViewClasses) DeviceClass(name string) (*api.DeviceClass, bool) {
	return l.View.DeviceClass(name)
}

// GatherAllocatedState is kube's GatherAllocatedState over a snapshot: the
// devices of allocated claims (read in the view, InUse) and of
// allocations in flight; with consumable capacity the shared allocations
// by share ID and the capacity they consume, without it shared
// allocations take their whole device. The state reads the view's
// allocated devices as they are when the allocator asks.
func GatherAllocatedState(view framework.DRAView, consumable bool) AllocatedState {
	st := AllocatedState{InUse: func(id DeviceID) bool { return view.DeviceAllocated(api.DeviceID(id)) }}
	for _, c := range view.SharedAllocations() {
		st.AddAllocation(c.Status.Allocation, consumable)
	}
	for _, c := range view.InFlightClaims() {
		st.AddAllocation(c.Status.Allocation, consumable)
	}
	return st
}
