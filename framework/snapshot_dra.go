package framework

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
)

// draIndex holds a snapshot's Dynamic Resource Allocation objects, shared
// with clones until written (copy on write), and what kube-scheduler's DRA
// manager derives from them: the devices allocated to claims (its
// allocatedDevices tracker, kept current as claims change) and the
// allocations in flight between DynamicResources' Reserve and PreBind.
type draIndex struct {
	slices    cowMap[string, *api.ResourceSlice]
	classes   cowMap[string, *api.DeviceClass]
	claims    cowMap[nsName, *api.ResourceClaim]
	templates cowMap[nsName, *api.ResourceClaimTemplate]
	rules     cowMap[string, *api.DeviceTaintRule]
	// devices counts the claims allocating each device exclusively
	// (results without admin access and without a share ID).
	devices cowMap[api.DeviceID, int32]
	// sharing holds the allocated claims with a shared result (a share
	// ID: consumable capacity).
	sharing cowMap[nsName, *api.ResourceClaim]
	// inFlight holds, by claim UID, the claims whose allocation Reserve
	// made and PreBind has not yet written.
	inFlight cowMap[string, *api.ResourceClaim]
	// poolIDs numbers the pools (driver and pool name) of the snapshot
	// and its clones, which share it; versions holds a version per pool
	// by its number, replaced by a new value at every change of the
	// pool's devices allocated, shared or in flight, so that equal
	// versions mean the same allocations of the pool; clones share the
	// versions until one changes.
	poolIDs  *draPoolIDs
	versions versionList
	// sorted caches the slices in name order, tainted the same slices
	// with the taint rules applied; every change of the slices (or rules,
	// for tainted) installs a new, empty holder, so clones share it until
	// one changes.
	sorted, tainted *draSorted
}

// draSorted is the lazily built sorted slice list.
type draSorted struct {
	once sync.Once
	list []*api.ResourceSlice
}

func (x *draIndex) share() {
	x.slices.shared, x.classes.shared, x.claims.shared, x.templates.shared = true, true, true, true
	x.rules.shared, x.devices.shared, x.sharing.shared, x.inFlight.shared = true, true, true, true
	x.versions.shared = true
	if x.sorted == nil {
		x.sorted = &draSorted{}
	}
	if x.tainted == nil {
		x.tainted = &draSorted{}
	}
}

func (x *draIndex) get(k api.StorageKind, ns, name string) (api.StorageObject, bool) {
	switch k {
	case api.KindResourceSlice:
		o, ok := x.slices.m[name]
		return o, ok
	case api.KindDeviceClass:
		o, ok := x.classes.m[name]
		return o, ok
	case api.KindResourceClaim:
		o, ok := x.claims.m[nsName{ns, name}]
		return o, ok
	case api.KindResourceClaimTemplate:
		o, ok := x.templates.m[nsName{ns, name}]
		return o, ok
	case api.KindDeviceTaintRule:
		o, ok := x.rules.m[name]
		return o, ok
	}
	return nil, false
}

func (x *draIndex) set(o api.StorageObject) {
	switch v := o.(type) {
	case *api.ResourceSlice:
		x.slices.set(v.Name, v)
		x.sorted, x.tainted = &draSorted{}, &draSorted{}
	case *api.DeviceTaintRule:
		x.rules.set(v.Name, v)
		x.tainted = &draSorted{}
	case *api.DeviceClass:
		x.classes.set(v.Name, v)
	case *api.ResourceClaim:
		k := nsName{v.Namespace, v.Name}
		if old, ok := x.claims.m[k]; ok {
			x.claimDevices(old, -1)
		}
		x.claims.set(k, v)
		x.claimDevices(v, 1)
	case *api.ResourceClaimTemplate:
		x.templates.set(nsName{v.Namespace, v.Name}, v)
	}
}

func (x *draIndex) del(k api.StorageKind, ns, name string) {
	switch k {
	case api.KindResourceSlice:
		x.slices.del(name)
		x.sorted, x.tainted = &draSorted{}, &draSorted{}
	case api.KindDeviceTaintRule:
		x.rules.del(name)
		x.tainted = &draSorted{}
	case api.KindDeviceClass:
		x.classes.del(name)
	case api.KindResourceClaim:
		key := nsName{ns, name}
		if old, ok := x.claims.m[key]; ok {
			x.claimDevices(old, -1)
		}
		x.claims.del(key)
	case api.KindResourceClaimTemplate:
		x.templates.del(nsName{ns, name})
	}
}

