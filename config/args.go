package config

import "fmt"

// Args is the uniform interface of the plugins' argument types, in this
// package and in the plugins' home packages, used by configuration
// loading (package configfile) to treat every plugin's args alike.
// SetDefaults fills the fields a configuration file left absent exactly as
// the anchor's versioned SetDefaults does (for kube-scheduler, alike in v1.36 and v1.37:
// apis/config/v1/defaults.go; for Koordinator:
// SetDefaults_LoadAwareSchedulingArgs); it is idempotent. Validate reports
// every invalid field, each error naming the field and its value.
//
// Fields whose absence the anchor distinguishes from an explicit zero (for
// example InterPodAffinity's hardPodAffinityWeight, where 0 is valid) cannot
// be told apart in a plain value; start from the type's Default…Args()
// value and overwrite what the file gives, as package scheduling does.
type Args interface {
	SetDefaults()
	Validate() error
}

var _ Args = (*LoadAwareSchedulingArgs)(nil)

// ArgsFrom converts the args a plugin factory receives into an A: nil or a
// nil *A gives def(), an A or a non-nil *A is taken as given, and any other
// type is an error naming the plugin and both types. Defaulting and
// validation are the caller's.
func ArgsFrom[A any](plugin string, args any, def func() A) (A, error) {
	switch v := args.(type) {
	case nil:
		return def(), nil
	case A:
		return v, nil
	case *A:
		if v == nil {
			return def(), nil
		}
		return *v, nil
	}
	var zero A
	return zero, fmt.Errorf("%s: args of type %T, want %T", plugin, args, zero)
}
