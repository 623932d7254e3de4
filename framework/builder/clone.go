package builder

import (
	"fmt"
	"reflect"

	"github.com/schedkit/schedkit/resource"
)

// deepCopy returns a copy of *p that shares no map, slice or pointer with
// it, reached through exported fields. Unexported fields are copied as
// values: the ones the object model has (a Quantity's, a time.Time's) are
// never mutated.
func deepCopy[T any](p *T) *T {
	out := new(T)
	copyValue(reflect.ValueOf(out).Elem(), reflect.ValueOf(p).Elem())
	return out
}

// copyValue sets dst, a settable zero value of src's type, to a deep copy
// of src; nil maps, slices and pointers stay nil.
func copyValue(dst, src reflect.Value) {
	switch src.Kind() {
	case reflect.Pointer:
		if !src.IsNil() {
			p := reflect.New(src.Type().Elem())
			copyValue(p.Elem(), src.Elem())
			dst.Set(p)
		}
	case reflect.Map:
		if !src.IsNil() {
			m := reflect.MakeMapWithSize(src.Type(), src.Len())
			for it := src.MapRange(); it.Next(); {
				v := reflect.New(src.Type().Elem()).Elem()
				copyValue(v, it.Value())
				m.SetMapIndex(it.Key(), v)
			}
			dst.Set(m)
		}
	case reflect.Slice:
		if !src.IsNil() {
			s := reflect.MakeSlice(src.Type(), src.Len(), src.Len())
			for i := range src.Len() {
				copyValue(s.Index(i), src.Index(i))
			}
			dst.Set(s)
		}
	case reflect.Array:
		for i := range src.Len() {
			copyValue(dst.Index(i), src.Index(i))
		}
	case reflect.Struct:
		dst.Set(src)
		for i := range src.NumField() {
			if src.Type().Field(i).IsExported() {
				f := dst.Field(i)
				f.SetZero()
				copyValue(f, src.Field(i))
			}
		}
	default:
		dst.Set(src)
	}
}

// parseQuantity parses q, the value of field of the named object,
// recording the first error in *first.
func parseQuantity(first *error, object, name, field, q string) resource.Quantity {
	v, err := resource.ParseQuantity(q)
	if err != nil && *first == nil {
		*first = fmt.Errorf("builder: %s %q: %s: %w", object, name, field, err)
	}
	return v
}
