package karmada

import (
	"errors"
	"fmt"
	"math"

	"github.com/schedkit/schedkit/resource"
)

// GeneralEstimatorName is the name Karmada registers its general estimator
// under; CalAvailableReplicas results carry it.
const GeneralEstimatorName = "general-estimator"

// GeneralOptions configure a GeneralEstimator. The zero value reproduces
// Karmada v1.18+ with its default feature gates.
type GeneralOptions struct {
	// Generation is the resource-model algorithm (default ModelFirstFit,
	// Karmada v1.18+).
	Generation ModelGeneration
	// DisableResourceModels turns the resource models off, as the feature
	// gate CustomizedClusterResourceModeling=false does (it is on by default
	// since Karmada v1.4): only the summary is used.
	DisableResourceModels bool
	// OvercommitProtection deducts assumed (in-flight) workloads from the
	// resource summary, as the alpha feature gate
	// SchedulingOvercommitProtection does (off by default). Assumed
	// workloads passed in are placed on the resource-model virtual nodes
	// whatever this option, as Karmada's estimator does (its scheduler
	// collects them only with the gate on).
	OvercommitProtection bool
	// CanonicalSetUnits makes the summary bound of component sets compare
	// cpu in milli-cores and every other resource in Value() units. Karmada
	// instead converts each quantity by its format (quantityAsInt64:
	// DecimalSI and DecimalExponent quantities in milli-units, BinarySI in
	// units), so a cluster whose memory is written "64G" and a request of
	// "1Gi" are a factor 1000 apart; that is the default.
	CanonicalSetUnits bool
}

// GeneralEstimator estimates, from each cluster's resource summary and
// resource models alone, how many replicas (or component sets) the cluster
// can hold. It reproduces Karmada's general estimator
// (pkg/estimator/client/general.go); see ClusterReplicas for the algorithm.
// It is immutable and safe for concurrent use.
type GeneralEstimator struct {
	opts GeneralOptions
}

// NewGeneralEstimator returns a general estimator. An unknown generation is
// an error.
func NewGeneralEstimator(opts GeneralOptions) (*GeneralEstimator, error) {
	if err := opts.Generation.validate(); err != nil {
		return nil, fmt.Errorf("estimator: GeneralOptions.Generation: %w", err)
	}
	return &GeneralEstimator{opts: opts}, nil
}

// Name returns GeneralEstimatorName.
func (e *GeneralEstimator) Name() string { return GeneralEstimatorName }

// Options returns the estimator's options.
func (e *GeneralEstimator) Options() GeneralOptions { return e.opts }

// MaxAvailableReplicas estimates every cluster's available replicas for req
// (one result per cluster, in the clusters' order). assumed holds the
// in-flight workloads by cluster name (see OvercommitProtection). An empty
// list, a nil or unnamed cluster, duplicate
// names, negative quantities or counts are errors naming the cluster, the
// field and the value; see ClusterReplicas.
func (e *GeneralEstimator) MaxAvailableReplicas(clusters []*Cluster, req *ReplicaRequirements, assumed map[string][]AssumedWorkload) ([]TargetCluster, error) {
	if err := checkClusters(clusters); err != nil {
		return nil, err
	}
	out := make([]TargetCluster, len(clusters))
	for i, c := range clusters {
		n, err := e.ClusterReplicas(c, req, assumed[c.Name])
		if err != nil {
			return nil, err
		}
		out[i] = TargetCluster{Name: c.Name, Replicas: n}
	}
	return out, nil
}

// ClusterReplicas estimates how many replicas of req one cluster can hold,
// as Karmada's GeneralEstimator.maxAvailableReplicas:
//
//  1. a cluster without a resource summary holds 0;
//  2. with OvercommitProtection, the assumed workloads' replicas × requests
//     are added to a copy of the summary's allocating, and their replica
//     count to its pods (the model path of step 5 places them on its
//     virtual nodes in any case);
//  3. allowed pods = allocatable − allocated − allocating pods (missing
//     counts as 0); ≤ 0 gives 0;
//  4. nil requirements give the allowed pods;
//  5. unless DisableResourceModels, when the summary has per-grade node
//     counts, the resource-model estimate of opts.Generation
//     (ResourceModelReplicas) capped by the allowed pods is the answer —
//     the summary bound below is not applied; if the models are
//     inapplicable (ErrResourceModelInapplicable) it falls through;
//  6. otherwise min(allowed pods, SummaryReplicas).
//
// The answer saturates at MaxInt32 (Karmada's int32 cast would wrap). The
// cluster's summary is never modified. ExplainClusterReplicas returns the
// same answer with the bound that set it.
func (e *GeneralEstimator) ClusterReplicas(c *Cluster, req *ReplicaRequirements, assumed []AssumedWorkload) (int32, error) {
	x, err := e.ExplainClusterReplicas(c, req, assumed)
	return x.Replicas, err
}

