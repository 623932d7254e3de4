package estimator

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/journal"
	"github.com/schedkit/schedkit/resource"
)

// UsageSource is what LoadAwareScheduling reads: the
// vectorized resource order, the incoming pod's estimate, and one node's
// usage view with its capacity. AssignCache implements it; a simulator may
// supply its own.
type UsageSource interface {
	// Resources returns the vectorized resource names; every vector the
	// source returns follows this order.
	Resources() Vectorizer
	// EstimatePodVector estimates a pod (the incoming pod, once per cycle)
	// as a vector.
	EstimatePodVector(pod *api.Pod) ([]int64, error)
	// Lookup returns the node's usage view — nil when there is no
	// NodeMetric for it (Koordinator's NotFound) — and its capacity vector
	// (EstimateNode vectorized); capErr is EstimateNode's error. It must not
	// allocate in the steady state: it runs once per node per pod.
	Lookup(node *api.Node) (view *NodeView, capacity []int64, capErr error)
}

// AggregationKey selects one aggregated usage of a NodeMetric: its type
// (avg, p50, p90, p95, p99) and duration. Duration 0 means the longest
// duration reported with a non-empty usage of that type.
type AggregationKey struct {
	Type     string
	Duration time.Duration
}

// CacheOptions configure an AssignCache; they are the cache-related fields
// of LoadAwareSchedulingArgs.
type CacheOptions struct {
	// Resources are the vectorized resources beyond cpu and memory (the
	// keys of every threshold, weight and factor map, and
	// supportedResources).
	Resources []resource.Name
	// Clock supplies "now" for pods without a PodScheduled condition. Nil
	// means framework.RealClock.
	Clock framework.Clock
	// ProdUsageIncludeSys adds the node's system usage to its prod usage
	// (args.prodUsageIncludeSys).
	ProdUsageIncludeSys bool
	// EstimatedSecondsAfterPodScheduled and EstimatedSecondsAfterInitialized
	// force a pod's estimate for that long after the condition (nil or ≤ 0:
	// disabled).
	EstimatedSecondsAfterPodScheduled *int64
	EstimatedSecondsAfterInitialized  *int64
	// AllowCustomizeEstimation honours the pods' force-estimation
	// annotations.
	AllowCustomizeEstimation bool
	// KnownNode, when set, makes UpdateNodeMetric reject a NodeMetric whose
	// node it does not know. Nil keeps Koordinator's behaviour: the metric is
	// stored and used once a node of that name is scheduled onto.
	KnownNode func(name string) bool
}

// AssignCache is Koordinator's podAssignCache (loadaware/pod_assign_cache.go,
// current main ≥ v1.7): per node, its NodeMetric and the pods assigned to it
// (by Reserve or by the caller's pod events), with the usage vectors the
// LoadAware filter and score read kept incrementally:
//
//   - nodeUsage: the reported node usage (nil when the metric has no body);
//     aggregated usages by (type, duration), plus a (type, 0) alias for the
//     longest non-empty duration;
//   - prodUsage: the reported usage of assigned pods that are prod by
//     priority class and reported as koord-prod by the metric (plus system
//     usage with ProdUsageIncludeSys);
//   - nodeDelta / prodDelta: Σ max(0, estimate − reported usage) over the
//     pods that should still be estimated;
//   - nodeEstimated: Σ estimate over all assigned pods.
//
// A pod should be estimated when it has no reported usage, or it was
// scheduled after updateTime − reportInterval, or its force-estimation
// deadline is after updateTime. A prod pod the metric does not report as
// prod contributes its whole estimate to prodDelta. Removing a pod reverses
// its contribution exactly; a NodeMetric update recomputes the node from
// scratch. Pods are keyed by UID (namespace/name when the UID is empty) and
// matched with their reported usage by namespace/name.
//
// Beyond the anchor: a pod lives on one node only — assigning it elsewhere
// (or an update that changes spec.nodeName) first removes it from the old
// node; invalid input (a NodeMetric with negative usage, a negative
// estimate) is rejected with an error and leaves the cache unchanged.
//
// All methods are safe for concurrent use. Reads (Lookup) take a read lock
// for one map access and return immutable views; writes are serialized.
// Costs: Lookup O(1); Assign/Unassign/pod events O(resources); a NodeMetric
// update O(pods on the node + reported pods).
type AssignCache struct {
	est   Estimator
	vec   Vectorizer
	clock framework.Clock
	opts  CacheOptions
	zero  []int64

	mu      sync.RWMutex
	nodes   map[string]*nodeEntry
	podNode map[string]string
	// The fork journals (Fork): the entries and pod placements a branch
	// replaced. An entry a branch changes is copied on its first change
	// there, so the saved one stays as it was.
	nodesSaved   journal.Map[string, *nodeEntry]
	podNodeSaved journal.Map[string, string]
}

