package api

import (
	"errors"
	"fmt"
	"strings"
)

// Validation and defaults of the Dynamic Resource Allocation objects: what
// the API server rejects or fills in where the allocator depends on it.
// Errors name the field and the value; CEL expressions are compiled, and
// reported as kube reports them, by the allocator.

// ValidateResourceSlice checks a slice's names, its pool (a generation
// that is not negative, at least one slice), that every device is named
// and that a capacity's valid range steps up (the allocator divides by
// the step).
func ValidateResourceSlice(s *ResourceSlice) error {
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
		d := &s.Spec.Devices[i]
		if d.Name == "" {
			return fmt.Errorf("spec.devices[%d].name: empty", i)
		}
		for name, c := range d.Capacity {
			if p := c.RequestPolicy; p != nil && p.ValidRange != nil && p.ValidRange.Step != nil && p.ValidRange.Step.Sign() <= 0 {
				return fmt.Errorf("spec.devices[%d].capacity[%s].requestPolicy.validRange.step %s: must be greater than zero", i, name, p.ValidRange.Step)
			}
		}
	}
	return nil
}

// ValidateDeviceClass checks the class's name and that every selector
// has its CEL expression.
func ValidateDeviceClass(c *DeviceClass) error {
	if c.Name == "" {
		return errors.New("metadata.name: empty")
	}
	return validateSelectors("spec.selectors", c.Spec.Selectors)
}

// ValidateResourceClaim checks the claim's name and requests
// (ValidateDeviceClaim).
func ValidateResourceClaim(c *ResourceClaim) error {
	if c.Name == "" {
		return errors.New("metadata.name: empty")
	}
	return ValidateDeviceClaim("spec.devices", &c.Spec.Devices)
}

// ValidateResourceClaimTemplate checks the template's name and the
// requests of the claim it makes (ValidateDeviceClaim).
func ValidateResourceClaimTemplate(t *ResourceClaimTemplate) error {
	if t.Name == "" {
		return errors.New("metadata.name: empty")
	}
	return ValidateDeviceClaim("spec.spec.devices", &t.Spec.Spec.Devices)
}

// SetDefaults fills in the requests' allocation modes and counts as the
// API server defaults them: ExactCount, and one device for ExactCount.
func (dc *DeviceClaim) SetDefaults() {
	for i := range dc.Requests {
		r := &dc.Requests[i]
		if r.Exactly != nil {
			defaultMode(&r.Exactly.AllocationMode, &r.Exactly.Count)
		}
		for j := range r.FirstAvailable {
			defaultMode(&r.FirstAvailable[j].AllocationMode, &r.FirstAvailable[j].Count)
		}
	}
}

// ValidateDeviceClaim checks a claim's requests (field is their path, as
// "spec.devices") as the API server does where the allocator depends on
// it: each request named, uniquely, with exactly one of exactly and
// firstAvailable, a class, a known allocation mode (SetDefaults fills in
// a missing one) and a count that is not negative, its selectors set;
// constraints and configuration naming requests of the claim.
func ValidateDeviceClaim(field string, dc *DeviceClaim) error {
	return validateDeviceClaim(field, dc, false)
}