// ReplicaBound names the bound that set a general estimate (see
// ExplainClusterReplicas).
type ReplicaBound int

const (
	// BoundNoSummary: the cluster has no resource summary, so it holds 0.
	BoundNoSummary ReplicaBound = iota
	// BoundPods: the pod-count bound (AllowedPods) answered — it is 0, the
	// request is nil, or it is below the resource bound.
	BoundPods
	// BoundResourceModels: the resource-model estimate answered.
	BoundResourceModels
	// BoundSummary: the summary bound (SummaryReplicas) answered; the
	// cluster has no per-grade node counts or the models are disabled.
	BoundSummary
	// BoundSummaryFallback: the summary bound answered because the
	// resource models could not be applied (ReplicaEstimate.ModelErr).
	BoundSummaryFallback
)

// String returns the bound's name: "NoSummary", "Pods", "ResourceModels",
// "Summary" or "SummaryFallback".
func (b ReplicaBound) String() string {
	switch b {
	case BoundNoSummary:
		return "NoSummary"
	case BoundPods:
		return "Pods"
	case BoundResourceModels:
		return "ResourceModels"
	case BoundSummary:
		return "Summary"
	case BoundSummaryFallback:
		return "SummaryFallback"
	}
	return fmt.Sprintf("ReplicaBound(%d)", int(b))
}

// ReplicaEstimate is a general estimate with its explanation: the answer,
// which bound set it, and the bounds that were computed.
type ReplicaEstimate struct {
	// Replicas is ClusterReplicas' answer.
	Replicas int32
	// Bound is the bound that set Replicas. When the pod-count bound and
	// the resource bound are equal, the resource bound is named.
	Bound ReplicaBound
	// AllowedPods is the pod-count bound (after assumed workloads with
	// OvercommitProtection); 0 without a summary.
	AllowedPods int64
	// ModelReplicas is the resource-model estimate before the pod bound, or
	// -1 when the models were not consulted or could not be applied.
	ModelReplicas int64
	// SummaryReplicas is the summary bound before the pod bound (MaxInt64
	// when nothing is requested), or -1 when it was not consulted.
	SummaryReplicas int64
	// SummaryResource is the requested resource that set SummaryReplicas
	// (the first in name order among equals), "" when none did.
	SummaryResource resource.Name
	// ModelErr is why the resource models could not be applied (it wraps
	// ErrResourceModelInapplicable); nil otherwise.
	ModelErr error
}

// ExplainClusterReplicas is ClusterReplicas with its explanation: which
// bound answered — the resource models, the summary, the pod-count bound,
// or the summary as a fallback from inapplicable models — and the values of
// the bounds it computed. Errors are ClusterReplicas'.
func (e *GeneralEstimator) ExplainClusterReplicas(c *Cluster, req *ReplicaRequirements, assumed []AssumedWorkload) (ReplicaEstimate, error) {
	x := ReplicaEstimate{ModelReplicas: -1, SummaryReplicas: -1}
	if err := checkCluster(0, c); err != nil {
		return x, err
	}
	if err := checkRequirements(fmt.Sprintf("cluster %q: request", c.Name), req); err != nil {
		return x, err
	}
	for i := range assumed {
		if err := checkComponents(fmt.Sprintf("cluster %q: assumed[%d].components", c.Name, i), assumed[i].Components); err != nil {
			return x, err
		}
	}
	if c.ResourceSummary == nil {
		return x, nil
	}
	sum := c.ResourceSummary.Clone()
	if e.opts.OvercommitProtection && len(assumed) > 0 {
		deductAssumed(sum, assumed)
	}
	x.AllowedPods = AllowedPods(sum)
	x.Bound = BoundPods
	if x.AllowedPods <= 0 || req == nil {
		x.Replicas = clamp32(x.AllowedPods)
		return x, nil
	}
	bound := BoundSummary
	if !e.opts.DisableResourceModels && len(c.ResourceSummary.AllocatableModelings) > 0 {
		n, err := ResourceModelReplicas(c, req, e.opts.Generation, assumed)
		if err == nil {
			x.ModelReplicas = n
			x.setBound(BoundResourceModels, n)
			return x, nil
		}
		if !errors.Is(err, ErrResourceModelInapplicable) {
			return ReplicaEstimate{ModelReplicas: -1, SummaryReplicas: -1}, err
		}
		x.ModelErr, bound = err, BoundSummaryFallback
	}
	x.SummaryReplicas, x.SummaryResource = summaryBound(sum, req.ResourceRequest)
	x.setBound(bound, x.SummaryReplicas)
	return x, nil
}

