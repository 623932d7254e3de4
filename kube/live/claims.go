package live

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"sync"

	resourcev1 "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/retry"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/scheduling"
)

// claimFinalizer is resourceapi.Finalizer: kube-scheduler adds it to a
// claim before writing its allocation, so that the claim is not deleted
// while devices are allocated to it.
const claimFinalizer = "resource.kubernetes.io/delete-protection"

// claimWriter is the scheduler's scheduling.ClaimWriter on a live
// cluster: DynamicResources' claim changes become the API calls
// kube-scheduler's plugin makes (resourceclaims/status updates retried on
// conflict with the claim read again, the finalizer added before an
// allocation, extended-resource claims created and deleted).
type claimWriter struct {
	ctx    context.Context
	client kubernetes.Interface
	claims cache.Indexer // the ResourceClaim informer's, read first

	mu sync.Mutex
	// written are the resourceVersions of the claims last written, by
	// namespace/name: the feed skips older versions the informer still
	// delivers, as kube-scheduler's assume cache does.
	written map[string]uint64
}

var _ scheduling.ClaimWriter = (*claimWriter)(nil)

func newClaimWriter(ctx context.Context, client kubernetes.Interface, claims cache.Indexer) *claimWriter {
	return &claimWriter{ctx: ctx, client: client, claims: claims, written: map[string]uint64{}}
}

// WriteClaim writes the change from old to cur: a new claim is created
// (spec and metadata); otherwise the allocation set or cleared and the
// reservations added or removed are applied to the API server's claim in
// one status update, as kube's bindClaim, Unreserve and PostFilter do.
func (w *claimWriter) WriteClaim(old, cur *api.ResourceClaim, create bool) error {
	if create {
		return w.create(cur)
	}
	if old == nil {
		return fmt.Errorf("resourceclaims %q not found", cur.Name)
	}
	allocate := old.Status.Allocation == nil && cur.Status.Allocation != nil
	deallocate := old.Status.Allocation != nil && cur.Status.Allocation == nil
	var added, removed []api.ResourceClaimConsumerReference
	for _, r := range cur.Status.ReservedFor {
		if !slices.ContainsFunc(old.Status.ReservedFor, func(o api.ResourceClaimConsumerReference) bool { return o.UID == r.UID }) {
			added = append(added, r)
		}
	}
	for _, r := range old.Status.ReservedFor {
		if !slices.ContainsFunc(cur.Status.ReservedFor, func(o api.ResourceClaimConsumerReference) bool { return o.UID == r.UID }) {
			removed = append(removed, r)
		}
	}
	var alloc *resourcev1.AllocationResult
	if allocate {
		alloc = new(resourcev1.AllocationResult)
		if err := recode(cur.Status.Allocation, alloc); err != nil {
			return fmt.Errorf("allocation of claim %s: %w", cur.Key(), err)
		}
	}
	if !allocate && !deallocate && len(added) == 0 && len(removed) == 0 {
		return nil // nothing the API server holds changes
	}
	claims := w.client.ResourceV1().ResourceClaims(cur.Namespace)
	var claim *resourcev1.ResourceClaim
	if o, ok, _ := w.claims.GetByKey(cur.Namespace + "/" + cur.Name); ok {
		claim = o.(*resourcev1.ResourceClaim).DeepCopy()
	}
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if claim == nil {
			got, err := claims.Get(w.ctx, cur.Name, metav1.GetOptions{})
			if err != nil {
				return fmt.Errorf("get claim %s: %w", cur.Key(), err)
			}
			claim = got
		}
		c := claim
		claim = nil // a retry reads the claim again
		if len(added) > 0 && c.DeletionTimestamp != nil {
			return fmt.Errorf("claim %s got deleted in the meantime", cur.Key())
		}
		if allocate {
			if c.Status.Allocation != nil {
				return fmt.Errorf("claim %s got allocated elsewhere in the meantime", cur.Key())
			}
			if !slices.Contains(c.Finalizers, claimFinalizer) {
				c.Finalizers = append(c.Finalizers, claimFinalizer)
				updated, err := claims.Update(w.ctx, c, metav1.UpdateOptions{})
				if err != nil {
					return fmt.Errorf("add finalizer to claim %s: %w", cur.Key(), err)
				}
				c = updated
			}
			c.Status.Allocation = alloc.DeepCopy()
		}
		if deallocate {
			c.Status.Allocation, c.Status.ReservedFor, c.Status.Devices = nil, nil, nil
		}
		if len(removed) > 0 {
			c.Status.ReservedFor = slices.DeleteFunc(c.Status.ReservedFor, func(r resourcev1.ResourceClaimConsumerReference) bool {
				return slices.ContainsFunc(removed, func(o api.ResourceClaimConsumerReference) bool { return string(r.UID) == o.UID })
			})
		}
		for _, r := range added {
			c.Status.ReservedFor = append(c.Status.ReservedFor, resourcev1.ResourceClaimConsumerReference{
				APIGroup: r.APIGroup, Resource: r.Resource, Name: r.Name, UID: types.UID(r.UID)})
		}
		if len(added) > 0 && c.Status.Allocation == nil {
			return fmt.Errorf("claim %s got deallocated elsewhere in the meantime", cur.Key())
		}
		updated, err := claims.UpdateStatus(w.ctx, c, metav1.UpdateOptions{})
		if err != nil {
			return err
		}
		w.wrote(updated)
		return nil
	})
	return err
}

// create creates claim (an extended-resource claim) in the API server and
// gives it the API server's UID.
func (w *claimWriter) create(claim *api.ResourceClaim) error {
	c := new(resourcev1.ResourceClaim)
	if err := recode(claim, c); err != nil {
		return fmt.Errorf("claim %s: %w", claim.Key(), err)
	}
	c.UID, c.ResourceVersion, c.Status = "", "", resourcev1.ResourceClaimStatus{}
	created, err := w.client.ResourceV1().ResourceClaims(c.Namespace).Create(w.ctx, c, metav1.CreateOptions{})
	if err != nil {
		return err
	}
	claim.UID = string(created.UID)
	w.wrote(created)
	return nil
}

// DeleteClaim deletes the claim namespace/name; one already gone is no
// error.
func (w *claimWriter) DeleteClaim(namespace, name string) error {
	err := w.client.ResourceV1().ResourceClaims(namespace).Delete(w.ctx, name, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	return nil
}

func (w *claimWriter) wrote(c *resourcev1.ResourceClaim) {
	rv, err := strconv.ParseUint(c.ResourceVersion, 10, 64)
	if err != nil {
		return
	}
	w.mu.Lock()
	w.written[c.Namespace+"/"+c.Name] = rv
	w.mu.Unlock()
}

// stale reports whether version of the claim key (namespace/name) is
// older than the version last written: the informer has not caught up
// with the scheduler's own write yet.
func (w *claimWriter) stale(key, version string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	last, ok := w.written[key]
	if !ok {
		return false
	}
	rv, err := strconv.ParseUint(version, 10, 64)
	if err != nil || rv >= last {
		delete(w.written, key)
		return false
	}
	return true
}

// recode converts between schedkit's DRA types and resource.k8s.io/v1's,
// which share their JSON form.
func recode(from, to any) error {
	b, err := json.Marshal(from)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, to)
}
