package scoring

import (
	"context"
	"fmt"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/estimator"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/internal/loadaware"
)

// LoadAware is the score half of Koordinator's LoadAwareScheduling
// (pkg/scheduler/plugins/loadaware, current main ≥ v1.7): it prefers the
// node with the least estimated real usage. It also implements
// Reserve/Unreserve, recording the pod in the usage cache.
//
// Score, in the anchor's order of early returns: every resource weight and
// dominantResourceWeight zero → 0; no node object → Error "node not found";
// capacity estimation error → 0; no NodeMetric → 0; NodeMetric expired (no
// update time, or age ≥ nodeMetricExpirationSeconds, whatever
// filterExpiredNodeMetrics says) → 0; no metric body → 0; incoming-pod
// estimation error → 0. Otherwise, with used = reported usage (prod usage
// for a prod pod under scoreAccordingProdUsage; the aggregate
// (scoreAggregationType, scoreAggregatedDuration) when configured) + the
// estimated deltas of assigned pods not yet reported + the incoming pod's
// estimate, per vectorized resource i:
//
//	s_i = 0 if capacity_i == 0 or used_i > capacity_i, else (capacity_i − used_i)·100 / capacity_i
//	score = (Σ s_i·w_i + min_i(s_i)·D) / (Σ w_i + D)      integer division; 0 if the divisor is ≤ 0
//
// where w are the resourceWeights and D the dominantResourceWeight (the
// minimum runs over every vectorized resource, weighted or not, and only
// matters when D ≠ 0). There is no NormalizeScore. In ≤ v1.5 mode the score
// is the same with that version's estimator.
//
// The per-node path does not allocate.
type LoadAware struct {
	c     *loadaware.Compiled
	src   estimator.UsageSource
	cache *estimator.AssignCache
	clock framework.Clock
	drw   int64

	noNode *framework.Status
}

var (
	_ framework.PreScorePlugin = (*LoadAware)(nil)
	_ framework.ScorePlugin    = (*LoadAware)(nil)
	_ framework.ReservePlugin  = (*LoadAware)(nil)
	_ framework.ForkablePlugin = (*LoadAware)(nil)
)

// NewLoadAware builds the score half with its own usage cache (default
// estimator registry; see Cache). args are defaulted and validated.
func NewLoadAware(args config.LoadAwareSchedulingArgs, h framework.Handle) (framework.Plugin, error) {
	a, err := config.LoadAwareSchedulingArgsFrom(args)
	if err != nil {
		return nil, err
	}
	cache, err := loadaware.NewCache(a, nil, h)
	if err != nil {
		return nil, err
	}
	return NewLoadAwareWithSource(a, h, cache) // it keeps cache for Reserve
}

// LoadAwareFactory is NewLoadAware as a framework.Factory: nil args mean
// config.DefaultLoadAwareSchedulingArgs(); a config.LoadAwareSchedulingArgs or a pointer to one is used as given.
func LoadAwareFactory(args any, h framework.Handle) (framework.Plugin, error) {
	return config.NewPlugin(config.LoadAwareSchedulingName, args, h, config.DefaultLoadAwareSchedulingArgs, NewLoadAware)
}

// NewLoadAwareWithSource builds the score half reading src (shared, e.g.,
// with the filter half). Every resource the args name must be vectorized by
// src. Reserve/Unreserve update src only when it is an *estimator.AssignCache,
// which then also hears the cluster's events through h
// (framework.Handle.AddClusterEventHandler).
func NewLoadAwareWithSource(args config.LoadAwareSchedulingArgs, h framework.Handle, src estimator.UsageSource) (*LoadAware, error) {
	if src == nil {
		return nil, fmt.Errorf("loadaware: nil usage source")
	}
	a, err := config.LoadAwareSchedulingArgsFrom(args)
	if err != nil {
		return nil, err
	}
	c, err := loadaware.Compile(a, src.Resources())
	if err != nil {
		return nil, err
	}
	p := &LoadAware{
		c:      c,
		src:    src,
		clock:  loadaware.Clock(h),
		drw:    a.DominantResourceWeight,
		noNode: framework.NewStatus(framework.Error, loadaware.ReasonNodeNotFound),
	}
	p.cache, _ = src.(*estimator.AssignCache)
	loadaware.Listen(h, p.cache)
	return p, nil
}

// Name returns "LoadAwareScheduling".
func (p *LoadAware) Name() string { return config.LoadAwareSchedulingName }

