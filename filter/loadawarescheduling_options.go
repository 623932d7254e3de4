package filter

import "github.com/schedkit/schedkit/estimator"

// LoadAwareSchedulingOption gives LoadAwareScheduling a dependency beyond
// its args (NewLoadAwareScheduling, LoadAwareSchedulingFactoryWith).
type LoadAwareSchedulingOption func(*loadAwareOptions)

type loadAwareOptions struct {
	reg    *estimator.Registry
	src    estimator.UsageSource
	srcSet bool
}

// WithLoadAwareEstimators makes the plugin's own usage cache choose
// args.Estimator from reg (nil: estimator.NewRegistry()).
func WithLoadAwareEstimators(reg *estimator.Registry) LoadAwareSchedulingOption {
	return func(o *loadAwareOptions) { o.reg = reg }
}

// WithLoadAwareSource makes the plugin read src instead of a usage cache of
// its own (for instance an AssignCache the caller shares between profiles);
// Reserve and Unreserve update src when it is an *estimator.AssignCache. A
// nil src is an error.
func WithLoadAwareSource(src estimator.UsageSource) LoadAwareSchedulingOption {
	return func(o *loadAwareOptions) { o.src, o.srcSet = src, true }
}