var _ UsageSource = (*AssignCache)(nil)

type nodeEntry struct {
	name           string
	metric         *api.NodeMetric
	warnings       []api.NodeMetricWarning
	updateTime     time.Time
	reportInterval time.Duration
	podUsages      map[string][]int64
	prodPods       map[string]bool
	nodeUsage      []int64
	prodUsage      []int64
	nodeDelta      []int64
	prodDelta      []int64
	nodeEstimated  []int64
	agg            map[AggregationKey][]int64
	pods           map[string]*podRecord
	view           *NodeView
	capacity       atomic.Pointer[cachedCapacity]
}

type cachedCapacity struct {
	node   *api.Node
	vec    []int64
	err    error
	inline [4]int64
}

type podRecord struct {
	pod       *api.Pod
	key       string
	usageKey  string
	timestamp time.Time
	deadline  time.Time
	estimated []int64
	prod      bool
}

// NewAssignCache returns an empty cache estimating pods with est.
func NewAssignCache(est Estimator, opts CacheOptions) (*AssignCache, error) {
	if est == nil {
		return nil, fmt.Errorf("loadaware: assign cache: nil estimator")
	}
	if opts.Clock == nil {
		opts.Clock = framework.RealClock{}
	}
	for i, n := range opts.Resources {
		if n == "" {
			return nil, fmt.Errorf("loadaware: assign cache: resources[%d]: empty resource name", i)
		}
	}
	v := NewVectorizer(opts.Resources...)
	return &AssignCache{
		est:     est,
		vec:     v,
		clock:   opts.Clock,
		opts:    opts,
		zero:    make([]int64, len(v)),
		nodes:   map[string]*nodeEntry{},
		podNode: map[string]string{},
	}, nil
}

// Resources returns the vectorized resource order.
func (c *AssignCache) Resources() Vectorizer { return c.vec }

// Estimator returns the cache's estimator.
func (c *AssignCache) Estimator() Estimator { return c.est }

// EstimatePodVector estimates pod and vectorizes the result. A negative
// amount (from a custom estimator) is an error naming the pod and resource.
func (c *AssignCache) EstimatePodVector(pod *api.Pod) ([]int64, error) {
	m, err := c.est.EstimatePod(pod)
	if err != nil {
		return nil, err
	}
	v := c.vec.FromAmounts(m)
	for i, x := range v {
		if x < 0 {
			return nil, fmt.Errorf("loadaware: estimator %q: pod %s: estimate[%q]=%d: must not be negative", c.est.Name(), pod.Key(), c.vec[i], x)
		}
	}
	return v, nil
}

// Lookup implements UsageSource.
func (c *AssignCache) Lookup(node *api.Node) (*NodeView, []int64, error) {
	if node == nil {
		return nil, nil, nil
	}
	c.mu.RLock()
	e := c.nodes[node.Name]
	var v *NodeView
	if e != nil {
		v = e.view
	}
	c.mu.RUnlock()
	if v == nil {
		return nil, nil, nil
	}
	if cp := e.capacity.Load(); cp != nil && cp.node == node {
		return v, cp.vec, cp.err
	}
	cp := &cachedCapacity{node: node}
	if l, err := c.est.EstimateNode(node); err != nil {
		cp.err = err
	} else {
		if len(c.vec) <= len(cp.inline) {
			cp.vec = cp.inline[:len(c.vec):len(c.vec)]
		} else {
			cp.vec = make([]int64, len(c.vec))
		}
		for i, n := range c.vec {
			if q, ok := l[n]; ok {
				cp.vec[i] = Amount(n, q)
			}
		}
	}
	e.capacity.Store(cp)
	return v, cp.vec, cp.err
}

// View returns the node's current usage view, or nil when the cache holds no
// NodeMetric for it.
func (c *AssignCache) View(name string) *NodeView {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if e := c.nodes[name]; e != nil {
		return e.view
	}
	return nil
}

func podKey(pod *api.Pod) string {
	if pod.UID != "" {
		return pod.UID
	}
	return pod.Namespace + "/" + pod.Name
}

func isReservePod(pod *api.Pod) bool {
	return pod.Annotations[AnnotationReservePod] == "true"
}

