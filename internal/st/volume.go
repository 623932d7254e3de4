package st

import (
	"slices"
	"time"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/resource"
)

// Builders of pod volumes and storage objects, in the style of
// kube-scheduler's volumebinding test_utils.go (makePV, makePVC, …).

// PVWrapper builds a PersistentVolume.
type PVWrapper struct{ v fw.PersistentVolume }

// MakePV starts an Available CSI volume (driver "csi.example.com", handle
// = name) of class, 1Gi, ReadWriteOnce.
func MakePV(name, class string) *PVWrapper {
	w := &PVWrapper{}
	w.v.Name = name
	w.v.Spec.StorageClassName = class
	w.v.Spec.Capacity = resource.MustParseList(map[string]string{"storage": "1Gi"})
	w.v.Spec.AccessModes = []fw.PersistentVolumeAccessMode{fw.ReadWriteOnce}
	w.v.Spec.CSI = &fw.CSIPersistentVolumeSource{Driver: "csi.example.com", VolumeHandle: name}
	w.v.Status.Phase = fw.VolumeAvailable
	return w
}

// Obj returns the volume.
func (w *PVWrapper) Obj() *fw.PersistentVolume { v := w.v; return &v }

// Capacity sets the storage capacity.
func (w *PVWrapper) Capacity(q string) *PVWrapper {
	w.v.Spec.Capacity = resource.MustParseList(map[string]string{"storage": q})
	return w
}

// AccessModes sets the access modes.
func (w *PVWrapper) AccessModes(m ...fw.PersistentVolumeAccessMode) *PVWrapper {
	w.v.Spec.AccessModes = m
	return w
}

// Phase sets status.phase.
func (w *PVWrapper) Phase(p fw.PersistentVolumePhase) *PVWrapper { w.v.Status.Phase = p; return w }

// ClaimRef binds (or pre-binds) the volume to namespace/name with uid.
func (w *PVWrapper) ClaimRef(namespace, name, uid string) *PVWrapper {
	w.v.Spec.ClaimRef = &fw.ObjectReference{Kind: "PersistentVolumeClaim", Namespace: namespace, Name: name, UID: uid}
	return w
}

// Label adds a label.
func (w *PVWrapper) Label(k, v string) *PVWrapper {
	w.v.Labels = withKey(w.v.Labels, k, v)
	return w
}

// Annotation adds an annotation.
func (w *PVWrapper) Annotation(k, v string) *PVWrapper {
	w.v.Annotations = withKey(w.v.Annotations, k, v)
	return w
}

// NodeAffinity sets the required node affinity to one term with the
// expression key In values.
func (w *PVWrapper) NodeAffinity(key string, values ...string) *PVWrapper {
	w.v.Spec.NodeAffinity = &fw.VolumeNodeAffinity{Required: &fw.NodeSelector{NodeSelectorTerms: []fw.NodeSelectorTerm{{
		MatchExpressions: []fw.NodeSelectorRequirement{{Key: key, Operator: fw.NodeSelectorOpIn, Values: values}}}}}}
	return w
}

// VolumeMode sets spec.volumeMode.
func (w *PVWrapper) VolumeMode(m fw.PersistentVolumeMode) *PVWrapper {
	w.v.Spec.VolumeMode = &m
	return w
}

// CSI sets a CSI source.
func (w *PVWrapper) CSI(driver, handle string) *PVWrapper {
	w.v.Spec.PersistentVolumeSource = fw.PersistentVolumeSource{CSI: &fw.CSIPersistentVolumeSource{Driver: driver, VolumeHandle: handle}}
	return w
}

// Source sets the volume source.
func (w *PVWrapper) Source(s fw.PersistentVolumeSource) *PVWrapper {
	w.v.Spec.PersistentVolumeSource = s
	return w
}

// Deleting sets a deletion timestamp.
func (w *PVWrapper) Deleting() *PVWrapper {
	t := time.Unix(0, 0).UTC()
	w.v.DeletionTimestamp = &t
	return w
}

// PVCWrapper builds a PersistentVolumeClaim.
type PVCWrapper struct{ c fw.PersistentVolumeClaim }

// MakePVC starts a pending claim default/name (UID "uid-"+name) of class
// ("" leaves spec.storageClassName nil) asking for 1Gi, ReadWriteOnce.
func MakePVC(name, class string) *PVCWrapper {
	w := &PVCWrapper{}
	w.c.Name, w.c.Namespace, w.c.UID = name, "default", "uid-"+name
	if class != "" {
		w.c.Spec.StorageClassName = &class
	}
	w.c.Spec.AccessModes = []fw.PersistentVolumeAccessMode{fw.ReadWriteOnce}
	w.c.Spec.Resources.Requests = resource.MustParseList(map[string]string{"storage": "1Gi"})
	w.c.Status.Phase = fw.ClaimPending
	return w
}

// Obj returns the claim.
func (w *PVCWrapper) Obj() *fw.PersistentVolumeClaim { c := w.c; return &c }

// Namespace sets the namespace.
func (w *PVCWrapper) Namespace(ns string) *PVCWrapper { w.c.Namespace = ns; return w }

// UID sets the UID.
func (w *PVCWrapper) UID(u string) *PVCWrapper { w.c.UID = u; return w }

// Request sets the storage request.
func (w *PVCWrapper) Request(q string) *PVCWrapper {
	w.c.Spec.Resources.Requests = resource.MustParseList(map[string]string{"storage": q})
	return w
}

// AccessModes sets the access modes.
func (w *PVCWrapper) AccessModes(m ...fw.PersistentVolumeAccessMode) *PVCWrapper {
	w.c.Spec.AccessModes = m
	return w
}