// claimDevices adds (delta 1) or removes (−1) the devices a claim's
// allocation uses, as kube's allocatedDevices does on claim events.
func (x *draIndex) claimDevices(c *api.ResourceClaim, delta int32) {
	a := c.Status.Allocation
	if a == nil {
		return
	}
	x.poolsChanged(a)
	shared := false
	for i := range a.Devices.Results {
		r := &a.Devices.Results[i]
		if r.AdminAccess != nil && *r.AdminAccess {
			continue
		}
		if r.ShareID != nil {
			shared = true
			continue
		}
		id := api.DeviceID{Driver: r.Driver, Pool: r.Pool, Device: r.Device}
		n := x.devices.m[id] + delta
		if n <= 0 {
			x.devices.del(id)
		} else {
			x.devices.set(id, n)
		}
	}
	if shared {
		k := nsName{c.Namespace, c.Name}
		if delta > 0 {
			x.sharing.set(k, c)
		} else {
			x.sharing.del(k)
		}
	}
}

// draPool names a pool of devices.
type draPool struct{ driver, pool string }

// poolsChanged gives every pool an allocation of a takes devices of a
// new version.
func (x *draIndex) poolsChanged(a *api.AllocationResult) {
	if a == nil {
		return
	}
	if x.poolIDs == nil {
		x.poolIDs = newDRAPoolIDs()
	}
	for i := range a.Devices.Results {
		r := &a.Devices.Results[i]
		x.versions.set(x.poolIDs.id(draPool{r.Driver, r.Pool}), new(AllocationVersion))
	}
}

// draPoolIDs numbers pools, from 0 in the order they are first named. A
// snapshot and its clones share one and only add to it, so that a number
// means the same pool in each of them.
type draPoolIDs struct {
	mu sync.RWMutex
	m  map[draPool]int32
}

func newDRAPoolIDs() *draPoolIDs { return &draPoolIDs{m: make(map[draPool]int32)} }

// lookup returns the pool's number, if it has one.
func (t *draPoolIDs) lookup(p draPool) (int32, bool) {
	t.mu.RLock()
	id, ok := t.m[p]
	t.mu.RUnlock()
	return id, ok
}

