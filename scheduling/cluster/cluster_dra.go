package cluster

import (
	"fmt"

	"github.com/schedkit/schedkit/filter"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
)

// This file holds the Dynamic Resource Allocation side of a Cluster. The
// DRA objects (ResourceSlices, DeviceClasses, ResourceClaims and their
// templates) are added, updated and deleted as storage objects
// (AddStorageObject and its siblings, journaled like every change); what
// DynamicResources writes goes through the methods below: the in-flight
// allocations between its Reserve and PreBind, and the claims its PreBind
// and PostFilter update, also journaled, so that Fork/Revert covers them.

// SetDRAInFlight records claim as the in-flight allocation of the claim
// UID uid, or with a nil claim ends it (see framework.Snapshot.SetDRAInFlight).
func (c *Cluster) SetDRAInFlight(uid string, claim *api.ResourceClaim) {
	if c.snap == nil {
		return
	}
	old := c.snap.SetDRAInFlight(uid, claim)
	if c.forking() {
		c.record(func() { c.snap.SetDRAInFlight(uid, old) })
	}
}

// WriteResourceClaim stores claim (the caller's object, kept as is: a new
// object the caller no longer changes) as the cluster's claim of its
// namespace and name, creating it when create is set and replacing it
// otherwise; it returns the claim replaced (nil when created).
func (c *Cluster) WriteResourceClaim(claim *api.ResourceClaim, create bool) (*api.ResourceClaim, error) {
	if c.snap == nil {
		return nil, c.zeroErr("WriteResourceClaim")
	}
	cur, ok := c.snap.DRA().ResourceClaim(claim.Namespace, claim.Name)
	switch {
	case create && ok:
		return nil, fmt.Errorf("resourceclaims %q already exists", claim.Name)
	case !create && !ok:
		return nil, fmt.Errorf("resourceclaims %q not found", claim.Name)
	}
	if err := c.setStorage(claim); err != nil {
		return nil, err
	}
	return cur, nil
}

// NewDRAStore returns the filter.DRAStore through which DynamicResources
// changes c: guard runs each change (nil: runs it directly; a scheduler
// takes its lock there when the change comes from a binding goroutine),
// and changed is told of each claim written or deleted, with the claim
// before (nil when created) and after (nil when deleted).
func NewDRAStore(c *Cluster, guard func(func()), changed func(old, cur *api.ResourceClaim)) filter.DRAStore {
	if guard == nil {
		guard = func(f func()) { f() }
	}
	return &draStore{c: c, guard: guard, changed: changed}
}

type draStore struct {
	c       *Cluster
	guard   func(func())
	changed func(old, cur *api.ResourceClaim)
}

func (d *draStore) Snapshot() *framework.Snapshot { return d.c.snap }

func (d *draStore) SetInFlight(uid string, claim *api.ResourceClaim) {
	d.guard(func() { d.c.SetDRAInFlight(uid, claim) })
}

func (d *draStore) WriteClaim(claim *api.ResourceClaim, create bool) (err error) {
	d.guard(func() {
		var old *api.ResourceClaim
		if old, err = d.c.WriteResourceClaim(claim, create); err == nil && d.changed != nil {
			d.changed(old, claim)
		}
	})
	return err
}

func (d *draStore) DeleteClaim(namespace, name string) (err error) {
	d.guard(func() {
		var old api.StorageObject
		if old, err = d.c.deleteStorage(api.KindResourceClaim, namespace, name); err == nil && d.changed != nil {
			d.changed(old.(*api.ResourceClaim), nil)
		}
	})
	return err
}
