package allocator

import (
	"slices"
	"strings"

	"github.com/schedkit/schedkit/framework/api"
)

// constraint is a claim constraint checked as devices are chosen. add is
// called before a device is taken and says whether the device keeps the
// constraint satisfied (recording it if so); every successful add is
// undone by exactly one remove with the same arguments. Constraints are
// monotonic: a device rejected now stays rejected as more are added.
type constraint interface {
	add(request, sub string, d *api.Device, id DeviceID) bool
	remove(request, sub string, d *api.Device, id DeviceID)
}

// appliesTo reports whether a constraint listing requests covers a
// request or subrequest (no list means every request).
func appliesTo(requests []string, request, sub string) bool {
	if len(requests) == 0 {
		return true
	}
	if slices.Contains(requests, request) {
		return true
	}
	return sub != "" && slices.Contains(requests, request+"/"+sub)
}

// lookupAttribute finds a device's attribute by its fully qualified name;
// an attribute in the driver's domain may be stored without the domain.
func lookupAttribute(d *api.Device, id DeviceID, name api.FullyQualifiedName) *api.DeviceAttribute {
	if a, ok := d.Attributes[api.QualifiedName(name)]; ok {
		return &a
	}
	domain, ident, ok := strings.Cut(string(name), "/")
	if !ok || domain != id.Driver {
		return nil
	}
	if a, ok := d.Attributes[api.QualifiedName(ident)]; ok {
		return &a
	}
	return nil
}

// matchAttribute: all devices of the covered requests have the attribute,
// with one value (single values only: string, int, bool or version).
type matchAttribute struct {
	requests []string
	attr     api.FullyQualifiedName
	value    *api.DeviceAttribute
	n        int
}

func (m *matchAttribute) add(request, sub string, d *api.Device, id DeviceID) bool {
	if !appliesTo(m.requests, request, sub) {
		return true
	}
	a := lookupAttribute(d, id, m.attr)
	if a == nil {
		return false
	}
	if m.n == 0 {
		m.value = a
		m.n = 1
		return true
	}
	v := m.value
	switch {
	case a.StringValue != nil:
		if v.StringValue == nil || *a.StringValue != *v.StringValue {
			return false
		}
	case a.IntValue != nil:
		if v.IntValue == nil || *a.IntValue != *v.IntValue {
			return false
		}
	case a.BoolValue != nil:
		if v.BoolValue == nil || *a.BoolValue != *v.BoolValue {
			return false
		}
	case a.VersionValue != nil:
		if v.VersionValue == nil || *a.VersionValue != *v.VersionValue {
			return false
		}
	default:
		return false
	}
	m.n++
	return true
}

func (m *matchAttribute) remove(request, sub string, _ *api.Device, _ DeviceID) {
	if appliesTo(m.requests, request, sub) {
		m.n--
	}
}

// distinctAttribute: all devices of the covered requests have the
// attribute, each with a different value.
type distinctAttribute struct {
	requests []string
	attr     api.FullyQualifiedName
	values   []*api.DeviceAttribute
}

func (m *distinctAttribute) add(request, sub string, d *api.Device, id DeviceID) bool {
	if !appliesTo(m.requests, request, sub) {
		return true
	}
	a := lookupAttribute(d, id, m.attr)
	if a == nil {
		return false
	}
	for _, v := range m.values {
		if !distinctValues(a, v) {
			return false
		}
	}
	m.values = append(m.values, a)
	return true
}

// distinctValues reports whether a's value differs from v's; an attribute
// with no single value is never distinct.
func distinctValues(a, v *api.DeviceAttribute) bool {
	switch {
	case a.StringValue != nil:
		return v.StringValue == nil || *a.StringValue != *v.StringValue
	case a.IntValue != nil:
		return v.IntValue == nil || *a.IntValue != *v.IntValue
	case a.BoolValue != nil:
		return v.BoolValue == nil || *a.BoolValue != *v.BoolValue
	case a.VersionValue != nil:
		return v.VersionValue == nil || *a.VersionValue != *v.VersionValue
	}
	return false
}

func (m *distinctAttribute) remove(request, sub string, _ *api.Device, _ DeviceID) {
	if appliesTo(m.requests, request, sub) {
		m.values = m.values[:len(m.values)-1]
	}
}

// distinctAttribute136 is v1.36's distinctAttribute: it keeps only the
// attribute of the last device of each request, takes the first device
// without comparing, and forgets a request's attribute when any of its
// devices is taken back.
type distinctAttribute136 struct {
	requests []string
	attr     api.FullyQualifiedName
	last     map[string]*api.DeviceAttribute
	n        int
}

func (m *distinctAttribute136) add(request, sub string, d *api.Device, id DeviceID) bool {
	if !appliesTo(m.requests, request, sub) {
		return true
	}
	a := lookupAttribute(d, id, m.attr)
	if a == nil {
		return false
	}
	if m.n > 0 {
		for _, v := range m.last {
			if !distinctValues(a, v) {
				return false
			}
		}
	}
	m.last[request] = a
	m.n++
	return true
}

func (m *distinctAttribute136) remove(request, sub string, _ *api.Device, _ DeviceID) {
	if appliesTo(m.requests, request, sub) {
		delete(m.last, request)
		m.n--
	}
}
