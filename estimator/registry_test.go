package estimator

import (
	"errors"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
)

type fixedEstimator struct {
	name string
	est  map[resource.Name]int64
	err  error
}

func (f *fixedEstimator) Name() string { return f.name }
func (f *fixedEstimator) EstimatePod(*api.Pod) (map[resource.Name]int64, error) {
	return f.est, f.err
}
func (f *fixedEstimator) EstimateNode(n *api.Node) (resource.List, error) {
	return n.Status.Allocatable, f.err
}

func TestRegistry(t *testing.T) {
	r := NewRegistry()
	if got := r.Names(); len(got) != 1 || got[0] != DefaultEstimatorName {
		t.Fatalf("NewRegistry().Names() = %v", got)
	}
	custom := &fixedEstimator{name: "fixed"}
	if err := r.Register("fixed", func(Options, framework.Handle) (Estimator, error) { return custom, nil }); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		f    Factory
		want string
	}{
		{"", func(Options, framework.Handle) (Estimator, error) { return custom, nil }, "empty estimator name"},
		{"nilf", nil, `estimator "nilf": nil factory`},
		{"fixed", func(Options, framework.Handle) (Estimator, error) { return custom, nil }, `"fixed" registered twice`},
		{DefaultEstimatorName, func(Options, framework.Handle) (Estimator, error) { return custom, nil }, `"defaultEstimator" registered twice`},
	} {
		if err := r.Register(tt.name, tt.f); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Register(%q) error = %v, want it to contain %q", tt.name, err, tt.want)
		}
	}
	// Koordinator's fallback: empty or unknown name → the default estimator.
	for _, name := range []string{"", "no-such-estimator", DefaultEstimatorName} {
		e, err := r.New(name, Options{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := e.(*DefaultEstimator); !ok {
			t.Errorf("New(%q) = %T, want *DefaultEstimator", name, e)
		}
	}
	if e, err := r.New("fixed", Options{}, nil); err != nil || e != custom {
		t.Errorf("New(fixed) = %v, %v", e, err)
	}
	if !r.Has("fixed") || r.Has("no-such-estimator") {
		t.Error("Has")
	}
	var nilReg *Registry
	if e, err := nilReg.New("x", Options{}, nil); err != nil || e.Name() != DefaultEstimatorName {
		t.Errorf("nil registry New = %v, %v", e, err)
	}
	// Factory errors are wrapped with the name; bad options reach the
	// default factory.
	boom := errors.New("boom")
	_ = r.Register("broken", func(Options, framework.Handle) (Estimator, error) { return nil, boom })
	if _, err := r.New("broken", Options{}, nil); !errors.Is(err, boom) || !strings.Contains(err.Error(), `estimator "broken"`) {
		t.Errorf("New(broken) error = %v", err)
	}
	_ = r.Register("nil", func(Options, framework.Handle) (Estimator, error) { return nil, nil })
	if _, err := r.New("nil", Options{}, nil); err == nil {
		t.Error("a factory returning nil must be an error")
	}
	if _, err := r.New("", Options{ScalingFactors: map[resource.Name]int64{resource.CPU: -3}}, nil); err == nil ||
		err.Error() != `estimator "defaultEstimator": estimatedScalingFactors["cpu"]=-3: must not be negative` {
		t.Errorf("bad factors error = %v", err)
	}
	// Registries are independent values: no package-level state.
	if NewRegistry().Has("fixed") {
		t.Error("a new registry must not see another registry's estimators")
	}
}