// validateDeviceClaim is ValidateDeviceClaim; with defaults, a request's
// missing allocation mode counts as the ExactCount SetDefaults would fill
// in (and a zero count as its one device), so that a claim is checked as
// after SetDefaults without a defaulted copy. Paths are built only for an
// error: a valid claim costs no allocation.
func validateDeviceClaim(field string, dc *DeviceClaim, defaults bool) error {
	at := func(i int) string { return fmt.Sprintf("%s.requests[%d]", field, i) }
	for i := range dc.Requests {
		r := &dc.Requests[i]
		if r.Name == "" {
			return fmt.Errorf("%s.name: empty", at(i))
		}
		if hasRequest(dc.Requests[:i], r.Name) {
			return fmt.Errorf("%s.name %q: duplicate", at(i), r.Name)
		}
		switch {
		case r.Exactly != nil && len(r.FirstAvailable) > 0:
			return fmt.Errorf("%s: exactly and firstAvailable both set", at(i))
		case r.Exactly != nil:
			e := r.Exactly
			if err := validateSubRequest(func() string { return at(i) + ".exactly" }, e.DeviceClassName, modeOf(e.AllocationMode, defaults), e.Count, e.Selectors); err != nil {
				return err
			}
		case len(r.FirstAvailable) > 0:
			for j := range r.FirstAvailable {
				s := &r.FirstAvailable[j]
				sat := func() string { return fmt.Sprintf("%s.firstAvailable[%d]", at(i), j) }
				if s.Name == "" {
					return fmt.Errorf("%s.name: empty", sat())
				}
				for k := range j {
					if r.FirstAvailable[k].Name == s.Name {
						return fmt.Errorf("%s.name %q: duplicate", sat(), s.Name)
					}
				}
				if err := validateSubRequest(sat, s.DeviceClassName, modeOf(s.AllocationMode, defaults), s.Count, s.Selectors); err != nil {
					return err
				}
			}
		default:
			return fmt.Errorf("%s: one of exactly and firstAvailable must be set", at(i))
		}
	}
	for i := range dc.Constraints {
		for _, name := range dc.Constraints[i].Requests {
			if !hasRequest(dc.Requests, requestOf(name)) {
				return fmt.Errorf("%s.constraints[%d].requests: %q is not a request of the claim", field, i, name)
			}
		}
	}
	for i := range dc.Config {
		for _, name := range dc.Config[i].Requests {
			if !hasRequest(dc.Requests, requestOf(name)) {
				return fmt.Errorf("%s.config[%d].requests: %q is not a request of the claim", field, i, name)
			}
		}
	}
	return nil
}

// hasRequest reports whether one of reqs is named name.
func hasRequest(reqs []DeviceRequest, name string) bool {
	for i := range reqs {
		if reqs[i].Name == name {
			return true
		}
	}
	return false
}

// modeOf is mode, or with defaults ExactCount for a missing one.
func modeOf(mode DeviceAllocationMode, defaults bool) DeviceAllocationMode {
	if defaults && mode == "" {
		return DeviceAllocationModeExactCount
	}
	return mode
}

// requestOf is the request part of "request" or "request/subrequest".
func requestOf(name string) string {
	request, _, _ := strings.Cut(name, "/")
	return request
}

// defaultMode fills in a request's allocation mode and count as the API
// server defaults them: ExactCount, and one device for ExactCount.
func defaultMode(mode *DeviceAllocationMode, count *int64) {
	if *mode == "" {
		*mode = DeviceAllocationModeExactCount
	}
	if *mode == DeviceAllocationModeExactCount && *count == 0 {
		*count = 1
	}
}

// validateSubRequest checks one request (or one firstAvailable
// alternative): a class named, a known allocation mode, a count that is
// not negative, selectors set.
func validateSubRequest(at func() string, class string, mode DeviceAllocationMode, count int64, selectors []DeviceSelector) error {
	if class == "" {
		return fmt.Errorf("%s.deviceClassName: empty", at())
	}
	switch mode {
	case DeviceAllocationModeExactCount, DeviceAllocationModeAll:
	default:
		return fmt.Errorf("%s.allocationMode %q: want %q or %q", at(), string(mode), DeviceAllocationModeExactCount, DeviceAllocationModeAll)
	}
	if count < 0 {
		return fmt.Errorf("%s.count %d: must not be negative", at(), count)
	}
	for i := range selectors {
		if selectors[i].CEL == nil {
			return fmt.Errorf("%s.selectors[%d].cel: missing", at(), i)
		}
	}
	return nil
}

// validateSelectors checks that every selector has its CEL expression (the
// only kind of selector). Expressions are compiled by the allocator, which
// reports a bad one as kube does.
func validateSelectors(at string, selectors []DeviceSelector) error {
	for i := range selectors {
		if selectors[i].CEL == nil {
			return fmt.Errorf("%s[%d].cel: missing", at, i)
		}
	}
	return nil
}