// prepareRecord prepares a pod's cache record outside the lock: its estimate,
// timestamp and force-estimation deadline.
func (c *AssignCache) prepareRecord(pod *api.Pod) (*podRecord, error) {
	var est []int64
	m, err := c.est.EstimatePod(pod)
	if err == nil && len(m) > 0 {
		v := c.vec.FromAmounts(m)
		zero := true
		for i, x := range v {
			if x < 0 {
				return nil, fmt.Errorf("loadaware: estimator %q: pod %s: estimate[%q]=%d: must not be negative", c.est.Name(), pod.Key(), c.vec[i], x)
			}
			if x != 0 {
				zero = false
			}
		}
		if !zero {
			est = v
		}
	}
	var ts time.Time
	if cond := pod.Condition(api.PodScheduled); cond != nil && cond.Status == api.ConditionTrue && !cond.LastTransitionTime.IsZero() {
		ts = cond.LastTransitionTime
	} else {
		ts = c.clock.Now()
	}
	return &podRecord{
		pod:       pod,
		key:       podKey(pod),
		usageKey:  pod.Namespace + "/" + pod.Name,
		timestamp: ts,
		deadline:  c.EstimationDeadline(pod, ts),
		estimated: est,
		prod:      PriorityClassOf(pod) == PriorityProd,
	}, nil
}

// EstimationDeadline returns until when the pod's estimate is forced into
// the node's usage, as Koordinator's shouldEstimatePodDeadline: windows S
// (after scheduled) and I (after initialized) come from the pod annotations
// when customization is allowed (an invalid value counts as unset) and
// otherwise from the options; with I > 0 and the pod Initialized=True at a
// non-zero time t, the deadline is t + I (S is ignored); else with S > 0 it
// is timestamp + S; else none (the zero time).
func (c *AssignCache) EstimationDeadline(pod *api.Pod, timestamp time.Time) time.Time {
	var afterScheduled, afterInitialized int64 = -1, -1
	if c.opts.AllowCustomizeEstimation {
		afterScheduled, _ = ParseEstimatedSecondsAnnotation(pod, AnnotationCustomEstimatedSecondsAfterPodScheduled)
		afterInitialized, _ = ParseEstimatedSecondsAnnotation(pod, AnnotationCustomEstimatedSecondsAfterInitialized)
	}
	if s := c.opts.EstimatedSecondsAfterPodScheduled; s != nil && afterScheduled < 0 {
		afterScheduled = *s
	}
	if s := c.opts.EstimatedSecondsAfterInitialized; s != nil && afterInitialized < 0 {
		afterInitialized = *s
	}
	if afterInitialized > 0 {
		if cond := pod.Condition(api.PodInitialized); cond != nil && cond.Status == api.ConditionTrue && !cond.LastTransitionTime.IsZero() {
			return cond.LastTransitionTime.Add(time.Duration(afterInitialized) * time.Second)
		}
	}
	if afterScheduled > 0 && !timestamp.IsZero() {
		return timestamp.Add(time.Duration(afterScheduled) * time.Second)
	}
	return time.Time{}
}

// Assign records pod on nodeName (Reserve, or an informer add with the pod's
// spec.nodeName): nothing happens for an empty node name, a terminated pod
// (Succeeded/Failed) or a reservation placeholder. A pod already cached is
// replaced (new estimate and timestamp); one cached on another node moves.
// A negative estimate is an error and changes nothing.
func (c *AssignCache) Assign(nodeName string, pod *api.Pod) error {
	if pod == nil || nodeName == "" || pod.Status.Phase.IsTerminal() || isReservePod(pod) {
		return nil
	}
	rec, err := c.prepareRecord(pod)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.assignLocked(nodeName, rec)
	return nil
}

func (c *AssignCache) assignLocked(nodeName string, rec *podRecord) {
	if old, ok := c.podNode[rec.key]; ok && old != nodeName {
		c.removeLocked(old, rec.key)
	}
	e := c.mutable(nodeName)
	if e == nil {
		e = &nodeEntry{name: nodeName, pods: map[string]*podRecord{}}
		c.nodes[nodeName] = e
	}
	if prev := e.pods[rec.key]; prev != nil && e.metric != nil {
		e.apply(prev, -1)
	}
	e.pods[rec.key] = rec
	c.podNodeSaved.Set(c.podNode, rec.key, nodeName)
	if e.metric != nil {
		e.apply(rec, 1)
	}
	c.publish(e)
}

// Unassign removes pod from nodeName (Unreserve, the scheduler forgetting
// the pod). A pod not cached on that node is ignored.
func (c *AssignCache) Unassign(nodeName string, pod *api.Pod) {
	if pod == nil || nodeName == "" {
		return
	}
	key := podKey(pod)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.podNode[key] == nodeName {
		c.removeLocked(nodeName, key)
	}
}

func (c *AssignCache) removeLocked(nodeName, key string) {
	c.podNodeSaved.Delete(c.podNode, key)
	e := c.mutable(nodeName)
	if e == nil {
		return
	}
	if rec := e.pods[key]; rec != nil {
		delete(e.pods, key)
		if e.metric != nil {
			e.apply(rec, -1)
		}
	}
	c.cleanupOrPublish(e)
}

