package filter

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/estimator"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/loadaware"
)

// LoadAware is the filter half of Koordinator's LoadAwareScheduling
// (pkg/scheduler/plugins/loadaware, current main ≥ v1.7; or ≤ v1.5 with
// CompatibilityMode "Koordinator<=1.5"): it rejects nodes whose real usage,
// as NodeMetrics report it plus estimates, would exceed the usage
// thresholds. It also implements Reserve/Unreserve, recording the pod in
// the usage cache.
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
type LoadAware struct {
	c     *loadaware.Compiled
	src   estimator.UsageSource
	cache *estimator.AssignCache
	clock framework.Clock
	memo  loadaware.ProfileMemo

	usageReasons []*framework.Status
	aggReasons   []*framework.Status
	expired      *framework.Status
	noNode       *framework.Status
}

var (
	_ framework.PreFilterPlugin = (*LoadAware)(nil)
	_ framework.FilterPlugin    = (*LoadAware)(nil)
	_ framework.ReservePlugin   = (*LoadAware)(nil)
	_ framework.ForkablePlugin  = (*LoadAware)(nil)
)

// NewLoadAware builds the filter half with its own usage cache (the default
// estimator registry; see Cache to feed it NodeMetrics and pods). args are
// defaulted and validated.
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

// NewLoadAwareWithSource builds the filter half reading src (shared, e.g.,
// with the score half). Every resource the args name must be vectorized by
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
		c:       c,
		src:     src,
		clock:   loadaware.Clock(h),
		expired: framework.NewStatus(framework.Unschedulable, loadaware.ReasonNodeMetricExpired),
		noNode:  framework.NewStatus(framework.Error, loadaware.ReasonNodeNotFound),
	}
	p.cache, _ = src.(*estimator.AssignCache)
	loadaware.Listen(h, p.cache)
	for _, n := range c.Vec {
		p.usageReasons = append(p.usageReasons, framework.NewStatus(framework.Unschedulable, fmt.Sprintf(loadaware.ReasonUsageExceedThreshold, n)))
		p.aggReasons = append(p.aggReasons, framework.NewStatus(framework.Unschedulable, fmt.Sprintf(loadaware.ReasonAggregatedUsageThreshold, n)))
	}
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

// PreFilter estimates the incoming pod once and records the cycle's time.
// It never fails (an estimation error is kept and the estimate dropped).
func (p *LoadAware) PreFilter(_ context.Context, cs *framework.CycleState, pod *framework.PodInfo, _ []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	cs.Write(loadaware.PreFilterStateKey, loadaware.NewState(p.src, pod.Pod, p.clock))
	return nil, nil
}

// PreFilterExtensions returns nil: nominated pods do not change NodeMetrics.
func (p *LoadAware) PreFilterExtensions() framework.PreFilterExtensions { return nil }

// VictimRemoval reports that removing pods from a node leaves the verdict
// unchanged (the verdict reads the node's metrics and the plugin's own
// estimates, which a dry run's removals do not change;
// runtime.VictimRemovalFilter).
func (p *LoadAware) VictimRemoval(*framework.PodInfo) (unchanged, keepsPass bool) { return true, true }

// Filter checks one node; see LoadAware.
func (p *LoadAware) Filter(_ context.Context, cs *framework.CycleState, pod *framework.PodInfo, ni *framework.NodeInfo) *framework.Status {
	node := ni.Node()
	if node == nil {
		return p.noNode
	}
	st := loadaware.GetState(cs, loadaware.PreFilterStateKey, p.src, pod.Pod, p.clock)
	if st.DaemonSet {
		return nil
	}
	prof := p.c.ProfileFor(node, &p.memo)
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
func (p *LoadAware) exceeds(thr, base, delta, inc, capacity []int64, isAgg bool) *framework.Status {
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
func (p *LoadAware) filterV15(st *loadaware.State, prof *loadaware.Profile, node *api.Node) *framework.Status {
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

// Reserve records the pod on nodeName in the usage cache (Koordinator's
// Reserve → podAssignCache.assign). An estimator returning a negative
// amount is an Error status.
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

var _ framework.EnqueueExtensions = (*LoadAware)(nil)

// EventsToRegister is Koordinator's LoadAwareScheduling's
// (pkg/scheduler/plugins/loadaware/load_aware.go): a pod deleted, a
// NodeMetric added, updated or deleted, each without a hint (always Queue).
func (pl *LoadAware) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{Event: PodEvent(framework.Delete)},
		{Event: framework.ClusterEvent{Resource: framework.ResourceNodeMetric, ActionType: framework.Add | framework.Update | framework.Delete}},
	}, nil
}
