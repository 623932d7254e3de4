package kubeload

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/schedkit/schedkit/framework/api"
)

// This file reads the Dynamic Resource Allocation objects
// (resource.k8s.io: ResourceSlice, DeviceClass, ResourceClaim and
// ResourceClaimTemplate). Each decodes straight into framework's type,
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
	}
}

// featureDRA is the report's name for pods using resource claims.
const featureDRA = "dynamic resource allocation (resourceClaims)"

// draFeature names the pod's use of Dynamic Resource Allocation as a
// scheduling feature schedkit does not model ("" when the pod has no
// claims): the claims decode into the pod, but no plugin of the default
// profile allocates devices for them yet, so the pod is scheduled as if it
// had none. The DynamicResources plugin makes this rule obsolete.
func draFeature(p *api.Pod) string {
	if len(p.Spec.ResourceClaims) > 0 {
		return featureDRA
	}
	for _, cs := range [][]api.Container{p.Spec.InitContainers, p.Spec.Containers} {
		for i := range cs {
			if len(cs[i].Resources.Claims) > 0 {
				return featureDRA
			}
		}
	}
	return ""
}

// podFeatures returns the unmodelled features of a pod read with the
// decoder's features (those its ignored fields mean), plus those its
// modelled fields mean (draFeature).
func podFeatures(p *api.Pod, decoded []string) []string {
	out := slices.Clone(decoded)
	if f := draFeature(p); f != "" {
		out = appendOnce(out, f)
	}
	return out
}

func (l *Loader) addResourceSlice(obj any, src source) error {
	s := obj.(*api.ResourceSlice)
	if err := validateResourceSlice(s); err != nil {
		return err
	}
	if err := l.claim(kindResourceSlice, "", s.Name, src); err != nil {
		return err
	}
	l.dra.ResourceSlices = append(l.dra.ResourceSlices, s)
	return nil
}

// validateResourceSlice checks what the allocator relies on: names set,
// and a pool generation and slice count that can be compared.
func validateResourceSlice(s *api.ResourceSlice) error {
	switch {
	case s.Name == "":
		return errors.New("metadata.name: empty")
	case s.Spec.Driver == "":
		return errors.New("spec.driver: empty")
	case s.Spec.Pool.Name == "":
		return errors.New("spec.pool.name: empty")
	case s.Spec.Pool.Generation < 0:
		return fmt.Errorf("spec.pool.generation %d: must not be negative", s.Spec.Pool.Generation)
	case s.Spec.Pool.ResourceSliceCount < 1:
		return fmt.Errorf("spec.pool.resourceSliceCount %d: must be at least 1", s.Spec.Pool.ResourceSliceCount)
	}
	for i := range s.Spec.Devices {
		if s.Spec.Devices[i].Name == "" {
			return fmt.Errorf("spec.devices[%d].name: empty", i)
		}
	}
	return nil
}