// id returns the pool's number, giving it the next one when it has none.
func (t *draPoolIDs) id(p draPool) int32 {
	if id, ok := t.lookup(p); ok {
		return id
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	id, ok := t.m[p]
	if !ok {
		id = int32(len(t.m))
		t.m[p] = id
	}
	return id
}

// versionList is the pools' versions by number, shared with clones until
// written (copy on write); a pool past its end has none.
type versionList struct {
	v      []*AllocationVersion
	shared bool
}

func (l *versionList) set(id int32, ver *AllocationVersion) {
	n := max(len(l.v), int(id)+1)
	switch {
	case l.shared || n > cap(l.v):
		c := cap(l.v)
		if n > c {
			c = n*5/4 + 8
		}
		v := make([]*AllocationVersion, n, c)
		copy(v, l.v)
		l.v, l.shared = v, false
	case n > len(l.v):
		// The array is this list's alone: past its length it was never
		// written.
		l.v = l.v[:n]
	}
	l.v[id] = ver
}

func (l *versionList) at(id int32) *AllocationVersion {
	if int(id) < len(l.v) {
		return l.v[id]
	}
	return nil
}

// DRAView reads a snapshot's Dynamic Resource Allocation objects and the
// allocation state derived from them (what kube-scheduler's DRA manager
// offers its DynamicResources plugin). It reads the snapshot as it is when
// called; the objects are shared: do not modify them.
type DRAView struct{ x *draIndex }

// DRA returns the view of the snapshot's DRA objects.
func (s *Snapshot) DRA() DRAView { return DRAView{&s.storage.dra} }

// AllocationVersion identifies the allocations of a pool of devices in a
// snapshot: its devices allocated, shared and in flight
// (DRAView.PoolAllocationVersion).
type AllocationVersion struct{ _ byte }

// PoolAllocationVersion returns the version of the allocations of the
// pool named pool of driver: a new value whenever its devices allocated,
// shared or in flight change, the same (shared by clones) while they do
// not; nil while the snapshot never had an allocation of the pool.
func (v DRAView) PoolAllocationVersion(driver, pool string) *AllocationVersion {
	if v.x.poolIDs == nil {
		return nil
	}
	id, ok := v.x.poolIDs.lookup(draPool{driver, pool})
	if !ok {
		return nil
	}
	return v.x.versions.at(id)
}

// DRAPoolKey names a pool of devices for PoolAllocationVersionOf, which
// reads the version by the key's number in the snapshot that made it and
// in its clones, and by the pool's names in another snapshot.
type DRAPoolKey struct {
	ids          *draPoolIDs
	id           int32
	driver, name string
}

// PoolKey returns the key of the pool named pool of driver.
func (v DRAView) PoolKey(driver, pool string) DRAPoolKey {
	k := DRAPoolKey{driver: driver, name: pool}
	if t := v.x.poolIDs; t != nil {
		k.ids, k.id = t, t.id(draPool{driver, pool})
	}
	return k
}

// Keyed reports whether k is a key of this snapshot's pools (made by it
// or by a snapshot it shares its pool numbers with), which
// PoolAllocationVersionOf reads without the pool's names.
func (v DRAView) Keyed(k DRAPoolKey) bool { return k.ids != nil && k.ids == v.x.poolIDs }

// PoolAllocationVersionOf is PoolAllocationVersion of the pool k names.
func (v DRAView) PoolAllocationVersionOf(k DRAPoolKey) *AllocationVersion {
	if v.Keyed(k) {
		return v.x.versions.at(k.id)
	}
	return v.PoolAllocationVersion(k.driver, k.name)
}

// Empty reports whether the snapshot holds no claim, class, slice,
// template or taint rule (DynamicResources then has nothing to look up).
func (v DRAView) Empty() bool {
	x := v.x
	return len(x.claims.m) == 0 && len(x.classes.m) == 0 && len(x.slices.m) == 0 && len(x.templates.m) == 0 && len(x.rules.m) == 0
}

// ResourceSlices returns every ResourceSlice sorted by name. The slice is
// shared: do not modify it.
func (v DRAView) ResourceSlices() []*api.ResourceSlice {
	h := v.x.sorted
	if h == nil {
		return sortedValues(v.x.slices.m)
	}
	h.once.Do(func() { h.list = sortedValues(v.x.slices.m) })
	return h.list
}

// DeviceTaintRules returns every DeviceTaintRule sorted by name.
func (v DRAView) DeviceTaintRules() []*api.DeviceTaintRule { return sortedValues(v.x.rules.m) }

// TaintedResourceSlices returns ResourceSlices as the allocator sees them
// when DeviceTaintRules apply: in name order, each device with the taints
// of the rules selecting it (in rule name order) after its own
// (api.TaintSlices). The slice is shared: do not modify it.
func (v DRAView) TaintedResourceSlices() []*api.ResourceSlice {
	if len(v.x.rules.m) == 0 {
		return v.ResourceSlices()
	}
	h := v.x.tainted
	if h == nil {
		return api.TaintSlices(v.ResourceSlices(), v.DeviceTaintRules())
	}
	h.once.Do(func() { h.list = api.TaintSlices(v.ResourceSlices(), v.DeviceTaintRules()) })
	return h.list
}

// DeviceClass returns the named DeviceClass.
func (v DRAView) DeviceClass(name string) (*api.DeviceClass, bool) {
	c, ok := v.x.classes.m[name]
	return c, ok
}

// DeviceClasses returns every DeviceClass sorted by name.
func (v DRAView) DeviceClasses() []*api.DeviceClass { return sortedValues(v.x.classes.m) }

// ExtendedResourceClass returns the DeviceClass that backs the extended
// resource name, or nil (kube's ExtendedResourceCache.GetDeviceClass): the
// class named by an implicit name (resource.DeviceClassPrefix + class),
// else among the classes whose spec.extendedResourceName is name the
// newest, of equal creation times the lowest name.
func (v DRAView) ExtendedResourceClass(name resource.Name) *api.DeviceClass {
	m := v.x.classes.m
	if len(m) == 0 {
		return nil
	}
	if c, ok := strings.CutPrefix(string(name), resource.DeviceClassPrefix); ok {
		if dc, ok := m[c]; ok {
			return dc
		}
	}
	var best *api.DeviceClass
	for _, dc := range m {
		if dc.Spec.ExtendedResourceName == nil || *dc.Spec.ExtendedResourceName != string(name) {
			continue
		}
		if best == nil || dc.CreationTimestamp.After(best.CreationTimestamp) ||
			(dc.CreationTimestamp.Equal(best.CreationTimestamp) && dc.Name < best.Name) {
			best = dc
		}
	}
	return best
}

// ResourceClaim returns the claim namespace/name.
func (v DRAView) ResourceClaim(namespace, name string) (*api.ResourceClaim, bool) {
	c, ok := v.x.claims.m[nsName{namespace, name}]
	return c, ok
}

// ResourceClaims returns every claim sorted by namespace/name.
func (v DRAView) ResourceClaims() []*api.ResourceClaim { return sortedClaims(v.x.claims.m) }

// ResourceClaimTemplate returns the template namespace/name.
func (v DRAView) ResourceClaimTemplate(namespace, name string) (*api.ResourceClaimTemplate, bool) {
	t, ok := v.x.templates.m[nsName{namespace, name}]
	return t, ok
}

// ResourceClaimTemplates returns every template sorted by namespace/name.
func (v DRAView) ResourceClaimTemplates() []*api.ResourceClaimTemplate {
	out := slices.Collect(maps.Values(v.x.templates.m))
	slices.SortFunc(out, func(a, b *api.ResourceClaimTemplate) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	return out
}

// DeviceAllocated reports whether an allocated claim holds the device
// (allocated without admin access and not as a share: the devices
// AllocatedDevices visits).
func (v DRAView) DeviceAllocated(id api.DeviceID) bool { return v.x.devices.m[id] > 0 }

// AllocatedDevices calls f for each device allocated exclusively to a
// stored claim (kube's allocatedDevices set: results with admin access or
// a share ID are not in it), in no particular order.
func (v DRAView) AllocatedDevices(f func(api.DeviceID)) {
	for id := range v.x.devices.m {
		f(id)
	}
}

// NumAllocatedDevices returns how many devices AllocatedDevices visits.
func (v DRAView) NumAllocatedDevices() int { return len(v.x.devices.m) }

// SharedAllocations returns the stored claims whose allocation has a
// shared result (a share ID, under consumable capacity), sorted by
// namespace/name.
func (v DRAView) SharedAllocations() []*api.ResourceClaim { return sortedClaims(v.x.sharing.m) }

// InFlight returns the claim (with its allocation) whose allocation is in
// flight under the claim UID uid, or nil.
func (v DRAView) InFlight(uid string) *api.ResourceClaim { return v.x.inFlight.m[uid] }

// InFlightClaims returns the claims whose allocation is in flight, sorted
// by namespace/name.
func (v DRAView) InFlightClaims() []*api.ResourceClaim {
	out := slices.Collect(maps.Values(v.x.inFlight.m))
	slices.SortFunc(out, func(a, b *api.ResourceClaim) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name), cmp.Compare(a.UID, b.UID))
	})
	return out
}

