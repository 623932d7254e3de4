package api

import (
	"errors"
	"fmt"
	"slices"
)

// The DRA objects are kept in a snapshot beside the storage objects and go
// through the same entry points (Snapshot.SetStorageObject,
// Cluster.AddStorageObject, the scheduler's storage events), so that forks,
// reverts and cluster events cover them the same way.

// DRA object kinds.
const (
	KindResourceSlice         StorageKind = "ResourceSlice"
	KindDeviceClass           StorageKind = "DeviceClass"
	KindResourceClaim         StorageKind = "ResourceClaim"
	KindResourceClaimTemplate StorageKind = "ResourceClaimTemplate"
	KindDeviceTaintRule       StorageKind = "DeviceTaintRule"
)

// StorageKind returns KindResourceSlice.
func (*ResourceSlice) StorageKind() StorageKind { return KindResourceSlice }

// StorageKind returns KindDeviceClass.
func (*DeviceClass) StorageKind() StorageKind { return KindDeviceClass }

// StorageKind returns KindResourceClaim.
func (*ResourceClaim) StorageKind() StorageKind { return KindResourceClaim }

// StorageKind returns KindResourceClaimTemplate.
func (*ResourceClaimTemplate) StorageKind() StorageKind { return KindResourceClaimTemplate }

// StorageKind returns KindDeviceTaintRule.
func (*DeviceTaintRule) StorageKind() StorageKind { return KindDeviceTaintRule }

func (o *ResourceSlice) meta() *ObjectMeta         { return &o.ObjectMeta }
func (o *DeviceClass) meta() *ObjectMeta           { return &o.ObjectMeta }
func (o *ResourceClaim) meta() *ObjectMeta         { return &o.ObjectMeta }
func (o *ResourceClaimTemplate) meta() *ObjectMeta { return &o.ObjectMeta }
func (o *DeviceTaintRule) meta() *ObjectMeta       { return &o.ObjectMeta }

// IsDRA reports whether k is one of the Dynamic Resource Allocation kinds.
func (k StorageKind) IsDRA() bool {
	switch k {
	case KindResourceSlice, KindDeviceClass, KindResourceClaim, KindResourceClaimTemplate, KindDeviceTaintRule:
		return true
	}
	return false
}

// Key returns the claim's "namespace/name".
func (c *ResourceClaim) Key() string { return c.Namespace + "/" + c.Name }

// Each returns the objects in dependency order: classes, slices, taint
// rules, templates, claims.
func (d *DRAObjects) Each() []StorageObject {
	var out []StorageObject
	for _, o := range d.DeviceClasses {
		out = append(out, o)
	}
	for _, o := range d.ResourceSlices {
		out = append(out, o)
	}
	for _, o := range d.DeviceTaintRules {
		out = append(out, o)
	}
	for _, o := range d.ResourceClaimTemplates {
		out = append(out, o)
	}
	for _, o := range d.ResourceClaims {
		out = append(out, o)
	}
	return out
}

// DeviceID names one device: its driver, pool and name.
type DeviceID struct {
	Driver, Pool, Device string
}

// String returns "driver/pool/device".
func (d DeviceID) String() string { return d.Driver + "/" + d.Pool + "/" + d.Device }

// validateDRAObject checks a DRA object as the API server would, after
// its defaults (ValidateResourceSlice and its siblings), and that claims
// and templates have a namespace; the error names the object.
func validateDRAObject(o StorageObject) error {
	k, m := o.StorageKind(), o.meta()
	if k.Namespaced() && m.Name != "" && m.Namespace == "" {
		return fmt.Errorf("framework: %s %q: metadata.namespace: empty", k, m.Name)
	}
	var err error
	switch v := o.(type) {
	case *ResourceSlice:
		err = ValidateResourceSlice(v)
	case *DeviceClass:
		err = ValidateDeviceClass(v)
	case *ResourceClaim:
		if v.Name == "" {
			err = errors.New("metadata.name: empty")
		} else {
			err = validateDeviceClaim("spec.devices", &v.Spec.Devices, true)
		}
	case *ResourceClaimTemplate:
		if v.Name == "" {
			err = errors.New("metadata.name: empty")
		} else {
			err = validateDeviceClaim("spec.spec.devices", &v.Spec.Spec.Devices, true)
		}
	case *DeviceTaintRule:
		err = ValidateDeviceTaintRule(v)
	}
	if err != nil {
		name := m.Name
		if k.Namespaced() {
			name = m.Namespace + "/" + m.Name
		}
		return fmt.Errorf("framework: %s %q: %w", k, name, err)
	}
	return nil
}

var errNilDRAObject = errors.New("framework: nil DRA object")

// Defaulted returns a copy of dc with the API server's defaults
// (SetDefaults), dc itself unchanged.
func (dc DeviceClaim) Defaulted() DeviceClaim {
	out := dc
	out.Requests = slices.Clone(dc.Requests)
	for i := range out.Requests {
		r := &out.Requests[i]
		if r.Exactly != nil {
			e := *r.Exactly
			r.Exactly = &e
		}
		r.FirstAvailable = slices.Clone(r.FirstAvailable)
	}
	out.SetDefaults()
	return out
}
