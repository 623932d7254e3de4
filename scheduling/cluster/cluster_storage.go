package cluster

import (
	"fmt"
	"maps"
	"slices"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/csitranslation"
	"github.com/schedkit/schedkit/resource"
)

// This file holds the storage side of a Cluster: PersistentVolumes,
// claims, storage classes, CSINodes, CSIDrivers, CSIStorageCapacities and
// VolumeAttachments, kept in the cluster's Snapshot and journaled like
// every other change (Fork/Revert cover them). The in-memory cluster plays
// the small part of the API server and controllers that scheduling sees:
//
//   - API defaults: a StorageClass without volumeBindingMode is Immediate;
//     a resource claim's (or template's) requests get allocation mode
//     ExactCount and count 1 when they name none.
//   - The PV controller's steady state for objects given without status: a
//     PersistentVolume is Available, or Bound when it has a claimRef; a
//     claim naming a volume that exists is Bound with the bind-completed
//     annotation, any other claim Pending. (Unbound claims of Immediate
//     classes are not bound by the cluster: give them a volumeName, or use
//     WaitForFirstConsumer classes, whose binding the scheduler drives.)
//   - The ephemeral volume controller: a pod added with generic ephemeral
//     volumes gets their claims (<pod>-<volume>, owned by the pod, of the
//     default StorageClass when the template names none, as the
//     DefaultStorageClass admission plugin sets it) unless they exist or
//     the pod is added as observed (AddObservedPod); deleting the pod
//     deletes the claims it owns.
//   - VolumeBinding's PreBind (BindPodVolumes): static bindings and dynamic
//     provisioning complete at once.

// copyStorage returns a copy of the top-level struct of o, so that the
// cluster never mutates (nor is mutated through) the caller's object.
func copyStorage(o api.StorageObject) api.StorageObject {
	switch v := o.(type) {
	case *api.PersistentVolume:
		c := *v
		return &c
	case *api.PersistentVolumeClaim:
		c := *v
		return &c
	case *api.StorageClass:
		c := *v
		return &c
	case *api.CSINode:
		c := *v
		return &c
	case *api.CSIDriver:
		c := *v
		return &c
	case *api.CSIStorageCapacity:
		c := *v
		return &c
	case *api.VolumeAttachment:
		c := *v
		return &c
	case *api.ResourceSlice:
		c := *v
		return &c
	case *api.DeviceClass:
		c := *v
		return &c
	case *api.ResourceClaim:
		c := *v
		return &c
	case *api.ResourceClaimTemplate:
		c := *v
		return &c
	case *api.DeviceTaintRule:
		c := *v
		return &c
	}
	return o
}

// defaultStorage applies the API defaults and the PV controller's steady
// state described above to the cluster's copy.
func (c *Cluster) defaultStorage(o api.StorageObject) {
	switch v := o.(type) {
	case *api.ResourceClaim:
		v.Spec.Devices = v.Spec.Devices.Defaulted()
	case *api.ResourceClaimTemplate:
		v.Spec.Spec.Devices = v.Spec.Spec.Devices.Defaulted()
	case *api.StorageClass:
		if v.VolumeBindingMode == nil {
			m := api.VolumeBindingImmediate
			v.VolumeBindingMode = &m
		}
	case *api.PersistentVolume:
		if v.Status.Phase == "" {
			v.Status.Phase = api.VolumeAvailable
			if v.Spec.ClaimRef != nil {
				v.Status.Phase = api.VolumeBound
			}
		}
	case *api.PersistentVolumeClaim:
		if v.Status.Phase != "" {
			return
		}
		v.Status.Phase = api.ClaimPending
		if v.Spec.VolumeName == "" {
			return
		}
		if _, ok := c.snap.PersistentVolume(v.Spec.VolumeName); !ok {
			return
		}
		v.Status.Phase = api.ClaimBound
		if _, ok := v.Annotations[api.AnnBindCompleted]; !ok {
			v.Annotations = maps.Clone(v.Annotations)
			if v.Annotations == nil {
				v.Annotations = map[string]string{}
			}
			v.Annotations[api.AnnBindCompleted] = "yes"
		}
	}
}

