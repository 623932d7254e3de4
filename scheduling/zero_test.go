package scheduling

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/internal/zerocheck"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

// zeroArg returns an argument of type t for a method called on a zero
// value: a well-formed object, so that the method gets past checking its
// arguments to the receiver's state.
func zeroArg(t reflect.Type) (reflect.Value, bool) {
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
	case reflect.TypeFor[api.StorageObjects]():
		v = api.StorageObjects{}
	case reflect.TypeFor[[]api.PodDisruptionBudget]():
		v = []api.PodDisruptionBudget{st.PDB("x", "x", "app", "x", 1)}
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
	default:
		if t.Kind() == reflect.Pointer {
			return reflect.New(t.Elem()), true
		}
		return reflect.Value{}, false
	}
	return reflect.ValueOf(v), true
}

// Every method of a zero Cluster{} answers as an empty cluster or fails
// with an error saying to build it with cluster.New; none panics.
func TestZeroClusterMethods(t *testing.T) {
	zerocheck.Methods(t, func() any { return &cluster.Cluster{} }, zeroArg)
}
