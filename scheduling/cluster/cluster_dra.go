package cluster

import (
	"fmt"

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