// setBound sets Replicas to min(AllowedPods, n), naming b unless the pod
// count is strictly smaller.
func (x *ReplicaEstimate) setBound(b ReplicaBound, n int64) {
	if x.AllowedPods < n {
		x.Replicas, x.Bound = clamp32(x.AllowedPods), BoundPods
		return
	}
	x.Replicas, x.Bound = clamp32(n), b
}

// AllowedPods is the number of pods a resource summary still admits:
// allocatable − allocated − allocating pods (a missing list or entry counts
// as 0), or 0 when that is not positive (Karmada's getAllowedPodNumber).
func AllowedPods(s *ResourceSummary) int64 {
	if s == nil {
		return 0
	}
	n := s.Allocatable[resource.Pods].Value() - s.Allocated[resource.Pods].Value() - s.Allocating[resource.Pods].Value()
	return max(n, 0)
}

// SummaryReplicas is the summary bound of Karmada's general estimator
// (getMaximumReplicasBasedOnClusterSummary): for every requested resource
// whose Value() is positive (a zero request is skipped), available =
// allocatable − allocated − allocating, computed exactly; a resource
// missing from allocatable, or whose available Value() (rounded up) is not
// positive, gives 0; otherwise ⌊available / request⌋ with cpu in
// milli-cores and everything else in Value() units. The answer is the
// minimum over resources, or MaxInt64 when nothing is requested. It does
// not apply the pod bound (see AllowedPods).
func SummaryReplicas(s *ResourceSummary, request resource.List) int64 {
	n, _ := summaryBound(s, request)
	return n
}

// summaryBound is SummaryReplicas with the resource that set it (the
// first in name order at the minimum; "" when nothing is requested or s is
// nil).
func summaryBound(s *ResourceSummary, request resource.List) (int64, resource.Name) {
	if s == nil {
		return 0, ""
	}
	bound, by := int64(math.MaxInt64), resource.Name("")
	for _, name := range request.Names() {
		req := request[name]
		if req.Value() <= 0 {
			continue
		}
		alloc, ok := s.Allocatable[name]
		if !ok {
			return 0, name
		}
		if q, ok := s.Allocated[name]; ok {
			alloc = alloc.Sub(q)
		}
		if q, ok := s.Allocating[name]; ok {
			alloc = alloc.Sub(q)
		}
		if alloc.Value() <= 0 {
			return 0, name
		}
		var n int64
		if name == resource.CPU {
			n = alloc.MilliValue() / req.MilliValue()
		} else {
			n = alloc.Value() / req.Value()
		}
		if n < bound {
			bound, by = n, name
		}
	}
	return bound, by
}

// deductAssumed adds the assumed workloads' demands to s.Allocating, as
// Karmada's deductAssumedWorkloadsFromSummary: per component with positive
// replicas, replicas pods, and replicas × request per resource (cpu in
// milli-cores, others in Value() units, keeping the request's format).
func deductAssumed(s *ResourceSummary, assumed []AssumedWorkload) {
	if s.Allocating == nil {
		s.Allocating = resource.List{}
	}
	for _, aw := range assumed {
		for _, comp := range aw.Components {
			n := int64(comp.Replicas)
			if n <= 0 {
				continue
			}
			pods := s.Allocating[resource.Pods]
			s.Allocating[resource.Pods] = resource.NewQuantity(satAdd(pods.Value(), n), resource.DecimalSI)
			if comp.Requirements == nil {
				continue
			}
			for name, q := range comp.Requirements.ResourceRequest {
				var total resource.Quantity
				if name == resource.CPU {
					total = resource.NewMilliQuantity(satMul(q.MilliValue(), n), q.Format())
				} else {
					total = resource.NewQuantity(satMul(q.Value(), n), q.Format())
				}
				if cur, ok := s.Allocating[name]; ok {
					s.Allocating[name] = cur.Add(total)
				} else {
					s.Allocating[name] = total
				}
			}
		}
	}
}

