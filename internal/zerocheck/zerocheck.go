// Package zerocheck checks that the zero values of a package's types fail
// clearly instead of panicking, for the packages' tests.
package zerocheck

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
)

// Methods calls every exported method of a fresh zero value (newZero
// returns a pointer to one), with arguments from arg (false: no argument
// for that type), and fails when one panics, when one that returns an
// error returns none or one that does not say the value is a zero value
// (": zero " and "build it with New"), or when any other result is neither
// its type's zero value nor an empty slice or map (an empty answer: no
// nodes, no pods).
func Methods(t *testing.T, newZero func() any, arg func(reflect.Type) (reflect.Value, bool)) {
	t.Helper()
	rt := reflect.TypeOf(newZero())
	for i := range rt.NumMethod() {
		m := rt.Method(i)
		t.Run(m.Name, func(t *testing.T) {
			ft := m.Func.Type()
			args := []reflect.Value{reflect.ValueOf(newZero())}
			for j := 1; j < ft.NumIn(); j++ {
				a, ok := arg(ft.In(j))
				if !ok {
					t.Fatalf("no argument for a %v: add one to the argument function", ft.In(j))
				}
				args = append(args, a)
			}
			var out []reflect.Value
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("panicked on the zero value: %v", r)
					}
				}()
				out = m.Func.Call(args)
			}()
			for j, o := range out {
				if ft.Out(j) != reflect.TypeFor[error]() {
					empty := (o.Kind() == reflect.Slice || o.Kind() == reflect.Map) && o.Len() == 0
					if !o.IsZero() && !empty {
						t.Errorf("result %d on the zero value is %v, want the zero %v", j, o, ft.Out(j))
					}
					continue
				}
				if o.IsNil() {
					t.Errorf("no error on the zero value")
				} else if err := o.Interface().(error); !strings.Contains(err.Error(), ": zero ") || !strings.Contains(err.Error(), "build it with New") {
					t.Errorf("error %q does not say the value is a zero value", err)
				}
			}
		})
	}
}

// Arg returns an argument of type t for a method called on a zero value
// (false when it has none for t): a well-formed object, so that the method gets past checking its
// arguments to the receiver's state.
func Arg(t reflect.Type) (reflect.Value, bool) {
	var v any
	switch t {
	case reflect.TypeFor[string]():
		v = "x"
	case reflect.TypeFor[context.Context]():
		v = context.Background()
	case reflect.TypeFor[*api.Node]():
		v = st.MakeNode().Name("x").Capacity(map[string]string{"cpu": "4", "memory": "8Gi", "pods": "10"}).Obj()
	case reflect.TypeFor[*api.Pod]():
		v = st.MakePod().Namespace("x").Name("x").Req(map[string]string{"cpu": "1"}).Obj()
	case reflect.TypeFor[*api.NodeMetric]():
		v = st.MakeNodeMetric("x").Obj()
	case reflect.TypeFor[api.StorageObject]():
		v = &api.StorageClass{}
	case reflect.TypeFor[api.StorageKind]():
		v = api.KindStorageClass
	case reflect.TypeFor[framework.ActionType]():
		v = framework.Add
	case reflect.TypeFor[api.StorageObjects]():
		v = api.StorageObjects{}
	case reflect.TypeFor[[]api.PodDisruptionBudget]():
		v = []api.PodDisruptionBudget{st.PDB("x", "x", "app", "x", 1)}
	case reflect.TypeFor[api.Namespace]():
		v = api.Namespace{Name: "x", Labels: map[string]string{"x": "x"}}
	case reflect.TypeFor[[]api.Service]():
		v = []api.Service{{Namespace: "x", Name: "x", Selector: map[string]string{"x": "x"}}}
	case reflect.TypeFor[[]api.WorkloadController]():
		v = []api.WorkloadController{{Kind: "ReplicaSet", Namespace: "x", Name: "x"}}
	case reflect.TypeFor[func() error]():
		v = func() error { return nil }
	case reflect.TypeFor[[]*api.Node]():
		v = []*api.Node{st.MakeNode().Name("x").Capacity(map[string]string{"cpu": "4", "memory": "8Gi", "pods": "10"}).Obj()}
	case reflect.TypeFor[[]string]():
		v = []string{"x"}
	case reflect.TypeFor[int]():
		v = 0
	case reflect.TypeFor[bool]():
		v = true
	case reflect.TypeFor[api.Condition]():
		v = api.Condition{Type: "x", Status: "True"}
	case reflect.TypeFor[time.Time]():
		v = time.Time{}
	case reflect.TypeFor[framework.KubeVersion]():
		v = framework.DefaultKubeVersion
	default:
		if t.Kind() == reflect.Pointer {
			return reflect.New(t.Elem()), true
		}
		return reflect.Value{}, false
	}
	return reflect.ValueOf(v), true
}
