package builder

import (
	"time"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
)

// Builders of the storage objects kube-scheduler's volume plugins read
// (VolumeBinding, VolumeZone, VolumeRestrictions, NodeVolumeLimits), in the
// style of kube-scheduler's volumebinding test helpers (makePV, makePVC, …).

// DefaultCSIDriver is the CSI driver of a volume built by MakePV unless CSI
// or Source gives it another source. A PersistentVolume must have exactly
// one source; this placeholder driver makes a built volume valid.
const DefaultCSIDriver = "csi.example.com"

// DefaultStorage is the storage capacity of a volume built by MakePV and
// the storage request of a claim built by MakePVC, unless Capacity or
// Request sets one.
const DefaultStorage = "1Gi"

// epoch returns the deletion timestamp Deleting sets, the Unix epoch: the
// scheduler reads only whether an object is being deleted, and a fixed
// time keeps built objects deterministic.
func epoch() *time.Time {
	t := time.Unix(0, 0).UTC()
	return &t
}

// storageList returns the resource list {"storage": q}, recording a
// malformed q in *first as field of the named object.
func storageList(first *error, object, name, field, q string) resource.List {
	return parse(first, object, name, field, map[string]string{string(api.ResourceStorage): q})
}

// PVWrapper builds a api.PersistentVolume; MakePV starts one.
type PVWrapper struct {
	v         api.PersistentVolume
	sourceSet bool  // CSI or Source was called: no default source
	err       error // the first malformed quantity
}

// MakePV starts a PersistentVolume named name of storage class class (""
// for none), with the defaults of a volume the PV controller has made
// available:
//   - capacity DefaultStorage (1Gi);
//   - access modes [ReadWriteOnce];
//   - a CSI source of DefaultCSIDriver whose volume handle is the volume's
//     name, unless CSI or Source sets one (a volume must have a source);
//   - status.phase Available.
func MakePV(name, class string) *PVWrapper {
	w := &PVWrapper{}
	w.v.Name = name
	w.v.Spec.StorageClassName = class
	w.v.Spec.Capacity = storageList(&w.err, "PersistentVolume", name, "spec.capacity", DefaultStorage)
	w.v.Spec.AccessModes = []api.PersistentVolumeAccessMode{api.ReadWriteOnce}
	w.v.Status.Phase = api.VolumeAvailable
	return w
}

// Build returns the volume, or the first malformed quantity given to the
// wrapper as an error naming the volume, the field and the value.
func (w *PVWrapper) Build() (*api.PersistentVolume, error) {
	if w.err != nil {
		return nil, w.err
	}
	v := deepCopy(&w.v)
	if !w.sourceSet {
		v.Spec.CSI = &api.CSIPersistentVolumeSource{Driver: DefaultCSIDriver, VolumeHandle: v.Name}
	}
	return v, nil
}

// Obj returns the volume. It panics when a quantity given to the wrapper
// was malformed (Build returns the error instead).
func (w *PVWrapper) Obj() *api.PersistentVolume { return must(w.Build()) }

// Name sets metadata.name (and so the default source's volume handle).
func (w *PVWrapper) Name(n string) *PVWrapper { w.v.Name = n; return w }

// Label adds a label (a claim's spec.selector matches volumes by label).
func (w *PVWrapper) Label(k, v string) *PVWrapper {
	w.v.Labels = withKey(w.v.Labels, k, v)
	return w
}

// Annotation adds an annotation.
func (w *PVWrapper) Annotation(k, v string) *PVWrapper {
	w.v.Annotations = withKey(w.v.Annotations, k, v)
	return w
}

// Capacity sets spec.capacity to {storage: q}.
func (w *PVWrapper) Capacity(q string) *PVWrapper {
	w.v.Spec.Capacity = storageList(&w.err, "PersistentVolume", w.v.Name, "spec.capacity", q)
	return w
}

// AccessModes sets spec.accessModes.
func (w *PVWrapper) AccessModes(m ...api.PersistentVolumeAccessMode) *PVWrapper {
	w.v.Spec.AccessModes = m
	return w
}

// Phase sets status.phase.
func (w *PVWrapper) Phase(p api.PersistentVolumePhase) *PVWrapper {
	w.v.Status.Phase = p
	return w
}

// ClaimRef sets spec.claimRef to the claim namespace/name with uid: the
// volume is bound (with Phase(api.VolumeBound)) or pre-bound to the
// claim. An empty uid matches any claim of that name.
func (w *PVWrapper) ClaimRef(namespace, name, uid string) *PVWrapper {
	w.v.Spec.ClaimRef = &api.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: namespace, Name: name, UID: uid}
	return w
}