// setStorage stores o (already the cluster's copy), journaled.
func (c *Cluster) setStorage(o api.StorageObject) error {
	old, err := c.snap.SetStorageObject(o)
	if err != nil {
		return err
	}
	if c.forking() {
		k, ns, name := api.StorageObjectKey(o)
		c.record(func() { c.restoreStorage(k, ns, name, old) })
	}
	return nil
}

// deleteStorage removes an object, journaled.
func (c *Cluster) deleteStorage(k api.StorageKind, ns, name string) (api.StorageObject, error) {
	old, err := c.snap.DeleteStorageObject(k, ns, name)
	if err != nil {
		return nil, err
	}
	if c.forking() {
		c.record(func() { c.restoreStorage(k, ns, name, old) })
	}
	return old, nil
}

// restoreStorage puts back old (nil: removes the object) on Revert.
func (c *Cluster) restoreStorage(k api.StorageKind, ns, name string, old api.StorageObject) {
	if old == nil {
		_, _ = c.snap.DeleteStorageObject(k, ns, name)
		return
	}
	_, _ = c.snap.SetStorageObject(old)
}

// AddStorageObject adds a copy of a storage object, with the defaults
// described in this file. An invalid object, one that exists already, or a
// CSINode whose node is not in the cluster is an error naming it.
func (c *Cluster) AddStorageObject(o api.StorageObject) error {
	if c.snap == nil {
		return c.zeroErr("AddStorageObject")
	}
	if o == nil {
		return fmt.Errorf("cluster: AddStorageObject: nil object")
	}
	if err := api.ValidateStorageObject(o); err != nil {
		return fmt.Errorf("cluster: AddStorageObject: %w", err)
	}
	k, ns, name := api.StorageObjectKey(o)
	if _, ok := c.snap.StorageObject(k, ns, name); ok {
		return fmt.Errorf("cluster: AddStorageObject: %s already exists", k.Describe(ns, name))
	}
	cp := copyStorage(o)
	c.defaultStorage(cp)
	if err := c.setStorage(cp); err != nil {
		return fmt.Errorf("cluster: AddStorageObject: %w", err)
	}
	return nil
}

// UpdateStorageObject replaces an existing storage object with a copy of
// o (defaulted as on add). An unknown object is an error.
func (c *Cluster) UpdateStorageObject(o api.StorageObject) error {
	if c.snap == nil {
		return c.zeroErr("UpdateStorageObject")
	}
	if o == nil {
		return fmt.Errorf("cluster: UpdateStorageObject: nil object")
	}
	if err := api.ValidateStorageObject(o); err != nil {
		return fmt.Errorf("cluster: UpdateStorageObject: %w", err)
	}
	k, ns, name := api.StorageObjectKey(o)
	if _, ok := c.snap.StorageObject(k, ns, name); !ok {
		return fmt.Errorf("cluster: UpdateStorageObject: unknown %s", k.Describe(ns, name))
	}
	cp := copyStorage(o)
	c.defaultStorage(cp)
	if err := c.setStorage(cp); err != nil {
		return fmt.Errorf("cluster: UpdateStorageObject: %w", err)
	}
	return nil
}

// DeleteStorageObject deletes the object of kind k named name (in
// namespace ns for claims and capacities) and returns the cluster's copy.
// An unknown object is an error.
func (c *Cluster) DeleteStorageObject(k api.StorageKind, ns, name string) (api.StorageObject, error) {
	if c.snap == nil {
		return nil, c.zeroErr("DeleteStorageObject")
	}
	old, err := c.deleteStorage(k, ns, name)
	if err != nil {
		return nil, fmt.Errorf("cluster: DeleteStorageObject: %w", err)
	}
	return old, nil
}

