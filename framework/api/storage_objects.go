package api

import "fmt"

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

// StorageObject is one of the storage objects a framework.Snapshot holds:
// *PersistentVolume, *PersistentVolumeClaim, *StorageClass, *CSINode,
// *CSIDriver, *CSIStorageCapacity or *VolumeAttachment, or one of the
// Dynamic Resource Allocation objects (*ResourceSlice, *DeviceClass,
// *ResourceClaim, *ResourceClaimTemplate, *DeviceTaintRule).
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
// (volume claims, capacities, resource claims and their templates); the
// others are cluster-scoped.
func (k StorageKind) Namespaced() bool {
	return k == KindPersistentVolumeClaim || k == KindCSIStorageCapacity ||
		k == KindResourceClaim || k == KindResourceClaimTemplate
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
	case *ResourceSlice:
		if v == nil {
			return errNilDRAObject
		}
		return validateDRAObject(v)
	case *DeviceClass:
		if v == nil {
			return errNilDRAObject
		}
		return validateDRAObject(v)
	case *ResourceClaim:
		if v == nil {
			return errNilDRAObject
		}
		return validateDRAObject(v)
	case *ResourceClaimTemplate:
		if v == nil {
			return errNilDRAObject
		}
		return validateDRAObject(v)
	case *DeviceTaintRule:
		if v == nil {
			return errNilDRAObject
		}
		return validateDRAObject(v)
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

// Describe names an object of the kind for messages and keys:
// `PersistentVolumeClaim "default/data"`, `StorageClass "fast"`.
func (k StorageKind) Describe(ns, name string) string {
	if ns == "" {
		return fmt.Sprintf("%s %q", k, name)
	}
	return fmt.Sprintf("%s %q", k, ns+"/"+name)
}