// NodeAffinity sets spec.nodeAffinity.required to one term: label key In
// values (a local volume's hostname, a zonal disk's zone).
func (w *PVWrapper) NodeAffinity(key string, values ...string) *PVWrapper {
	return w.NodeAffinityTerms(LabelIn(key, values...))
}

// NodeAffinityTerms sets spec.nodeAffinity.required to terms: a node must
// match one of them.
func (w *PVWrapper) NodeAffinityTerms(terms ...api.NodeSelectorTerm) *PVWrapper {
	w.v.Spec.NodeAffinity = &api.VolumeNodeAffinity{Required: &api.NodeSelector{NodeSelectorTerms: terms}}
	return w
}

// VolumeMode sets spec.volumeMode.
func (w *PVWrapper) VolumeMode(m api.PersistentVolumeMode) *PVWrapper {
	w.v.Spec.VolumeMode = &m
	return w
}

// CSI sets the volume's source to a CSI volume of driver with handle.
func (w *PVWrapper) CSI(driver, handle string) *PVWrapper {
	return w.Source(api.PersistentVolumeSource{CSI: &api.CSIPersistentVolumeSource{Driver: driver, VolumeHandle: handle}})
}

// Source sets the volume's source (an in-tree disk, a CSI volume, a local
// path, …), replacing the default CSI source.
func (w *PVWrapper) Source(s api.PersistentVolumeSource) *PVWrapper {
	w.v.Spec.PersistentVolumeSource = s
	w.sourceSet = true
	return w
}

// Deleting marks the volume as being deleted (metadata.deletionTimestamp,
// set to the Unix epoch: the scheduler reads only whether it is set).
func (w *PVWrapper) Deleting() *PVWrapper {
	w.v.DeletionTimestamp = epoch()
	return w
}

// PVCWrapper builds a api.PersistentVolumeClaim; MakePVC starts one.
type PVCWrapper struct {
	c      api.PersistentVolumeClaim
	uidSet bool  // UID was called: Build does not default the UID to the name
	err    error // the first malformed quantity
}

// MakePVC starts a PersistentVolumeClaim named name of storage class class
// ("" leaves spec.storageClassName unset: a claim without a class, which
// binds only to volumes without one), with the defaults of a claim just
// created:
//   - namespace "default"; the UID is the name unless UID sets one (as
//     MakePod's);
//   - access modes [ReadWriteOnce];
//   - a storage request of DefaultStorage (1Gi);
//   - status.phase Pending.
func MakePVC(name, class string) *PVCWrapper {
	w := &PVCWrapper{}
	w.c.Name, w.c.Namespace = name, "default"
	if class != "" {
		w.c.Spec.StorageClassName = &class
	}
	w.c.Spec.AccessModes = []api.PersistentVolumeAccessMode{api.ReadWriteOnce}
	w.c.Spec.Resources.Requests = storageList(&w.err, "PersistentVolumeClaim", name, "spec.resources.requests", DefaultStorage)
	w.c.Status.Phase = api.ClaimPending
	return w
}

// Build returns the claim, or the first malformed quantity given to the
// wrapper as an error naming the claim, the field and the value.
func (w *PVCWrapper) Build() (*api.PersistentVolumeClaim, error) {
	if w.err != nil {
		return nil, w.err
	}
	c := deepCopy(&w.c)
	if !w.uidSet {
		c.UID = c.Name
	}
	return c, nil
}

// Obj returns the claim. It panics when a quantity given to the wrapper
// was malformed (Build returns the error instead).
func (w *PVCWrapper) Obj() *api.PersistentVolumeClaim { return must(w.Build()) }

// Name sets metadata.name; the UID is the name unless UID sets one.
func (w *PVCWrapper) Name(n string) *PVCWrapper { w.c.Name = n; return w }

// Namespace sets metadata.namespace.
func (w *PVCWrapper) Namespace(ns string) *PVCWrapper { w.c.Namespace = ns; return w }

// UID sets metadata.uid.
func (w *PVCWrapper) UID(u string) *PVCWrapper { w.c.UID, w.uidSet = u, true; return w }

// Label adds a label.
func (w *PVCWrapper) Label(k, v string) *PVCWrapper {
	w.c.Labels = withKey(w.c.Labels, k, v)
	return w
}

// Annotation adds an annotation (api.AnnSelectedNode, for one, is
// the node the scheduler chose for a WaitForFirstConsumer claim).
func (w *PVCWrapper) Annotation(k, v string) *PVCWrapper {
	w.c.Annotations = withKey(w.c.Annotations, k, v)
	return w
}

// Request sets spec.resources.requests to {storage: q}.
func (w *PVCWrapper) Request(q string) *PVCWrapper {
	w.c.Spec.Resources.Requests = storageList(&w.err, "PersistentVolumeClaim", w.c.Name, "spec.resources.requests", q)
	return w
}

