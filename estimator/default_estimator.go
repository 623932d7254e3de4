package estimator

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
)

// Defaults of Koordinator's default estimator.
const (
	// DefaultMilliCPURequest is the estimate of a pod that neither requests
	// nor limits cpu (or batch-cpu): 250m. Note it differs from
	// kube-scheduler's non-zero default of 100m.
	DefaultMilliCPURequest int64 = 250
	// DefaultMemoryRequest is the estimate of a pod that neither requests
	// nor limits memory (or batch-memory): 200 MiB.
	DefaultMemoryRequest int64 = 200 * 1024 * 1024
	// DefaultCPUScalingFactor and DefaultMemoryScalingFactor are the
	// default estimatedScalingFactors (percent).
	DefaultCPUScalingFactor    int64 = 85
	DefaultMemoryScalingFactor int64 = 70
)

// DefaultScalingFactors returns Koordinator's default
// estimatedScalingFactors: {cpu: 85, memory: 70}.
func DefaultScalingFactors() map[resource.Name]int64 {
	return map[resource.Name]int64{resource.CPU: DefaultCPUScalingFactor, resource.Memory: DefaultMemoryScalingFactor}
}

// DefaultEstimator is Koordinator's default estimator
// (loadaware/estimator/default_estimator.go, current main ≥ v1.7), or with
// Options.LimitAtFull its ≤ v1.5 behaviour.
//
// EstimatePod: for each scaling-factor key k with factor f (the options'
// factors, or — when customization is allowed and the pod annotation parses
// to a non-empty map — the annotation's factors completed with the
// options'), with r the name k translates to for the pod's priority class
// (TranslateResourceName) and R, L the pod's effective requests and limits
// (api.PodRequests, api.PodLimits):
//
//	q := max(L[r], R[r])
//	q == 0:  250 (milli) for cpu and batch-cpu, 200 MiB for memory and
//	         batch-memory, 0 for anything else (mid-cpu, mid-memory, the
//	         empty name of a koord-free pod, extended resources)
//	else:    est := round(q·f/100), half away from zero, q in milli for cpu
//	         and Value() otherwise; est is capped at L[r] when L[r] > 0
//	         (≤ v1.5 mode: when L[r] > R[r] the estimate is L[r])
//
// stored under k. So Guaranteed and limited Burstable pods get f×limit,
// request-only pods f×request, and a factor above 100 is clipped at the
// limit.
//
// EstimateNode returns status.allocatable, overlaid with the
// node.koordinator.sh/raw-allocatable annotation when that parses, is
// non-empty and differs from allocatable (an unparsable annotation is
// ignored).
type DefaultEstimator struct {
	factors        map[resource.Name]int64
	factorNames    []resource.Name
	allowCustomize bool
	limitAtFull    bool
}

var _ Estimator = (*DefaultEstimator)(nil)

// NewDefaultEstimator builds the default estimator. Empty ScalingFactors
// mean {cpu: 85, memory: 70}; a map lacking cpu or memory is completed with
// those defaults (as Koordinator's args defaulting). A negative factor is an
// error naming the resource. Factors above 100 are accepted here (the
// plugin args reject them; the estimate is then capped at the limit).
func NewDefaultEstimator(opts Options) (*DefaultEstimator, error) {
	f := DefaultScalingFactors()
	for _, n := range slices.Sorted(maps.Keys(opts.ScalingFactors)) {
		v := opts.ScalingFactors[n]
		if n == "" {
			return nil, fmt.Errorf("estimatedScalingFactors: empty resource name")
		}
		if v < 0 {
			return nil, fmt.Errorf("estimatedScalingFactors[%q]=%d: must not be negative", n, v)
		}
		f[n] = v
	}
	return &DefaultEstimator{
		factors:        f,
		factorNames:    slices.Sorted(maps.Keys(f)),
		allowCustomize: opts.AllowCustomize,
		limitAtFull:    opts.LimitAtFull,
	}, nil
}

// Name returns DefaultEstimatorName.
func (e *DefaultEstimator) Name() string { return DefaultEstimatorName }

// ScalingFactors returns a copy of the estimator's factors.
func (e *DefaultEstimator) ScalingFactors() map[resource.Name]int64 { return maps.Clone(e.factors) }

// EstimatePod estimates the pod's usage; see DefaultEstimator. It never
// fails.
func (e *DefaultEstimator) EstimatePod(pod *api.Pod) (map[resource.Name]int64, error) {
	factors, names := e.factors, e.factorNames
	if e.allowCustomize {
		if custom, err := ParseScalingFactorsAnnotation(pod); err == nil && len(custom) > 0 {
			merged := maps.Clone(e.factors)
			maps.Copy(merged, custom)
			factors, names = merged, slices.Sorted(maps.Keys(merged))
		}
	}
	requests := api.PodRequests(pod, api.RequestOptions{})
	limits := api.PodLimits(pod)
	class := PriorityClassOf(pod)
	out := make(map[resource.Name]int64, len(names))
	for _, k := range names {
		r := TranslateResourceName(class, k)
		out[k] = e.estimateResource(requests, limits, r, factors[k])
	}
	return out, nil
}

func (e *DefaultEstimator) estimateResource(requests, limits resource.List, r resource.Name, factor int64) int64 {
	limit, request := limits[r], requests[r]
	q := request
	atLimit := false
	if limit.Cmp(request) > 0 {
		q = limit
		atLimit = e.limitAtFull
	}
	if q.IsZero() {
		switch r {
		case resource.CPU, resource.BatchCPU:
			return DefaultMilliCPURequest
		case resource.Memory, resource.BatchMemory:
			return DefaultMemoryRequest
		}
		return 0
	}
	qv, lv := Amount(r, q), Amount(r, limit)
	if atLimit {
		return lv
	}
	est := int64(math.Round(float64(qv) * float64(factor) / 100))
	if lv > 0 && est > lv {
		est = lv
	}
	return est
}

// EstimateNode returns the node's capacity; see DefaultEstimator. It never
// fails.
func (e *DefaultEstimator) EstimateNode(node *api.Node) (resource.List, error) {
	alloc := node.Status.Allocatable
	raw, err := ParseRawAllocatableAnnotation(node)
	if err != nil || len(raw) == 0 || raw.Equal(alloc) {
		return alloc, nil
	}
	out := alloc.Clone()
	if out == nil {
		out = resource.List{}
	}
	maps.Copy(out, raw)
	return out, nil
}
