package loadaware

import (
	"fmt"
	"sync"
	"time"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/estimator"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
)

// State keys, by kube-scheduler's convention.
const (
	preFilterStateKey framework.StateKey = "PreFilter" + config.LoadAwareSchedulingName
	preScoreStateKey  framework.StateKey = "PreScore" + config.LoadAwareSchedulingName
)

// Reason strings of Koordinator's LoadAwareScheduling filter.
const (
	ErrReasonNodeMetricExpired              = "node(s) nodeMetric expired"
	ErrReasonUsageExceedThreshold           = "node(s) %s usage exceed threshold"
	ErrReasonAggregatedUsageExceedThreshold = "node(s) %s aggregated usage exceed threshold"
	errReasonNodeNotFound                   = "node not found"
)

// clockOf returns h's clock, or the wall clock for a nil handle.
func clockOf(h framework.Handle) framework.Clock {
	if h != nil {
		if c := h.Clock(); c != nil {
			return c
		}
	}
	return framework.RealClock{}
}

// newCache builds the AssignCache the args describe: the estimator named by
// args.Estimator from reg (nil: estimator.NewRegistry()), vectorizing every
// resource the args name, with h's clock. args must be defaulted.
func newCache(args config.LoadAwareSchedulingArgs, reg *estimator.Registry, h framework.Handle) (*estimator.AssignCache, error) {
	est, err := reg.New(args.Estimator, estimator.Options{
		ScalingFactors: args.EstimatedScalingFactors,
		AllowCustomize: args.AllowCustomizeEstimation,
		LimitAtFull:    args.CompatibilityMode == config.LoadAwareCompatKoordinatorV15,
		Args:           args,
	}, h)
	if err != nil {
		return nil, fmt.Errorf("loadaware: %w", err)
	}
	return estimator.NewAssignCache(est, estimator.CacheOptions{
		Resources:                         args.VectorizedResources(),
		Clock:                             clockOf(h),
		ProdUsageIncludeSys:               args.ProdUsageIncludeSys,
		EstimatedSecondsAfterPodScheduled: args.EstimatedSecondsAfterPodScheduled,
		EstimatedSecondsAfterInitialized:  args.EstimatedSecondsAfterInitialized,
		AllowCustomizeEstimation:          args.AllowCustomizeEstimation,
	})
}

// aggProfile is an aggregated-usage threshold profile.
type aggProfile struct {
	Thresholds []int64
	Type       string
	Duration   time.Duration
	// On reports a non-zero threshold.
	On bool
}

// profile is the filter's threshold profile for one node: the args', or the
// node annotation's parts replacing them.
type profile struct {
	Usage []int64
	Prod  []int64
	// ProdSet reports a non-empty prod threshold map (the ≤ v1.5 prod test);
	// UsageOn and ProdOn report a non-zero threshold (the current tests).
	ProdSet bool
	UsageOn bool
	ProdOn  bool
	Agg     *aggProfile
}

// compiled is a defaulted, validated LoadAwareSchedulingArgs compiled
// against a source's resource order.
type compiled struct {
	Args   config.LoadAwareSchedulingArgs
	Vec    estimator.Vectorizer
	Base   profile
	Compat bool
	// FilterExpired, EnableWhenExpired and ExpirationSeconds are the expiry
	// settings, pointers resolved.
	FilterExpired     bool
	EnableWhenExpired bool
	ExpirationSeconds int64
	// Weights are the score weights; ScoreOff reports that every weight
	// and the dominant weight are 0 (scoring disabled).
	Weights  []int64
	ScoreOff bool
	// ScoreAggType and ScoreAggDuration are the score aggregation, if any.
	ScoreAggType     string
	ScoreAggDuration time.Duration
}

func laAnyNonZero(v []int64) bool {
	for _, x := range v {
		if x != 0 {
			return true
		}
	}
	return false
}

