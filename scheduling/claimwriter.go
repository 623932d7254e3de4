package scheduling

import (
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
)

// ClaimWriter writes the ResourceClaim changes DynamicResources makes to
// where the claims live (an API server), as kube-scheduler's plugin
// writes them through its client: PreBind's allocations and reservations,
// Unreserve's and PostFilter's releases, the extended-resource claims it
// creates and deletes. The scheduler calls it before its cluster takes
// the change, outside its lock, and never on a what-if fork; an error
// fails the plugin's step as a failed API call fails kube-scheduler's (a
// failed PreBind leaves the pod unbound, unreserved and retried).
type ClaimWriter interface {
	// WriteClaim writes cur, the claim as the cluster will hold it; old is
	// the cluster's claim before (nil when create). The writer may set
	// cur's UID to the one the API server gave a created claim.
	WriteClaim(old, cur *api.ResourceClaim, create bool) error
	// DeleteClaim deletes the claim namespace/name.
	DeleteClaim(namespace, name string) error
}

// WithClaimWriter makes DynamicResources' claim changes go through w
// before they reach the scheduler's cluster (see ClaimWriter).
func WithClaimWriter(w ClaimWriter) Option { return func(s *Scheduler) { s.claimWriter = w } }

// writingDRAStore is a DRA manager whose claim changes are first written by
// the scheduler's ClaimWriter (unless a fork is open).
type writingDRAStore struct {
	framework.DRAManager
	s *Scheduler
}

func (d writingDRAStore) live() bool { return d.s.cluster.Forked() == 0 }

func (d writingDRAStore) WriteClaim(claim *api.ResourceClaim, create bool) error {
	if d.live() {
		var old *api.ResourceClaim
		if !create {
			old, _ = d.Snapshot().DRA().ResourceClaim(claim.Namespace, claim.Name)
		}
		if err := d.s.claimWriter.WriteClaim(old, claim, create); err != nil {
			return err
		}
	}
	return d.DRAManager.WriteClaim(claim, create)
}

func (d writingDRAStore) DeleteClaim(namespace, name string) error {
	if d.live() {
		if err := d.s.claimWriter.DeleteClaim(namespace, name); err != nil {
			return err
		}
	}
	return d.DRAManager.DeleteClaim(namespace, name)
}