// AccessModes sets spec.accessModes.
func (w *PVCWrapper) AccessModes(m ...api.PersistentVolumeAccessMode) *PVCWrapper {
	w.c.Spec.AccessModes = m
	return w
}

// Selector sets spec.selector, the labels a volume must have to bind.
func (w *PVCWrapper) Selector(s *api.LabelSelector) *PVCWrapper {
	w.c.Spec.Selector = s
	return w
}

// VolumeMode sets spec.volumeMode.
func (w *PVCWrapper) VolumeMode(m api.PersistentVolumeMode) *PVCWrapper {
	w.c.Spec.VolumeMode = &m
	return w
}

// VolumeName sets spec.volumeName: the claim is pre-bound to volume pv
// (without the bind-completed annotation; see Bound).
func (w *PVCWrapper) VolumeName(pv string) *PVCWrapper { w.c.Spec.VolumeName = pv; return w }

// Bound binds the claim to volume pv as the PV controller leaves it:
// spec.volumeName pv, the api.AnnBindCompleted annotation and
// status.phase Bound.
func (w *PVCWrapper) Bound(pv string) *PVCWrapper {
	w.c.Spec.VolumeName = pv
	w.c.Annotations = withKey(w.c.Annotations, api.AnnBindCompleted, "yes")
	w.c.Status.Phase = api.ClaimBound
	return w
}

// Phase sets status.phase.
func (w *PVCWrapper) Phase(p api.PersistentVolumeClaimPhase) *PVCWrapper {
	w.c.Status.Phase = p
	return w
}

// OwnedBy sets the claim's owner references to pod as its controller, as
// the ephemeral volume controller creates the claim of a pod's generic
// ephemeral volume (named <pod>-<volume>, see api.EphemeralClaimName).
// It reads the pod's name and UID when called.
func (w *PVCWrapper) OwnedBy(pod *api.Pod) *PVCWrapper {
	w.c.OwnerReferences = []api.OwnerReference{{Kind: "Pod", Name: pod.Name, UID: pod.UID, Controller: true}}
	return w
}

// Deleting marks the claim as being deleted (metadata.deletionTimestamp,
// set to the Unix epoch: the scheduler reads only whether it is set).
func (w *PVCWrapper) Deleting() *PVCWrapper {
	w.c.DeletionTimestamp = epoch()
	return w
}

// StorageClassWrapper builds a api.StorageClass; MakeStorageClass
// starts one.
type StorageClassWrapper struct{ c api.StorageClass }

// MakeStorageClass starts a StorageClass named name whose volumes
// provisioner creates (api.NotSupportedProvisioner for a class of
// pre-made volumes only), with volumeBindingMode Immediate, as the API
// server defaults it; VolumeBindingMode changes it.
func MakeStorageClass(name, provisioner string) *StorageClassWrapper {
	w := &StorageClassWrapper{}
	w.c.Name, w.c.Provisioner = name, provisioner
	return w.VolumeBindingMode(api.VolumeBindingImmediate)
}

// Build returns the class and a nil error (a class has no quantity to
// get wrong).
func (w *StorageClassWrapper) Build() (*api.StorageClass, error) { return deepCopy(&w.c), nil }

// Obj returns the class.
func (w *StorageClassWrapper) Obj() *api.StorageClass { return must(w.Build()) }

// Name sets metadata.name.
func (w *StorageClassWrapper) Name(n string) *StorageClassWrapper { w.c.Name = n; return w }

// VolumeBindingMode sets volumeBindingMode:
// api.VolumeBindingWaitForFirstConsumer delays binding and
// provisioning until a pod using the claim is scheduled. "" unsets it, as
// in an object read without the field: cluster.Cluster then defaults it
// to Immediate as the API server does, while in a framework.Snapshot the
// volume plugins fail the class's unbound claims with kube-scheduler's
// "VolumeBindingMode not set for StorageClass".
func (w *StorageClassWrapper) VolumeBindingMode(m api.VolumeBindingMode) *StorageClassWrapper {
	w.c.VolumeBindingMode = nil
	if m != "" {
		w.c.VolumeBindingMode = &m
	}
	return w
}

// AllowedTopology adds a term of allowedTopologies: label key In values.
// A provisioned volume must land where one of the terms matches.
func (w *StorageClassWrapper) AllowedTopology(key string, values ...string) *StorageClassWrapper {
	w.c.AllowedTopologies = append(w.c.AllowedTopologies, api.TopologySelectorTerm{
		MatchLabelExpressions: []api.TopologySelectorLabelRequirement{{Key: key, Values: values}}})
	return w
}

// withKey returns m with k set to v, allocating m when nil.
func withKey(m map[string]string, k, v string) map[string]string {
	if m == nil {
		m = map[string]string{}
	}
	m[k] = v
	return m
}