// compile checks that vec (the usage source's order) vectorizes every
// resource the args name — a missing one is an error naming it, since its
// thresholds would otherwise be ignored silently — and compiles the args.
func compile(args config.LoadAwareSchedulingArgs, vec estimator.Vectorizer) (*compiled, error) {
	for _, n := range args.VectorizedResources() {
		if vec.Index(n) < 0 {
			return nil, fmt.Errorf("loadaware: resource %q named in the args is not vectorized by the usage source (it vectorizes %v)", n, vec)
		}
	}
	c := &compiled{
		Args:              args,
		Vec:               vec,
		Compat:            args.CompatibilityMode == config.LoadAwareCompatKoordinatorV15,
		FilterExpired:     args.FilterExpiredNodeMetrics != nil && *args.FilterExpiredNodeMetrics,
		EnableWhenExpired: args.EnableScheduleWhenNodeMetricsExpired != nil && *args.EnableScheduleWhenNodeMetricsExpired,
		Weights:           vec.FromAmounts(args.ResourceWeights),
	}
	if s := args.NodeMetricExpirationSeconds; s != nil {
		c.ExpirationSeconds = *s
	}
	c.ScoreOff = !laAnyNonZero(c.Weights) && args.DominantResourceWeight == 0
	c.Base = profile{
		Usage:   vec.FromAmounts(args.UsageThresholds),
		Prod:    vec.FromAmounts(args.ProdUsageThresholds),
		ProdSet: len(args.ProdUsageThresholds) > 0,
	}
	if a := args.Aggregated; a != nil {
		if len(a.UsageThresholds) > 0 && a.UsageAggregationType != "" {
			t := vec.FromAmounts(a.UsageThresholds)
			c.Base.Agg = &aggProfile{Thresholds: t, Type: a.UsageAggregationType, Duration: a.UsageAggregatedDuration, On: laAnyNonZero(t)}
		}
		if a.ScoreAggregationType != "" {
			c.ScoreAggType, c.ScoreAggDuration = a.ScoreAggregationType, a.ScoreAggregatedDuration
		}
	}
	c.Base.UsageOn = laAnyNonZero(c.Base.Usage)
	c.Base.ProdOn = laAnyNonZero(c.Base.Prod)
	return c, nil
}

// profileMemo remembers the parsed threshold annotation of each annotated
// node (keyed by name, re-parsed when the annotation text changes), so the
// per-node filter path does not parse JSON. Safe for concurrent use.
type profileMemo struct {
	mu sync.RWMutex
	m  map[string]*laMemoEntry
}

type laMemoEntry struct {
	raw string
	p   *profile
}

// profileFor returns the node's threshold profile, as Koordinator's
// generateUsageThresholdsFilterProfile: the args' profile unless the node
// carries a valid scheduling.koordinator.sh/usage-thresholds annotation
// with a usage map, a prod map or an aggregated entry (one with thresholds
// and a type; otherwise the aggregated entry is ignored); each of the three
// present in the annotation replaces the args' part whole, the others are
// kept; an annotation aggregate without duration means 0 (the longest). An
// annotation that is not valid JSON is ignored (the anchor's fallback; see
// estimator.ParseUsageThresholdsAnnotation to surface it). Resource names
// the source does not vectorize are ignored, as in Koordinator.
func (c *compiled) profileFor(node *api.Node, memo *profileMemo) *profile {
	raw, ok := node.Annotations[estimator.AnnotationCustomUsageThresholds]
	if !ok {
		return &c.Base
	}
	memo.mu.RLock()
	e := memo.m[node.Name]
	memo.mu.RUnlock()
	if e != nil && e.raw == raw {
		return e.p
	}
	p := c.parseProfile(node)
	memo.mu.Lock()
	if memo.m == nil {
		memo.m = map[string]*laMemoEntry{}
	}
	memo.m[node.Name] = &laMemoEntry{raw: raw, p: p}
	memo.mu.Unlock()
	return p
}

