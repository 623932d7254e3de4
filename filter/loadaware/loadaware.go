// Package loadaware is Koordinator's LoadAwareScheduling plugin
// (pkg/scheduler/plugins/loadaware, current main ≥ v1.7; or ≤ v1.5 with
// CompatibilityMode "Koordinator<=1.5") over kube-scheduler's framework
// (v1.37, the default release, or v1.36): one plugin that rejects nodes whose
// real usage would exceed the usage thresholds and prefers the node with the
// least estimated real usage, reading one usage cache that hears the
// cluster's events through the plugin's handle. It holds the plugin's args
// compiled into vectors, the node-annotation threshold override and the
// per-cycle state of the incoming pod.
package loadaware

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/estimator"
	"github.com/schedkit/schedkit/filter"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/fastpath"
)

// LoadAwareScheduling is Koordinator's LoadAwareScheduling: PreFilter and
// Filter reject nodes whose real usage, as NodeMetrics report it plus
// estimates, would exceed the usage thresholds; PreScore and Score prefer
// the node with the least estimated real usage; Reserve and Unreserve
// record the pod in the usage cache both read. Enable it at PreFilter,
// Filter, PreScore, Score and Reserve, as Koordinator's profile does.
//
// The cache hears the cluster's NodeMetrics and pod events through the
// plugin's handle (framework.Handle.AddClusterEventHandler: a scheduler
// tells it), or from the caller (Cache); a node without a NodeMetric passes
// the filter and scores 0.
//
// Filter, in the anchor's order:
//  1. no node object → Error "node not found";
//  2. a DaemonSet-owned pod passes;
//  3. the node's threshold profile: the args', with the parts present in a
//     valid scheduling.koordinator.sh/usage-thresholds node annotation
//     replacing them whole;
//  4. prod pods (Koordinator priority class prod) are checked against the
//     prod thresholds when those are not all zero — prod usage only;
//     otherwise the aggregated thresholds when configured (the plain ones
//     are then not checked); otherwise the usage thresholds;
//  5. all chosen thresholds zero → pass (before any metric check);
//  6. no NodeMetric for the node → pass; capacity estimation error → pass;
//  7. with filterExpiredNodeMetrics, an expired metric (no update time, or
//     age ≥ nodeMetricExpirationSeconds) → Unschedulable
//     "node(s) nodeMetric expired" unless enableScheduleWhenNodeMetricsExpired;
//  8. no metric body → pass;
//  9. one pass per resource in name order (Koordinator's resource-vector
//     order; load_aware.go filterNodeUsage), skipping zero thresholds and
//     zero capacity: usage = reported + estimated deltas of assigned pods
//     not yet reported + the incoming pod's estimate (left out on an
//     estimation error); round(usage/capacity·100) > threshold →
//     Unschedulable "node(s) <res> usage exceed threshold" ("… aggregated
//     usage …" on the aggregated path), naming the first such resource.
//
// In ≤ v1.5 mode: an expired metric passes; only raw reported usage is
// compared (the aggregate of exactly that duration — 0: the longest — or the
// reported prod pods' usage, passing when absent; no estimate, so no
// incoming pod either) and round(…) ≥ threshold rejects. v1.5 ranges over a
// Go map, so when several resources are over it names one at random;
// schedkit names the first in name order.
//
// The per-node path does not allocate: the incoming pod's estimate and the
// cycle's time are computed in PreFilter, thresholds are vectors, node
// annotations are parsed once per node, rejection statuses are pre-built.
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
type LoadAwareScheduling struct {
	c     *compiled
	src   estimator.UsageSource
	cache *estimator.AssignCache
	clock framework.Clock
	memo  profileMemo
	drw   int64

	usageReasons []*framework.Status
	aggReasons   []*framework.Status
	expired      *framework.Status
	noNode       *framework.Status
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

// newLoadAwareScheduling builds the plugin with its own usage cache over
// the default estimator registry, or as the options say (WithEstimators,
// WithSource); args are defaulted and validated. Every resource the args
// name must be vectorized by the source. Reserve/Unreserve update the
// source only when it is an *estimator.AssignCache, which then also hears
// the cluster's events through h.
func newLoadAwareScheduling(args config.LoadAwareSchedulingArgs, h framework.Handle, opts ...Option) (*LoadAwareScheduling, error) {
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
		cache, err := newCache(a, o.reg, h)
		if err != nil {
			return nil, err
		}
		src = cache
	}
	if src == nil {
		return nil, fmt.Errorf("loadaware: nil usage source")
	}
	c, err := compile(a, src.Resources())
	if err != nil {
		return nil, err
	}
	p := &LoadAwareScheduling{
		c:       c,
		src:     src,
		clock:   clockOf(h),
		drw:     a.DominantResourceWeight,
		expired: framework.NewStatus(framework.Unschedulable, ErrReasonNodeMetricExpired),
		noNode:  framework.NewStatus(framework.Error, errReasonNodeNotFound),
	}
	p.cache, _ = src.(*estimator.AssignCache)
	listen(h, p.cache)
	for _, n := range c.Vec {
		p.usageReasons = append(p.usageReasons, framework.NewStatus(framework.Unschedulable, fmt.Sprintf(ErrReasonUsageExceedThreshold, n)))
		p.aggReasons = append(p.aggReasons, framework.NewStatus(framework.Unschedulable, fmt.Sprintf(ErrReasonAggregatedUsageExceedThreshold, n)))
	}
	return p, nil
}

