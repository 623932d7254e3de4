package api_test

import (
	"math/big"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
)

// opaque are the types with unexported fields that DeepCopy copies as
// values: their insides are never changed (a time.Time's location, a
// Quantity's big.Int). Any other type with unexported fields fails the
// tests until it is understood and listed here.
var opaque = map[reflect.Type]bool{
	reflect.TypeFor[time.Time]():         true,
	reflect.TypeFor[resource.Quantity](): true,
}

var quantityCmp = cmp.Comparer(func(a, b resource.Quantity) bool { return a.Cmp(b) == 0 && a.String() == b.String() })

// filler sets every exported field reachable from a value, drawing from
// rng: pointers, slices and maps are set (with full set, always; else
// each nil half the time), slices and maps hold one to three elements.
type filler struct {
	rng  *rand.Rand
	full bool
	t    testing.TB
}

func (f filler) fill(v reflect.Value, path string) {
	t := v.Type()
	switch {
	case t == reflect.TypeFor[time.Time]():
		v.Set(reflect.ValueOf(time.Unix(f.rng.Int64N(1e9), 0).UTC()))
		return
	case t == reflect.TypeFor[resource.Quantity]():
		v.Set(reflect.ValueOf(resource.NewMilliQuantity(f.rng.Int64N(1e6)+1, resource.DecimalSI)))
		return
	}
	set := f.full || f.rng.IntN(2) == 0
	switch t.Kind() {
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(1 + f.rng.Int64N(100))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(1 + f.rng.Uint64N(100))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(1 + f.rng.Float64())
	case reflect.String:
		v.SetString(path + "-" + string(rune('a'+f.rng.IntN(26))))
	case reflect.Pointer:
		if set {
			p := reflect.New(t.Elem())
			f.fill(p.Elem(), path)
			v.Set(p)
		}
	case reflect.Slice:
		if set {
			n := 1 + f.rng.IntN(3)
			s := reflect.MakeSlice(t, n, n)
			for i := range n {
				f.fill(s.Index(i), path+"[]")
			}
			v.Set(s)
		}
	case reflect.Array:
		for i := range v.Len() {
			f.fill(v.Index(i), path+"[]")
		}
	case reflect.Map:
		if set {
			m := reflect.MakeMap(t)
			for i := range 1 + f.rng.IntN(3) {
				k := reflect.New(t.Key()).Elem()
				f.fill(k, path+"{k}"+string(rune('0'+i)))
				e := reflect.New(t.Elem()).Elem()
				f.fill(e, path+"{v}")
				m.SetMapIndex(k, e)
			}
			v.Set(m)
		}
	case reflect.Struct:
		for i := range t.NumField() {
			sf := t.Field(i)
			if !sf.IsExported() {
				f.t.Fatalf("%s: %v has unexported field %s: DeepCopy copies it as a value; list the type in opaque if nothing changes inside it", path, t, sf.Name)
			}
			f.fill(v.Field(i), path+"."+sf.Name)
		}
	default:
		f.t.Fatalf("%s: cannot fill a %v (%v): teach the test and DeepCopy", path, t, t.Kind())
	}
}

// noAlias fails when a pointer, a slice's array or a map of b is the one
// at the same place in a (both reached through exported fields).
func noAlias(t testing.TB, a, b reflect.Value, path string) {
	t.Helper()
	if opaque[a.Type()] {
		return
	}
	switch a.Kind() {
	case reflect.Pointer:
		if a.IsNil() {
			return
		}
		if a.Pointer() == b.Pointer() {
			t.Fatalf("%s: the copy shares the pointer", path)
		}
		noAlias(t, a.Elem(), b.Elem(), path)
	case reflect.Slice:
		if a.Cap() > 0 && b.Cap() > 0 && a.Pointer() == b.Pointer() {
			t.Fatalf("%s: the copy shares the slice's array", path)
		}
		for i := range min(a.Len(), b.Len()) {
			noAlias(t, a.Index(i), b.Index(i), path+"[]")
		}
	case reflect.Array:
		for i := range a.Len() {
			noAlias(t, a.Index(i), b.Index(i), path+"[]")
		}
	case reflect.Map:
		if a.IsNil() || b.IsNil() {
			return
		}
		if a.Pointer() == b.Pointer() {
			t.Fatalf("%s: the copy shares the map", path)
		}
		for _, k := range a.MapKeys() {
			if bv := b.MapIndex(k); bv.IsValid() {
				noAlias(t, a.MapIndex(k), bv, path+"{}")
			}
		}
	case reflect.Struct:
		for i := range a.NumField() {
			if a.Type().Field(i).IsExported() {
				noAlias(t, a.Field(i), b.Field(i), path+"."+a.Type().Field(i).Name)
			}
		}
	}
}

