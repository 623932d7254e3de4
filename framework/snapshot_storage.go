package framework

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// StorageKind names a kind of storage object.
type StorageKind string

// Storage kinds.
const (
	KindPersistentVolume      StorageKind = "PersistentVolume"
	KindPersistentVolumeClaim StorageKind = "PersistentVolumeClaim"
	KindStorageClass          StorageKind = "StorageClass"
	KindCSINode               StorageKind = "CSINode"
	KindCSIDriver             StorageKind = "CSIDriver"
	KindCSIStorageCapacity    StorageKind = "CSIStorageCapacity"
	KindVolumeAttachment      StorageKind = "VolumeAttachment"
)

// StorageObject is one of the storage objects a Snapshot holds:
// *PersistentVolume, *PersistentVolumeClaim, *StorageClass, *CSINode,
// *CSIDriver, *CSIStorageCapacity or *VolumeAttachment.
type StorageObject interface {
	// StorageKind names the object's kind.
	StorageKind() StorageKind
	meta() *ObjectMeta
}

// StorageKind returns KindPersistentVolume.
func (*PersistentVolume) StorageKind() StorageKind { return KindPersistentVolume }

// StorageKind returns KindPersistentVolumeClaim.
func (*PersistentVolumeClaim) StorageKind() StorageKind { return KindPersistentVolumeClaim }

// StorageKind returns KindStorageClass.
func (*StorageClass) StorageKind() StorageKind { return KindStorageClass }

// StorageKind returns KindCSINode.
func (*CSINode) StorageKind() StorageKind { return KindCSINode }

// StorageKind returns KindCSIDriver.
func (*CSIDriver) StorageKind() StorageKind { return KindCSIDriver }

// StorageKind returns KindCSIStorageCapacity.
func (*CSIStorageCapacity) StorageKind() StorageKind { return KindCSIStorageCapacity }

// StorageKind returns KindVolumeAttachment.
func (*VolumeAttachment) StorageKind() StorageKind { return KindVolumeAttachment }

func (o *PersistentVolume) meta() *ObjectMeta      { return &o.ObjectMeta }
func (o *PersistentVolumeClaim) meta() *ObjectMeta { return &o.ObjectMeta }
func (o *StorageClass) meta() *ObjectMeta          { return &o.ObjectMeta }
func (o *CSINode) meta() *ObjectMeta               { return &o.ObjectMeta }
func (o *CSIDriver) meta() *ObjectMeta             { return &o.ObjectMeta }
func (o *CSIStorageCapacity) meta() *ObjectMeta    { return &o.ObjectMeta }
func (o *VolumeAttachment) meta() *ObjectMeta      { return &o.ObjectMeta }

// Namespaced reports whether objects of the kind live in a namespace
// (claims and capacities); the others are cluster-scoped.
func (k StorageKind) Namespaced() bool {
	return k == KindPersistentVolumeClaim || k == KindCSIStorageCapacity
}

// StorageObjectKey returns the object's kind, namespace ("" for
// cluster-scoped kinds) and name.
func StorageObjectKey(o StorageObject) (StorageKind, string, string) {
	k, m := o.StorageKind(), o.meta()
	if !k.Namespaced() {
		return k, "", m.Name
	}
	return k, m.Namespace, m.Name
}

// ValidateStorageObject runs the validation of the object's kind.
func ValidateStorageObject(o StorageObject) error {
	switch v := o.(type) {
	case *PersistentVolume:
		return ValidatePersistentVolume(v)
	case *PersistentVolumeClaim:
		return ValidatePersistentVolumeClaim(v)
	case *StorageClass:
		return ValidateStorageClass(v)
	case *CSINode:
		return ValidateCSINode(v)
	case *CSIDriver:
		return ValidateCSIDriver(v)
	case *CSIStorageCapacity:
		return ValidateCSIStorageCapacity(v)
	case *VolumeAttachment:
		return ValidateVolumeAttachment(v)
	}
	return fmt.Errorf("framework: unknown storage object %T", o)
}

// Each returns the objects in a fixed order: by kind as listed in the
// struct, then as given.
func (s *StorageObjects) Each() []StorageObject {
	var out []StorageObject
	add := func(o StorageObject) { out = append(out, o) }
	for _, o := range s.StorageClasses {
		add(o)
	}
	for _, o := range s.CSIDrivers {
		add(o)
	}
	for _, o := range s.CSINodes {
		add(o)
	}
	for _, o := range s.PersistentVolumes {
		add(o)
	}
	for _, o := range s.PersistentVolumeClaims {
		add(o)
	}
	for _, o := range s.CSIStorageCapacities {
		add(o)
	}
	for _, o := range s.VolumeAttachments {
		add(o)
	}
	return out
}

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
	pv       *PersistentVolume
	affinity *NodeSelectorMatcher
}