// Name returns "LoadAwareScheduling".
func (p *LoadAwareScheduling) Name() string { return config.LoadAwareSchedulingName }

// Cache returns the usage cache the plugin reads and Reserve updates (nil
// when the source is not an *estimator.AssignCache).
func (p *LoadAwareScheduling) Cache() *estimator.AssignCache { return p.cache }

// Fork branches the usage source with a scheduler's fork (when the source
// is framework.Forkable, as an AssignCache is): pods recorded by Reserve
// and by cluster events in a branch, and NodeMetrics updated there, leave
// it at Revert.
func (p *LoadAwareScheduling) Fork() {
	if f, ok := p.src.(framework.Forkable); ok {
		f.Fork()
	}
}

// Commit keeps the usage source's branch (see Fork).
func (p *LoadAwareScheduling) Commit() {
	if f, ok := p.src.(framework.Forkable); ok {
		f.Commit()
	}
}

// Revert undoes the usage source's branch (see Fork).
func (p *LoadAwareScheduling) Revert() {
	if f, ok := p.src.(framework.Forkable); ok {
		f.Revert()
	}
}

// Args returns the defaulted args.
func (p *LoadAwareScheduling) Args() config.LoadAwareSchedulingArgs { return p.c.Args }

// PreFilter estimates the incoming pod once and records the cycle's time.
// It never fails (an estimation error is kept and the estimate dropped).
func (p *LoadAwareScheduling) PreFilter(_ context.Context, cs *framework.CycleState, pod *framework.PodInfo, _ []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	cs.Write(preFilterStateKey, newState(p.src, pod.Pod, p.clock))
	return nil, nil
}

// PreFilterExtensions returns nil: nominated pods do not change NodeMetrics.
func (p *LoadAwareScheduling) PreFilterExtensions() framework.PreFilterExtensions { return nil }

// VictimRemoval reports that removing pods from a node leaves the verdict
// unchanged (the verdict reads the node's metrics and the plugin's own
// estimates, which a dry run's removals do not change;
// runtime.VictimRemovalFilter).
func (p *LoadAwareScheduling) VictimRemoval(*framework.PodInfo) (unchanged, keepsPass bool) {
	return true, true
}

// Filter checks one node; see LoadAwareScheduling.
func (p *LoadAwareScheduling) Filter(_ context.Context, cs *framework.CycleState, pod *framework.PodInfo, ni *framework.NodeInfo) *framework.Status {
	node := ni.Node()
	if node == nil {
		return p.noNode
	}
	st := getState(cs, preFilterStateKey, p.src, pod.Pod, p.clock)
	if st.DaemonSet {
		return nil
	}
	prof := p.c.profileFor(node, &p.memo)
	if p.c.Compat {
		return p.filterV15(st, prof, node)
	}
	var thr []int64
	var aggType string
	var aggDur time.Duration
	prodPod := prof.ProdOn && st.Prod
	isAgg := false
	switch {
	case prodPod:
		thr = prof.Prod
	case prof.Agg != nil:
		if !prof.Agg.On {
			return nil
		}
		thr, aggType, aggDur, isAgg = prof.Agg.Thresholds, prof.Agg.Type, prof.Agg.Duration, true
	default:
		if !prof.UsageOn {
			return nil
		}
		thr = prof.Usage
	}
	view, capacity, capErr := p.src.Lookup(node)
	if view == nil || capErr != nil {
		return nil
	}
	if p.c.FilterExpired && view.Expired(st.Now, p.c.ExpirationSeconds) {
		if !p.c.EnableWhenExpired {
			return p.expired
		}
		return nil
	}
	if !view.HasBody {
		return nil
	}
	base, delta := view.Estimated(prodPod, aggType, aggDur)
	return p.exceeds(thr, base, delta, st.Estimate, capacity, isAgg)
}

// exceeds returns the rejection of the first resource (in name order) whose
// round((base+delta+inc)/capacity·100) exceeds its non-zero threshold,
// skipping resources without capacity.
func (p *LoadAwareScheduling) exceeds(thr, base, delta, inc, capacity []int64, isAgg bool) *framework.Status {
	for i, t := range thr {
		if t == 0 || capacity[i] == 0 {
			continue
		}
		used := base[i] + delta[i] + inc[i]
		if int64(math.Round(float64(used)/float64(capacity[i])*100)) > t {
			if isAgg {
				return p.aggReasons[i]
			}
			return p.usageReasons[i]
		}
	}
	return nil
}