// Cache returns the usage cache the plugin reads and Reserve updates (nil
// when the source is not an *estimator.AssignCache).
func (p *LoadAware) Cache() *estimator.AssignCache { return p.cache }

// Fork branches the usage source with a scheduler's fork (when the
// source is framework.Forkable, as an AssignCache is): the pods Reserve
// and the cluster's events record in a branch leave it at Revert.
func (p *LoadAware) Fork() { loadaware.Fork(p.src) }

// Commit keeps the usage source's branch (see Fork).
func (p *LoadAware) Commit() { loadaware.Commit(p.src) }

// Revert undoes the usage source's branch (see Fork).
func (p *LoadAware) Revert() { loadaware.Revert(p.src) }

// Args returns the defaulted args.
func (p *LoadAware) Args() config.LoadAwareSchedulingArgs { return p.c.Args }

// PreScore estimates the incoming pod once and records the cycle's time.
func (p *LoadAware) PreScore(_ context.Context, cs *framework.CycleState, pod *framework.PodInfo, _ []*framework.NodeInfo) *framework.Status {
	cs.Write(loadaware.PreScoreStateKey, loadaware.NewState(p.src, pod.Pod, p.clock))
	return nil
}

// Score scores one node; see LoadAware.
func (p *LoadAware) Score(_ context.Context, cs *framework.CycleState, pod *framework.PodInfo, ni *framework.NodeInfo) (int64, *framework.Status) {
	if p.c.ScoreOff {
		return 0, nil
	}
	node := ni.Node()
	if node == nil {
		return 0, p.noNode
	}
	st := loadaware.GetState(cs, loadaware.PreScoreStateKey, p.src, pod.Pod, p.clock)
	view, capacity, capErr := p.src.Lookup(node)
	if view == nil || capErr != nil {
		return 0, nil
	}
	if view.Expired(st.Now, p.c.ExpirationSeconds) || !view.HasBody || st.EstimateErr != nil {
		return 0, nil
	}
	prodPod := p.c.Args.ScoreAccordingProdUsage && st.Prod
	aggType, aggDur := "", p.c.ScoreAggDuration
	if !prodPod {
		aggType = p.c.ScoreAggType
	}
	base, delta := view.Estimated(prodPod, aggType, aggDur)
	return LoadAwareScore(p.c.Weights, p.drw, base, delta, st.Estimate, capacity), nil
}

// ScoreExtensions returns nil: LoadAwareScheduling has no NormalizeScore.
func (p *LoadAware) ScoreExtensions() framework.ScoreExtensions { return nil }

// LoadAwareScore is Koordinator's loadAwareSchedulingScorer over the usage
// base + delta + incoming (all in the weights' resource order); see
// LoadAware.
func LoadAwareScore(weights []int64, dominantWeight int64, base, delta, incoming, capacity []int64) int64 {
	var nodeScore, weightSum, dominant int64
	if dominantWeight != 0 {
		dominant, weightSum = framework.MaxNodeScore, dominantWeight
	}
	for i, w := range weights {
		s := LeastUsedScore(base[i]+delta[i]+incoming[i], capacity[i])
		nodeScore += s * w
		weightSum += w
		if dominant > s {
			dominant = s
		}
	}
	nodeScore += dominant * dominantWeight
	if weightSum <= 0 {
		return 0
	}
	return nodeScore / weightSum
}

// LeastUsedScore is Koordinator's leastUsedScore: 0 when capacity is 0 or
// used exceeds it, else (capacity − used)·100 / capacity, truncated. (A
// negative capacity, which Koordinator does not guard, also scores 0.)
func LeastUsedScore(used, capacity int64) int64 {
	if capacity <= 0 || used > capacity {
		return 0
	}
	return (capacity - used) * framework.MaxNodeScore / capacity
}

// Reserve records the pod on nodeName in the usage cache. An estimator
// returning a negative amount is an Error status.
func (p *LoadAware) Reserve(_ context.Context, _ *framework.CycleState, pod *framework.PodInfo, nodeName string) *framework.Status {
	if p.cache == nil {
		return nil
	}
	return framework.AsStatus(p.cache.Assign(nodeName, pod.Pod))
}

// Unreserve removes the pod from nodeName in the usage cache.
func (p *LoadAware) Unreserve(_ context.Context, _ *framework.CycleState, pod *framework.PodInfo, nodeName string) {
	if p.cache != nil {
		p.cache.Unassign(nodeName, pod.Pod)
	}
}