// StorageObject returns the cluster's copy of a storage object
// (read-only).
func (c *Cluster) StorageObject(k api.StorageKind, ns, name string) (api.StorageObject, bool) {
	if c.snap == nil {
		return nil, false
	}
	return c.snap.StorageObject(k, ns, name)
}

// Storage returns every storage object of the cluster (the cluster's
// copies; read-only), each kind sorted by key.
func (c *Cluster) Storage() api.StorageObjects {
	if c.snap == nil {
		return api.StorageObjects{}
	}
	return c.snap.Storage()
}

// createEphemeralClaims plays the ephemeral volume controller for a pod
// being added: each generic ephemeral volume's claim is created, owned by
// the pod, unless a claim of that name exists (which VolumeBinding then
// checks for ownership).
func (c *Cluster) createEphemeralClaims(pod *api.Pod) error {
	for i := range pod.Spec.Volumes {
		v := &pod.Spec.Volumes[i]
		if v.Ephemeral == nil || v.Ephemeral.VolumeClaimTemplate == nil {
			continue
		}
		name := api.EphemeralClaimName(pod, v)
		if _, ok := c.snap.PersistentVolumeClaim(pod.Namespace, name); ok {
			continue
		}
		t := v.Ephemeral.VolumeClaimTemplate
		claim := &api.PersistentVolumeClaim{Spec: t.Spec}
		claim.Name, claim.Namespace = name, pod.Namespace
		claim.Labels, claim.Annotations = maps.Clone(t.Labels), maps.Clone(t.Annotations)
		claim.OwnerReferences = []api.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: pod.Name, UID: pod.UID, Controller: true}}
		claim.Status.Phase = api.ClaimPending
		if !namesClass(claim) {
			WithDefaultClass(claim, c.DefaultStorageClass())
		}
		if err := c.setStorage(claim); err != nil {
			return fmt.Errorf("pod %s: ephemeral volume %q: %w", pod.Key(), v.Name, err)
		}
	}
	return nil
}

// deleteOwnedClaims deletes the ephemeral claims a deleted pod owns (the
// garbage collector's part).
func (c *Cluster) deleteOwnedClaims(pod *api.Pod) {
	for i := range pod.Spec.Volumes {
		v := &pod.Spec.Volumes[i]
		if v.Ephemeral == nil {
			continue
		}
		name := api.EphemeralClaimName(pod, v)
		if claim, ok := c.snap.PersistentVolumeClaim(pod.Namespace, name); ok && api.EphemeralClaimOwnedBy(pod, claim) == nil {
			_, _ = c.deleteStorage(api.KindPersistentVolumeClaim, pod.Namespace, name)
		}
	}
}

// errConflict is the API server's optimistic-concurrency error, returned
// when an object changed between Reserve and PreBind.
func errConflict(res, name string) error {
	//lint:ignore ST1005 the API server's text
	return fmt.Errorf("Operation cannot be fulfilled on %s %q: the object has been modified; please apply your changes to the latest version and try again", res, name)
}