func (l *Loader) addDeviceClass(obj any, src source) error {
	c := obj.(*api.DeviceClass)
	if c.Name == "" {
		return errors.New("metadata.name: empty")
	}
	if err := validateSelectors("spec.selectors", c.Spec.Selectors); err != nil {
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
	if c.Name == "" {
		return errors.New("metadata.name: empty")
	}
	if err := validateDeviceClaim("spec.devices", &c.Spec.Devices); err != nil {
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
	if t.Name == "" {
		return errors.New("metadata.name: empty")
	}
	if err := validateDeviceClaim("spec.spec.devices", &t.Spec.Spec.Devices); err != nil {
		return err
	}
	if err := l.claim(kindResourceClaimTemplate, t.Namespace, t.Name, src); err != nil {
		return err
	}
	l.dra.ResourceClaimTemplates = append(l.dra.ResourceClaimTemplates, t)
	return nil
}

// validateDeviceClaim checks a claim's requests as the API server does
// where the allocator depends on it (each request named, uniquely, with
// exactly one of exactly and firstAvailable, a known allocation mode and a
// count that is not negative; constraints and configuration naming
// requests of the claim) and defaults them as it does (defaultMode).
func validateDeviceClaim(field string, dc *api.DeviceClaim) error {
	names := make(map[string]bool, len(dc.Requests))
	for i := range dc.Requests {
		r := &dc.Requests[i]
		at := fmt.Sprintf("%s.requests[%d]", field, i)
		if r.Name == "" {
			return fmt.Errorf("%s.name: empty", at)
		}
		if names[r.Name] {
			return fmt.Errorf("%s.name %q: duplicate", at, shortText(r.Name))
		}
		names[r.Name] = true
		switch {
		case r.Exactly != nil && len(r.FirstAvailable) > 0:
			return fmt.Errorf("%s: exactly and firstAvailable both set", at)
		case r.Exactly != nil:
			e := r.Exactly
			defaultMode(&e.AllocationMode, &e.Count)
			if err := validateSubRequest(at+".exactly", e.DeviceClassName, e.AllocationMode, e.Count, e.Selectors); err != nil {
				return err
			}
		case len(r.FirstAvailable) > 0:
			subs := make(map[string]bool, len(r.FirstAvailable))
			for j := range r.FirstAvailable {
				s := &r.FirstAvailable[j]
				sat := fmt.Sprintf("%s.firstAvailable[%d]", at, j)
				if s.Name == "" {
					return fmt.Errorf("%s.name: empty", sat)
				}
				if subs[s.Name] {
					return fmt.Errorf("%s.name %q: duplicate", sat, shortText(s.Name))
				}
				subs[s.Name] = true
				defaultMode(&s.AllocationMode, &s.Count)
				if err := validateSubRequest(sat, s.DeviceClassName, s.AllocationMode, s.Count, s.Selectors); err != nil {
					return err
				}
			}
		default:
			return fmt.Errorf("%s: one of exactly and firstAvailable must be set", at)
		}
	}
	for i := range dc.Constraints {
		for _, name := range dc.Constraints[i].Requests {
			if !names[requestOf(name)] {
				return fmt.Errorf("%s.constraints[%d].requests: %q is not a request of the claim", field, i, shortText(name))
			}
		}
	}
	for i := range dc.Config {
		for _, name := range dc.Config[i].Requests {
			if !names[requestOf(name)] {
				return fmt.Errorf("%s.config[%d].requests: %q is not a request of the claim", field, i, shortText(name))
			}
		}
	}
	return nil
}

// requestOf is the request part of "request" or "request/subrequest".
func requestOf(name string) string {
	request, _, _ := strings.Cut(name, "/")
	return request
}

// defaultMode fills in a request's allocation mode and count as the API
// server defaults them: ExactCount, and one device for ExactCount.
func defaultMode(mode *api.DeviceAllocationMode, count *int64) {
	if *mode == "" {
		*mode = api.DeviceAllocationModeExactCount
	}
	if *mode == api.DeviceAllocationModeExactCount && *count == 0 {
		*count = 1
	}
}

// validateSubRequest checks one request (or one firstAvailable
// alternative): a class named, a known allocation mode, a count that is
// not negative, selectors set.
func validateSubRequest(at, class string, mode api.DeviceAllocationMode, count int64, selectors []api.DeviceSelector) error {
	if class == "" {
		return fmt.Errorf("%s.deviceClassName: empty", at)
	}
	switch mode {
	case api.DeviceAllocationModeExactCount, api.DeviceAllocationModeAll:
	default:
		return fmt.Errorf("%s.allocationMode %q: want %q or %q", at, shortText(string(mode)), api.DeviceAllocationModeExactCount, api.DeviceAllocationModeAll)
	}
	if count < 0 {
		return fmt.Errorf("%s.count %d: must not be negative", at, count)
	}
	return validateSelectors(at+".selectors", selectors)
}

// validateSelectors checks that every selector has its CEL expression (the
// only kind of selector). Expressions are compiled by the allocator, which
// reports a bad one as kube does.
func validateSelectors(at string, selectors []api.DeviceSelector) error {
	for i := range selectors {
		if selectors[i].CEL == nil {
			return fmt.Errorf("%s[%d].cel: missing", at, i)
		}
	}
	return nil
}
