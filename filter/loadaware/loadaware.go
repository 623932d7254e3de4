// Package loadaware is Koordinator's LoadAwareScheduling plugin
// (pkg/scheduler/plugins/loadaware, current main ≥ v1.7; or ≤ v1.5 with
// CompatibilityMode "Koordinator<=1.5") as one plugin over kube-scheduler's
// framework (v1.37, the default release, or v1.36): filter.LoadAware's
// filter and scoring.LoadAware's score over one shared usage cache, which
// hears the cluster's events through the plugin's handle.
package loadaware

import (
	"context"
	"fmt"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/estimator"
	"github.com/schedkit/schedkit/filter"
	"github.com/schedkit/schedkit/framework"
	laint "github.com/schedkit/schedkit/internal/loadaware"
	"github.com/schedkit/schedkit/scoring"
)

// LoadAwareScheduling is Koordinator's LoadAwareScheduling as one plugin:
// filter.LoadAware's filter (PreFilter, Filter) and scoring.LoadAware's score
// (PreScore, Score) reading one shared usage cache, which Reserve and
// Unreserve keep current. Enable it at PreFilter, Filter, PreScore, Score
// and Reserve, as Koordinator's profile does.
//
// The cache hears the cluster's NodeMetrics and pod events through the
// plugin's handle (framework.Handle.AddClusterEventHandler: a scheduler
// tells it), or from the caller (Cache); a node without a NodeMetric passes
// the filter and scores 0.
type LoadAwareScheduling struct {
	f     *filter.LoadAware
	s     *scoring.LoadAware
	src   estimator.UsageSource
	cache *estimator.AssignCache
}

var (
	_ framework.PreFilterPlugin   = (*LoadAwareScheduling)(nil)
	_ framework.FilterPlugin      = (*LoadAwareScheduling)(nil)
	_ framework.PreScorePlugin    = (*LoadAwareScheduling)(nil)
	_ framework.ScorePlugin       = (*LoadAwareScheduling)(nil)
	_ framework.ReservePlugin     = (*LoadAwareScheduling)(nil)
	_ framework.ForkablePlugin    = (*LoadAwareScheduling)(nil)
	_ framework.EnqueueExtensions = (*LoadAwareScheduling)(nil)
)

// EventsToRegister is filter.LoadAware's: Koordinator's events (pod deletions,
// NodeMetric changes).
func (p *LoadAwareScheduling) EventsToRegister(ctx context.Context) ([]framework.ClusterEventWithHint, error) {
	return p.f.EventsToRegister(ctx)
}

// newLoadAwareScheduling builds the plugin (a *LoadAwareScheduling) with
// its own usage cache over the default estimator registry, or as the
// options say (WithEstimators, WithSource); args are defaulted and
// validated.
func newLoadAwareScheduling(args config.LoadAwareSchedulingArgs, h framework.Handle, opts ...Option) (framework.Plugin, error) {
	a, err := config.LoadAwareSchedulingArgsFrom(args)
	if err != nil {
		return nil, err
	}
	var o loadAwareOptions
	for _, opt := range opts {
		opt(&o)
	}
	src := o.src
	if !o.srcSet {
		cache, err := laint.NewCache(a, o.reg, h)
		if err != nil {
			return nil, err
		}
		src = cache
	}
	f, err := filter.NewLoadAwareWithSource(a, h, src)
	if err != nil {
		return nil, err
	}
	s, err := scoring.NewLoadAwareWithSource(a, h, src)
	if err != nil {
		return nil, err
	}
	p := &LoadAwareScheduling{f: f, s: s, src: src}
	p.cache, _ = src.(*estimator.AssignCache) // the halves added it to h
	return p, nil
}

// New builds the plugin (a *LoadAwareScheduling) with its own usage cache
// over the default estimator registry: nil args mean
// config.DefaultLoadAwareSchedulingArgs(); a config.LoadAwareSchedulingArgs
// or a pointer to one is used as given, defaulted and validated. It is a
// framework.Factory.
func New(args any, h framework.Handle) (framework.Plugin, error) {
	return FactoryWith()(args, h)
}

// FactoryWith is New with opts, for instance for a configuration whose args
// name an estimator registered in the caller's registry (WithEstimators).
func FactoryWith(opts ...Option) framework.Factory {
	return func(args any, h framework.Handle) (framework.Plugin, error) {
		return config.NewPlugin(config.LoadAwareSchedulingName, args, h, config.DefaultLoadAwareSchedulingArgs,
			func(a config.LoadAwareSchedulingArgs, h framework.Handle) (framework.Plugin, error) {
				p, err := newLoadAwareScheduling(a, h, opts...)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", config.LoadAwareSchedulingName, err)
				}
				return p, nil
			})
	}
}

// Name returns "LoadAwareScheduling".
func (p *LoadAwareScheduling) Name() string { return config.LoadAwareSchedulingName }

// Fork branches the shared usage source with the Scheduler's Fork (when
// the source is framework.Forkable, as an AssignCache is): pods recorded
// by Reserve and by cluster events in a branch, and NodeMetrics updated
// there, leave it at Revert.
func (p *LoadAwareScheduling) Fork() { laint.Fork(p.src) }

// Commit keeps the usage source's branch (see Fork).
func (p *LoadAwareScheduling) Commit() { laint.Commit(p.src) }

// Revert undoes the usage source's branch (see Fork).
func (p *LoadAwareScheduling) Revert() { laint.Revert(p.src) }

// Cache returns the shared usage cache (nil when the source is not an
// *estimator.AssignCache).
func (p *LoadAwareScheduling) Cache() *estimator.AssignCache { return p.cache }

// PreFilter estimates the incoming pod once for Filter.
func (p *LoadAwareScheduling) PreFilter(ctx context.Context, cs *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	return p.f.PreFilter(ctx, cs, pod, nodes)
}

// PreFilterExtensions returns nil.
func (p *LoadAwareScheduling) PreFilterExtensions() framework.PreFilterExtensions { return nil }

// VictimRemoval is filter.LoadAware's (runtime.VictimRemovalFilter).
func (p *LoadAwareScheduling) VictimRemoval(pod *framework.PodInfo) (unchanged, keepsPass bool) {
	return p.f.VictimRemoval(pod)
}

// Filter is filter.LoadAware's Filter.
func (p *LoadAwareScheduling) Filter(ctx context.Context, cs *framework.CycleState, pod *framework.PodInfo, node *framework.NodeInfo) *framework.Status {
	return p.f.Filter(ctx, cs, pod, node)
}

// PreScore reuses the PreFilter estimate of the same cycle when there is
// one, else estimates the pod.
func (p *LoadAwareScheduling) PreScore(ctx context.Context, cs *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo) *framework.Status {
	if d, err := cs.Read(laint.PreFilterStateKey); err == nil {
		if st, ok := d.(*laint.State); ok {
			cs.Write(laint.PreScoreStateKey, st)
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