// storageIndex holds a snapshot's storage objects (CSINodes live on their
// NodeInfos). Lists handed to readers are never written: a change builds a
// new list.
type storageIndex struct {
	pvs        cowMap[string, pvEntry]
	pvsByClass cowMap[string, []*PersistentVolume] // by name
	pvcs       cowMap[nsName, *PersistentVolumeClaim]
	classes    cowMap[string, *StorageClass]
	drivers    cowMap[string, *CSIDriver]
	capacities cowMap[nsName, *CSIStorageCapacity]
	capList    []*CSIStorageCapacity // by namespace/name
	vas        cowMap[string, *VolumeAttachment]
	vasByNode  cowMap[string, []*VolumeAttachment] // by name
	// pvcUse counts the references of assigned pods' claim volumes to
	// each claim (kube-scheduler's usedPVCSet, from NodeInfo.PVCRefCounts).
	pvcUse cowMap[nsName, int32]
}

// share marks every map shared and returns a copy for a clone.
func (x *storageIndex) share() storageIndex {
	x.pvs.shared, x.pvsByClass.shared, x.pvcs.shared, x.classes.shared = true, true, true, true
	x.drivers.shared, x.capacities.shared, x.vas.shared, x.vasByNode.shared, x.pvcUse.shared = true, true, true, true, true
	return *x
}