func (c *AssignCache) cleanupOrPublish(e *nodeEntry) {
	if e.metric == nil && len(e.pods) == 0 {
		delete(c.nodes, e.name)
		e.view = nil
		return
	}
	c.publish(e)
}

// AddPod handles a pod add event: Assign(pod.Spec.NodeName, pod).
func (c *AssignCache) AddPod(pod *api.Pod) error {
	if pod == nil {
		return nil
	}
	return c.Assign(pod.Spec.NodeName, pod)
}

// UpdatePod handles a pod update event as Koordinator's OnUpdate, with the
// node-change fix (koordinator-sh/koordinator#3051): a pod cached on a
// node other than its spec.nodeName is removed from it; a pod not cached
// is assigned; a terminated pod is removed; a pod whose spec or conditions
// changed is re-assigned (new estimate and timestamp); other changes
// (labels, annotations only) leave the cache as it is.
func (c *AssignCache) UpdatePod(pod *api.Pod) error {
	if pod == nil {
		return nil
	}
	var rec *podRecord
	if pod.Spec.NodeName != "" && !pod.Status.Phase.IsTerminal() && !isReservePod(pod) {
		var err error
		if rec, err = c.prepareRecord(pod); err != nil {
			return err
		}
	}
	key := podKey(pod)
	c.mu.Lock()
	defer c.mu.Unlock()
	oldNode, cachedSomewhere := c.podNode[key]
	if cachedSomewhere && oldNode != pod.Spec.NodeName {
		c.removeLocked(oldNode, key)
		cachedSomewhere = false
	}
	if !cachedSomewhere {
		if rec != nil {
			c.assignLocked(pod.Spec.NodeName, rec)
		}
		return nil
	}
	cached := c.nodes[oldNode].pods[key]
	switch {
	case pod.Status.Phase.IsTerminal():
		c.removeLocked(oldNode, key)
	case !reflect.DeepEqual(pod.Spec, cached.pod.Spec) || !reflect.DeepEqual(pod.Status.Conditions, cached.pod.Status.Conditions):
		if rec != nil {
			c.assignLocked(oldNode, rec)
		} else {
			c.removeLocked(oldNode, key)
		}
	}
	return nil
}

// DeletePod handles a pod delete event: the pod is removed from whichever
// node it is cached on.
func (c *AssignCache) DeletePod(pod *api.Pod) {
	if pod == nil {
		return
	}
	key := podKey(pod)
	c.mu.Lock()
	defer c.mu.Unlock()
	if n, ok := c.podNode[key]; ok {
		c.removeLocked(n, key)
	}
}

