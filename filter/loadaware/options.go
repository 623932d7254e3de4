package loadaware

import "github.com/schedkit/schedkit/estimator"

// Option gives LoadAwareScheduling a dependency beyond its args
// (FactoryWith).
type Option func(*loadAwareOptions)

type loadAwareOptions struct {
	reg    *estimator.Registry
	src    estimator.UsageSource
	srcSet bool
}

// WithEstimators makes the plugin's own usage cache choose args.Estimator
// from reg (nil: estimator.NewRegistry()).
func WithEstimators(reg *estimator.Registry) Option {
	return func(o *loadAwareOptions) { o.reg = reg }
}

// WithSource makes the plugin read src instead of a usage cache of
// its own (for instance an AssignCache the caller shares between profiles);
// Reserve and Unreserve update src when it is an *estimator.AssignCache. A
// nil src is an error.
func WithSource(src estimator.UsageSource) Option {
	return func(o *loadAwareOptions) { o.src, o.srcSet = src, true }
}