// MaxAvailableComponentSets estimates, for every cluster, how many complete
// sets of comps it can hold (one result per cluster, in order); see
// ClusterComponentSets. Input errors are as for MaxAvailableReplicas.
func (e *GeneralEstimator) MaxAvailableComponentSets(clusters []*Cluster, comps []Component, assumed map[string][]AssumedWorkload) ([]ComponentSetEstimate, error) {
	if err := checkClusters(clusters); err != nil {
		return nil, err
	}
	out := make([]ComponentSetEstimate, len(clusters))
	for i, c := range clusters {
		n, err := e.ClusterComponentSets(c, comps, assumed[c.Name])
		if err != nil {
			return nil, err
		}
		out[i] = ComponentSetEstimate{Name: c.Name, Sets: n}
	}
	return out, nil
}

// ClusterComponentSets estimates how many complete sets of comps one cluster
// can hold, as Karmada's GeneralEstimator.maxAvailableComponentSets:
//
//  1. no resource summary gives 0; allowed pods ≤ 0 gives 0;
//  2. with OvercommitProtection, the assumed workloads' pods and replicas ×
//     requests are deducted from the allowed pods and the available
//     amounts (allocatable − allocated − allocating);
//  3. pods per set = Σ replicas; if not positive the answer is the allowed
//     pods; otherwise the pod bound is allowed pods / pods per set;
//  4. per resource, a set needs Σ replicas × request; a needed resource
//     with nothing available gives 0; otherwise the bound is the minimum of
//     the pod bound and ⌊available / need⌋ (units: see CanonicalSetUnits);
//  5. unless DisableResourceModels, when the summary has per-grade node
//     counts, the answer is further capped by ResourceModelComponentSets
//     with that bound as its upper bound (an inapplicable model is
//     skipped).
func (e *GeneralEstimator) ClusterComponentSets(c *Cluster, comps []Component, assumed []AssumedWorkload) (int32, error) {
	if err := checkCluster(0, c); err != nil {
		return 0, err
	}
	if err := checkComponents(fmt.Sprintf("cluster %q: components", c.Name), comps); err != nil {
		return 0, err
	}
	for i := range assumed {
		if err := checkComponents(fmt.Sprintf("cluster %q: assumed[%d].components", c.Name, i), assumed[i].Components); err != nil {
			return 0, err
		}
	}
	s := c.ResourceSummary
	if s == nil {
		return 0, nil
	}
	units := formatUnits
	if e.opts.CanonicalSetUnits {
		units = quantityUnits
	}
	available := make(map[resource.Name]int64, len(s.Allocatable))
	for name, q := range s.Allocatable {
		if u, ok := s.Allocated[name]; ok {
			q = q.Sub(u)
		}
		if u, ok := s.Allocating[name]; ok {
			q = q.Sub(u)
		}
		available[name] = units(name, q)
	}
	allowed := AllowedPods(s)
	if allowed <= 0 {
		return 0, nil
	}
	if e.opts.OvercommitProtection && len(assumed) > 0 {
		for _, aw := range assumed {
			for _, comp := range aw.Components {
				n := int64(comp.Replicas)
				allowed -= n
				if comp.Requirements == nil {
					continue
				}
				for name, q := range comp.Requirements.ResourceRequest {
					available[name] -= satMul(units(name, q), n)
				}
			}
		}
		if allowed <= 0 {
			return 0, nil
		}
	}
	var podsPerSet int64
	for _, comp := range comps {
		podsPerSet += int64(comp.Replicas)
	}
	if podsPerSet <= 0 {
		return clamp32(allowed), nil
	}
	maxSets := clamp32(allowed / podsPerSet)
	perSet := map[resource.Name]int64{}
	for _, comp := range comps {
		if comp.Requirements == nil {
			continue
		}
		for name, q := range comp.Requirements.ResourceRequest {
			perSet[name] = satAdd(perSet[name], satMul(units(name, q), int64(comp.Replicas)))
		}
	}
	for name, need := range perSet {
		if need <= 0 {
			continue
		}
		if available[name] <= 0 {
			return 0, nil
		}
		maxSets = min(maxSets, clamp32(available[name]/need))
	}
	if !e.opts.DisableResourceModels && len(s.AllocatableModelings) > 0 {
		n, err := ResourceModelComponentSets(c, comps, assumed, maxSets)
		if err != nil {
			if !errors.Is(err, ErrResourceModelInapplicable) {
				return 0, err
			}
		} else {
			maxSets = min(maxSets, n)
		}
	}
	return maxSets, nil
}

// formatUnits is Karmada's quantityAsInt64: a DecimalSI or
// DecimalExponent quantity in milli-units, anything else in Value() units,
// whatever the resource.
func formatUnits(_ resource.Name, q resource.Quantity) int64 {
	switch q.Format() {
	case resource.DecimalSI, resource.DecimalExponent:
		return q.MilliValue()
	}
	return q.Value()
}
