package resource

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// List maps resource names to quantities. It is the form used at the API
// edge: in objects, configuration and JSON.
type List map[Name]Quantity

// ParseList builds a List from name → quantity strings. An invalid quantity
// is an error naming the resource and the value.
func ParseList(m map[string]string) (List, error) {
	if len(m) == 0 {
		return nil, nil
	}
	l := make(List, len(m))
	for _, k := range sortedKeys(m) {
		q, err := ParseQuantity(m[k])
		if err != nil {
			return nil, fmt.Errorf("resource %q: %w", k, err)
		}
		l[Name(k)] = q
	}
	return l, nil
}

// MustParseList is ParseList that panics on error. Use it only for
// constants in tests and examples.
func MustParseList(m map[string]string) List {
	l, err := ParseList(m)
	if err != nil {
		panic(err)
	}
	return l
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Names returns the list's names in ascending order.
func (l List) Names() []Name {
	names := make([]Name, 0, len(l))
	for n := range l {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return names[i] < names[j] })
	return names
}

// Get returns the quantity for n, or zero.
func (l List) Get(n Name) Quantity { return l[n] }

// Clone returns a copy of l (nil for nil).
func (l List) Clone() List {
	if l == nil {
		return nil
	}
	c := make(List, len(l))
	for k, v := range l {
		c[k] = v
	}
	return c
}

// Add returns l + o per resource; l is not modified.
func (l List) Add(o List) List {
	out := l.Clone()
	if out == nil && len(o) > 0 {
		out = make(List, len(o))
	}
	for k, v := range o {
		out[k] = out[k].Add(v)
	}
	return out
}

// Equal reports whether l and o hold numerically equal quantities for the
// same names (a missing name equals zero).
func (l List) Equal(o List) bool {
	for k, v := range l {
		if v.Cmp(o[k]) != 0 {
			return false
		}
	}
	for k, v := range o {
		if _, ok := l[k]; !ok && !v.IsZero() {
			return false
		}
	}
	return true
}

// String renders l as "cpu=500m,memory=1Gi" in name order.
func (l List) String() string {
	var b strings.Builder
	for i, n := range l.Names() {
		if i > 0 {
			b.WriteByte(',')
		}
		q := l[n]
		b.WriteString(string(n))
		b.WriteByte('=')
		b.WriteString(q.String())
	}
	return b.String()
}

// RangeError is an amount of a resource too large for the int64 unit
// scheduling counts the resource in: milli-units for cpu, units for every
// other resource (VectorFrom's units, kube-scheduler's framework.Resource).
// Kubernetes' API server accepts such a quantity, but kube-scheduler reads
// it with MilliValue or Value, which give 0 ("1e309") or a wrapped value
// (apimachinery v0.36 int64Amount.AsScaledInt64 and scaledValue): there is
// no answer to reproduce, so readers of user input refuse it.
type RangeError struct {
	Name  Name
	Value Quantity
}

func (e *RangeError) Error() string {
	unit, max := "units", "9223372036854775807"
	if e.Name == CPU {
		unit, max = "milli-units", "9223372036854775807m"
	}
	return "resource: " + string(e.Name) + " quantity " + qQuote(e.Value.String()) + ": too large: " +
		string(e.Name) + " is counted in int64 " + unit + ", at most " + max
}

// CheckAmount returns a *RangeError when q, an amount of resource n, does
// not fit the int64 unit VectorFrom counts n in (cpu in milli-units,
// others in units, rounded away from zero). Names VectorFrom ignores are
// not checked.
func CheckAmount(n Name, q Quantity) error {
	scale := int32(0)
	switch {
	case n == CPU:
		scale = -3
	case n == Memory, n == EphemeralStorage, n == Pods, n.IsScalar():
	default:
		return nil
	}
	if _, ok := q.AsScaledInt64(scale); !ok {
		return &RangeError{Name: n, Value: q}
	}
	return nil
}

// CheckAmounts is CheckAmount on every entry of l, in name order.
func (l List) CheckAmounts() error {
	if len(l) == 0 {
		return nil
	}
	for _, n := range l.Names() {
		if err := CheckAmount(n, l[n]); err != nil {
			return err
		}
	}
	return nil
}

// UnmarshalJSON decodes a JSON object of quantities as encoding/json
// decodes a map (into l's map when it has one; null makes l nil) and
// refuses an amount scheduling cannot count (CheckAmounts), leaving l
// unchanged.
func (l *List) UnmarshalJSON(data []byte) error {
	var m map[Name]Quantity
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	if err := List(m).CheckAmounts(); err != nil {
		return err
	}
	if m == nil || *l == nil {
		*l = m
		return nil
	}
	for n, q := range m {
		(*l)[n] = q
	}
	return nil
}
