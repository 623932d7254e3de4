package builder

import (
	"github.com/schedkit/schedkit/framework/api"
)

// NoAttachLimit, given to CSINodeWrapper.Driver as the limit, leaves the
// driver's allocatable unset: the driver reports no attach limit, and
// NodeVolumeLimits puts no limit on its volumes on the node.
const NoAttachLimit int32 = -1

// CSINodeWrapper builds a api.CSINode, the CSI drivers a node runs
// and their attach limits; MakeCSINode starts one.
type CSINodeWrapper struct{ n api.CSINode }

// MakeCSINode starts the CSINode of node (a CSINode is named after its
// node), with no driver.
func MakeCSINode(node string) *CSINodeWrapper {
	w := &CSINodeWrapper{}
	w.n.Name = node
	return w
}

// Build returns the CSINode and a nil error (a CSINode has no quantity to
// get wrong). A driver added without a node ID gets the CSINode's name.
func (w *CSINodeWrapper) Build() (*api.CSINode, error) {
	n := deepCopy(&w.n)
	for i := range n.Spec.Drivers {
		if n.Spec.Drivers[i].NodeID == "" {
			n.Spec.Drivers[i].NodeID = n.Name
		}
	}
	return n, nil
}

// Obj returns the CSINode.
func (w *CSINodeWrapper) Obj() *api.CSINode { return must(w.Build()) }

// Name sets metadata.name, the node's name.
func (w *CSINodeWrapper) Name(node string) *CSINodeWrapper { w.n.Name = node; return w }

// Driver adds a driver named name (the node ID is the node's name) that
// can attach at most limit volumes to the node (NoAttachLimit: no limit)
// and reports the node's topology under topologyKeys.
func (w *CSINodeWrapper) Driver(name string, limit int32, topologyKeys ...string) *CSINodeWrapper {
	d := api.CSINodeDriver{Name: name, TopologyKeys: topologyKeys}
	if limit >= 0 {
		d.Allocatable = &api.VolumeNodeResources{Count: &limit}
	}
	w.n.Spec.Drivers = append(w.n.Spec.Drivers, d)
	return w
}

// Migrated sets the api.AnnMigratedPlugins annotation to plugins,
// the comma-separated in-tree plugins (such as "kubernetes.io/gce-pd")
// whose volumes the node's CSI drivers handle.
func (w *CSINodeWrapper) Migrated(plugins string) *CSINodeWrapper {
	w.n.Annotations = withKey(w.n.Annotations, api.AnnMigratedPlugins, plugins)
	return w
}

// CSIDriverWrapper builds a api.CSIDriver; MakeCSIDriver starts one.
type CSIDriverWrapper struct{ d api.CSIDriver }

// MakeCSIDriver starts the CSIDriver of driver name with no field of its
// spec set; VolumeBinding reads an unset storageCapacity as false, the API
// server's default.
func MakeCSIDriver(name string) *CSIDriverWrapper {
	w := &CSIDriverWrapper{}
	w.d.Name = name
	return w
}

// Build returns the driver and a nil error (a driver has no quantity to
// get wrong).
func (w *CSIDriverWrapper) Build() (*api.CSIDriver, error) { return deepCopy(&w.d), nil }

// Obj returns the driver.
func (w *CSIDriverWrapper) Obj() *api.CSIDriver { return must(w.Build()) }

// Name sets metadata.name, the driver's name.
func (w *CSIDriverWrapper) Name(n string) *CSIDriverWrapper { w.d.Name = n; return w }

// StorageCapacity sets spec.storageCapacity: when true, VolumeBinding
// provisions a claim of a class of this driver only where a
// CSIStorageCapacity has room for it.
func (w *CSIDriverWrapper) StorageCapacity(on bool) *CSIDriverWrapper {
	w.d.Spec.StorageCapacity = &on
	return w
}

// AttachRequired sets spec.attachRequired.
func (w *CSIDriverWrapper) AttachRequired(on bool) *CSIDriverWrapper {
	w.d.Spec.AttachRequired = &on
	return w
}

// CSIStorageCapacityWrapper builds a api.CSIStorageCapacity, the
// storage a driver has left for a class in a topology segment;
// MakeCSIStorageCapacity starts one.
type CSIStorageCapacityWrapper struct {
	c   api.CSIStorageCapacity
	err error // the first malformed quantity
}

// MakeCSIStorageCapacity starts a CSIStorageCapacity named name in
// namespace "default" for storage class class. Its node topology is unset
// until MatchLabel or NodeTopology sets it: as in Kubernetes, an unset
// topology reaches no node. Its capacity is unset too (no room known).
func MakeCSIStorageCapacity(name, class string) *CSIStorageCapacityWrapper {
	w := &CSIStorageCapacityWrapper{}
	w.c.Name, w.c.Namespace, w.c.StorageClassName = name, "default", class
	return w
}

