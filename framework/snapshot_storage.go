package framework

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/schedkit/schedkit/framework/api"
)

// nsName keys namespaced objects without building a string.
type nsName struct{ ns, name string }

// cowMap is a map shared with snapshot clones until written (copy on
// write).
type cowMap[K comparable, V any] struct {
	m      map[K]V
	shared bool
}

func (c *cowMap[K, V]) own() {
	if c.m == nil || c.shared {
		n := make(map[K]V, len(c.m)+1)
		maps.Copy(n, c.m)
		c.m, c.shared = n, false
	}
}

func (c *cowMap[K, V]) set(k K, v V) { c.own(); c.m[k] = v }

func (c *cowMap[K, V]) del(k K) {
	if _, ok := c.m[k]; ok {
		c.own()
		delete(c.m, k)
	}
}

// pvEntry is a PersistentVolume with its compiled required node affinity.
type pvEntry struct {
	pv       *api.PersistentVolume
	affinity *api.NodeSelectorMatcher
}

// storageIndex holds a snapshot's storage objects (CSINodes live on their
// NodeInfos). The maps are kept current; the sorted lists (a class's
// volumes, the capacities, a node's attachments) log their changes until
// read (sortedLists).
type storageIndex struct {
	pvs        cowMap[string, pvEntry]
	pvsByClass sortedLists[*api.PersistentVolume] // by class
	pvcs       cowMap[nsName, *api.PersistentVolumeClaim]
	classes    cowMap[string, *api.StorageClass]
	drivers    cowMap[string, *api.CSIDriver]
	capacities cowMap[nsName, *api.CSIStorageCapacity]
	capList    sortedLists[*api.CSIStorageCapacity] // one list, under ""
	vas        cowMap[string, *api.VolumeAttachment]
	vasByNode  sortedLists[*api.VolumeAttachment] // by node
	// pvcUse counts the references of assigned pods' claim volumes to
	// each claim (kube-scheduler's usedPVCSet, from NodeInfo.PVCRefCounts).
	pvcUse cowMap[nsName, int32]
	// dra holds the Dynamic Resource Allocation objects (snapshot_dra.go).
	dra draIndex
	// epoch changes, to a pointer never used before, with every change
	// to the objects through which a node's pods' volumes are read
	// (volumes, claims, classes, attachments): NodeInfo.StorageMemo's
	// stamp. A clone shares it until either side changes such an object.
	epoch *storageEpoch
}

// storageEpoch is one state of a snapshot's storage objects, told apart
// by its address (it has a size, so no two are the same).
type storageEpoch struct{ _ byte }

// changed starts a new storage epoch when an object of kind k changes.
func (x *storageIndex) changed(k api.StorageKind) {
	switch k {
	case api.KindPersistentVolume, api.KindPersistentVolumeClaim, api.KindStorageClass, api.KindVolumeAttachment:
		x.epoch = new(storageEpoch)
	}
}

// share marks every map shared and returns a copy for a clone. The lists
// must have no pending changes (Snapshot.storageLists merges them).
func (x *storageIndex) share() storageIndex {
	x.pvs.shared, x.pvsByClass.lists.shared, x.pvcs.shared, x.classes.shared = true, true, true, true
	x.drivers.shared, x.capacities.shared, x.capList.lists.shared = true, true, true
	x.vas.shared, x.vasByNode.lists.shared, x.pvcUse.shared = true, true, true
	x.dra.share()
	// The change logs are empty; dropping them keeps the two sides from
	// appending into one backing array.
	x.pvsByClass.log, x.capList.log, x.vasByNode.log = nil, nil, nil
	return *x
}

// logged returns how many list changes wait to be merged.
func (x *storageIndex) logged() int {
	return len(x.pvsByClass.log) + len(x.capList.log) + len(x.vasByNode.log)
}

// merge applies the pending changes to the lists.
func (x *storageIndex) merge() {
	x.pvsByClass.merge()
	x.capList.merge()
	x.vasByNode.merge()
}

// podClaims adjusts the claim reference counts for an assigned pod.
func (x *storageIndex) podClaims(pod *api.Pod, delta int32) {
	for i := range pod.Spec.Volumes {
		c := pod.Spec.Volumes[i].PersistentVolumeClaim
		if c == nil {
			continue
		}
		k := nsName{pod.Namespace, c.ClaimName}
		n := x.pvcUse.m[k] + delta
		if n <= 0 {
			x.pvcUse.del(k)
		} else {
			x.pvcUse.set(k, n)
		}
	}
}