// UpdateNodeMetric stores (adds or replaces) the NodeMetric of node m.Name
// and recomputes that node from scratch. The metric must pass
// NodeMetric.Validate (no negative usage, a node name, ...) and, when
// CacheOptions.KnownNode is set, name a known node; otherwise the error
// names the field and value and the cache keeps its previous state. Entries
// Koordinator ignores or reads only on request (an unknown aggregation type,
// a repeated duration or pod, ...) are read as Koordinator reads them and
// the rest of the metric is used; NodeMetricWarnings lists them. The cache
// keeps m (treat it as read-only afterwards).
func (c *AssignCache) UpdateNodeMetric(m *api.NodeMetric) error {
	if err := m.Validate(); err != nil {
		return fmt.Errorf("loadaware: %w", err)
	}
	if c.opts.KnownNode != nil && !c.opts.KnownNode(m.Name) {
		return fmt.Errorf("loadaware: NodeMetric %q: no node named %q is known", m.Name, m.Name)
	}
	warnings := m.Warnings()
	var nodeUsage []int64
	prodUsage := make([]int64, len(c.vec))
	var agg map[AggregationKey][]int64
	if info := m.Status.NodeMetric; info != nil {
		nodeUsage = c.vec.FromList(info.NodeUsage.Resources)
		if len(info.AggregatedNodeUsages) > 0 {
			agg = map[AggregationKey][]int64{}
			longest := map[string]time.Duration{}
			for _, a := range info.AggregatedNodeUsages {
				d := a.Duration.Duration
				for _, t := range slices.Sorted(maps.Keys(a.Usage)) {
					rm := a.Usage[t]
					if len(rm.Resources) == 0 {
						continue
					}
					agg[AggregationKey{Type: t, Duration: d}] = c.vec.FromList(rm.Resources)
					if d > longest[t] {
						longest[t] = d
					}
				}
			}
			for t, d := range longest {
				agg[AggregationKey{Type: t}] = agg[AggregationKey{Type: t, Duration: d}]
			}
		}
		if c.opts.ProdUsageIncludeSys {
			addVec(prodUsage, c.vec.FromList(info.SystemUsage.Resources), 1)
		}
	}
	var podUsages map[string][]int64
	var prodPods map[string]bool
	if len(m.Status.PodsMetric) > 0 {
		podUsages = make(map[string][]int64, len(m.Status.PodsMetric))
		prodPods = map[string]bool{}
		for _, pm := range m.Status.PodsMetric {
			if pm == nil || len(pm.PodUsage.Resources) == 0 {
				continue
			}
			k := pm.Namespace + "/" + pm.Name
			podUsages[k] = c.vec.FromList(pm.PodUsage.Resources)
			if PriorityClass(pm.Priority) == PriorityProd {
				prodPods[k] = true
			}
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.mutable(m.Name)
	if e == nil {
		e = &nodeEntry{name: m.Name, pods: map[string]*podRecord{}}
		c.nodes[m.Name] = e
	}
	e.metric, e.warnings = m, warnings
	e.reportInterval = m.ReportInterval()
	if m.Status.UpdateTime != nil {
		e.updateTime = *m.Status.UpdateTime
	}
	e.podUsages, e.prodPods = podUsages, prodPods
	e.nodeUsage, e.prodUsage, e.agg = nodeUsage, prodUsage, agg
	e.nodeDelta = make([]int64, len(c.vec))
	e.prodDelta = make([]int64, len(c.vec))
	e.nodeEstimated = make([]int64, len(c.vec))
	for _, k := range slices.Sorted(maps.Keys(e.pods)) {
		e.apply(e.pods[k], 1)
	}
	c.publish(e)
	return nil
}

// NodeMetricWarnings returns the entries of the node's current NodeMetric
// that are ignored or read only on request (api.NodeMetric.Warnings),
// nil when there are none or the cache holds no metric for the node. The
// slice is shared and must not be modified.
func (c *AssignCache) NodeMetricWarnings(name string) []api.NodeMetricWarning {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if e := c.nodes[name]; e != nil {
		return e.warnings
	}
	return nil
}

// DeleteNodeMetric forgets the node's NodeMetric; the node then reads as
// NotFound (filter passes, score 0) until a new metric arrives.
func (c *AssignCache) DeleteNodeMetric(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.mutable(name)
	if e == nil {
		return
	}
	e.metric, e.warnings = nil, nil
	e.podUsages, e.prodPods = nil, nil
	e.nodeUsage, e.prodUsage, e.nodeDelta, e.prodDelta, e.nodeEstimated, e.agg = nil, nil, nil, nil, nil, nil
	c.cleanupOrPublish(e)
}

// mutable returns the node's entry for a change (nil when there is none;
// the caller may then add one): in an open fork, the fork's first change
// of the node saves the entry and replaces it with a copy. Callers hold
// c.mu.
func (c *AssignCache) mutable(name string) *nodeEntry {
	e := c.nodes[name]
	if c.nodesSaved.Save(c.nodes, name) && e != nil {
		e = e.clone()
		c.nodes[name] = e
	}
	return e
}

// clone copies the entry's mutable parts: the pod set and the vectors
// apply changes in place. The metric, the reported usages and aggregates
// (replaced whole by UpdateNodeMetric), the pod records and the view are
// immutable and shared.
func (e *nodeEntry) clone() *nodeEntry {
	cp := &nodeEntry{
		name: e.name, metric: e.metric, warnings: e.warnings, updateTime: e.updateTime, reportInterval: e.reportInterval,
		podUsages: e.podUsages, prodPods: e.prodPods, nodeUsage: e.nodeUsage, agg: e.agg, view: e.view,
		prodUsage: slices.Clone(e.prodUsage), nodeDelta: slices.Clone(e.nodeDelta), prodDelta: slices.Clone(e.prodDelta),
		nodeEstimated: slices.Clone(e.nodeEstimated), pods: maps.Clone(e.pods),
	}
	cp.capacity.Store(e.capacity.Load())
	return cp
}

// Fork opens a what-if branch of the cache (framework.Forkable): Revert
// puts back every node entry and pod placement changed since — by
// Assign, Unassign, pod events or NodeMetric updates — so that views,
// NodeState and later lookups are exactly those before the Fork; Commit
// keeps the changes. Branches nest. Fork is O(1); a branch's first change
// of a node copies that node's entry (O(its pods)); Revert and Commit are
// O(nodes and pods changed).
func (c *AssignCache) Fork() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nodesSaved.Open()
	c.podNodeSaved.Open()
}

// Commit keeps the changes of the innermost branch (see Fork).
func (c *AssignCache) Commit() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nodesSaved.Commit()
	c.podNodeSaved.Commit()
}

// Revert undoes the changes of the innermost branch (see Fork).
func (c *AssignCache) Revert() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nodesSaved.Revert(c.nodes)
	c.podNodeSaved.Revert(c.podNode)
}

