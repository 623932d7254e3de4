package dynamicresources

import (
	"context"
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
)

// TestAllocatedStateFollowsTheSnapshot: a plugin used from one cycle to
// the next sees a claim allocated or deallocated, and an allocation going
// in flight or ending: a pod whose claim fits the one free device stops
// fitting when another claim takes it, and fits again when it is given
// back.
func TestAllocatedStateFollowsTheSnapshot(t *testing.T) {
	nodes, objs := draCluster(1, 1)
	objs = append(objs, draClaim("mine", 1), draClaim("other", 1))
	snap, err := framework.NewSnapshot(nodes, nil, framework.WithStorage(objs...))
	if err != nil {
		t.Fatal(err)
	}
	pl := newDRAPlugin(t, snap)
	fits := func(step string, want bool) {
		t.Helper()
		pi, _ := framework.NewPodInfo(draPod("p", "mine"))
		state := framework.NewCycleState()
		state.SetSnapshot(snap)
		if _, s := pl.PreFilter(context.Background(), state, pi, snap.Nodes()); !s.IsSuccess() {
			t.Fatalf("%s: PreFilter: %v", step, s)
		}
		if got := pl.Filter(context.Background(), state, pi, snap.Nodes()[0]).IsSuccess(); got != want {
			t.Fatalf("%s: fits = %v, want %v", step, got, want)
		}
	}
	allocated := draClaim("other", 1)
	allocated.Status.Allocation = &api.AllocationResult{Devices: api.DeviceAllocationResult{Results: []api.DeviceRequestAllocationResult{{
		Request: "r", Driver: "gpu.example.com", Pool: "n0", Device: "gpu0"}}}}
	set := func(o api.StorageObject) {
		t.Helper()
		if _, err := snap.SetStorageObject(o); err != nil {
			t.Fatal(err)
		}
	}

	fits("nothing allocated", true)
	fits("nothing allocated, again", true)
	set(allocated)
	fits("the other claim allocated", false)
	set(draClaim("other", 1))
	fits("the other claim deallocated", true)
	snap.SetDRAInFlight("uid-other", allocated)
	fits("the other claim in flight", false)
	snap.SetDRAInFlight("uid-other", nil)
	fits("nothing in flight", true)
}

// TestAllocatedStateOfAClone: a plugin used on a snapshot and then on a
// clone of it sees what the clone holds, not what the snapshot holds
// after a change of its own, whatever it kept from the snapshot's cycles.
func TestAllocatedStateOfAClone(t *testing.T) {
	nodes, objs := draCluster(1, 1)
	first := draClaim("first", 1)
	first.Status.Allocation = &api.AllocationResult{Devices: api.DeviceAllocationResult{Results: []api.DeviceRequestAllocationResult{{
		Request: "r", Driver: "gpu.example.com", Pool: "n0", Device: "gpu0"}}}}
	// Two claims asking under different request names: the clone's
	// cycle finds no answer kept for its claim, and searches.
	second := draClaim("second", 1)
	second.Spec.Devices.Requests[0].Name = "other"
	objs = append(objs, draClaim("mine", 1), second, first)
	snap, err := framework.NewSnapshot(nodes, nil, framework.WithStorage(objs...))
	if err != nil {
		t.Fatal(err)
	}
	pl := newDRAPlugin(t, snap)
	claim := "mine"
	fits := func(s *framework.Snapshot) bool {
		t.Helper()
		pi, _ := framework.NewPodInfo(draPod("p", claim))
		state := framework.NewCycleState()
		state.SetSnapshot(s)
		if _, st := pl.PreFilter(context.Background(), state, pi, s.Nodes()); !st.IsSuccess() {
			t.Fatalf("PreFilter: %v", st)
		}
		return pl.Filter(context.Background(), state, pi, s.Nodes()[0]).IsSuccess()
	}
	if fits(snap) {
		t.Fatal("the only device is allocated, and the pod fits")
	}
	clone := snap.Clone()
	// The snapshot gives the device back; the clone still holds it.
	if _, err := snap.SetStorageObject(draClaim("first", 1)); err != nil {
		t.Fatal(err)
	}
	claim = "second"
	if fits(clone) {
		t.Error("in the clone the device is still allocated, and the pod fits")
	}
	if !fits(snap) {
		t.Error("the device given back, the pod does not fit")
	}
}