// podClaims adjusts the claim reference counts for an assigned pod.
func (x *storageIndex) podClaims(pod *Pod, delta int32) {
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

// withName returns list (sorted by name) with o replaced or inserted or,
// when present is false, the element named name removed: a new slice, so
// that readers of the old one are not disturbed. O(len(list)).
func withName[T StorageObject](list []T, name string, o T, present bool) []T {
	i, found := slices.BinarySearchFunc(list, name, func(e T, n string) int { return cmp.Compare(e.meta().Name, n) })
	out := make([]T, 0, len(list)+1)
	out = append(out, list[:i]...)
	if present {
		out = append(out, o)
	}
	if found {
		i++
	}
	return append(out, list[i:]...)
}

func (x *storageIndex) setPV(pv *PersistentVolume) {
	var aff *NodeSelectorMatcher
	if na := pv.Spec.NodeAffinity; na != nil && na.Required != nil {
		aff = CompileNodeSelector(na.Required)
	}
	if old, ok := x.pvs.m[pv.Name]; ok {
		x.classList(VolumeClass(old.pv), pv.Name, nil, false)
	}
	x.pvs.set(pv.Name, pvEntry{pv: pv, affinity: aff})
	x.classList(VolumeClass(pv), pv.Name, pv, true)
}

func (x *storageIndex) classList(class, name string, pv *PersistentVolume, present bool) {
	l := withName(x.pvsByClass.m[class], name, pv, present)
	if len(l) == 0 {
		x.pvsByClass.del(class)
		return
	}
	x.pvsByClass.set(class, l)
}

func (x *storageIndex) setVA(va *VolumeAttachment) {
	if old, ok := x.vas.m[va.Name]; ok {
		x.nodeVAs(old.Spec.NodeName, va.Name, nil, false)
	}
	x.vas.set(va.Name, va)
	x.nodeVAs(va.Spec.NodeName, va.Name, va, true)
}

func (x *storageIndex) nodeVAs(node, name string, va *VolumeAttachment, present bool) {
	l := withName(x.vasByNode.m[node], name, va, present)
	if len(l) == 0 {
		x.vasByNode.del(node)
		return
	}
	x.vasByNode.set(node, l)
}

func (x *storageIndex) refreshCapList() {
	l := make([]*CSIStorageCapacity, 0, len(x.capacities.m))
	for _, c := range x.capacities.m {
		l = append(l, c)
	}
	slices.SortFunc(l, func(a, b *CSIStorageCapacity) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	x.capList = l
}

// WithStorage records storage objects (validated; a CSINode needs its node
// to be in the snapshot; a duplicate is an error).
func WithStorage(objs StorageObjects) SnapshotOption {
	return func(s *Snapshot) error {
		for _, o := range objs.Each() {
			k, ns, name := StorageObjectKey(o)
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

// Describe names an object of the kind for messages and keys:
// `PersistentVolumeClaim "default/data"`, `StorageClass "fast"`.
func (k StorageKind) Describe(ns, name string) string {
	if ns == "" {
		return fmt.Sprintf("%s %q", k, name)
	}
	return fmt.Sprintf("%s %q", k, ns+"/"+name)
}

// storageObject returns the stored object of a kind by key.
func (s *Snapshot) storageObject(k StorageKind, ns, name string) (StorageObject, bool) {
	x := &s.storage
	switch k {
	case KindPersistentVolume:
		e, ok := x.pvs.m[name]
		return e.pv, ok
	case KindPersistentVolumeClaim:
		o, ok := x.pvcs.m[nsName{ns, name}]
		return o, ok
	case KindStorageClass:
		o, ok := x.classes.m[name]
		return o, ok
	case KindCSIDriver:
		o, ok := x.drivers.m[name]
		return o, ok
	case KindCSIStorageCapacity:
		o, ok := x.capacities.m[nsName{ns, name}]
		return o, ok
	case KindVolumeAttachment:
		o, ok := x.vas.m[name]
		return o, ok
	case KindCSINode:
		if ni, ok := s.Get(name); ok && ni.csiNode != nil {
			return ni.csiNode, true
		}
	}
	return nil, false
}

// StorageObject returns the stored object of kind k named name (in
// namespace ns for namespaced kinds), or false.
func (s *Snapshot) StorageObject(k StorageKind, ns, name string) (StorageObject, bool) {
	if !k.Namespaced() {
		ns = ""
	}
	return s.storageObject(k, ns, name)
}

// SetStorageObject adds or replaces a storage object (by kind and key) after
// validating it, and returns the object it replaced (nil when new). The
// snapshot keeps the pointer: treat the object as read-only afterwards. A
// CSINode whose node is not in the snapshot is an error naming both.
func (s *Snapshot) SetStorageObject(o StorageObject) (StorageObject, error) {
	if o == nil {
		return nil, fmt.Errorf("framework: snapshot: nil storage object")
	}
	if err := ValidateStorageObject(o); err != nil {
		return nil, err
	}
	k, ns, name := StorageObjectKey(o)
	old, had := s.storageObject(k, ns, name)
	x := &s.storage
	switch v := o.(type) {
	case *PersistentVolume:
		x.setPV(v)
	case *PersistentVolumeClaim:
		x.pvcs.set(nsName{ns, name}, v)
	case *StorageClass:
		x.classes.set(name, v)
	case *CSIDriver:
		x.drivers.set(name, v)
	case *CSIStorageCapacity:
		x.capacities.set(nsName{ns, name}, v)
		x.refreshCapList()
	case *VolumeAttachment:
		x.setVA(v)
	case *CSINode:
		if _, ok := s.Get(name); !ok {
			return nil, fmt.Errorf("framework: snapshot: csinode %q: node %q not found (a CSINode is named after its node)", name, name)
		}
		ni, _ := s.mutable(name)
		ni.setCSINode(v)
	}
	if !had {
		return nil, nil
	}
	return old, nil
}

// DeleteStorageObject removes the object of kind k named name (in namespace
// ns for namespaced kinds) and returns it; an unknown object is an error.
func (s *Snapshot) DeleteStorageObject(k StorageKind, ns, name string) (StorageObject, error) {
	if !k.Namespaced() {
		ns = ""
	}
	old, ok := s.storageObject(k, ns, name)
	if !ok {
		return nil, fmt.Errorf("framework: snapshot: %s not found", k.Describe(ns, name))
	}
	x := &s.storage
	switch k {
	case KindPersistentVolume:
		x.classList(VolumeClass(old.(*PersistentVolume)), name, nil, false)
		x.pvs.del(name)
	case KindPersistentVolumeClaim:
		x.pvcs.del(nsName{ns, name})
	case KindStorageClass:
		x.classes.del(name)
	case KindCSIDriver:
		x.drivers.del(name)
	case KindCSIStorageCapacity:
		x.capacities.del(nsName{ns, name})
		x.refreshCapList()
	case KindVolumeAttachment:
		x.nodeVAs(old.(*VolumeAttachment).Spec.NodeName, name, nil, false)
		x.vas.del(name)
	case KindCSINode:
		ni, _ := s.mutable(name)
		ni.setCSINode(nil)
	}
	return old, nil
}

// PersistentVolume returns the named volume.
func (s *Snapshot) PersistentVolume(name string) (*PersistentVolume, bool) {
	e, ok := s.storage.pvs.m[name]
	return e.pv, ok
}

// PersistentVolumesOfClass returns the volumes of a storage class (by
// VolumeClass; "" for volumes without a class), sorted by name. The slice is
// shared: do not modify it.
func (s *Snapshot) PersistentVolumesOfClass(class string) []*PersistentVolume {
	return s.storage.pvsByClass.m[class]
}

// VolumeAffinity returns the compiled required node affinity of pv (nil
// when it has none): the snapshot's compiled copy when pv shares its node
// affinity with the stored volume of that name (as assumed copies do),
// compiled now otherwise.
func (s *Snapshot) VolumeAffinity(pv *PersistentVolume) *NodeSelectorMatcher {
	na := pv.Spec.NodeAffinity
	if na == nil || na.Required == nil {
		return nil
	}
	if e, ok := s.storage.pvs.m[pv.Name]; ok && e.pv.Spec.NodeAffinity == na {
		return e.affinity
	}
	return CompileNodeSelector(na.Required)
}

// PersistentVolumeClaim returns the claim namespace/name.
func (s *Snapshot) PersistentVolumeClaim(namespace, name string) (*PersistentVolumeClaim, bool) {
	c, ok := s.storage.pvcs.m[nsName{namespace, name}]
	return c, ok
}

// StorageClass returns the named class.
func (s *Snapshot) StorageClass(name string) (*StorageClass, bool) {
	c, ok := s.storage.classes.m[name]
	return c, ok
}

// CSIDriver returns the named driver.
func (s *Snapshot) CSIDriver(name string) (*CSIDriver, bool) {
	d, ok := s.storage.drivers.m[name]
	return d, ok
}

// CSINode returns the CSINode of the named node.
func (s *Snapshot) CSINode(node string) (*CSINode, bool) {
	if ni, ok := s.Get(node); ok && ni.csiNode != nil {
		return ni.csiNode, true
	}
	return nil, false
}

// CSIStorageCapacities returns every CSIStorageCapacity sorted by
// namespace/name. The slice is shared: do not modify it.
func (s *Snapshot) CSIStorageCapacities() []*CSIStorageCapacity { return s.storage.capList }

// VolumeAttachmentsOnNode returns the VolumeAttachments naming node,
// sorted by name. The slice is shared: do not modify it.
func (s *Snapshot) VolumeAttachmentsOnNode(node string) []*VolumeAttachment {
	return s.storage.vasByNode.m[node]
}

// IsPVCUsedByPods reports whether a pod assigned to a node of the snapshot
// has a volume naming the claim namespace/name (kube-scheduler's
// StorageInfos().IsPVCUsedByPods).
func (s *Snapshot) IsPVCUsedByPods(namespace, name string) bool {
	return s.storage.pvcUse.m[nsName{namespace, name}] > 0
}

// HasStorage reports whether the snapshot holds any storage object.
func (s *Snapshot) HasStorage() bool {
	x := &s.storage
	if len(x.pvs.m)+len(x.pvcs.m)+len(x.classes.m)+len(x.drivers.m)+len(x.capacities.m)+len(x.vas.m) > 0 {
		return true
	}
	for _, n := range s.nodes {
		if n.csiNode != nil {
			return true
		}
	}
	return false
}

// Storage returns every storage object, each kind sorted by key (CSINodes
// in node order).
func (s *Snapshot) Storage() StorageObjects {
	x := &s.storage
	var out StorageObjects
	for _, e := range x.pvs.m {
		out.PersistentVolumes = append(out.PersistentVolumes, e.pv)
	}
	slices.SortFunc(out.PersistentVolumes, func(a, b *PersistentVolume) int { return cmp.Compare(a.Name, b.Name) })
	for _, c := range x.pvcs.m {
		out.PersistentVolumeClaims = append(out.PersistentVolumeClaims, c)
	}
	slices.SortFunc(out.PersistentVolumeClaims, func(a, b *PersistentVolumeClaim) int { return cmp.Compare(a.Key(), b.Key()) })
	out.StorageClasses = sortedValues(x.classes.m)
	out.CSIDrivers = sortedValues(x.drivers.m)
	out.VolumeAttachments = sortedValues(x.vas.m)
	out.CSIStorageCapacities = slices.Clone(x.capList)
	for _, n := range s.nodes {
		if n.csiNode != nil {
			out.CSINodes = append(out.CSINodes, n.csiNode)
		}
	}
	return out
}

func sortedValues[T StorageObject](m map[string]T) []T {
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
func (n *NodeInfo) setCSINode(c *CSINode) {
	n.csiNode = c
	n.csiMigrated = nil
	if c != nil {
		if v := c.Annotations[AnnMigratedPlugins]; v != "" {
			n.csiMigrated = strings.Split(v, ",")
		}
	}
	n.Generation++
}

// CSINode returns the node's CSINode, or nil.
func (n *NodeInfo) CSINode() *CSINode { return n.csiNode }

// MigratedToCSI reports whether the node's CSINode lists the in-tree
// plugin in its migrated-plugins annotation (false without a CSINode).
func (n *NodeInfo) MigratedToCSI(plugin string) bool { return slices.Contains(n.csiMigrated, plugin) }
