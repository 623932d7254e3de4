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
// devices of allocated claims and of allocations in flight; with
// consumable capacity the shared allocations by share ID and the capacity
// they consume, without it shared allocations take their whole device.
func GatherAllocatedState(view framework.DRAView, consumable bool) AllocatedState {
	st := AllocatedState{Devices: make(map[DeviceID]struct{}, view.NumAllocatedDevices())}
	view.AllocatedDevices(func(id api.DeviceID) { st.Devices[DeviceID(id)] = struct{}{} })
	for _, c := range view.SharedAllocations() {
		st.AddAllocation(c.Status.Allocation, consumable)
	}
	for _, c := range view.InFlightClaims() {
		st.AddAllocation(c.Status.Allocation, consumable)
	}
	return st
}