// Build returns the capacity, or the first malformed quantity given to the
// wrapper as an error naming the capacity, the field and the value.
func (w *CSIStorageCapacityWrapper) Build() (*api.CSIStorageCapacity, error) {
	if w.err != nil {
		return nil, w.err
	}
	return deepCopy(&w.c), nil
}

// Obj returns the capacity. It panics when a quantity given to the wrapper
// was malformed (Build returns the error instead).
func (w *CSIStorageCapacityWrapper) Obj() *api.CSIStorageCapacity { return must(w.Build()) }

// Name sets metadata.name.
func (w *CSIStorageCapacityWrapper) Name(n string) *CSIStorageCapacityWrapper {
	w.c.Name = n
	return w
}

// Namespace sets metadata.namespace.
func (w *CSIStorageCapacityWrapper) Namespace(ns string) *CSIStorageCapacityWrapper {
	w.c.Namespace = ns
	return w
}

// MatchLabel adds k=v to nodeTopology's matchLabels: the capacity is
// reachable from the nodes with all these labels.
func (w *CSIStorageCapacityWrapper) MatchLabel(k, v string) *CSIStorageCapacityWrapper {
	if w.c.NodeTopology == nil {
		w.c.NodeTopology = &api.LabelSelector{}
	}
	w.c.NodeTopology.MatchLabels = withKey(w.c.NodeTopology.MatchLabels, k, v)
	return w
}

// NodeTopology sets nodeTopology, the nodes the capacity is reachable from
// (an empty selector: every node; nil: none).
func (w *CSIStorageCapacityWrapper) NodeTopology(s *api.LabelSelector) *CSIStorageCapacityWrapper {
	w.c.NodeTopology = s
	return w
}

// Capacity sets capacity, the storage left for new volumes.
func (w *CSIStorageCapacityWrapper) Capacity(q string) *CSIStorageCapacityWrapper {
	v := parseQuantity(&w.err, "CSIStorageCapacity", w.c.Name, "capacity", q)
	w.c.Capacity = &v
	return w
}

// MaximumVolumeSize sets maximumVolumeSize, the largest volume the driver
// can make there.
func (w *CSIStorageCapacityWrapper) MaximumVolumeSize(q string) *CSIStorageCapacityWrapper {
	v := parseQuantity(&w.err, "CSIStorageCapacity", w.c.Name, "maximumVolumeSize", q)
	w.c.MaximumVolumeSize = &v
	return w
}

// VolumeAttachmentWrapper builds a api.VolumeAttachment, a volume
// attached (or being attached) to a node; MakeVolumeAttachment starts one.
type VolumeAttachmentWrapper struct{ a api.VolumeAttachment }

// MakeVolumeAttachment starts a VolumeAttachment named name, with no
// attacher, volume or node: set them with Attacher, PV and Node.
func MakeVolumeAttachment(name string) *VolumeAttachmentWrapper {
	w := &VolumeAttachmentWrapper{}
	w.a.Name = name
	return w
}

// Build returns the attachment and a nil error (an attachment has no
// quantity to get wrong).
func (w *VolumeAttachmentWrapper) Build() (*api.VolumeAttachment, error) {
	return deepCopy(&w.a), nil
}

// Obj returns the attachment.
func (w *VolumeAttachmentWrapper) Obj() *api.VolumeAttachment { return must(w.Build()) }

// Name sets metadata.name.
func (w *VolumeAttachmentWrapper) Name(n string) *VolumeAttachmentWrapper { w.a.Name = n; return w }

// Attacher sets spec.attacher, the CSI driver attaching the volume.
func (w *VolumeAttachmentWrapper) Attacher(driver string) *VolumeAttachmentWrapper {
	w.a.Spec.Attacher = driver
	return w
}

// PV sets spec.source.persistentVolumeName, the volume attached.
func (w *VolumeAttachmentWrapper) PV(name string) *VolumeAttachmentWrapper {
	w.a.Spec.Source.PersistentVolumeName = &name
	return w
}

// Node sets spec.nodeName, the node the volume is attached to.
func (w *VolumeAttachmentWrapper) Node(n string) *VolumeAttachmentWrapper {
	w.a.Spec.NodeName = n
	return w
}

// Attached sets status.attached.
func (w *VolumeAttachmentWrapper) Attached(on bool) *VolumeAttachmentWrapper {
	w.a.Status.Attached = on
	return w
}