func (x *storageIndex) setPV(pv *api.PersistentVolume) {
	var aff *api.NodeSelectorMatcher
	if na := pv.Spec.NodeAffinity; na != nil && na.Required != nil {
		aff = api.CompileNodeSelector(na.Required)
	}
	if old, ok := x.pvs.m[pv.Name]; ok {
		x.pvsByClass.remove(api.VolumeClass(old.pv), nsName{"", pv.Name})
	}
	x.pvs.set(pv.Name, pvEntry{pv: pv, affinity: aff})
	x.pvsByClass.put(api.VolumeClass(pv), nsName{"", pv.Name}, pv)
}

func (x *storageIndex) setVA(va *api.VolumeAttachment) {
	if old, ok := x.vas.m[va.Name]; ok {
		x.vasByNode.remove(old.Spec.NodeName, nsName{"", va.Name})
	}
	x.vas.set(va.Name, va)
	x.vasByNode.put(va.Spec.NodeName, nsName{"", va.Name}, va)
}

// WithStorage records storage and Dynamic Resource Allocation objects
// (validated; a CSINode needs its node to be in the snapshot; a nil or
// duplicate object is an error). A set of them is added with
// WithStorage(objs.Each()...).
func WithStorage(objs ...api.StorageObject) SnapshotOption {
	return func(s *Snapshot) error {
		for _, o := range objs {
			if o == nil {
				return fmt.Errorf("framework: snapshot: nil storage object")
			}
			k, ns, name := api.StorageObjectKey(o)
			if _, ok := s.storageObject(k, ns, name); ok {
				return fmt.Errorf("framework: snapshot: duplicate %s", k.Describe(ns, name))
			}
			if _, err := s.SetStorageObject(o); err != nil {
				return err
			}
		}
		return nil
	}
}

// storageObject returns the stored object of a kind by key.
func (s *Snapshot) storageObject(k api.StorageKind, ns, name string) (api.StorageObject, bool) {
	x := &s.storage
	if k.IsDRA() {
		return x.dra.get(k, ns, name)
	}
	switch k {
	case api.KindPersistentVolume:
		e, ok := x.pvs.m[name]
		return e.pv, ok
	case api.KindPersistentVolumeClaim:
		o, ok := x.pvcs.m[nsName{ns, name}]
		return o, ok
	case api.KindStorageClass:
		o, ok := x.classes.m[name]
		return o, ok
	case api.KindCSIDriver:
		o, ok := x.drivers.m[name]
		return o, ok
	case api.KindCSIStorageCapacity:
		o, ok := x.capacities.m[nsName{ns, name}]
		return o, ok
	case api.KindVolumeAttachment:
		o, ok := x.vas.m[name]
		return o, ok
	case api.KindCSINode:
		if ni, ok := s.Get(name); ok && ni.csiNode != nil {
			return ni.csiNode, true
		}
	}
	return nil, false
}

// StorageObject returns the stored object of kind k named name (in
// namespace ns for namespaced kinds), or false.
func (s *Snapshot) StorageObject(k api.StorageKind, ns, name string) (api.StorageObject, bool) {
	if !k.Namespaced() {
		ns = ""
	}
	return s.storageObject(k, ns, name)
}

