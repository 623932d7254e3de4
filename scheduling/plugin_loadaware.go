package scheduling

import (
	"context"
	"fmt"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/estimator"
	"github.com/schedkit/schedkit/filter"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/internal/loadaware"
	"github.com/schedkit/schedkit/scoring"
)

// LoadAwareScheduling is Koordinator's LoadAwareScheduling offered as one
// plugin: the filter half (filter.LoadAware: PreFilter, Filter) and the score
// half (scoring.LoadAware: PreScore, Score) reading one shared usage cache,
// which Reserve and Unreserve keep current. Enable it at PreFilter, Filter,
// PreScore, Score and Reserve, as Koordinator's profile does.
//
// Feed the cache (Cache) with NodeMetrics and the cluster's pod events; a
// node without a NodeMetric passes the filter and scores 0.
type LoadAwareScheduling struct {
	f     *filter.LoadAware
	s     *scoring.LoadAware
	src   estimator.UsageSource
	cache *estimator.AssignCache
}

var (
	_ framework.PreFilterPlugin  = (*LoadAwareScheduling)(nil)
	_ framework.FilterPlugin     = (*LoadAwareScheduling)(nil)
	_ framework.PreScorePlugin   = (*LoadAwareScheduling)(nil)
	_ framework.ScorePlugin      = (*LoadAwareScheduling)(nil)
	_ framework.ReservePlugin    = (*LoadAwareScheduling)(nil)
	_ framework.EnqueueForwarder = (*LoadAwareScheduling)(nil)
)

// EnqueueTarget returns the filter half, which registers Koordinator's
// events (pod deletions, NodeMetric changes).
func (p *LoadAwareScheduling) EnqueueTarget() framework.Plugin { return p.f }

// NewLoadAwareScheduling builds the plugin with the default estimator
// registry; LoadAwareSchedulingFactory is its framework.Factory.
func NewLoadAwareScheduling(args config.LoadAwareSchedulingArgs, h framework.Handle) (framework.Plugin, error) {
	return NewLoadAwareSchedulingWithRegistry(args, h, nil)
}

// LoadAwareSchedulingFactory is NewLoadAwareScheduling as a
// framework.Factory: nil args mean config.DefaultLoadAwareSchedulingArgs();
// a config.LoadAwareSchedulingArgs or a pointer to one is used as given.
func LoadAwareSchedulingFactory(args any, h framework.Handle) (framework.Plugin, error) {
	return LoadAwareSchedulingFactoryWithRegistry(nil)(args, h)
}

// NewLoadAwareSchedulingWithRegistry builds the plugin choosing
// args.Estimator from reg (nil: estimator.NewRegistry()).
func NewLoadAwareSchedulingWithRegistry(args config.LoadAwareSchedulingArgs, h framework.Handle, reg *estimator.Registry) (*LoadAwareScheduling, error) {
	a, err := config.LoadAwareSchedulingArgsFrom(args)
	if err != nil {
		return nil, err
	}
	cache, err := loadaware.NewCache(a, reg, h)
	if err != nil {
		return nil, err
	}
	return NewLoadAwareSchedulingWithSource(a, h, cache)
}

// NewLoadAwareSchedulingWithSource builds the plugin reading src (for
// instance an AssignCache the caller shares between profiles). Reserve and
// Unreserve update src when it is an *estimator.AssignCache.
func NewLoadAwareSchedulingWithSource(args config.LoadAwareSchedulingArgs, h framework.Handle, src estimator.UsageSource) (*LoadAwareScheduling, error) {
	f, err := filter.NewLoadAwareWithSource(args, h, src)
	if err != nil {
		return nil, err
	}
	s, err := scoring.NewLoadAwareWithSource(args, h, src)
	if err != nil {
		return nil, err
	}
	p := &LoadAwareScheduling{f: f, s: s, src: src}
	p.cache, _ = src.(*estimator.AssignCache)
	return p, nil
}

// LoadAwareSchedulingFactoryWithRegistry is LoadAwareSchedulingFactory
// with the estimators of reg (nil: the default registry), for a
// configuration whose args name an estimator registered there.
func LoadAwareSchedulingFactoryWithRegistry(reg *estimator.Registry) framework.Factory {
	return func(args any, h framework.Handle) (framework.Plugin, error) {
		return config.NewPlugin(config.LoadAwareSchedulingName, args, h, config.DefaultLoadAwareSchedulingArgs,
			func(a config.LoadAwareSchedulingArgs, h framework.Handle) (framework.Plugin, error) {
				p, err := NewLoadAwareSchedulingWithRegistry(a, h, reg)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", config.LoadAwareSchedulingName, err)
				}
				return p, nil
			})
	}
}

// Name returns "LoadAwareScheduling".
func (p *LoadAwareScheduling) Name() string { return config.LoadAwareSchedulingName }

// Cache returns the shared usage cache (nil when the source is not an
// *estimator.AssignCache).
func (p *LoadAwareScheduling) Cache() *estimator.AssignCache { return p.cache }

// FilterHalf returns the filter half.
func (p *LoadAwareScheduling) FilterHalf() *filter.LoadAware { return p.f }

// ScoreHalf returns the score half.
func (p *LoadAwareScheduling) ScoreHalf() *scoring.LoadAware { return p.s }

// PreFilter estimates the incoming pod once for Filter.
func (p *LoadAwareScheduling) PreFilter(ctx context.Context, cs *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	return p.f.PreFilter(ctx, cs, pod, nodes)
}

// PreFilterExtensions returns nil.
func (p *LoadAwareScheduling) PreFilterExtensions() framework.PreFilterExtensions { return nil }

// Filter is filter.LoadAware's Filter.
func (p *LoadAwareScheduling) Filter(ctx context.Context, cs *framework.CycleState, pod *framework.PodInfo, node *framework.NodeInfo) *framework.Status {
	return p.f.Filter(ctx, cs, pod, node)
}

// PreScore reuses the PreFilter estimate of the same cycle when there is
// one, else estimates the pod.
func (p *LoadAwareScheduling) PreScore(ctx context.Context, cs *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo) *framework.Status {
	if d, err := cs.Read(loadaware.PreFilterStateKey); err == nil {
		if st, ok := d.(*loadaware.State); ok {
			cs.Write(loadaware.PreScoreStateKey, st)
			return nil
		}
	}
	return p.s.PreScore(ctx, cs, pod, nodes)
}

// Score is scoring.LoadAware's Score.
func (p *LoadAwareScheduling) Score(ctx context.Context, cs *framework.CycleState, pod *framework.PodInfo, node *framework.NodeInfo) (int64, *framework.Status) {
	return p.s.Score(ctx, cs, pod, node)
}

// ScoreExtensions returns nil (no NormalizeScore).
func (p *LoadAwareScheduling) ScoreExtensions() framework.ScoreExtensions { return nil }

// Reserve records the pod on nodeName in the shared cache, once.
func (p *LoadAwareScheduling) Reserve(ctx context.Context, cs *framework.CycleState, pod *framework.PodInfo, nodeName string) *framework.Status {
	return p.f.Reserve(ctx, cs, pod, nodeName)
}

// Unreserve removes the pod from nodeName in the shared cache.
func (p *LoadAwareScheduling) Unreserve(ctx context.Context, cs *framework.CycleState, pod *framework.PodInfo, nodeName string) {
	p.f.Unreserve(ctx, cs, pod, nodeName)
}
