package trimaran

import (
	"fmt"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
)

// Option gives a Trimaran plugin (TargetLoadPacking,
// LoadVariationRiskBalancing) a dependency beyond its args.
type Option func(*trimaranOptions)

type trimaranOptions struct {
	src    NodeLoadSource
	srcSet bool
}

// WithNodeLoadSource makes the plugin read the nodes' loads from src
// instead of its handle's (framework.Handle.NodeLoads). A nil src is an
// error.
func WithNodeLoadSource(src NodeLoadSource) Option {
	return func(o *trimaranOptions) { o.src, o.srcSet = src, true }
}

// trimaranLoads is where a Trimaran plugin reads loads: src, else its
// handle's, else none.
type trimaranLoads struct {
	src NodeLoadSource
	h   framework.Handle
}

// source returns the loads a cycle reads (asked once per cycle).
func (l trimaranLoads) source() NodeLoadSource {
	switch {
	case l.src != nil:
		return l.src
	case l.h != nil:
		return l.h.NodeLoads()
	}
	return NodeLoads{}
}

// trimaranSource returns where the plugin reads loads: the source opts
// name, else h's.
func trimaranSource(plugin string, h framework.Handle, opts []Option) (trimaranLoads, error) {
	var o trimaranOptions
	for _, opt := range opts {
		opt(&o)
	}
	if o.srcSet && o.src == nil {
		return trimaranLoads{}, fmt.Errorf("%s: WithNodeLoadSource(nil)", plugin)
	}
	return trimaranLoads{src: o.src, h: h}, nil
}

// NewTargetLoadPacking builds TargetLoadPacking (a *TargetLoadPacking)
// reading its handle's loads: nil args mean DefaultTargetLoadPackingArgs();
// a TargetLoadPackingArgs or a pointer to one is used as given, defaulted
// and validated. It is a framework.Factory; TargetLoadPackingFactoryWith
// gives the plugin other loads.
func NewTargetLoadPacking(args any, h framework.Handle) (framework.Plugin, error) {
	return TargetLoadPackingFactoryWith()(args, h)
}

// TargetLoadPackingFactoryWith is NewTargetLoadPacking with opts.
func TargetLoadPackingFactoryWith(opts ...Option) framework.Factory {
	return trimaranFactory(config.TargetLoadPackingName, DefaultTargetLoadPackingArgs, newTLP, opts)
}

// NewLoadVariationRiskBalancing builds LoadVariationRiskBalancing (a
// *LoadVariationRiskBalancing) reading its handle's loads: nil args mean
// DefaultLoadVariationRiskBalancingArgs(); a LoadVariationRiskBalancingArgs
// or a pointer to one is used as given, defaulted and validated. It is a
// framework.Factory; LoadVariationRiskBalancingFactoryWith gives the plugin
// other loads.
func NewLoadVariationRiskBalancing(args any, h framework.Handle) (framework.Plugin, error) {
	return LoadVariationRiskBalancingFactoryWith()(args, h)
}

// LoadVariationRiskBalancingFactoryWith is NewLoadVariationRiskBalancing
// with opts.
func LoadVariationRiskBalancingFactoryWith(opts ...Option) framework.Factory {
	return trimaranFactory(config.LoadVariationRiskBalancingName, DefaultLoadVariationRiskBalancingArgs, newLVRB, opts)
}

// trimaranFactory is the Factory of a Trimaran plugin's constructor with
// opts.
func trimaranFactory[A any](name string, def func() A,
	newPlugin func(A, framework.Handle, ...Option) (framework.Plugin, error), opts []Option) framework.Factory {
	return func(args any, h framework.Handle) (framework.Plugin, error) {
		return config.NewPlugin(name, args, h, def, func(a A, h framework.Handle) (framework.Plugin, error) {
			return newPlugin(a, h, opts...)
		})
	}
}
