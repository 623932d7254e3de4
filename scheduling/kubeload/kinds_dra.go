package kubeload

import (
	"github.com/schedkit/schedkit/framework/api"
)

// This file reads the Dynamic Resource Allocation objects
// (resource.k8s.io: ResourceSlice, DeviceClass, ResourceClaim,
// ResourceClaimTemplate and DeviceTaintRule). Each decodes straight into framework's type,
// which follows the API's JSON shape, so every field framework models is
// strict and every other one is counted in the report. v1beta2 has the
// JSON shape of v1 and is read as v1; v1beta1 (devices under "basic",
// requests without "exactly") is not read, and its objects are counted
// among the kinds the loader does not read.

// Kinds of the DRA objects, as the report and duplicate detection name
// them.
const (
	kindResourceSlice         = "ResourceSlice"
	kindDeviceClass           = "DeviceClass"
	kindResourceClaim         = "ResourceClaim"
	kindResourceClaimTemplate = "ResourceClaimTemplate"
	kindDeviceTaintRule       = "DeviceTaintRule"
)

// draVersions are the resource.k8s.io versions read: those with v1's JSON
// shape.
var draVersions = []string{"v1", "v1beta2"}

// draKindSpecs are the DRA kinds a dump may hold.
func draKindSpecs() []kindSpec {
	return []kindSpec{
		{group: "resource.k8s.io", versions: draVersions, kind: kindResourceSlice,
			newObj: func() any { return new(api.ResourceSlice) }, add: (*Loader).addResourceSlice},
		{group: "resource.k8s.io", versions: draVersions, kind: kindDeviceClass,
			newObj: func() any { return new(api.DeviceClass) }, add: (*Loader).addDeviceClass},
		{group: "resource.k8s.io", versions: draVersions, kind: kindResourceClaim,
			newObj: func() any { return new(api.ResourceClaim) }, add: (*Loader).addResourceClaim},
		{group: "resource.k8s.io", versions: draVersions, kind: kindResourceClaimTemplate,
			newObj: func() any { return new(api.ResourceClaimTemplate) }, add: (*Loader).addResourceClaimTemplate},
		{group: "resource.k8s.io", versions: draVersions, kind: kindDeviceTaintRule,
			newObj: func() any { return new(api.DeviceTaintRule) }, add: (*Loader).addDeviceTaintRule},
	}
}

func (l *Loader) addResourceSlice(obj any, src source) error {
	s := obj.(*api.ResourceSlice)
	if err := api.ValidateResourceSlice(s); err != nil {
		return err
	}
	if err := l.claim(kindResourceSlice, "", s.Name, src); err != nil {
		return err
	}
	l.dra.ResourceSlices = append(l.dra.ResourceSlices, s)
	return nil
}

func (l *Loader) addDeviceClass(obj any, src source) error {
	c := obj.(*api.DeviceClass)
	if err := api.ValidateDeviceClass(c); err != nil {
		return err
	}
	if err := l.claim(kindDeviceClass, "", c.Name, src); err != nil {
		return err
	}
	l.dra.DeviceClasses = append(l.dra.DeviceClasses, c)
	return nil
}

func (l *Loader) addResourceClaim(obj any, src source) error {
	c := obj.(*api.ResourceClaim)
	c.Namespace = orDefault(c.Namespace)
	c.Spec.Devices.SetDefaults()
	if err := api.ValidateResourceClaim(c); err != nil {
		return err
	}
	if err := l.claim(kindResourceClaim, c.Namespace, c.Name, src); err != nil {
		return err
	}
	l.dra.ResourceClaims = append(l.dra.ResourceClaims, c)
	return nil
}

func (l *Loader) addResourceClaimTemplate(obj any, src source) error {
	t := obj.(*api.ResourceClaimTemplate)
	t.Namespace = orDefault(t.Namespace)
	t.Spec.Spec.Devices.SetDefaults()
	if err := api.ValidateResourceClaimTemplate(t); err != nil {
		return err
	}
	if err := l.claim(kindResourceClaimTemplate, t.Namespace, t.Name, src); err != nil {
		return err
	}
	l.dra.ResourceClaimTemplates = append(l.dra.ResourceClaimTemplates, t)
	return nil
}

func (l *Loader) addDeviceTaintRule(obj any, src source) error {
	r := obj.(*api.DeviceTaintRule)
	if err := api.ValidateDeviceTaintRule(r); err != nil {
		return err
	}
	if err := l.claim(kindDeviceTaintRule, "", r.Name, src); err != nil {
		return err
	}
	l.dra.DeviceTaintRules = append(l.dra.DeviceTaintRules, r)
	return nil
}