// filterV15 is the filter of Koordinator ≤ v1.5 (seed 000): metric lookup,
// expired → pass, then raw reported usage against round(…) ≥ threshold.
func (p *LoadAwareScheduling) filterV15(st *state, prof *profile, node *api.Node) *framework.Status {
	view, capacity, capErr := p.src.Lookup(node)
	if view == nil {
		return nil
	}
	if p.c.FilterExpired && view.Expired(st.Now, p.c.ExpirationSeconds) {
		return nil
	}
	var thr, used []int64
	isAgg := false
	if prof.ProdSet && st.Prod {
		thr = prof.Prod
		used = view.Reported(true, "", 0)
	} else {
		if !view.HasBody {
			return nil
		}
		if prof.Agg != nil {
			thr, isAgg = prof.Agg.Thresholds, true
			used = view.Reported(false, prof.Agg.Type, prof.Agg.Duration)
		} else {
			thr = prof.Usage
			used = view.Reported(false, "", 0)
		}
	}
	if used == nil || capErr != nil {
		return nil
	}
	for i, t := range thr {
		if t == 0 || capacity[i] == 0 {
			continue
		}
		if int64(math.Round(float64(used[i])/float64(capacity[i])*100)) >= t {
			if isAgg {
				return p.aggReasons[i]
			}
			return p.usageReasons[i]
		}
	}
	return nil
}

var _ fastpath.CycleScopedPreScorePlugin = (*LoadAwareScheduling)(nil)

// PreScoreNodesInCycle marks the plugin as one that uses the nodes PreScore
// receives within the cycle only: it reads no node in PreScore.
func (p *LoadAwareScheduling) PreScoreNodesInCycle() {}

// PreScore reuses the PreFilter estimate of the same cycle when there is
// one, else estimates the incoming pod and records the cycle's time.
func (p *LoadAwareScheduling) PreScore(_ context.Context, cs *framework.CycleState, pod *framework.PodInfo, _ []*framework.NodeInfo) *framework.Status {
	if d, err := cs.Read(preFilterStateKey); err == nil {
		if st, ok := d.(*state); ok {
			cs.Write(preScoreStateKey, st)
			return nil
		}
	}
	cs.Write(preScoreStateKey, newState(p.src, pod.Pod, p.clock))
	return nil
}

// Score scores one node; see LoadAwareScheduling.
func (p *LoadAwareScheduling) Score(_ context.Context, cs *framework.CycleState, pod *framework.PodInfo, ni *framework.NodeInfo) (int64, *framework.Status) {
	if p.c.ScoreOff {
		return 0, nil
	}
	node := ni.Node()
	if node == nil {
		return 0, p.noNode
	}
	st := getState(cs, preScoreStateKey, p.src, pod.Pod, p.clock)
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
	return usageScore(p.c.Weights, p.drw, base, delta, st.Estimate, capacity), nil
}

// ScoreExtensions returns nil: LoadAwareScheduling has no NormalizeScore.
func (p *LoadAwareScheduling) ScoreExtensions() framework.ScoreExtensions { return nil }

// usageScore is Koordinator's loadAwareSchedulingScorer over the usage
// base + delta + incoming (all in the weights' resource order); see
// LoadAware.
func usageScore(weights []int64, dominantWeight int64, base, delta, incoming, capacity []int64) int64 {
	var nodeScore, weightSum, dominant int64
	if dominantWeight != 0 {
		dominant, weightSum = framework.MaxNodeScore, dominantWeight
	}
	for i, w := range weights {
		s := leastUsedScore(base[i]+delta[i]+incoming[i], capacity[i])
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

// leastUsedScore is Koordinator's leastUsedScore: 0 when capacity is 0 or
// used exceeds it, else (capacity − used)·100 / capacity, truncated. (A
// negative capacity, which Koordinator does not guard, also scores 0.)
func leastUsedScore(used, capacity int64) int64 {
	if capacity <= 0 || used > capacity {
		return 0
	}
	return (capacity - used) * framework.MaxNodeScore / capacity
}

// Reserve records the pod on nodeName in the usage cache (Koordinator's
// Reserve → podAssignCache.assign). An estimator returning a negative
// amount is an Error status.
func (p *LoadAwareScheduling) Reserve(_ context.Context, _ *framework.CycleState, pod *framework.PodInfo, nodeName string) *framework.Status {
	if p.cache == nil {
		return nil
	}
	return framework.AsStatus(p.cache.Assign(nodeName, pod.Pod))
}

// Unreserve removes the pod from nodeName in the usage cache.
func (p *LoadAwareScheduling) Unreserve(_ context.Context, _ *framework.CycleState, pod *framework.PodInfo, nodeName string) {
	if p.cache != nil {
		p.cache.Unassign(nodeName, pod.Pod)
	}
}

// EventsToRegister is Koordinator's LoadAwareScheduling's
// (pkg/scheduler/plugins/loadaware/load_aware.go): a pod deleted, a
// NodeMetric added, updated or deleted, each without a hint (always Queue).
func (p *LoadAwareScheduling) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{Event: filter.PodEvent(framework.Delete)},
		{Event: framework.ClusterEvent{Resource: framework.ResourceNodeMetric, ActionType: framework.Add | framework.Update | framework.Delete}},
	}, nil
}
