package allocator

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
)

// Consumable capacity (DRAConsumableCapacity): how much of a device's
// capacities one allocation consumes, and whether the device has room for
// it, as Kubernetes' incubating allocator computes them.

// capacities is an amount per capacity name.
type capacities map[api.QualifiedName]resource.Quantity

var (
	errNotRepresentable = errors.New("capacity request cannot be represented in the device's range arithmetic")
	errNegativeCapacity = errors.New("capacity value is negative")
)

// sortedCapacityNames returns the names of a device's capacities in order,
// so that the first error reported does not depend on map order.
func sortedCapacityNames(c map[api.QualifiedName]api.DeviceCapacity) []api.QualifiedName {
	if len(c) == 1 {
		for n := range c {
			return []api.QualifiedName{n}
		}
	}
	names := make([]api.QualifiedName, 0, len(c))
	for n := range c {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// fitsCapacity reports whether a request's capacity fits a device given
// what is consumed already (allocated) and what the current attempt
// consumes (allocating). A request naming a capacity the device lacks does
// not fit; a request that cannot be computed is an error.
func fitsCapacity(allocated capacities, req *api.CapacityRequirements, devCap map[api.QualifiedName]api.DeviceCapacity, allocating capacities, fractional, v136 bool) (bool, error) {
	if lacksRequested(req, devCap) {
		return false, nil
	}
	if len(devCap) == 0 {
		return true, nil
	}
	// The answer does not depend on the order of the capacities, only
	// which error comes first does: one pass in the map's order, and the
	// pass in name order only when a capacity has an error.
	fits := true
	for name, c := range devCap {
		q, err := consumedFor(requested(req, name), c, fractional, v136)
		if err != nil || q.Sign() < 0 && !v136 {
			return fitsCapacityInOrder(allocated, req, devCap, allocating, fractional, v136)
		}
		if fits && !fitsWith(q, name, c, allocated, allocating, fractional) {
			fits = false
		}
	}
	return fits, nil
}

// lacksRequested reports whether a request names a capacity the device
// does not have.
func lacksRequested(req *api.CapacityRequirements, devCap map[api.QualifiedName]api.DeviceCapacity) bool {
	if req == nil {
		return false
	}
	for name := range req.Requests {
		if _, ok := devCap[name]; !ok {
			return true
		}
	}
	return false
}

// fitsWith reports whether consumed of a device's capacity c, named name,
// passes its request policy and fits beside what is allocated and being
// allocated of it.
func fitsWith(consumed resource.Quantity, name api.QualifiedName, c api.DeviceCapacity, allocated, allocating capacities, fractional bool) bool {
	if violatesPolicy(consumed, c.RequestPolicy, fractional) {
		return false
	}
	total := consumed
	if prev, ok := allocated[name]; ok {
		total = prev.Add(consumed)
	}
	if q, ok := allocating[name]; ok {
		total = total.Add(q)
	}
	return total.Cmp(c.Value) <= 0
}

// fitsCapacityInOrder is fitsCapacity going through the capacities in
// name order, so that the error of the first by name is the one
// returned.
func fitsCapacityInOrder(allocated capacities, req *api.CapacityRequirements, devCap map[api.QualifiedName]api.DeviceCapacity, allocating capacities, fractional, v136 bool) (bool, error) {
	if lacksRequested(req, devCap) {
		return false, nil
	}
	names := sortedCapacityNames(devCap)
	consumed := make([]resource.Quantity, len(names))
	for i, name := range names {
		q, err := consumedFor(requested(req, name), devCap[name], fractional, v136)
		if err != nil {
			return false, fmt.Errorf("capacity %q: %w", string(name), err)
		}
		if q.Sign() < 0 && !v136 {
			return false, fmt.Errorf("capacity %q: %w", string(name), errNegativeCapacity)
		}
		consumed[i] = q
	}
	for i, name := range names {
		if !fitsWith(consumed[i], name, devCap[name], allocated, allocating, fractional) {
			return false, nil
		}
	}
	return true, nil
}

func requested(req *api.CapacityRequirements, name api.QualifiedName) *resource.Quantity {
	if req == nil {
		return nil
	}
	q, ok := req.Requests[name]
	if !ok {
		return nil
	}
	return &q
}

// consumedCapacity is what one allocation of a shared device consumes of
// each of its capacities.
func consumedCapacity(req *api.CapacityRequirements, devCap map[api.QualifiedName]api.DeviceCapacity, fractional, v136 bool) (capacities, error) {
	out := make(capacities, len(devCap))
	for _, name := range sortedCapacityNames(devCap) {
		q, err := consumedFor(requested(req, name), devCap[name], fractional, v136)
		if err != nil {
			return nil, fmt.Errorf("capacity %q: %w", string(name), err)
		}
		out[name] = q
	}
	return out, nil
}

// consumedFor is the amount a request consumes of one capacity: the
// policy's default (or the whole capacity) when the request names none,
// otherwise the request rounded up to the policy's range step or to the
// next valid value.
func consumedFor(req *resource.Quantity, c api.DeviceCapacity, fractional, v136 bool) (resource.Quantity, error) {
	p := c.RequestPolicy
	if req == nil {
		if p != nil && p.Default != nil {
			return *p.Default, nil
		}
		return c.Value, nil
	}
	if p == nil {
		return *req, nil
	}
	switch {
	case p.ValidRange != nil && p.ValidRange.Min != nil:
		if v136 {
			return roundUpRange136(*req, p.ValidRange), nil
		}
		return roundUpRange(*req, p.ValidRange, fractional)
	case p.ValidValues != nil:
		for _, v := range p.ValidValues {
			if req.Cmp(v) <= 0 {
				return v, nil
			}
		}
		return *req, nil
	}
	return *req, nil
}

// roundUpRange raises req to the range's minimum, or to the next multiple
// of its step above the minimum.
func roundUpRange(req resource.Quantity, r *api.CapacityRequestPolicyRange, fractional bool) (resource.Quantity, error) {
	if req.Cmp(*r.Min) < 0 {
		return *r.Min, nil
	}
	if r.Step == nil {
		return req, nil
	}
	if useMilli(r, fractional) {
		reqMilli, ok := exactMilli(req)
		if !ok {
			return resource.Quantity{}, fmt.Errorf("%w: request %s is not a representable milli value", errNotRepresentable, req.String())
		}
		step, lo := r.Step.MilliValue(), r.Min.MilliValue()
		n := ceilSteps(reqMilli-lo, step)
		if n > (math.MaxInt64-lo)/step {
			return resource.Quantity{}, fmt.Errorf("%w: rounding request %s up to the next step passes the milli-value range", errNotRepresentable, req.String())
		}
		v := lo + step*n
		if v%1000 == 0 {
			return resource.NewQuantity(v/1000, r.Step.Format()), nil
		}
		return resource.NewMilliQuantity(v, r.Step.Format()), nil
	}
	if req.Cmp(resource.NewQuantity(math.MaxInt64, resource.DecimalSI)) > 0 {
		return resource.Quantity{}, fmt.Errorf("%w: request %s exceeds MaxInt64", errNotRepresentable, req.String())
	}
	step, lo := r.Step.Value(), r.Min.Value()
	n := ceilSteps(req.Value()-lo, step)
	if lo >= 0 && n > (math.MaxInt64-lo)/step {
		return resource.Quantity{}, fmt.Errorf("%w: rounding request %s up to the next step passes MaxInt64", errNotRepresentable, req.String())
	}
	return resource.NewQuantity(lo+step*n, r.Step.Format()), nil
}

// roundUpRange136 is v1.36's rounding: integer steps, with no overflow
// checks, and a BinarySI result. The result is returned as the API server
// stores it (parsed back from its canonical text): a BinarySI amount that
// is no whole number of binary units is written in digits, which read
// back as DecimalSI, so that 3G stays "3G" in the stored claim.
func roundUpRange136(req resource.Quantity, r *api.CapacityRequestPolicyRange) resource.Quantity {
	if req.Cmp(*r.Min) < 0 {
		return *r.Min
	}
	if r.Step == nil {
		return req
	}
	step, lo := r.Step.Value(), r.Min.Value()
	q := resource.NewQuantity(lo+step*ceilSteps(req.Value()-lo, step), resource.BinarySI)
	if stored, err := resource.ParseQuantity(q.String()); err == nil {
		return stored
	}
	return q
}

// ceilSteps is how many steps cover added, rounding up (Go division
// semantics for the quotient, as Kubernetes).
func ceilSteps(added, step int64) int64 {
	n := added / step
	if added%step != 0 {
		n++
	}
	return n
}

// violatesPolicy reports whether a consumed amount is outside the policy:
// above the range's maximum or off its step, or not one of the valid
// values. The policy's default is always allowed.
func violatesPolicy(q resource.Quantity, p *api.CapacityRequestPolicy, fractional bool) bool {
	if p == nil {
		return false
	}
	if p.Default != nil && q.Cmp(*p.Default) == 0 {
		return false
	}
	switch {
	case p.ValidRange != nil:
		r := p.ValidRange
		if r.Max != nil && q.Cmp(*r.Max) > 0 {
			return true
		}
		if r.Step != nil {
			var v, step, lo int64
			if useMilli(r, fractional) {
				m, ok := exactMilli(q)
				if !ok {
					return true
				}
				v, step, lo = m, r.Step.MilliValue(), minOf(r).MilliValue()
			} else {
				v, step, lo = q.Value(), r.Step.Value(), minOf(r).Value()
			}
			return (v-lo)%step != 0
		}
		return false
	case len(p.ValidValues) > 0:
		for _, v := range p.ValidValues {
			if q.Cmp(v) == 0 {
				return false
			}
		}
		return true
	}
	return false
}

func minOf(r *api.CapacityRequestPolicyRange) resource.Quantity {
	if r.Min == nil {
		return resource.Quantity{}
	}
	return *r.Min
}

// useMilli reports whether range arithmetic is done in milli-units
// (DRAFractionalCapacityRange): every bound is an exact milli value and the
// step is at least 1m.
func useMilli(r *api.CapacityRequestPolicyRange, fractional bool) bool {
	if !fractional {
		return false
	}
	for i, q := range []*resource.Quantity{r.Min, r.Max, r.Step} {
		if q == nil {
			continue
		}
		m, ok := exactMilli(*q)
		if !ok || (i == 2 && m < 1) {
			return false
		}
	}
	return true
}

// exactMilli returns q in milli-units when that is exact.
func exactMilli(q resource.Quantity) (int64, bool) {
	m := q.MilliValue()
	return m, q.Cmp(resource.NewMilliQuantity(m, q.Format())) == 0
}

// addCapacities returns a copy of into with add added.
func addCapacities(into, add capacities) capacities {
	out := make(capacities, len(into)+len(add))
	for n, q := range into {
		out[n] = q
	}
	for n, q := range add {
		if cur, ok := out[n]; ok {
			out[n] = cur.Add(q)
		} else {
			out[n] = q
		}
	}
	return out
}