// EstimateReason says why an assigned pod's estimate counts in its node's
// usage delta instead of its measured usage alone (Koordinator's
// nodeInfo.addPod); reasons combine as bit flags, 0 meaning the measured
// usage stands.
type EstimateReason uint8

const (
	// EstimateNoUsage: the NodeMetric reports no usage for the pod.
	EstimateNoUsage EstimateReason = 1 << iota
	// EstimateRecentlyScheduled: the pod was scheduled after the metric's
	// updateTime − reportInterval, so the report may predate its load.
	EstimateRecentlyScheduled
	// EstimateForced: its force-estimation deadline (EstimationDeadline) is
	// after the metric's updateTime.
	EstimateForced
	// EstimateNotReportedProd (prod delta only): the pod is prod but the
	// metric does not report it as koord-prod, so its whole estimate counts.
	EstimateNotReportedProd
)

// String lists the reasons joined by "|" ("NoUsage|RecentlyScheduled"),
// or "Measured" for none.
func (r EstimateReason) String() string {
	if r == 0 {
		return "Measured"
	}
	var out string
	for i, name := range [...]string{"NoUsage", "RecentlyScheduled", "Forced", "NotReportedProd"} {
		if r&(1<<i) != 0 {
			if out != "" {
				out += "|"
			}
			out += name
		}
	}
	if rest := r &^ (1<<4 - 1); rest != 0 {
		if out != "" {
			out += "|"
		}
		out += fmt.Sprintf("EstimateReason(%#x)", uint8(rest))
	}
	return out
}

// podShare is one pod's part in its node's vectors under the current metric.
type podShare struct {
	usage      []int64        // reported usage; nil when none
	activeProd bool           // prod by class and reported as koord-prod
	node       EstimateReason // why the estimate counts in nodeDelta (0: it does not)
	prod       EstimateReason // why it counts in prodDelta (0: it does not)
	prodUsage  []int64        // the usage subtracted from the estimate in prodDelta
}

// share classifies p against the entry's metric as Koordinator's addPod:
// its prod usage counts when the pod is prod and reported as koord-prod;
// its estimate counts in nodeDelta (beyond its usage) for the reasons of
// EstimateReason, and in prodDelta likewise when it is prod — whole when
// the metric does not report it as prod.
func (e *nodeEntry) share(p *podRecord) podShare {
	s := podShare{usage: e.podUsages[p.usageKey]}
	s.activeProd = p.prod && e.prodPods[p.usageKey]
	if p.estimated == nil {
		return s
	}
	if s.usage == nil {
		s.node |= EstimateNoUsage
	}
	if e.updateTime.Add(-e.reportInterval).Before(p.timestamp) {
		s.node |= EstimateRecentlyScheduled
	}
	if !p.deadline.IsZero() && p.deadline.After(e.updateTime) {
		s.node |= EstimateForced
	}
	if p.prod {
		s.prod, s.prodUsage = s.node, s.usage
		if !s.activeProd && s.usage != nil {
			s.prod, s.prodUsage = s.prod|EstimateNotReportedProd, nil
		}
	}
	return s
}

// apply adds (sign 1) or removes (sign −1) one pod's contribution; the two
// are exact inverses for an unchanged metric.
func (e *nodeEntry) apply(p *podRecord, sign int64) {
	s := e.share(p)
	if s.activeProd {
		addVec(e.prodUsage, s.usage, sign)
	}
	if p.estimated == nil {
		return
	}
	if s.node != 0 {
		addDelta(e.nodeDelta, p.estimated, s.usage, sign)
	}
	addVec(e.nodeEstimated, p.estimated, sign)
	if s.prod != 0 {
		addDelta(e.prodDelta, p.estimated, s.prodUsage, sign)
	}
}

func addVec(dst, x []int64, sign int64) {
	for i := range x {
		dst[i] += sign * x[i]
	}
}

// addDelta adds sign·max(0, x − y) per resource (y nil means 0).
func addDelta(dst, x, y []int64, sign int64) {
	for i, v := range x {
		if y != nil {
			v -= y[i]
		}
		if v > 0 {
			dst[i] += sign * v
		}
	}
}