// SetStorageObject adds or replaces a storage object (by kind and key) after
// validating it, and returns the object it replaced (nil when new). The
// snapshot keeps the pointer: treat the object as read-only afterwards. A
// CSINode whose node is not in the snapshot is an error naming both. The
// sorted lists (PersistentVolumesOfClass, CSIStorageCapacities,
// VolumeAttachmentsOnNode) take the change on their next read, which
// merges every change since the last in O(k log k) plus a copy of each
// list changed: adding n objects costs O(n log n), not O(n²).
func (s *Snapshot) SetStorageObject(o api.StorageObject) (api.StorageObject, error) {
	if o == nil {
		return nil, fmt.Errorf("framework: snapshot: nil storage object")
	}
	if err := api.ValidateStorageObject(o); err != nil {
		return nil, err
	}
	k, ns, name := api.StorageObjectKey(o)
	old, had := s.storageObject(k, ns, name)
	x := &s.storage
	switch v := o.(type) {
	case *api.PersistentVolume:
		x.setPV(v)
	case *api.PersistentVolumeClaim:
		x.pvcs.set(nsName{ns, name}, v)
	case *api.StorageClass:
		x.classes.set(name, v)
	case *api.CSIDriver:
		x.drivers.set(name, v)
	case *api.CSIStorageCapacity:
		x.capacities.set(nsName{ns, name}, v)
		x.capList.put("", nsName{ns, name}, v)
	case *api.VolumeAttachment:
		x.setVA(v)
	case *api.ResourceSlice, *api.DeviceClass, *api.ResourceClaim, *api.ResourceClaimTemplate, *api.DeviceTaintRule:
		x.dra.set(o)
	case *api.CSINode:
		if _, ok := s.Get(name); !ok {
			return nil, fmt.Errorf("framework: snapshot: csinode %q: node %q not found (a CSINode is named after its node)", name, name)
		}
		ni, _ := s.mutable(name)
		ni.setCSINode(v)
	}
	x.changed(k)
	s.listsChanged()
	if !had {
		return nil, nil
	}
	return old, nil
}

// listsChanged marks the lists to be merged on the next read after a
// change, or merges them now once the log outgrows the lists' objects
// twice over, so that changes with no reader in between (a replay without
// volume plugins) keep the log, and each merge's cost, in proportion to the
// snapshot: amortized O(log n) per change.
func (s *Snapshot) listsChanged() {
	x := &s.storage
	n := x.logged()
	if n == 0 {
		return
	}
	s.storageDirty.Store(true)
	if n > 2*(len(x.pvs.m)+len(x.capacities.m)+len(x.vas.m))+64 {
		s.mergeStorageLists()
	}
}

// DeleteStorageObject removes the object of kind k named name (in namespace
// ns for namespaced kinds) and returns it; an unknown object is an error.
func (s *Snapshot) DeleteStorageObject(k api.StorageKind, ns, name string) (api.StorageObject, error) {
	if !k.Namespaced() {
		ns = ""
	}
	old, ok := s.storageObject(k, ns, name)
	if !ok {
		return nil, fmt.Errorf("framework: snapshot: %s not found", k.Describe(ns, name))
	}
	x := &s.storage
	switch k {
	case api.KindPersistentVolume:
		x.pvsByClass.remove(api.VolumeClass(old.(*api.PersistentVolume)), nsName{"", name})
		x.pvs.del(name)
	case api.KindPersistentVolumeClaim:
		x.pvcs.del(nsName{ns, name})
	case api.KindStorageClass:
		x.classes.del(name)
	case api.KindCSIDriver:
		x.drivers.del(name)
	case api.KindCSIStorageCapacity:
		x.capacities.del(nsName{ns, name})
		x.capList.remove("", nsName{ns, name})
	case api.KindVolumeAttachment:
		x.vasByNode.remove(old.(*api.VolumeAttachment).Spec.NodeName, nsName{"", name})
		x.vas.del(name)
	case api.KindCSINode:
		ni, _ := s.mutable(name)
		ni.setCSINode(nil)
	case api.KindResourceSlice, api.KindDeviceClass, api.KindResourceClaim, api.KindResourceClaimTemplate, api.KindDeviceTaintRule:
		x.dra.del(k, ns, name)
	}
	x.changed(k)
	s.listsChanged()
	return old, nil
}

// PersistentVolume returns the named volume.
func (s *Snapshot) PersistentVolume(name string) (*api.PersistentVolume, bool) {
	e, ok := s.storage.pvs.m[name]
	return e.pv, ok
}

// PersistentVolumesOfClass returns the volumes of a storage class (by
// VolumeClass; "" for volumes without a class), sorted by name. The slice is
// shared: do not modify it.
func (s *Snapshot) PersistentVolumesOfClass(class string) []*api.PersistentVolume {
	return s.storageLists().pvsByClass.lists.m[class]
}

// VolumeAffinity returns the compiled required node affinity of pv (nil
// when it has none): the snapshot's compiled copy when pv shares its node
// affinity with the stored volume of that name (as assumed copies do),
// compiled now otherwise.
func (s *Snapshot) VolumeAffinity(pv *api.PersistentVolume) *api.NodeSelectorMatcher {
	na := pv.Spec.NodeAffinity
	if na == nil || na.Required == nil {
		return nil
	}
	if e, ok := s.storage.pvs.m[pv.Name]; ok && e.pv.Spec.NodeAffinity == na {
		return e.affinity
	}
	return api.CompileNodeSelector(na.Required)
}

