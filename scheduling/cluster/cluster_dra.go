package cluster

import (
	"fmt"
	"hash/fnv"
	"maps"
	"reflect"
	"slices"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
)

// This file holds the Dynamic Resource Allocation side of a Cluster. The
// DRA objects (ResourceSlices, DeviceClasses, ResourceClaims and their
// templates, DeviceTaintRules) are added, updated and deleted as storage objects
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

// NewDRAManager returns the framework.DRAManager through which
// DynamicResources changes c: guard runs each change (nil: runs it directly; a scheduler
// takes its lock there when the change comes from a binding goroutine),
// and changed is told of each claim written or deleted, with the claim
// before (nil when created) and after (nil when deleted).
func NewDRAManager(c *Cluster, guard func(func()), changed func(old, cur *api.ResourceClaim)) framework.DRAManager {
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

// The resource claim controller's part, which the in-memory cluster plays
// as it plays the ephemeral volume controller's: a pod added with claims
// from templates gets them (createTemplateClaims) and names them in its
// status; a deleted pod leaves the reservations of its claims, a claim
// reserved for nobody any more is deallocated, and the claims the pod
// owns (its template claims, the claim for its extended resources) are
// deleted (releaseResourceClaims).

// createTemplateClaims creates, for each of the pod's template-backed
// claims not named in its status yet, a claim from the template (owned by
// the pod, named <pod>-<claim>-<suffix> from the pod's UID) and names it
// in the pod's status. A missing template leaves the claim uncreated (the
// pod then waits in DynamicResources' PreEnqueue).
func (c *Cluster) createTemplateClaims(pod *api.Pod) error {
	view := c.snap.DRA()
	var statuses []api.PodResourceClaimStatus
	for i := range pod.Spec.ResourceClaims {
		pc := &pod.Spec.ResourceClaims[i]
		if pc.ResourceClaimTemplateName == nil || slices.ContainsFunc(pod.Status.ResourceClaimStatuses, func(s api.PodResourceClaimStatus) bool { return s.Name == pc.Name }) {
			continue
		}
		t, ok := view.ResourceClaimTemplate(pod.Namespace, *pc.ResourceClaimTemplateName)
		if !ok {
			continue
		}
		cl := &api.ResourceClaim{Spec: t.Spec.Spec}
		cl.Name = templateClaimName(pod, pc.Name)
		cl.Namespace, cl.UID = pod.Namespace, "claim-"+pod.UID+"-"+pc.Name
		cl.Labels, cl.Annotations = maps.Clone(t.Spec.ObjectMeta.Labels), maps.Clone(t.Spec.ObjectMeta.Annotations)
		cl.OwnerReferences = []api.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: pod.Name, UID: pod.UID, Controller: true}}
		if err := c.setStorage(cl); err != nil {
			return fmt.Errorf("pod %s: claim %q from template %q: %w", pod.Key(), pc.Name, t.Name, err)
		}
		name := cl.Name
		statuses = append(statuses, api.PodResourceClaimStatus{Name: pc.Name, ResourceClaimName: &name})
	}
	if len(statuses) > 0 {
		pod.Status.ResourceClaimStatuses = append(slices.Clip(pod.Status.ResourceClaimStatuses), statuses...)
	}
	return nil
}

// templateClaimName is the name of a claim generated for the pod's claim
// entry: the controller's generateName <pod>-<claim>- (each part cut as
// kube cuts them) with a five-letter suffix derived from the pod's UID,
// where the API server draws a random one.
func templateClaimName(pod *api.Pod, claim string) string {
	podPart, claimPart := pod.Name, claim
	if len(podPart) > 16 {
		podPart = podPart[:16]
	}
	if len(claimPart) > 16 {
		claimPart = claimPart[:16]
	}
	h := fnv.New32a()
	h.Write([]byte(pod.Namespace + "/" + pod.Name + "/" + pod.UID + "/" + claim))
	sum := h.Sum32()
	const letters = "bcdfghjklmnpqrstvwxz2456789"
	var suffix [5]byte
	for i := range suffix {
		suffix[i] = letters[sum%uint32(len(letters))]
		sum /= uint32(len(letters))
	}
	return podPart + "-" + claimPart + "-" + string(suffix[:])
}

// claimPodUID is the UID the cluster gives a pod with resource claims
// added without one (key: its namespace/name): the claims made for it and
// their reservations name it by UID, as the API server gives every pod one.
func claimPodUID(key string) string { return "schedkit-pod/" + key }

// releaseResourceClaims plays the controller for a deleted pod (see
// above). A cluster without DRA objects costs nothing.
func (c *Cluster) releaseResourceClaims(pod *api.Pod) {
	view := c.snap.DRA()
	if view.Empty() {
		return
	}
	for _, cl := range view.ResourceClaims() {
		if cl.Namespace != pod.Namespace {
			continue
		}
		if ref := cl.ControllerRef(); ref != nil && ref.UID == pod.UID && pod.UID != "" {
			_, _ = c.deleteStorage(api.KindResourceClaim, cl.Namespace, cl.Name)
			continue
		}
		i := slices.IndexFunc(cl.Status.ReservedFor, func(r api.ResourceClaimConsumerReference) bool { return r.UID == pod.UID })
		if i < 0 || pod.UID == "" {
			continue
		}
		next := *cl
		next.Status.ReservedFor = slices.Delete(slices.Clone(cl.Status.ReservedFor), i, i+1)
		if len(next.Status.ReservedFor) == 0 {
			next.Status.ReservedFor, next.Status.Allocation = nil, nil
		}
		_ = c.setStorage(&next)
	}
}

// StorageEvent is the cluster event a change of a storage or DRA object
// from old to cur (nil when added, or deleted) with action makes: an
// event of the object's kind (EventResource), except for a
// DeviceTaintRule, which kube-scheduler sees through the slices it taints
// (from v1.37, whose DRADeviceTaintRules gate is on by default): an
// update of ResourceSlices when the rule's selector or taint changed and
// the rule before or after selects a device of the cluster's slices, and
// no event of a resource any plugin registers otherwise. A zero Cluster
// returns the zero event.
func (c *Cluster) StorageEvent(action framework.ActionType, old, cur api.StorageObject) framework.ClusterEvent {
	o := cur
	if o == nil {
		o = old
	}
	if c.snap == nil {
		return framework.ClusterEvent{}
	}
	if o == nil {
		return framework.ClusterEvent{ActionType: action}
	}
	ev := framework.ClusterEvent{Resource: EventResource(o.StorageKind()), ActionType: action}
	if o.StorageKind() != api.KindDeviceTaintRule || !c.KubeVersion().AtLeast(framework.KubeV137) {
		return ev
	}
	oldR, _ := old.(*api.DeviceTaintRule)
	curR, _ := cur.(*api.DeviceTaintRule)
	if oldR != nil && curR != nil && reflect.DeepEqual(oldR.Spec, curR.Spec) {
		return ev
	}
	for _, s := range c.snap.DRA().ResourceSlices() {
		for i := range s.Spec.Devices {
			d := s.Spec.Devices[i].Name
			if oldR != nil && oldR.Selects(s.Spec.Driver, s.Spec.Pool.Name, d) || curR != nil && curR.Selects(s.Spec.Driver, s.Spec.Pool.Name, d) {
				return framework.ClusterEvent{Resource: framework.ResourceResourceSlice, ActionType: framework.Update}
			}
		}
	}
	return ev
}