// BindPodVolumes applies VolumeBinding's decisions for a pod on node, as
// the API updates of kube's BindPodVolumes followed by the PV controller
// and a CSI provisioner finishing at once: each static binding's volume
// gets its claim reference (phase Bound) and the claim the volume
// (bind-completed, Bound); each claim to provision gets a new volume
// "pvc-<claim uid>" (or "pvc-<namespace>-<name>" without a UID) of the
// claim's size, class and access modes, with the class's provisioner as
// CSI driver and node affinity on the node's values of the driver's
// topology keys (from the node's CSINode, else the keys of the class's
// allowed topologies), and the CSIStorageCapacity used for it shrinks by
// the claim's size. A volume or claim that changed since Reserve is a
// conflict error; nothing is applied partially undone (the journal of an
// open fork covers it).
func (c *Cluster) BindPodVolumes(node string, pv *api.PodVolumes) error {
	if c.snap == nil {
		return c.zeroErr("BindPodVolumes")
	}
	ni, ok := c.snap.Get(node)
	if !ok {
		return fmt.Errorf("cluster: BindPodVolumes: node %q not found", node)
	}
	for _, b := range pv.StaticBindings {
		cur, ok := c.snap.PersistentVolume(b.PV.Name)
		if !ok {
			return fmt.Errorf("persistentvolumes %q not found", b.PV.Name)
		}
		if cur != b.PVBase {
			return errConflict("persistentvolumes", b.PV.Name)
		}
		claim, ok := c.snap.PersistentVolumeClaim(b.PVC.Namespace, b.PVC.Name)
		if !ok {
			return fmt.Errorf("persistentvolumeclaims %q not found", b.PVC.Key())
		}
		vol := *b.PV
		vol.Status.Phase = api.VolumeBound
		if err := c.setStorage(&vol); err != nil {
			return err
		}
		if err := c.setStorage(boundClaim(claim, &vol)); err != nil {
			return err
		}
	}
	for _, p := range pv.DynamicProvisions {
		cur, ok := c.snap.PersistentVolumeClaim(p.PVC.Namespace, p.PVC.Name)
		if !ok {
			return fmt.Errorf("persistentvolumeclaims %q not found", p.PVC.Key())
		}
		if cur != p.PVCBase {
			return errConflict("persistentvolumeclaims", p.PVC.Name)
		}
		vol, err := c.provisionedVolume(ni, p.PVC)
		if err != nil {
			return err
		}
		if err := c.setStorage(vol); err != nil {
			return err
		}
		if err := c.setStorage(boundClaim(p.PVC, vol)); err != nil {
			return err
		}
		if cp := p.NodeCapacity; cp != nil && cp.Capacity != nil {
			if cur, ok := c.snap.StorageObject(api.KindCSIStorageCapacity, cp.Namespace, cp.Name); ok {
				next := *cur.(*api.CSIStorageCapacity)
				left := next.Capacity.Sub(p.PVC.Spec.Resources.Requests[api.ResourceStorage])
				if left.Sign() < 0 {
					left = resource.Quantity{}
				}
				next.Capacity = &left
				if err := c.setStorage(&next); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// boundClaim returns a copy of claim bound to vol by the controller.
func boundClaim(claim *api.PersistentVolumeClaim, vol *api.PersistentVolume) *api.PersistentVolumeClaim {
	out := *claim
	out.Spec.VolumeName = vol.Name
	out.Annotations = maps.Clone(claim.Annotations)
	if out.Annotations == nil {
		out.Annotations = map[string]string{}
	}
	out.Annotations[api.AnnBindCompleted] = "yes"
	out.Annotations[api.AnnBoundByController] = "yes"
	out.Status.Phase = api.ClaimBound
	out.Status.AccessModes = slices.Clone(vol.Spec.AccessModes)
	out.Status.Capacity = vol.Spec.Capacity
	return &out
}

// provisionedVolume is the volume a CSI provisioner creates for claim on
// node.
func (c *Cluster) provisionedVolume(ni *framework.NodeInfo, claim *api.PersistentVolumeClaim) (*api.PersistentVolume, error) {
	class := api.ClaimClass(claim)
	sc, ok := c.snap.StorageClass(class)
	if !ok {
		return nil, fmt.Errorf("failed to find storage class %q", class)
	}
	name := "pvc-" + claim.UID
	if claim.UID == "" {
		name = "pvc-" + claim.Namespace + "-" + claim.Name
	}
	driver := sc.Provisioner
	if d, ok := csitranslation.DriverOf(driver); ok {
		driver = d
	}
	vol := &api.PersistentVolume{}
	vol.Name = name
	vol.Annotations = map[string]string{api.AnnDynamicallyProvisioned: sc.Provisioner, api.AnnBoundByController: "yes"}
	vol.Spec.Capacity = resource.List{api.ResourceStorage: claim.Spec.Resources.Requests[api.ResourceStorage]}
	vol.Spec.CSI = &api.CSIPersistentVolumeSource{Driver: driver, VolumeHandle: name}
	vol.Spec.AccessModes = slices.Clone(claim.Spec.AccessModes)
	vol.Spec.ClaimRef = &api.ObjectReference{Kind: "PersistentVolumeClaim", APIVersion: "v1", Namespace: claim.Namespace, Name: claim.Name, UID: claim.UID}
	vol.Spec.StorageClassName = class
	vol.Spec.VolumeMode = claim.Spec.VolumeMode
	vol.Spec.VolumeAttributesClassName = claim.Spec.VolumeAttributesClassName
	vol.Spec.PersistentVolumeReclaimPolicy = "Delete"
	if sc.ReclaimPolicy != nil {
		vol.Spec.PersistentVolumeReclaimPolicy = *sc.ReclaimPolicy
	}
	if reqs := provisionedTopology(ni, sc, driver); len(reqs) > 0 {
		vol.Spec.NodeAffinity = &api.VolumeNodeAffinity{Required: &api.NodeSelector{
			NodeSelectorTerms: []api.NodeSelectorTerm{{MatchExpressions: reqs}}}}
	}
	vol.Status.Phase = api.VolumeBound
	return vol, nil
}

// provisionedTopology pins a provisioned volume to the node's topology
// segment: the node's value of each of the driver's topology keys (from
// the node's CSINode), or, without them, of the keys the class's allowed
// topologies name.
func provisionedTopology(ni *framework.NodeInfo, sc *api.StorageClass, driver string) []api.NodeSelectorRequirement {
	var keys []string
	if cn := ni.CSINode(); cn != nil {
		for _, d := range cn.Spec.Drivers {
			if d.Name == driver {
				keys = slices.Clone(d.TopologyKeys)
			}
		}
	}
	if len(keys) == 0 {
		for _, t := range sc.AllowedTopologies {
			for _, e := range t.MatchLabelExpressions {
				if !slices.Contains(keys, e.Key) {
					keys = append(keys, e.Key)
				}
			}
		}
	}
	var out []api.NodeSelectorRequirement
	for _, k := range keys {
		if v, ok := ni.Node().Labels[k]; ok {
			out = append(out, api.NodeSelectorRequirement{Key: k, Operator: api.NodeSelectorOpIn, Values: []string{v}})
		}
	}
	return out
}

// AddStorage adds storage objects in dependency order (classes, drivers,
// CSINodes, volumes, claims, capacities, attachments), stopping at the
// first error.
func (c *Cluster) AddStorage(objs api.StorageObjects) error {
	if c.snap == nil {
		return c.zeroErr("AddStorage")
	}
	for _, o := range objs.Each() {
		if err := c.AddStorageObject(o); err != nil {
			return err
		}
	}
	return nil
}

// EventResource is the cluster event resource of a storage or DRA object
// kind (the kind itself for a kind it does not know), as the scheduler
// reports a change of such an object.
func EventResource(k api.StorageKind) framework.EventResource {
	switch k {
	case api.KindPersistentVolume:
		return framework.ResourcePersistentVolume
	case api.KindPersistentVolumeClaim:
		return framework.ResourcePersistentVolumeClaim
	case api.KindStorageClass:
		return framework.ResourceStorageClass
	case api.KindCSINode:
		return framework.ResourceCSINode
	case api.KindCSIDriver:
		return framework.ResourceCSIDriver
	case api.KindCSIStorageCapacity:
		return framework.ResourceCSIStorageCapacity
	case api.KindVolumeAttachment:
		return framework.ResourceVolumeAttachment
	case api.KindResourceClaim:
		return framework.ResourceResourceClaim
	case api.KindResourceSlice:
		return framework.ResourceResourceSlice
	case api.KindDeviceClass:
		return framework.ResourceDeviceClass
	}
	return framework.EventResource(k)
}