func (c *AssignCache) publish(e *nodeEntry) {
	if e.metric == nil {
		e.view = nil
		return
	}
	n := len(c.vec)
	v := &NodeView{}
	// Keep the vectors in the view's own allocation when they fit (cpu and
	// memory, plus one more), so the per-node read touches fewer cache lines.
	buf := v.inline[:0]
	if 5*n > len(v.inline) {
		buf = make([]int64, 0, 5*n)
	}
	cp := func(x []int64) []int64 {
		if x == nil {
			return nil
		}
		buf = append(buf, x...)
		return buf[len(buf)-n : len(buf) : len(buf)]
	}
	m := e.metric
	*v = NodeView{
		Name:           e.name,
		Metric:         m,
		UpdateTime:     e.updateTime,
		ReportInterval: e.reportInterval,
		HasBody:        m.Status.NodeMetric != nil,
		HasPodsMetric:  len(m.Status.PodsMetric) > 0,
		agg:            e.agg,
		zero:           c.zero,
	}
	v.nodeUsage, v.prodUsage, v.nodeDelta, v.prodDelta, v.nodeEstimated = cp(e.nodeUsage), cp(e.prodUsage), cp(e.nodeDelta), cp(e.prodDelta), cp(e.nodeEstimated)
	if ut := m.Status.UpdateTime; ut != nil {
		v.metricUpdateTime, v.metricUpdated = *ut, true
	}
	e.view = v
}

// NodeView is an immutable snapshot of one node's usage state in an
// AssignCache, taken after the last change. Slices returned by its methods
// are shared and must not be modified.
type NodeView struct {
	// Name is the node's name.
	Name string
	// Metric is the NodeMetric the view was computed from.
	Metric *api.NodeMetric
	// UpdateTime is the metric's update time (the last non-nil one seen
	// for the node) and ReportInterval its report interval.
	UpdateTime     time.Time
	ReportInterval time.Duration
	// HasBody reports status.nodeMetric != nil; HasPodsMetric reports a
	// non-empty status.podsMetric.
	HasBody       bool
	HasPodsMetric bool

	nodeUsage, prodUsage, nodeDelta, prodDelta, nodeEstimated []int64
	agg                                                       map[AggregationKey][]int64
	zero                                                      []int64
	// metricUpdateTime is the metric's own status.updateTime (unset:
	// metricUpdated false), copied so that Expired does not chase pointers.
	metricUpdateTime time.Time
	metricUpdated    bool
	inline           [15]int64
}

// Expired reports whether the metric is expired as Koordinator's
// isNodeMetricExpired: status.updateTime is nil, or expirationSeconds > 0
// and now − updateTime ≥ expirationSeconds.
func (v *NodeView) Expired(now time.Time, expirationSeconds int64) bool {
	return !v.metricUpdated || expirationSeconds > 0 && now.Sub(v.metricUpdateTime) >= time.Duration(expirationSeconds)*time.Second
}

// Estimated returns the node's usage with the estimates of pods not yet
// reflected in it, as base + delta per resource (Koordinator's
// GetNodeMetricAndEstimatedOfExisting):
//
//   - prod: prodUsage + prodDelta;
//   - aggType set: the aggregated usage (aggType, aggDuration) + nodeDelta;
//     when absent and aggDuration is 0, nodeUsage + nodeDelta;
//   - otherwise nodeUsage + nodeDelta;
//   - when the chosen base is missing (no metric body, or an absent
//     aggregate of a specific duration): nodeEstimated, the full estimates
//     of all assigned pods, with a zero delta.
func (v *NodeView) Estimated(prod bool, aggType string, aggDuration time.Duration) (base, delta []int64) {
	if prod {
		return v.prodUsage, v.prodDelta
	}
	b := v.nodeUsage
	if aggType != "" {
		b = v.agg[AggregationKey{Type: aggType, Duration: aggDuration}]
		if b == nil && aggDuration == 0 {
			b = v.nodeUsage
		}
	}
	if b != nil {
		return b, v.nodeDelta
	}
	return v.nodeEstimated, v.zero
}

// Reported returns the raw reported usage Koordinator ≤ v1.5 filtered on,
// without any estimate: for prod, the reported usage of the assigned prod
// pods (nil when the metric reports no pods); with aggType, exactly that
// aggregate (duration 0: the longest), nil when absent; otherwise
// nodeUsage (nil without a metric body).
func (v *NodeView) Reported(prod bool, aggType string, aggDuration time.Duration) []int64 {
	if prod {
		if !v.HasPodsMetric {
			return nil
		}
		return v.prodUsage
	}
	if aggType != "" {
		return v.agg[AggregationKey{Type: aggType, Duration: aggDuration}]
	}
	return v.nodeUsage
}

// NodeState is a deep copy of one node's cache state (vectors as name →
// amount maps; nil where the cache holds none). It is Koordinator's
// LoadAwareScheduling debug endpoint /node/:name (service.go,
// RegisterEndpoints) as data: the node's usage vectors, and per assigned pod
// its estimate, its reported usage, its share of NodeDelta and ProdDelta and
// why its estimate counts there (Koordinator lists the pods of each delta by
// name only). NodeEstimated — every assigned pod's whole estimate — replaces
// usage + delta when the usage the filter or score reads is missing.
type NodeState struct {
	HasMetric      bool
	UpdateTime     time.Time
	ReportInterval time.Duration
	NodeUsage      map[resource.Name]int64
	ProdUsage      map[resource.Name]int64
	NodeDelta      map[resource.Name]int64
	ProdDelta      map[resource.Name]int64
	NodeEstimated  map[resource.Name]int64
	Aggregated     map[AggregationKey]map[resource.Name]int64
	// Pods are the assigned pods, sorted by key.
	Pods []AssignedPod
	// Warnings are the NodeMetric's odd entries (NodeMetricWarnings).
	Warnings []api.NodeMetricWarning
}

