package estimator

import (
	"fmt"
	"slices"

	"github.com/schedkit/schedkit/framework"
)

// DefaultEstimatorName is the name of Koordinator's default estimator
// ("defaultEstimator"); it is also what an empty or unknown estimator name
// resolves to.
const DefaultEstimatorName = "defaultEstimator"

// Factory builds an estimator from the plugin's options and the
// framework handle (which may be nil outside a framework).
type Factory func(opts Options, h framework.Handle) (Estimator, error)

// Registry maps estimator names to factories. It is an ordinary value — build
// one per scheduler and hand it to the LoadAware plugins; there is no
// package-level registry (Koordinator keeps a global map; schedkit injects
// it). A new Registry already holds DefaultEstimatorName.
//
// A Registry is not safe for concurrent Register calls; register everything
// before using it.
type Registry struct {
	factories map[string]Factory
}

// NewRegistry returns a registry holding only the default estimator.
func NewRegistry() *Registry {
	return &Registry{factories: map[string]Factory{
		DefaultEstimatorName: func(opts Options, _ framework.Handle) (Estimator, error) {
			return NewDefaultEstimator(opts)
		},
	}}
}

// Register adds a factory. An empty name, a nil factory or a name already
// registered (DefaultEstimatorName included) is an error.
func (r *Registry) Register(name string, f Factory) error {
	if name == "" {
		return fmt.Errorf("estimator: registry: empty estimator name")
	}
	if f == nil {
		return fmt.Errorf("estimator: registry: estimator %q: nil factory", name)
	}
	if _, dup := r.factories[name]; dup {
		return fmt.Errorf("estimator: registry: estimator %q registered twice", name)
	}
	r.factories[name] = f
	return nil
}

// Has reports whether name is registered.
func (r *Registry) Has(name string) bool {
	if r == nil {
		return name == DefaultEstimatorName
	}
	_, ok := r.factories[name]
	return ok
}

// Names returns the registered names, sorted.
func (r *Registry) Names() []string {
	if r == nil {
		return []string{DefaultEstimatorName}
	}
	names := make([]string, 0, len(r.factories))
	for n := range r.factories {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// New builds the estimator named name. As Koordinator's NewEstimator, an
// empty name or a name that is not registered falls back to the default
// estimator (use Has to detect a misspelt name beforehand). A nil Registry
// behaves like NewRegistry(). A factory error is returned wrapped with the
// name.
func (r *Registry) New(name string, opts Options, h framework.Handle) (Estimator, error) {
	if r == nil {
		r = NewRegistry()
	}
	f, ok := r.factories[name]
	if !ok {
		name = DefaultEstimatorName
		f = r.factories[name]
	}
	e, err := f(opts, h)
	if err != nil {
		return nil, fmt.Errorf("estimator %q: %w", name, err)
	}
	if e == nil {
		return nil, fmt.Errorf("estimator %q: factory returned nil", name)
	}
	return e, nil
}
