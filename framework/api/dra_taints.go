package api

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

// ValidateDeviceTaintRule checks a rule as the API server does where
// scheduling depends on it: its name, the selector's fields not empty
// when set, the taint's key and an effect of NoSchedule, NoExecute or
// None.
func ValidateDeviceTaintRule(r *DeviceTaintRule) error {
	if r.Name == "" {
		return errors.New("metadata.name: empty")
	}
	if s := r.Spec.DeviceSelector; s != nil {
		for _, f := range []struct {
			name string
			v    *string
		}{{"driver", s.Driver}, {"pool", s.Pool}, {"device", s.Device}} {
			if f.v != nil && *f.v == "" {
				return fmt.Errorf("spec.deviceSelector.%s: empty", f.name)
			}
		}
	}
	t := r.Spec.Taint
	if t.Key == "" {
		return errors.New("spec.taint.key: empty")
	}
	switch t.Effect {
	case DeviceTaintEffectNoSchedule, DeviceTaintEffectNoExecute, DeviceTaintEffectNone:
	case "":
		return errors.New("spec.taint.effect: empty")
	default:
		return fmt.Errorf("spec.taint.effect %q: want %q, %q or %q", string(t.Effect), DeviceTaintEffectNoExecute, DeviceTaintEffectNoSchedule, DeviceTaintEffectNone)
	}
	return nil
}

// Selects reports whether the rule taints the device of the driver and
// pool: a rule without a selector selects no device; each field its
// selector sets must equal the device's.
func (r *DeviceTaintRule) Selects(driver, pool, device string) bool {
	s := r.Spec.DeviceSelector
	return s != nil && (s.Driver == nil || *s.Driver == driver) &&
		(s.Pool == nil || *s.Pool == pool) && (s.Device == nil || *s.Device == device)
}

// TaintSlices returns the slices with the taint of each rule appended to
// the taints of every device the rule selects, in the rules' order (what
// kube-scheduler's ResourceSlice tracker serves its allocator). A slice
// no rule touches is returned as it is; the others are copies, and the
// given slices are not changed.
func TaintSlices(list []*ResourceSlice, rules []*DeviceTaintRule) []*ResourceSlice {
	if len(rules) == 0 {
		return list
	}
	out, copied := list, false
	for i, s := range list {
		var cp *ResourceSlice
		for _, r := range rules {
			for j := range s.Spec.Devices {
				if !r.Selects(s.Spec.Driver, s.Spec.Pool.Name, s.Spec.Devices[j].Name) {
					continue
				}
				if cp == nil {
					c := *s
					c.Spec.Devices = slices.Clone(s.Spec.Devices)
					cp = &c
				}
				d := &cp.Spec.Devices[j]
				d.Taints = append(slices.Clip(d.Taints), r.Spec.Taint)
			}
		}
		if cp != nil {
			if !copied {
				out, copied = slices.Clone(list), true
			}
			out[i] = cp
		}
	}
	return out
}

// BindingReady is kube-scheduler's check of an allocated claim's binding
// conditions (isClaimReadyForBinding): for each allocated device with
// binding conditions, the driver's status of the device (by driver, pool
// and device) must have every binding condition True. It returns the
// first binding failure condition found True (failed, not ready), or
// whether every device is ready; a claim without allocation is not
// ready, one without binding conditions is.
func (c *ResourceClaim) BindingReady() (ready bool, failed *Condition) {
	a := c.Status.Allocation
	if a == nil {
		return false, nil
	}
	for i := range a.Devices.Results {
		r := &a.Devices.Results[i]
		if len(r.BindingConditions) == 0 {
			continue
		}
		st := c.deviceStatus(r.Driver, r.Pool, r.Device)
		if st == nil {
			return false, nil
		}
		for _, t := range r.BindingFailureConditions {
			if cond := FindCondition(st.Conditions, t); cond != nil && cond.Status == ConditionTrue {
				return false, cond
			}
		}
		for _, t := range r.BindingConditions {
			if cond := FindCondition(st.Conditions, t); cond == nil || cond.Status != ConditionTrue {
				return false, nil
			}
		}
	}
	return true, nil
}

// deviceStatus returns the claim's status of the device, or nil.
func (c *ResourceClaim) deviceStatus(driver, pool, device string) *AllocatedDeviceStatus {
	for i := range c.Status.Devices {
		d := &c.Status.Devices[i]
		if d.Driver == driver && d.Pool == pool && d.Device == device {
			return d
		}
	}
	return nil
}

// BindingTimedOut reports whether an allocated device of the claim has
// binding conditions and more than timeout passed from the allocation's
// timestamp to now (kube-scheduler's isClaimTimeout); a claim without
// allocation or timestamp never times out.
func (c *ResourceClaim) BindingTimedOut(timeout time.Duration, now time.Time) bool {
	a := c.Status.Allocation
	if a == nil || a.AllocationTimestamp == nil {
		return false
	}
	for i := range a.Devices.Results {
		if a.Devices.Results[i].BindingConditions != nil && a.AllocationTimestamp.Add(timeout).Before(now) {
			return true
		}
	}
	return false
}