// AssignedPod is one cached pod and its part in its node's usage.
type AssignedPod struct {
	// Key is the pod's UID, or namespace/name when it has none.
	Key       string
	Namespace string
	Name      string
	// Timestamp is when the pod was scheduled (its PodScheduled condition,
	// else when the cache saw it); Deadline its force-estimation deadline
	// (zero: none).
	Timestamp time.Time
	Deadline  time.Time
	// Estimated is the pod's estimate (nil: all zero, counted nowhere).
	Estimated map[resource.Name]int64
	// Prod reports a prod priority class; ReportedProd that the NodeMetric
	// also reports the pod as koord-prod (its usage then counts in
	// ProdUsage).
	Prod         bool
	ReportedProd bool
	// Usage is the pod's usage as the NodeMetric reports it (nil: not
	// reported, or no metric).
	Usage map[resource.Name]int64
	// NodeDelta and ProdDelta are the pod's shares of the node's NodeDelta
	// and ProdDelta, max(0, estimate − usage) per resource (ProdDelta: the
	// whole estimate when the metric does not report the pod as prod); nil
	// when it adds nothing there.
	NodeDelta map[resource.Name]int64
	ProdDelta map[resource.Name]int64
	// NodeDeltaReason and ProdDeltaReason say why the estimate counts in
	// each delta instead of the measured usage alone; 0 (Measured) when it
	// does not count there. A reason with a nil share means the measured
	// usage already covers the estimate.
	NodeDeltaReason EstimateReason
	ProdDeltaReason EstimateReason
}

// NodeState returns a deep copy of the node's state.
func (c *AssignCache) NodeState(name string) (NodeState, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	e := c.nodes[name]
	if e == nil {
		return NodeState{}, false
	}
	return c.stateOf(e), true
}

// States returns a deep copy of every node's state.
func (c *AssignCache) States() map[string]NodeState {
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := make(map[string]NodeState, len(c.nodes))
	for n, e := range c.nodes {
		out[n] = c.stateOf(e)
	}
	return out
}

func (c *AssignCache) stateOf(e *nodeEntry) NodeState {
	s := NodeState{
		HasMetric:      e.metric != nil,
		UpdateTime:     e.updateTime,
		ReportInterval: e.reportInterval,
		NodeUsage:      c.vec.ToAmounts(e.nodeUsage),
		ProdUsage:      c.vec.ToAmounts(e.prodUsage),
		NodeDelta:      c.vec.ToAmounts(e.nodeDelta),
		ProdDelta:      c.vec.ToAmounts(e.prodDelta),
		NodeEstimated:  c.vec.ToAmounts(e.nodeEstimated),
		Warnings:       slices.Clone(e.warnings),
	}
	if e.agg != nil {
		s.Aggregated = make(map[AggregationKey]map[resource.Name]int64, len(e.agg))
		for k, v := range e.agg {
			s.Aggregated[k] = c.vec.ToAmounts(v)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(e.pods)) {
		p := e.pods[k]
		ap := AssignedPod{
			Key: k, Namespace: p.pod.Namespace, Name: p.pod.Name,
			Timestamp: p.timestamp, Deadline: p.deadline,
			Estimated: c.vec.ToAmounts(p.estimated), Prod: p.prod,
		}
		if e.metric != nil {
			sh := e.share(p)
			ap.ReportedProd = sh.activeProd
			ap.Usage = c.vec.ToAmounts(sh.usage)
			ap.NodeDeltaReason, ap.ProdDeltaReason = sh.node, sh.prod
			if sh.node != 0 {
				ap.NodeDelta = c.shareAmounts(p.estimated, sh.usage)
			}
			if sh.prod != 0 {
				ap.ProdDelta = c.shareAmounts(p.estimated, sh.prodUsage)
			}
		}
		s.Pods = append(s.Pods, ap)
	}
	return s
}

// shareAmounts returns max(0, est − usage) per resource as amounts, or
// nil when no resource is positive.
func (c *AssignCache) shareAmounts(est, usage []int64) map[resource.Name]int64 {
	d := make([]int64, len(est))
	addDelta(d, est, usage, 1)
	if !slices.ContainsFunc(d, func(x int64) bool { return x != 0 }) {
		return nil
	}
	return c.vec.ToAmounts(d)
}
