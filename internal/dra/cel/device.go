package cel

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/schedkit/schedkit/resource"
)

// AttributeValue is the value of one device attribute: exactly one field
// is set in a valid attribute. When several are set, the first in the
// order Ints, Bools, Strings, Versions, Int, Bool, String, Version is the
// value (the order Kubernetes reads them in); a list field that is set but
// empty is an empty list.
type AttributeValue struct {
	Int      *int64
	Bool     *bool
	String   *string
	Version  *string
	Ints     []int64
	Bools    []bool
	Strings  []string
	Versions []string
}

// Device is what a selector sees of a device: its driver, whether it
// allows multiple allocations, and its attributes and capacities keyed by
// qualified name ("domain/id", or "id" in the driver's domain).
type Device struct {
	Driver                   string
	AllowMultipleAllocations bool
	Attributes               map[string]AttributeValue
	Capacity                 map[string]resource.Quantity
}

// Input is a device prepared for evaluation: its values converted to CEL
// once, so that a device can be matched against many selectors (and on
// many nodes) without converting it again. An Input is immutable and safe
// for concurrent use.
type Input struct {
	activation map[string]any
	err        error
}

// splitQualifiedName returns the domain and the identifier of an attribute
// or capacity name; a name without "/" is in the driver's domain.
func splitQualifiedName(name, driver string) (string, string) {
	domain, id, ok := strings.Cut(name, "/")
	if !ok {
		return driver, name
	}
	return domain, id
}

func attributeToNative(a AttributeValue) (any, error) {
	switch {
	case a.Ints != nil:
		return a.Ints, nil
	case a.Bools != nil:
		return a.Bools, nil
	case a.Strings != nil:
		return a.Strings, nil
	case a.Versions != nil:
		vs := make([]Semver, len(a.Versions))
		for i, s := range a.Versions {
			v, err := ParseVersion(s)
			if err != nil {
				return nil, fmt.Errorf("parse semantic version: %w", err)
			}
			vs[i] = Semver{v}
		}
		return vs, nil
	case a.Int != nil:
		return *a.Int, nil
	case a.Bool != nil:
		return *a.Bool, nil
	case a.String != nil:
		return *a.String, nil
	case a.Version != nil:
		v, err := ParseVersion(*a.Version)
		if err != nil {
			return nil, fmt.Errorf("parse semantic version: %w", err)
		}
		return Semver{v}, nil
	}
	return nil, errors.New("unsupported attribute value")
}

// defaultMap is a map whose lookups of a missing key find a default value,
// as the attribute and capacity maps of the device variable do in
// Kubernetes: device.attributes["unknown.domain"] is an empty map, so that
// selecting an attribute in it fails with "no such key" for the attribute.
// Membership tests ("d" in device.attributes), size and iteration see only
// the keys present.
type defaultMap struct {
	traits.Mapper
	def ref.Val
}

func (m defaultMap) Find(key ref.Val) (ref.Val, bool) {
	if v, ok := m.Mapper.Find(key); ok {
		return v, true
	}
	return m.def, true
}

// newInput converts d for evaluation in env. An attribute whose value
// cannot be converted (an invalid version, no value) makes every
// evaluation on the device fail with that error, as in Kubernetes, which
// converts all attributes before evaluating; the attribute reported is the
// first such in name order.
func newInput(env *environment, d Device) *Input {
	names := make([]string, 0, len(d.Attributes))
	for n := range d.Attributes {
		names = append(names, n)
	}
	slices.Sort(names)
	attrs := make(map[string]any)
	for _, n := range names {
		v, err := attributeToNative(d.Attributes[n])
		if err != nil {
			return &Input{err: fmt.Errorf("attribute %s: %w", n, err)}
		}
		domain, id := splitQualifiedName(n, d.Driver)
		inner, ok := attrs[domain].(map[string]any)
		if !ok {
			inner = make(map[string]any)
			attrs[domain] = inner
		}
		inner[id] = v
	}
	capacity := make(map[string]any)
	for n, q := range d.Capacity {
		cq, err := QuantityOf(q)
		if err != nil {
			return &Input{err: fmt.Errorf("capacity %s: %w", n, err)}
		}
		domain, id := splitQualifiedName(n, d.Driver)
		inner, ok := capacity[domain].(map[string]any)
		if !ok {
			inner = make(map[string]any)
			capacity[domain] = inner
		}
		inner[id] = cq
	}
	adapter := env.env.CELTypeAdapter()
	return &Input{activation: map[string]any{
		deviceVar: map[string]any{
			driverVar:     d.Driver,
			multiAllocVar: d.AllowMultipleAllocations,
			attributesVar: defaultMap{types.NewStringInterfaceMap(adapter, attrs), env.emptyMap},
			capacityVar:   defaultMap{types.NewStringInterfaceMap(adapter, capacity), env.emptyMap},
		},
	}}
}
