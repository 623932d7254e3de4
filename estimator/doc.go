// Package estimator predicts what pods will really use and what nodes really
// offer, for Koordinator's load-aware scheduling (LoadAwareScheduling): the
// usage estimators and the per-node assign cache that LoadAwareScheduling
// (filter/loadaware) reads. Karmada's
// cluster replica estimators live in the sibling package estimator/karmada.
//
// Files and main types:
//
//   - estimator.go: the Estimator interface (EstimatePod, EstimateNode) and
//     the Options every factory receives.
//   - default_estimator.go: DefaultEstimator, Koordinator's default
//     estimator, and DefaultScalingFactors.
//   - history.go: HistoryEstimator (a usage-history percentile), its
//     UsageHistory source and the in-memory MemoryHistory.
//   - registry.go: Registry and Factory, estimators built by name.
//   - assigncache.go: AssignCache (NodeMetrics plus assigned pods per node),
//     the UsageSource interface it implements, NodeView, and the NodeState
//     debug view.
//   - usage.go: Vectorizer (dense usage vectors), Amount, and the parsers of
//     Koordinator's node and pod annotations (CustomUsageThresholds, scaling
//     factors, raw allocatable).
//   - priority.go: Koordinator priority classes and QoS classes
//     (PriorityClassOf, QoSClassOf, TranslateResourceName).
//
// # Usage estimators
//
// An Estimator predicts what a pod will really use (EstimatePod) and what a
// node really offers (EstimateNode). DefaultEstimator reproduces
// Koordinator's default estimator (current main ≥ v1.7; with
// Options.LimitAtFull its ≤ v1.5 behaviour): scaling factors over
// max(limit, request), capped at a positive limit, 250m / 200 MiB for pods
// that state nothing, batch-* and mid-* resources by Koordinator priority
// class (PriorityClassOf), pod-annotation factors when customization is
// allowed, and the raw-allocatable node annotation. HistoryEstimator
// estimates from a percentile of the usage history of the pod's controller
// instead and shows how to plug in an estimator of your own.
//
// Estimators are built by name from a Registry — an ordinary value, never a
// package-level table. An empty or unknown name yields the default estimator,
// exactly as Koordinator falls back (Registry.Has tells a misspelling).
//
// # Assign cache
//
// AssignCache is Koordinator's per-node assign cache: NodeMetrics plus the
// pods assigned to each node, with the reported usage, the estimated deltas of
// pods the metric does not show yet, prod accounting and aggregated
// percentiles kept incrementally. It implements UsageSource, which is all
// LoadAwareScheduling reads; feed it NodeMetrics
// (UpdateNodeMetric) and pod events (AddPod, UpdatePod, DeletePod), and
// Reserve/Unreserve keep it current during scheduling. NodeState is
// Koordinator's /node/:name debug view as data (each assigned pod's estimate,
// reported usage, share of the deltas and why it is estimated);
// NodeMetricWarnings lists the metric entries Koordinator reads differently
// from the rest.
//
// Units: usage vectors follow a Vectorizer (sorted resource names, cpu and
// memory always included); cpu is in milli-cores, every other resource in
// Value() units.
//
// The package imports only framework and resource, so filter and scoring
// can use it without cycles; it never imports them.
package estimator
