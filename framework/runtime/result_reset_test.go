package runtime

import (
	"errors"
	"reflect"
	"testing"
	"unsafe"

	"github.com/schedkit/schedkit/framework"
)

// resultBuffers are the Result fields reset keeps, emptied, for the next
// cycle; every other field must come out zero (selected -1, and the
// Diagnosis pointing back at its Result).
var resultBuffers = map[string]bool{
	"rawBuf": true, "Normalized": true, "Totals": true, "ScorePlugins": true, "Weights": true,
	"Top": true, "rejections": true, "rejRuns": true, "feasible": true, "feasibleCache": true, "feasibleBuf": true, "feasibleWords": true,
	"spans": true, "candidateIdx": true, "candBuf": true, "ties": true, "placeOff": true,
	"rank.best": true, "rank.cnt": true, "rank.top": true, "rank.tops": true, "pre.top": true,
}

// TestResultResetClearsEveryField fills every field of a Result, nested
// ones included, with a value other than zero, resets it, and checks
// each field: a field added to Result and forgotten by reset fails here.
func TestResultResetClearsEveryField(t *testing.T) {
	r := &Result{}
	fillFields(t, reflect.ValueOf(r).Elem(), "")
	before := map[string]reflect.Value{}
	walkFields(reflect.ValueOf(r).Elem(), "", func(path string, v reflect.Value) {
		if resultBuffers[path] {
			before[path] = reflect.ValueOf(v.Interface()) // a copy of the slice header
		}
	})
	if len(before) != len(resultBuffers) {
		t.Fatalf("found %d of the %d buffers: %v", len(before), len(resultBuffers), before)
	}
	r.reset()
	walkFields(reflect.ValueOf(r).Elem(), "", func(path string, v reflect.Value) {
		switch {
		case resultBuffers[path]:
			b := before[path]
			if v.Len() != 0 || v.Cap() != b.Cap() || v.UnsafePointer() != b.UnsafePointer() {
				t.Errorf("%s: len %d cap %d, want an empty slice of the same array (cap %d)", path, v.Len(), v.Cap(), b.Cap())
			}
		case path == "selected":
			if v.Int() != -1 {
				t.Errorf("selected = %d, want -1", v.Int())
			}
		case path == "Diagnosis.result":
			if v.Pointer() != uintptr(unsafe.Pointer(r)) {
				t.Errorf("Diagnosis.result does not point at the Result")
			}
		case !v.IsZero():
			t.Errorf("%s not cleared: %v", path, v)
		}
	})
}

// settable returns v, a field perhaps unexported, as a settable value.
func settable(v reflect.Value) reflect.Value {
	return reflect.NewAt(v.Type(), unsafe.Pointer(v.UnsafeAddr())).Elem()
}

// fillFields sets every leaf field under v to a value other than zero.
func fillFields(t *testing.T, v reflect.Value, path string) {
	for i := range v.NumField() {
		f, name := settable(v.Field(i)), v.Type().Field(i).Name
		p := name
		if path != "" {
			p = path + "." + name
		}
		switch f.Kind() {
		case reflect.Struct:
			fillFields(t, f, p)
		case reflect.Slice:
			f.Set(reflect.MakeSlice(f.Type(), 1, 3))
		case reflect.Pointer:
			f.Set(reflect.New(f.Type().Elem()))
		case reflect.Map:
			f.Set(reflect.MakeMap(f.Type()))
		case reflect.String:
			f.SetString("x")
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			f.SetInt(7)
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
			f.SetUint(7)
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Interface:
			e := reflect.ValueOf(errors.New("x"))
			if c := reflect.ValueOf(framework.RealClock{}); c.Type().Implements(f.Type()) {
				e = c
			}
			if !e.Type().Implements(f.Type()) {
				t.Fatalf("%s: no value to fill an interface %s with", p, f.Type())
			}
			f.Set(e)
		default:
			t.Fatalf("%s: no value to fill a %s with", p, f.Kind())
		}
	}
}

// walkFields calls visit on every leaf field under v, and on the fields
// resultBuffers names, with its path.
func walkFields(v reflect.Value, path string, visit func(string, reflect.Value)) {
	for i := range v.NumField() {
		f, name := settable(v.Field(i)), v.Type().Field(i).Name
		p := name
		if path != "" {
			p = path + "." + name
		}
		if f.Kind() == reflect.Struct && !resultBuffers[p] {
			walkFields(f, p, visit)
			continue
		}
		visit(p, f)
	}
}
