package estimator

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sync"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
)

// HistoryEstimatorName is the name HistoryEstimator reports and is usually
// registered under.
const HistoryEstimatorName = "historyEstimator"

// UsageHistory supplies past usage samples per history key (by default
// ControllerKey: a pod's controller, or the pod itself), in vector units
// (cpu in milli-cores, everything else in Value() units).
type UsageHistory interface {
	// Samples returns the recorded samples of key for one resource; the
	// caller does not modify them.
	Samples(key string, name resource.Name) []int64
}

// ControllerKey is the default history key of a pod: "namespace/Kind/name"
// of its controller owner (so a new replica inherits its siblings'
// history), or "namespace/name" of the pod itself when it has no
// controller.
func ControllerKey(pod *api.Pod) string {
	if ref := pod.ControllerRef(); ref != nil {
		return pod.Namespace + "/" + ref.Kind + "/" + ref.Name
	}
	return pod.Namespace + "/" + pod.Name
}

// HistoryOptions configure a HistoryEstimator.
type HistoryOptions struct {
	// History is the sample source (required).
	History UsageHistory
	// Percentile (1..100) of the samples to use, by nearest rank.
	Percentile int
	// MinSamples (≥ 1) a resource needs before its history is trusted;
	// with fewer the fallback's estimate is kept.
	MinSamples int
	// HeadroomPercent (≥ 0) is added on top of the percentile:
	// estimate = round(p · (100 + headroom) / 100).
	HeadroomPercent int64
	// Key maps a pod to its history key; nil means ControllerKey.
	Key func(pod *api.Pod) string
	// Fallback estimates pods (and nodes) without enough history. It is
	// required by NewHistoryEstimator; HistoryFactory fills a nil Fallback
	// with a DefaultEstimator built from the factory's options.
	Fallback Estimator
}

// HistoryEstimator estimates a pod from the usage history of its key:
// for every resource the fallback estimator reports, the Percentile-th
// sample (nearest rank) of the pod's history plus HeadroomPercent, capped at
// the pod's positive limit of that resource (translated by priority class,
// as the default estimator); resources with fewer than MinSamples samples
// keep the fallback's estimate. EstimateNode is the fallback's.
//
// It is the "pluggable estimator" Koordinator's design leaves to separate
// components (profiles from history), shown here to prove the Estimator
// interface; it is not an anchor behaviour.
type HistoryEstimator struct {
	opts HistoryOptions
}

var _ Estimator = (*HistoryEstimator)(nil)

// NewHistoryEstimator validates opts: a nil History or Fallback, a
// Percentile outside 1..100, MinSamples < 1 or a negative HeadroomPercent is
// an error naming the field and value.
func NewHistoryEstimator(opts HistoryOptions) (*HistoryEstimator, error) {
	switch {
	case opts.History == nil:
		return nil, fmt.Errorf("history estimator: history: nil")
	case opts.Fallback == nil:
		return nil, fmt.Errorf("history estimator: fallback: nil")
	case opts.Percentile < 1 || opts.Percentile > 100:
		return nil, fmt.Errorf("history estimator: percentile=%d: must be within [1,100]", opts.Percentile)
	case opts.MinSamples < 1:
		return nil, fmt.Errorf("history estimator: minSamples=%d: must be at least 1", opts.MinSamples)
	case opts.HeadroomPercent < 0:
		return nil, fmt.Errorf("history estimator: headroomPercent=%d: must not be negative", opts.HeadroomPercent)
	}
	if opts.Key == nil {
		opts.Key = ControllerKey
	}
	return &HistoryEstimator{opts: opts}, nil
}

// HistoryFactory returns an Factory for a Registry. When
// opts.Fallback is nil the factory builds a DefaultEstimator from the
// plugin's Options.
func HistoryFactory(opts HistoryOptions) Factory {
	return func(eo Options, _ framework.Handle) (Estimator, error) {
		o := opts
		if o.Fallback == nil {
			d, err := NewDefaultEstimator(eo)
			if err != nil {
				return nil, err
			}
			o.Fallback = d
		}
		return NewHistoryEstimator(o)
	}
}

// Name returns HistoryEstimatorName.
func (h *HistoryEstimator) Name() string { return HistoryEstimatorName }

// EstimatePod estimates the pod; see HistoryEstimator.
func (h *HistoryEstimator) EstimatePod(pod *api.Pod) (map[resource.Name]int64, error) {
	out, err := h.opts.Fallback.EstimatePod(pod)
	if err != nil {
		return nil, err
	}
	out = maps.Clone(out)
	key := h.opts.Key(pod)
	var limits resource.List
	class := PriorityClassOf(pod)
	for _, n := range slices.Sorted(maps.Keys(out)) {
		samples := h.opts.History.Samples(key, n)
		if len(samples) < h.opts.MinSamples {
			continue
		}
		p := NearestRank(samples, h.opts.Percentile)
		est := int64(math.Round(float64(p) * float64(100+h.opts.HeadroomPercent) / 100))
		if limits == nil {
			limits = api.PodLimits(pod)
		}
		if r := TranslateResourceName(class, n); r != "" {
			if lv := Amount(r, limits[r]); lv > 0 && est > lv {
				est = lv
			}
		}
		out[n] = est
	}
	return out, nil
}

// EstimateNode returns the fallback's capacity.
func (h *HistoryEstimator) EstimateNode(node *api.Node) (resource.List, error) {
	return h.opts.Fallback.EstimateNode(node)
}

// NearestRank returns the p-th percentile (1..100) of samples by the
// nearest-rank method: the ⌈p/100·n⌉-th smallest sample. It returns 0 for no
// samples; samples is not modified.
func NearestRank(samples []int64, p int) int64 {
	n := len(samples)
	if n == 0 {
		return 0
	}
	s := slices.Clone(samples)
	slices.Sort(s)
	rank := (p*n + 99) / 100
	if rank < 1 {
		rank = 1
	}
	if rank > n {
		rank = n
	}
	return s[rank-1]
}

// MemoryHistory is an in-memory UsageHistory keeping the last Window
// samples per key and resource. It is safe for concurrent use.
type MemoryHistory struct {
	window int
	mu     sync.RWMutex
	data   map[string]map[resource.Name][]int64
}

// NewMemoryHistory returns an empty history keeping window (≥ 1) samples.
func NewMemoryHistory(window int) (*MemoryHistory, error) {
	if window < 1 {
		return nil, fmt.Errorf("memory history: window=%d: must be at least 1", window)
	}
	return &MemoryHistory{window: window, data: map[string]map[resource.Name][]int64{}}, nil
}

// Record appends one sample per resource of usage (vector units) to key's
// history, dropping the oldest beyond the window. A negative amount is an
// error naming the key and resource, and nothing is recorded.
func (h *MemoryHistory) Record(key string, usage map[resource.Name]int64) error {
	names := slices.Sorted(maps.Keys(usage))
	for _, n := range names {
		if usage[n] < 0 {
			return fmt.Errorf("memory history: %s: usage[%q]=%d: must not be negative", key, n, usage[n])
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	m := h.data[key]
	if m == nil {
		m = map[resource.Name][]int64{}
		h.data[key] = m
	}
	for _, n := range names {
		s := append(m[n], usage[n])
		if len(s) > h.window {
			s = append(s[:0:0], s[len(s)-h.window:]...)
		}
		m[n] = s
	}
	return nil
}

// Samples returns a copy of key's samples of name, oldest first.
func (h *MemoryHistory) Samples(key string, name resource.Name) []int64 {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return slices.Clone(h.data[key][name])
}
