package scoring

import (
	"fmt"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
)

// TrimaranOption gives a Trimaran plugin (TargetLoadPacking,
// LoadVariationRiskBalancing) a dependency beyond its args.
type TrimaranOption func(*trimaranOptions)

type trimaranOptions struct {
	src NodeLoadSource
}

// WithNodeLoadSource makes the plugin read the nodes' loads from src
// (package scheduling's registry passes the Scheduler's NodeLoads). A nil
// src is an error.
func WithNodeLoadSource(src NodeLoadSource) TrimaranOption {
	return func(o *trimaranOptions) { o.src = src }
}

// trimaranSource returns the source opts name: NodeLoads{} (no loads)
// without WithNodeLoadSource.
func trimaranSource(plugin string, opts []TrimaranOption) (NodeLoadSource, error) {
	o := trimaranOptions{src: NodeLoads{}}
	for _, opt := range opts {
		opt(&o)
	}
	if o.src == nil {
		return nil, fmt.Errorf("%s: WithNodeLoadSource(nil)", plugin)
	}
	return o.src, nil
}

// TargetLoadPackingFactory is NewTargetLoadPacking as a framework.Factory
// (no loads): nil args mean config.DefaultTargetLoadPackingArgs(); a
// config.TargetLoadPackingArgs or a pointer to one is used as given.
// TargetLoadPackingFactoryWith gives the plugin its loads.
func TargetLoadPackingFactory(args any, h framework.Handle) (framework.Plugin, error) {
	return TargetLoadPackingFactoryWith()(args, h)
}

// TargetLoadPackingFactoryWith is TargetLoadPackingFactory with opts.
func TargetLoadPackingFactoryWith(opts ...TrimaranOption) framework.Factory {
	return trimaranFactory(config.TargetLoadPackingName, config.DefaultTargetLoadPackingArgs, NewTargetLoadPacking, opts)
}

// LoadVariationRiskBalancingFactory is NewLoadVariationRiskBalancing as a
// framework.Factory (no loads): nil args mean
// config.DefaultLoadVariationRiskBalancingArgs(); a
// config.LoadVariationRiskBalancingArgs or a pointer to one is used as
// given. LoadVariationRiskBalancingFactoryWith gives the plugin its loads.
func LoadVariationRiskBalancingFactory(args any, h framework.Handle) (framework.Plugin, error) {
	return LoadVariationRiskBalancingFactoryWith()(args, h)
}

// LoadVariationRiskBalancingFactoryWith is LoadVariationRiskBalancingFactory
// with opts.
func LoadVariationRiskBalancingFactoryWith(opts ...TrimaranOption) framework.Factory {
	return trimaranFactory(config.LoadVariationRiskBalancingName, config.DefaultLoadVariationRiskBalancingArgs, NewLoadVariationRiskBalancing, opts)
}

// trimaranFactory is the Factory of a Trimaran plugin's constructor with
// opts.
func trimaranFactory[A any](name string, def func() A,
	newPlugin func(A, framework.Handle, ...TrimaranOption) (framework.Plugin, error), opts []TrimaranOption) framework.Factory {
	return func(args any, h framework.Handle) (framework.Plugin, error) {
		return config.NewPlugin(name, args, h, def, func(a A, h framework.Handle) (framework.Plugin, error) {
			return newPlugin(a, h, opts...)
		})
	}
}
