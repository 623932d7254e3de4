package filter

import (
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
)

// DRAStore is where DynamicResources reads the cluster's Dynamic Resource
// Allocation objects outside a scheduling cycle (PreEnqueue, queueing
// hints) and makes the changes kube-scheduler's plugin makes through its
// DRA manager and the API server: in-flight allocations between Reserve
// and PreBind, claims allocated and reserved in PreBind, deallocated in
// PostFilter, created and deleted for extended resources. scheduling's
// Scheduler passes one that changes its Cluster (journaled, with cluster
// events); SnapshotDRAStore changes a snapshot directly.
type DRAStore interface {
	// Snapshot returns the snapshot holding the cluster's DRA objects.
	Snapshot() *framework.Snapshot
	// SetInFlight records claim (carrying its allocation) as in flight
	// under the claim UID uid, or with a nil claim ends it.
	SetInFlight(uid string, claim *api.ResourceClaim)
	// WriteClaim stores claim, a new object the caller no longer changes:
	// creating it (create) or replacing the claim of its namespace and
	// name.
	WriteClaim(claim *api.ResourceClaim, create bool) error
	// DeleteClaim deletes the claim namespace/name.
	DeleteClaim(namespace, name string) error
}

// SnapshotDRAStore returns a DRAStore that reads and changes s directly
// (for a plugin run outside a scheduler).
func SnapshotDRAStore(s *framework.Snapshot) DRAStore { return snapshotDRAStore{s} }

type snapshotDRAStore struct{ s *framework.Snapshot }

func (d snapshotDRAStore) Snapshot() *framework.Snapshot { return d.s }

func (d snapshotDRAStore) SetInFlight(uid string, claim *api.ResourceClaim) {
	d.s.SetDRAInFlight(uid, claim)
}

func (d snapshotDRAStore) WriteClaim(claim *api.ResourceClaim, create bool) error {
	if create {
		if _, ok := d.s.DRA().ResourceClaim(claim.Namespace, claim.Name); ok {
			return errClaimExists(claim)
		}
	} else if _, ok := d.s.DRA().ResourceClaim(claim.Namespace, claim.Name); !ok {
		return errClaimNotFound(claim.Namespace, claim.Name)
	}
	_, err := d.s.SetStorageObject(claim)
	return err
}

func (d snapshotDRAStore) DeleteClaim(namespace, name string) error {
	_, err := d.s.DeleteStorageObject(api.KindResourceClaim, namespace, name)
	return err
}