// SetDRAInFlight records claim (carrying the allocation DynamicResources'
// Reserve made) as in flight under the claim UID uid, or, with a nil claim,
// ends the in-flight allocation; it returns the claim recorded before
// (nil when none), so that a caller can undo the change.
func (s *Snapshot) SetDRAInFlight(uid string, claim *api.ResourceClaim) *api.ResourceClaim {
	x := &s.storage.dra
	old := x.inFlight.m[uid]
	if old != nil {
		x.poolsChanged(old.Status.Allocation)
	}
	if claim != nil {
		x.poolsChanged(claim.Status.Allocation)
	}
	if claim == nil {
		x.inFlight.del(uid)
	} else {
		x.inFlight.set(uid, claim)
	}
	return old
}

func sortedClaims(m map[nsName]*api.ResourceClaim) []*api.ResourceClaim {
	out := slices.Collect(maps.Values(m))
	slices.SortFunc(out, func(a, b *api.ResourceClaim) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	return out
}

// RequestsDRAExtended reports whether the pod requests (in its spec or
// through its status) some amount of an extended resource a DeviceClass
// may back (resource.Name.IsDRAExtended): whether NodeResourcesFit and
// the resource scores read the cluster's DeviceClasses for it.
func RequestsDRAExtended(pod *PodInfo) bool {
	if pod == nil || pod.Pod == nil {
		return false
	}
	for _, v := range []*resource.Vector{&pod.Requests, pod.SpecRequests()} {
		for _, sc := range v.Scalars {
			if sc.Value != 0 && sc.Name.IsDRAExtended() {
				return true
			}
		}
	}
	return false
}

// DRAManager returns a DRAManager that reads and changes s directly: the
// DRA manager of a cycle run without a scheduler.
func (s *Snapshot) DRAManager() DRAManager { return snapshotDRA{s} }

// snapshotDRA is Snapshot.DRAManager's: its errors are those of kube's
// API server as DynamicResources reports them.
type snapshotDRA struct{ s *Snapshot }

func (d snapshotDRA) Snapshot() *Snapshot { return d.s }

func (d snapshotDRA) SetInFlight(uid string, claim *api.ResourceClaim) {
	d.s.SetDRAInFlight(uid, claim)
}

func (d snapshotDRA) WriteClaim(claim *api.ResourceClaim, create bool) error {
	_, found := d.s.DRA().ResourceClaim(claim.Namespace, claim.Name)
	switch {
	case create && found:
		return fmt.Errorf("resourceclaims %q already exists", claim.Name)
	case !create && !found:
		return fmt.Errorf("could not find ResourceClaim %q", claim.Namespace+"/"+claim.Name)
	}
	_, err := d.s.SetStorageObject(claim)
	return err
}

func (d snapshotDRA) DeleteClaim(namespace, name string) error {
	_, err := d.s.DeleteStorageObject(api.KindResourceClaim, namespace, name)
	return err
}
