package api

import "reflect"

// DeepCopy returns a copy of p that shares nothing mutable with it: every
// pointer, slice and map, at any depth, is new (nil stays nil, empty stays
// empty), so changing the copy never changes p and the other way round.
// Values whose insides are never changed (time.Time, resource.Quantity)
// are copied as values. A nil pod copies to nil.
//
// Use it to derive a pod from another one (a replica of a template, a
// pending copy of a bound pod): the library copies only the top-level
// struct of the objects it is given (see cluster.Cluster), so nested
// maps and slices changed after a shallow copy are changed in both.
func (p *Pod) DeepCopy() *Pod {
	if p == nil {
		return nil
	}
	return deepCopyOf(p)
}

// DeepCopy returns a copy of n that shares nothing mutable with it, as
// Pod.DeepCopy does. A nil node copies to nil.
func (n *Node) DeepCopy() *Node {
	if n == nil {
		return nil
	}
	return deepCopyOf(n)
}

// deepCopyOf copies *v and everything it reaches (see Pod.DeepCopy).
func deepCopyOf[T any](v *T) *T {
	out := new(T)
	deepCopyInto(reflect.ValueOf(out).Elem(), reflect.ValueOf(v).Elem())
	return out
}

// deepCopyInto sets dst (settable, of src's type) to a deep copy of src.
// A struct is copied as a value first, unexported fields included (the
// object model's only ones are inside time.Time and resource.Quantity,
// which are never changed in place), then each exported field is copied
// deeply; the kinds with no insides (numbers, strings, bools) are values.
func deepCopyInto(dst, src reflect.Value) {
	switch src.Kind() {
	case reflect.Pointer:
		if src.IsNil() {
			return
		}
		p := reflect.New(src.Type().Elem())
		deepCopyInto(p.Elem(), src.Elem())
		dst.Set(p)
	case reflect.Slice:
		if src.IsNil() {
			return
		}
		s := reflect.MakeSlice(src.Type(), src.Len(), src.Len())
		for i := range src.Len() {
			deepCopyInto(s.Index(i), src.Index(i))
		}
		dst.Set(s)
	case reflect.Array:
		for i := range src.Len() {
			deepCopyInto(dst.Index(i), src.Index(i))
		}
	case reflect.Map:
		if src.IsNil() {
			return
		}
		m := reflect.MakeMapWithSize(src.Type(), src.Len())
		k := reflect.New(src.Type().Key()).Elem()
		e := reflect.New(src.Type().Elem()).Elem()
		for it := src.MapRange(); it.Next(); {
			k.SetZero()
			e.SetZero()
			deepCopyInto(k, it.Key())
			deepCopyInto(e, it.Value())
			m.SetMapIndex(k, e)
		}
		dst.Set(m)
	case reflect.Interface:
		if src.IsNil() {
			return
		}
		c := reflect.New(src.Elem().Type()).Elem()
		deepCopyInto(c, src.Elem())
		dst.Set(c)
	case reflect.Struct:
		dst.Set(src)
		t := src.Type()
		for i := range t.NumField() {
			if t.Field(i).IsExported() {
				f := dst.Field(i)
				f.SetZero()
				deepCopyInto(f, src.Field(i))
			}
		}
	default:
		dst.Set(src)
	}
}