// mutate changes every leaf reachable from v: strings, numbers, bools,
// times and quantities change, and every map gains a key.
func mutate(v reflect.Value) {
	switch t := v.Type(); {
	case t == reflect.TypeFor[time.Time]():
		v.Set(reflect.ValueOf(v.Interface().(time.Time).Add(time.Second)))
		return
	case t == reflect.TypeFor[resource.Quantity]():
		q := v.Interface().(resource.Quantity)
		v.Set(reflect.ValueOf(resource.NewMilliQuantity(q.MilliValue()+7, resource.DecimalSI)))
		return
	}
	switch v.Kind() {
	case reflect.Bool:
		v.SetBool(!v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(v.Int() + 1)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(v.Uint() + 1)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(v.Float() + 1)
	case reflect.String:
		v.SetString(v.String() + "!")
	case reflect.Pointer:
		if !v.IsNil() {
			mutate(v.Elem())
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			mutate(v.Index(i))
		}
	case reflect.Map:
		if v.IsNil() {
			return
		}
		keys := v.MapKeys()
		for _, k := range keys {
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(v.MapIndex(k))
			mutate(e)
			v.SetMapIndex(k, e)
		}
		if len(keys) > 0 {
			k := reflect.New(v.Type().Key()).Elem()
			k.Set(keys[0])
			mutate(k)
			v.SetMapIndex(k, v.MapIndex(keys[0]))
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				mutate(v.Field(i))
			}
		}
	}
}

// deepCopyCase checks one object kind: a copy of a fully filled value
// equals it and shares nothing mutable with it (every field, so a field
// DeepCopy forgets fails), and changing every leaf of the copy of a
// randomly filled value leaves the original as it was built.
func deepCopyCase[T any](t *testing.T, copyOf func(*T) *T) {
	t.Run("every field", func(t *testing.T) {
		var orig T
		filler{rng: rand.New(rand.NewPCG(1, 2)), full: true, t: t}.fill(reflect.ValueOf(&orig).Elem(), "")
		cp := copyOf(&orig)
		if d := cmp.Diff(&orig, cp, quantityCmp); d != "" {
			t.Fatalf("copy differs (-orig +copy):\n%s", d)
		}
		noAlias(t, reflect.ValueOf(&orig).Elem(), reflect.ValueOf(cp).Elem(), reflect.TypeFor[T]().Name())
	})
	t.Run("PropMutatingTheCopy", func(t *testing.T) {
		rapid.Check(t, func(rt *rapid.T) {
			seed := rapid.Uint64().Draw(rt, "seed")
			build := func() *T {
				v := new(T)
				filler{rng: rand.New(rand.NewPCG(seed, 3)), t: t}.fill(reflect.ValueOf(v).Elem(), "")
				return v
			}
			orig, want := build(), build()
			cp := copyOf(orig)
			if d := cmp.Diff(orig, cp, quantityCmp); d != "" {
				rt.Fatalf("copy differs (-orig +copy):\n%s", d)
			}
			mutate(reflect.ValueOf(cp).Elem())
			if d := cmp.Diff(want, orig, quantityCmp); d != "" {
				rt.Fatalf("changing the copy changed the original (-before +after):\n%s", d)
			}
		})
	})
}

func TestPropPodDeepCopy(t *testing.T)  { deepCopyCase(t, (*api.Pod).DeepCopy) }
func TestPropNodeDeepCopy(t *testing.T) { deepCopyCase(t, (*api.Node).DeepCopy) }

// A nil pod or node copies to nil; nil and empty slices and maps stay as
// they were.
func TestDeepCopyNilAndEmpty(t *testing.T) {
	if (*api.Pod)(nil).DeepCopy() != nil || (*api.Node)(nil).DeepCopy() != nil {
		t.Error("a nil object copied to non-nil")
	}
	p := &api.Pod{Spec: api.PodSpec{Containers: []api.Container{}, NodeSelector: map[string]string{}}}
	cp := p.DeepCopy()
	if cp.Spec.Containers == nil || cp.Spec.NodeSelector == nil || cp.Spec.Tolerations != nil || cp.Labels != nil {
		t.Errorf("copy %+v: empty and nil fields differ from the original's", cp.Spec)
	}
}

// big.Int values inside quantities are never written: sharing them is
// safe. This pins that a huge quantity copies with the same value.
func TestDeepCopyHugeQuantity(t *testing.T) {
	q := resource.MustParse(new(big.Int).Lsh(big.NewInt(1), 80).String())
	p := &api.Pod{Spec: api.PodSpec{Overhead: resource.List{"cpu": q}}}
	cp := p.DeepCopy()
	if got := cp.Spec.Overhead["cpu"]; got.Cmp(q) != 0 || !strings.HasPrefix(got.String(), "12089258196146291747") {
		t.Errorf("copied quantity %s, want %s", got.String(), q.String())
	}
}
