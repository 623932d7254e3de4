package estimator

import (
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
)

// Estimator predicts how much a pod will really use and how much a node
// really offers, for load-aware scheduling. It is Koordinator's
// loadaware/estimator.Estimator with schedkit's objects.
//
// Units. EstimatePod returns amounts keyed by the base resource name of a
// scaling factor (cpu, memory, ...), in Koordinator's vectorized units:
// cpu in milli-cores, every other resource in Value() units (bytes, counts),
// with one twist kept from Koordinator: a batch or mid pod's estimate of
// kubernetes.io/batch-cpu or kubernetes.io/mid-cpu (already integer
// milli-cores) is stored under cpu. EstimateNode returns plain quantities.
//
// Both methods must be safe for concurrent use. EstimateNode must be a pure
// function of the node object: AssignCache memoizes its vectorized result
// per *api.Node.
type Estimator interface {
	// Name identifies the estimator (the name it is registered under).
	Name() string
	// EstimatePod returns the pod's estimated usage. An all-zero or empty
	// result means "no estimate".
	EstimatePod(pod *api.Pod) (map[resource.Name]int64, error)
	// EstimateNode returns the node's usable capacity (default: its
	// allocatable, or its raw allocatable when the node is amplified).
	EstimateNode(node *api.Node) (resource.List, error)
}

// Options are what an estimator factory receives: the parts of
// LoadAwareSchedulingArgs Koordinator's estimators read, plus the whole args
// value for custom estimators.
type Options struct {
	// ScalingFactors are the percentages applied to a pod's requests or
	// limits per resource (args.estimatedScalingFactors). Empty means
	// Koordinator's defaults {cpu: 85, memory: 70}; a map lacking cpu or
	// memory is completed with those defaults.
	ScalingFactors map[resource.Name]int64
	// AllowCustomize honours the pod annotation
	// scheduling.koordinator.sh/load-estimated-scaling-factors
	// (args.allowCustomizeEstimation).
	AllowCustomize bool
	// LimitAtFull reproduces Koordinator ≤ v1.5: a resource whose limit
	// exceeds its request is estimated at its full limit (the scaling
	// factor is forced to 100). Default (false) is current Koordinator:
	// the factor applies to the limit.
	LimitAtFull bool
	// Args is the plugin's whole argument value (a
	// config.LoadAwareSchedulingArgs when built by the LoadAware plugins),
	// for custom estimators that need more; the built-in ones ignore it.
	Args any
}