func (c *compiled) parseProfile(node *api.Node) *profile {
	ct, err := estimator.ParseUsageThresholdsAnnotation(node)
	if err != nil || ct == nil {
		return &c.Base
	}
	agg := ct.AggregatedUsage
	if agg != nil && !(len(agg.UsageThresholds) > 0 && agg.UsageAggregationType != "") {
		agg = nil
	}
	if len(ct.UsageThresholds) == 0 && len(ct.ProdUsageThresholds) == 0 && agg == nil {
		return &c.Base
	}
	p := c.Base
	if len(ct.UsageThresholds) > 0 {
		p.Usage = c.Vec.FromAmounts(ct.UsageThresholds)
		p.UsageOn = laAnyNonZero(p.Usage)
	}
	if len(ct.ProdUsageThresholds) > 0 {
		p.Prod = c.Vec.FromAmounts(ct.ProdUsageThresholds)
		p.ProdSet = true
		p.ProdOn = laAnyNonZero(p.Prod)
	}
	if agg != nil {
		t := c.Vec.FromAmounts(agg.UsageThresholds)
		ap := &aggProfile{Thresholds: t, Type: agg.UsageAggregationType, On: laAnyNonZero(t)}
		if agg.UsageAggregatedDuration != nil {
			ap.Duration = agg.UsageAggregatedDuration.Duration
		}
		p.Agg = ap
	}
	return &p
}

// state is the incoming pod's per-cycle data, computed once in PreFilter or
// PreScore: its estimate vector (zero, with EstimateErr set, when the
// estimator failed), whether it is prod and DaemonSet-owned, and the cycle's
// "now" for the expiry checks. It is immutable.
type state struct {
	Estimate    []int64
	EstimateErr error
	Prod        bool
	DaemonSet   bool
	Now         time.Time
}

// Clone returns s (state is immutable).
func (s *state) Clone() framework.StateData { return s }

// isDaemonSetPod reports whether any owner reference has kind DaemonSet.
func isDaemonSetPod(pod *api.Pod) bool {
	for i := range pod.OwnerReferences {
		if pod.OwnerReferences[i].Kind == "DaemonSet" {
			return true
		}
	}
	return false
}

// newState computes the pod's state with src and clock.
func newState(src estimator.UsageSource, pod *api.Pod, clock framework.Clock) *state {
	s := &state{
		Prod:      estimator.PriorityClassOf(pod) == estimator.PriorityProd,
		DaemonSet: isDaemonSetPod(pod),
		Now:       clock.Now(),
	}
	est, err := src.EstimatePodVector(pod)
	if err != nil {
		s.EstimateErr = err
		est = make([]int64, len(src.Resources()))
	}
	s.Estimate = est
	return s
}

// getState reads the state under key, computing and storing it when absent
// (the plugin's PreFilter/PreScore did not run).
func getState(cs *framework.CycleState, key framework.StateKey, src estimator.UsageSource, pod *api.Pod, clock framework.Clock) *state {
	if cs != nil {
		if d, err := cs.Read(key); err == nil {
			if s, ok := d.(*state); ok {
				return s
			}
		}
	}
	s := newState(src, pod, clock)
	if cs != nil {
		cs.Write(key, s)
	}
	return s
}

// cacheEvents is a usage cache as a framework.ClusterEventHandler: pods
// placed or removed outside the plugin's Reserve and NodeMetric updates.
// Errors (a pod the estimator rejects, an invalid metric) leave the cache
// as it was; the cluster is the source of truth.
type cacheEvents struct{ c *estimator.AssignCache }

var _ framework.ClusterEventHandler = cacheEvents{}

// AssignedPodAdded records pod on its node.
func (e cacheEvents) AssignedPodAdded(pod *api.Pod) { _ = e.c.AddPod(pod) }

// AssignedPodDeleted removes pod.
func (e cacheEvents) AssignedPodDeleted(pod *api.Pod) { e.c.DeletePod(pod) }

// NodeMetricUpdated stores m.
func (e cacheEvents) NodeMetricUpdated(m *api.NodeMetric) { _ = e.c.UpdateNodeMetric(m) }

// listen has cache hear the cluster's events through h (a nil h or cache:
// nothing); the plugins sharing a cache add it once.
func listen(h framework.Handle, cache *estimator.AssignCache) {
	if h != nil && cache != nil {
		h.AddClusterEventHandler(cacheEvents{cache})
	}
}