// Bound binds the claim to volume pv (volumeName, bind-completed, Bound).
func (w *PVCWrapper) Bound(pv string) *PVCWrapper {
	w.c.Spec.VolumeName = pv
	w.c.Annotations = withKey(w.c.Annotations, fw.AnnBindCompleted, "yes")
	w.c.Status.Phase = fw.ClaimBound
	return w
}

// VolumeName pre-binds the claim to pv (no bind-completed annotation).
func (w *PVCWrapper) VolumeName(pv string) *PVCWrapper { w.c.Spec.VolumeName = pv; return w }

// Phase sets status.phase.
func (w *PVCWrapper) Phase(p fw.PersistentVolumeClaimPhase) *PVCWrapper {
	w.c.Status.Phase = p
	return w
}

// Annotation adds an annotation.
func (w *PVCWrapper) Annotation(k, v string) *PVCWrapper {
	w.c.Annotations = withKey(w.c.Annotations, k, v)
	return w
}

// Selector sets spec.selector.
func (w *PVCWrapper) Selector(s *fw.LabelSelector) *PVCWrapper { w.c.Spec.Selector = s; return w }

// VolumeMode sets spec.volumeMode.
func (w *PVCWrapper) VolumeMode(m fw.PersistentVolumeMode) *PVCWrapper {
	w.c.Spec.VolumeMode = &m
	return w
}

// OwnedBy makes the pod its controller (an ephemeral volume's claim).
func (w *PVCWrapper) OwnedBy(pod *fw.Pod) *PVCWrapper {
	w.c.OwnerReferences = []fw.OwnerReference{{Kind: "Pod", Name: pod.Name, UID: pod.UID, Controller: true}}
	return w
}

// Deleting sets a deletion timestamp.
func (w *PVCWrapper) Deleting() *PVCWrapper {
	t := time.Unix(0, 0).UTC()
	w.c.DeletionTimestamp = &t
	return w
}

// SCWrapper builds a StorageClass.
type SCWrapper struct{ c fw.StorageClass }

// MakeSC starts a class with provisioner and binding mode.
func MakeSC(name, provisioner string, mode fw.VolumeBindingMode) *SCWrapper {
	w := &SCWrapper{}
	w.c.Name, w.c.Provisioner = name, provisioner
	if mode != "" {
		w.c.VolumeBindingMode = &mode
	}
	return w
}

// Obj returns the class.
func (w *SCWrapper) Obj() *fw.StorageClass { c := w.c; return &c }

// AllowedTopology adds a term key In values.
func (w *SCWrapper) AllowedTopology(key string, values ...string) *SCWrapper {
	w.c.AllowedTopologies = append(slices.Clone(w.c.AllowedTopologies), fw.TopologySelectorTerm{
		MatchLabelExpressions: []fw.TopologySelectorLabelRequirement{{Key: key, Values: values}}})
	return w
}

// CSINodeWrapper builds a CSINode.
type CSINodeWrapper struct{ n fw.CSINode }

// MakeCSINode starts the CSINode of node.
func MakeCSINode(node string) *CSINodeWrapper {
	w := &CSINodeWrapper{}
	w.n.Name = node
	return w
}

// Obj returns the CSINode.
func (w *CSINodeWrapper) Obj() *fw.CSINode { n := w.n; return &n }

// Driver adds a driver with an attach limit (limit < 0: none) and topology
// keys.
func (w *CSINodeWrapper) Driver(name string, limit int32, topologyKeys ...string) *CSINodeWrapper {
	d := fw.CSINodeDriver{Name: name, NodeID: w.n.Name, TopologyKeys: topologyKeys}
	if limit >= 0 {
		d.Allocatable = &fw.VolumeNodeResources{Count: &limit}
	}
	w.n.Spec.Drivers = append(slices.Clone(w.n.Spec.Drivers), d)
	return w
}

// Migrated sets the migrated-plugins annotation.
func (w *CSINodeWrapper) Migrated(plugins string) *CSINodeWrapper {
	w.n.Annotations = withKey(w.n.Annotations, fw.AnnMigratedPlugins, plugins)
	return w
}

// MakeCapacity returns a CSIStorageCapacity default/name of class for the
// nodes whose label key is value, with capacity (and maximum volume size,
// unless "").
func MakeCapacity(name, class, key, value, capacity, maxSize string) *fw.CSIStorageCapacity {
	c := &fw.CSIStorageCapacity{ObjectMeta: fw.ObjectMeta{Name: name, Namespace: "default"}, StorageClassName: class,
		NodeTopology: &fw.LabelSelector{MatchLabels: map[string]string{key: value}}}
	if capacity != "" {
		q := resource.MustParse(capacity)
		c.Capacity = &q
	}
	if maxSize != "" {
		q := resource.MustParse(maxSize)
		c.MaximumVolumeSize = &q
	}
	return c
}

// MakeVA returns a VolumeAttachment of pv on node by attacher.
func MakeVA(name, attacher, pv, node string) *fw.VolumeAttachment {
	return &fw.VolumeAttachment{ObjectMeta: fw.ObjectMeta{Name: name},
		Spec: fw.VolumeAttachmentSpec{Attacher: attacher, NodeName: node, Source: fw.VolumeAttachmentSource{PersistentVolumeName: &pv}}}
}

func withKey(m map[string]string, k, v string) map[string]string {
	out := make(map[string]string, len(m)+1)
	for a, b := range m {
		out[a] = b
	}
	out[k] = v
	return out
}

// Storage returns the resource list {"storage": q}.
func Storage(q string) resource.List { return resource.MustParseList(map[string]string{"storage": q}) }
