package framework_test

import (
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
)

// TestDRAPoolAllocationVersion: the version of a pool's allocations
// changes with an allocated claim of its devices added, changed or
// deleted and with such an allocation in flight or ended, stays with any
// other change (slices, classes, claims without an allocation, another
// pool's allocations), and is shared by a clone until one side changes.
func TestDRAPoolAllocationVersion(t *testing.T) {
	claim := func(name string, device string) *api.ResourceClaim {
		c := &api.ResourceClaim{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", UID: "uid-" + name}}
		c.Spec.Devices.Requests = []api.DeviceRequest{{Name: "r", Exactly: &api.ExactDeviceRequest{DeviceClassName: "gpu"}}}
		if device != "" {
			c.Status.Allocation = &api.AllocationResult{Devices: api.DeviceAllocationResult{Results: []api.DeviceRequestAllocationResult{{
				Request: "r", Driver: "d", Pool: "p", Device: device}}}}
		}
		return c
	}
	snap, err := framework.NewSnapshot([]*api.Node{st.MakeNode().Name("n0").Obj()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	set := func(o api.StorageObject) {
		t.Helper()
		if _, err := snap.SetStorageObject(o); err != nil {
			t.Fatal(err)
		}
	}
	version := func() *framework.AllocationVersion { return snap.DRA().PoolAllocationVersion("d", "p") }
	if version() != nil {
		t.Fatalf("a pool without allocations has version %p", version())
	}
	for _, step := range []struct {
		name    string
		change  func()
		changes bool
	}{
		{"a claim without allocation", func() { set(claim("a", "")) }, false},
		{"a class", func() { set(&api.DeviceClass{ObjectMeta: api.ObjectMeta{Name: "gpu"}}) }, false},
		{"the claim allocated", func() { set(claim("a", "g0")) }, true},
		{"a slice", func() {
			n := "n0"
			set(&api.ResourceSlice{ObjectMeta: api.ObjectMeta{Name: "s"}, Spec: api.ResourceSliceSpec{Driver: "d", NodeName: &n,
				Pool: api.ResourcePool{Name: "p", Generation: 1, ResourceSliceCount: 1}, Devices: []api.Device{{Name: "g0"}}}})
		}, false},
		{"the claim given another device", func() { set(claim("a", "g1")) }, true},
		{"an allocation in flight", func() { snap.SetDRAInFlight("uid-b", claim("b", "g2")) }, true},
		{"the allocation in flight ended", func() { snap.SetDRAInFlight("uid-b", nil) }, true},
		{"the claim deleted", func() {
			if _, err := snap.DeleteStorageObject(api.KindResourceClaim, "default", "a"); err != nil {
				t.Fatal(err)
			}
		}, true},
	} {
		before := version()
		step.change()
		if changed := version() != before; changed != step.changes {
			t.Errorf("%s: version changed = %v, want %v", step.name, changed, step.changes)
		}
	}

	// The version of a pool follows its own allocations only.
	other := func() *framework.AllocationVersion { return snap.DRA().PoolAllocationVersion("d", "q") }
	if other() != nil {
		t.Fatal("a pool never allocated from has a version")
	}
	pool := snap.DRA().PoolAllocationVersion("d", "p")
	q := claim("q", "x0")
	q.Status.Allocation.Devices.Results[0].Pool = "q"
	set(q)
	if other() == nil || snap.DRA().PoolAllocationVersion("d", "p") != pool {
		t.Error("allocating from pool q: q's version unchanged or p's changed")
	}
	qv := other()
	snap.SetDRAInFlight("uid-e", claim("e", "g5"))
	if snap.DRA().PoolAllocationVersion("d", "p") == pool || other() != qv {
		t.Error("an allocation of pool p in flight: p's version unchanged or q's changed")
	}

	set(claim("c", "g3"))
	clone := snap.Clone()
	if clone.DRA().PoolAllocationVersion("d", "p") != version() {
		t.Fatal("a clone has another version")
	}
	clone.SetDRAInFlight("uid-d", claim("d", "g4"))
	if clone.DRA().PoolAllocationVersion("d", "p") == version() {
		t.Error("a change in the clone left it at the snapshot's version")
	}
	if snap.DRA().InFlight("uid-d") != nil {
		t.Error("the clone's change reached the snapshot")
	}
}

// TestDRAPoolKey: a pool's key reads the version its names read, in the
// snapshot that made it (before and after the pool's first allocation),
// in its clones as each changes apart, and in another snapshot, which
// has numbered its pools apart.
func TestDRAPoolKey(t *testing.T) {
	alloc := func(name, pool string) *api.ResourceClaim {
		c := &api.ResourceClaim{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", UID: "uid-" + name}}
		c.Status.Allocation = &api.AllocationResult{Devices: api.DeviceAllocationResult{Results: []api.DeviceRequestAllocationResult{{
			Request: "r", Driver: "d", Pool: pool, Device: "g-" + name}}}}
		return c
	}
	newSnap := func() *framework.Snapshot {
		s, err := framework.NewSnapshot([]*api.Node{st.MakeNode().Name("n0").Obj()}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	snap := newSnap()
	check := func(what string, s *framework.Snapshot, k framework.DRAPoolKey, pool string) {
		t.Helper()
		if got, want := s.DRA().PoolAllocationVersionOf(k), s.DRA().PoolAllocationVersion("d", pool); got != want {
			t.Errorf("%s: pool %s's key reads %p, its names %p", what, pool, got, want)
		}
	}
	p, q := snap.DRA().PoolKey("d", "p"), snap.DRA().PoolKey("d", "q")
	if v := snap.DRA().PoolAllocationVersionOf(p); v != nil {
		t.Fatalf("a pool never allocated from reads version %p", v)
	}
	if _, err := snap.SetStorageObject(alloc("a", "p")); err != nil {
		t.Fatal(err)
	}
	if snap.DRA().PoolAllocationVersionOf(p) == nil {
		t.Fatal("pool p allocated from: its key reads no version")
	}
	check("allocated", snap, p, "p")
	check("allocated", snap, q, "q")

	clone := snap.Clone()
	clone.SetDRAInFlight("uid-b", alloc("b", "p"))
	snap.SetDRAInFlight("uid-c", alloc("c", "q"))
	for _, s := range []struct {
		name string
		snap *framework.Snapshot
	}{{"the snapshot", snap}, {"its clone", clone}} {
		check(s.name, s.snap, p, "p")
		check(s.name, s.snap, q, "q")
		// Keys the clone makes are the snapshot's too.
		check(s.name, s.snap, clone.DRA().PoolKey("d", "p"), "p")
	}
	if snap.DRA().PoolAllocationVersionOf(p) == clone.DRA().PoolAllocationVersionOf(p) {
		t.Error("pool p changed in the clone only: both read one version")
	}

	// Another snapshot numbers its pools apart: q first there.
	other := newSnap()
	oq, op := other.DRA().PoolKey("d", "q"), other.DRA().PoolKey("d", "p")
	if other.DRA().Keyed(p) || snap.DRA().Keyed(op) {
		t.Error("a snapshot takes another's key for its own")
	}
	check("another snapshot's key", snap, op, "p")
	check("another snapshot's key", snap, oq, "q")
	check("a key of the snapshot", other, p, "p")
}
