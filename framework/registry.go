package framework

import (
	"fmt"
	"slices"
)

// Factory builds a plugin from its args (nil when the profile gives none)
// and the framework handle.
type Factory func(args any, h Handle) (Plugin, error)

// TypedFactory adapts a constructor that takes args of type A, for plugins
// of your own. Nil args become the zero A (the constructor applies
// defaults); args of another type are an error naming both types. Where
// the zero A is itself a valid setting (for instance InterPodAffinity's
// hardPodAffinityWeight 0), map nil to the defaults instead with
// config.NewPlugin, as every XFactory of schedkit's own plugins does.
func TypedFactory[A any](f func(args A, h Handle) (Plugin, error)) Factory {
	return func(args any, h Handle) (Plugin, error) {
		var a A
		switch v := args.(type) {
		case nil:
		case A:
			a = v
		case *A:
			if v != nil {
				a = *v
			}
		default:
			return nil, fmt.Errorf("args of type %T, want %T", args, a)
		}
		return f(a, h)
	}
}

// Registry maps plugin names to factories. It is an ordinary value: build
// one per scheduler; there is no global registry.
type Registry struct {
	factories map[string]Factory
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{factories: map[string]Factory{}} }

// Register adds a factory. An empty name, a nil factory or a name already
// registered is an error.
func (r *Registry) Register(name string, f Factory) error {
	if name == "" {
		return fmt.Errorf("framework: registry: empty plugin name")
	}
	if f == nil {
		return fmt.Errorf("framework: registry: plugin %q: nil factory", name)
	}
	if _, dup := r.factories[name]; dup {
		return fmt.Errorf("framework: registry: plugin %q registered twice", name)
	}
	r.factories[name] = f
	return nil
}

// Merge registers every factory of o; a name in both is an error.
func (r *Registry) Merge(o *Registry) error {
	for _, n := range o.Names() {
		if err := r.Register(n, o.factories[n]); err != nil {
			return err
		}
	}
	return nil
}

// Lookup returns the factory of name.
func (r *Registry) Lookup(name string) (Factory, bool) {
	f, ok := r.factories[name]
	return f, ok
}

// Names returns the registered names, sorted.
func (r *Registry) Names() []string {
	names := make([]string, 0, len(r.factories))
	for n := range r.factories {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