// PersistentVolumeClaim returns the claim namespace/name.
func (s *Snapshot) PersistentVolumeClaim(namespace, name string) (*api.PersistentVolumeClaim, bool) {
	c, ok := s.storage.pvcs.m[nsName{namespace, name}]
	return c, ok
}

// StorageClass returns the named class.
func (s *Snapshot) StorageClass(name string) (*api.StorageClass, bool) {
	c, ok := s.storage.classes.m[name]
	return c, ok
}

// CSIDriver returns the named driver.
func (s *Snapshot) CSIDriver(name string) (*api.CSIDriver, bool) {
	d, ok := s.storage.drivers.m[name]
	return d, ok
}

// CSINode returns the CSINode of the named node.
func (s *Snapshot) CSINode(node string) (*api.CSINode, bool) {
	if ni, ok := s.Get(node); ok && ni.csiNode != nil {
		return ni.csiNode, true
	}
	return nil, false
}

// CSIStorageCapacities returns every CSIStorageCapacity sorted by
// namespace/name. The slice is shared: do not modify it.
func (s *Snapshot) CSIStorageCapacities() []*api.CSIStorageCapacity {
	return s.storageLists().capList.lists.m[""]
}

// VolumeAttachmentsOnNode returns the VolumeAttachments naming node,
// sorted by name. The slice is shared: do not modify it.
func (s *Snapshot) VolumeAttachmentsOnNode(node string) []*api.VolumeAttachment {
	return s.storageLists().vasByNode.lists.m[node]
}

// IsPVCUsedByPods reports whether a pod assigned to a node of the snapshot
// has a volume naming the claim namespace/name (kube-scheduler's
// StorageInfos().IsPVCUsedByPods).
func (s *Snapshot) IsPVCUsedByPods(namespace, name string) bool {
	return s.storage.pvcUse.m[nsName{namespace, name}] > 0
}

// Storage returns every storage object, each kind sorted by key (CSINodes
// in node order); the DRA objects are read through DRA.
func (s *Snapshot) Storage() api.StorageObjects {
	x := &s.storage
	var out api.StorageObjects
	for _, e := range x.pvs.m {
		out.PersistentVolumes = append(out.PersistentVolumes, e.pv)
	}
	slices.SortFunc(out.PersistentVolumes, func(a, b *api.PersistentVolume) int { return cmp.Compare(a.Name, b.Name) })
	for _, c := range x.pvcs.m {
		out.PersistentVolumeClaims = append(out.PersistentVolumeClaims, c)
	}
	slices.SortFunc(out.PersistentVolumeClaims, func(a, b *api.PersistentVolumeClaim) int { return cmp.Compare(a.Key(), b.Key()) })
	out.StorageClasses = sortedValues(x.classes.m)
	out.CSIDrivers = sortedValues(x.drivers.m)
	out.VolumeAttachments = sortedValues(x.vas.m)
	out.CSIStorageCapacities = slices.Clone(s.storageLists().capList.lists.m[""])
	for _, n := range s.nodes {
		if n.csiNode != nil {
			out.CSINodes = append(out.CSINodes, n.csiNode)
		}
	}
	return out
}

func sortedValues[T api.StorageObject](m map[string]T) []T {
	out := make([]T, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, m[k])
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// setCSINode attaches (or, with nil, detaches) the node's CSINode.
func (n *NodeInfo) setCSINode(c *api.CSINode) {
	n.csiNode = c
	n.csiMigrated = nil
	if c != nil {
		if v := c.Annotations[api.AnnMigratedPlugins]; v != "" {
			n.csiMigrated = strings.Split(v, ",")
		}
	}
	n.Generation++
}

// CSINode returns the node's CSINode, or nil.
func (n *NodeInfo) CSINode() *api.CSINode { return n.csiNode }

// MigratedToCSI reports whether the node's CSINode lists the in-tree
// plugin in its migrated-plugins annotation (false without a CSINode).
func (n *NodeInfo) MigratedToCSI(plugin string) bool { return slices.Contains(n.csiMigrated, plugin) }
