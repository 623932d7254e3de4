package karmada

import (
	"context"
	"fmt"
	"math"
	"sync"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
)

// SchedulerEstimatorName is the name Karmada registers its accurate
// (per-node, scheduler-estimator) estimator under.
const SchedulerEstimatorName = "scheduler-estimator"

// NodeResourceEstimatorName is the name of Karmada's node-resource plugin of
// the scheduler-estimator framework.
const NodeResourceEstimatorName = "NodeResourceEstimator"

// ReplicaEstimatorPlugin is one plugin of Karmada's scheduler-estimator
// framework (EstimateReplicasPlugin): from one member cluster's snapshot it
// estimates how many replicas of req the cluster can hold. Its status
// follows Karmada's result codes: Success (or nil); Unschedulable or
// UnschedulableAndUnresolvable (Karmada's Unschedulable: the cluster holds
// 0); Skip (Karmada's Nooperation: the plugin has no opinion); anything else
// is a failure (Karmada's Error). Plugins must be safe for concurrent use.
type ReplicaEstimatorPlugin interface {
	Name() string
	Estimate(ctx context.Context, snap *framework.Snapshot, req *ReplicaRequirements) (int32, *framework.Status)
}

// AccurateOptions configure an AccurateEstimator.
type AccurateOptions struct {
	// Parallelism is the number of clusters estimated at once (0 means 1).
	// Results never depend on it.
	Parallelism int
}

// AccurateEstimator is Karmada's accurate estimator: per member cluster, the
// scheduler-estimator server runs its plugins over a snapshot of the
// cluster's nodes and pods and combines them (ClusterReplicas); the
// scheduler side asks every cluster (MaxAvailableReplicas). It is immutable
// and safe for concurrent use.
type AccurateEstimator struct {
	plugins     []ReplicaEstimatorPlugin
	parallelism int
}

// NewAccurateEstimator returns an accurate estimator running plugins (for
// example a NodeResourceEstimator). A nil plugin, two plugins with one name
// or a negative parallelism is an error.
func NewAccurateEstimator(opts AccurateOptions, plugins ...ReplicaEstimatorPlugin) (*AccurateEstimator, error) {
	if opts.Parallelism < 0 {
		return nil, fmt.Errorf("estimator: AccurateOptions.Parallelism=%d: must not be negative", opts.Parallelism)
	}
	seen := map[string]bool{}
	for i, p := range plugins {
		if p == nil {
			return nil, fmt.Errorf("estimator: accurate estimator: plugins[%d] is nil", i)
		}
		if seen[p.Name()] {
			return nil, fmt.Errorf("estimator: accurate estimator: plugin %q listed twice", p.Name())
		}
		seen[p.Name()] = true
	}
	return &AccurateEstimator{plugins: append([]ReplicaEstimatorPlugin(nil), plugins...), parallelism: max(opts.Parallelism, 1)}, nil
}

// Name returns SchedulerEstimatorName.
func (e *AccurateEstimator) Name() string { return SchedulerEstimatorName }

// ClusterReplicas is what one cluster's scheduler-estimator answers
// (Karmada's EstimateReplicas and RunEstimateReplicasPlugins):
//
//   - a cluster without nodes holds 0;
//   - the answer starts at MaxInt32 and is the minimum over the plugins that
//     return Success or Unschedulable; a failed plugin makes it 0;
//   - then, by the merged status: a failure is an error (naming the plugin
//     and its reasons), an Unschedulable plugin makes the answer 0, and when
//     every plugin returned Skip (or there are none) the answer stays
//     MaxInt32 — which CalAvailableReplicas turns into the desired replicas.
func (e *AccurateEstimator) ClusterReplicas(ctx context.Context, snap *framework.Snapshot, req *ReplicaRequirements) (int32, error) {
	if snap == nil {
		return 0, fmt.Errorf("estimator: accurate estimator: nil snapshot")
	}
	if err := checkRequirements("request", req); err != nil {
		return 0, err
	}
	if snap.NumNodes() == 0 {
		return 0, nil
	}
	replicas := int32(math.MaxInt32)
	unschedulable := false
	var failure error
	for _, p := range e.plugins {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		n, st := p.Estimate(ctx, snap, req)
		switch estimateCode(st) {
		case framework.Success:
			replicas = min(replicas, n)
		case framework.Unschedulable:
			replicas = min(replicas, n)
			unschedulable = true
		case framework.Skip:
		default:
			replicas = 0
			if failure == nil {
				failure = fmt.Errorf("estimator: estimate replica plugin %q failed: %s", p.Name(), st.Message())
			}
		}
	}
	switch {
	case failure != nil:
		return 0, failure
	case unschedulable:
		return 0, nil
	}
	return replicas, nil
}

// estimateCode maps a plugin status to Karmada's four result codes:
// Success, Unschedulable, Skip (Nooperation) and Error.
func estimateCode(s *framework.Status) framework.Code {
	switch s.Code() {
	case framework.Success:
		return framework.Success
	case framework.Unschedulable, framework.UnschedulableAndUnresolvable:
		return framework.Unschedulable
	case framework.Skip:
		return framework.Skip
	}
	return framework.Error
}

// ClusterSnapshot is one member cluster's node snapshot for the accurate
// estimator.
type ClusterSnapshot struct {
	Name     string
	Snapshot *framework.Snapshot
}

// MaxAvailableReplicas asks every cluster's estimator (ClusterReplicas) and
// returns one result per cluster, in order. As Karmada's client, a cluster
// whose estimation fails makes the whole call fail: the error names the
// cluster, and the returned slice holds UnauthenticReplica for that cluster
// (CalAvailableReplicas then ignores this estimator for the round). An
// empty list, unnamed or duplicate clusters and nil snapshots are errors.
func (e *AccurateEstimator) MaxAvailableReplicas(ctx context.Context, clusters []ClusterSnapshot, req *ReplicaRequirements) ([]TargetCluster, error) {
	if len(clusters) == 0 {
		return nil, fmt.Errorf("estimator: empty cluster list")
	}
	seen := make(map[string]int, len(clusters))
	for i, c := range clusters {
		if c.Name == "" {
			return nil, fmt.Errorf("estimator: clusters[%d]: empty name", i)
		}
		if j, dup := seen[c.Name]; dup {
			return nil, fmt.Errorf("estimator: clusters[%d] and clusters[%d] are both named %q", j, i, c.Name)
		}
		seen[c.Name] = i
		if c.Snapshot == nil {
			return nil, fmt.Errorf("estimator: cluster %q: nil snapshot", c.Name)
		}
	}
	if err := checkRequirements("request", req); err != nil {
		return nil, err
	}
	out := make([]TargetCluster, len(clusters))
	errs := make([]error, len(clusters))
	work := func(i int) {
		n, err := e.ClusterReplicas(ctx, clusters[i].Snapshot, req)
		if err != nil {
			n = UnauthenticReplica
			errs[i] = fmt.Errorf("cluster %q: %w", clusters[i].Name, err)
		}
		out[i] = TargetCluster{Name: clusters[i].Name, Replicas: n}
	}
	if e.parallelism <= 1 || len(clusters) == 1 {
		for i := range clusters {
			work(i)
		}
	} else {
		var wg sync.WaitGroup
		next := make(chan int)
		for w := 0; w < min(e.parallelism, len(clusters)); w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					work(i)
				}
			}()
		}
		for i := range clusters {
			next <- i
		}
		close(next)
		wg.Wait()
	}
	for _, err := range errs {
		if err != nil {
			return out, fmt.Errorf("estimator: %s: %w", SchedulerEstimatorName, err)
		}
	}
	return out, nil
}

// NodeResourceEstimator is Karmada's NodeResourceEstimator plugin: the sum,
// over the nodes that pass the node filters, of how many replicas each node
// can still take. Karmada's node filter (NodeClaim) checks the replica's
// node selector and required node affinity, its tolerations of the node's
// NoSchedule and NoExecute taints, and of node.kubernetes.io/unschedulable
// for cordoned nodes; here the caller passes those checks as
// framework.FilterPlugins (NodeAffinity, TaintToleration and
// NodeUnschedulable reproduce Karmada's), run against a pod built from the
// requirements.
type NodeResourceEstimator struct {
	filters []framework.FilterPlugin
}

var _ ReplicaEstimatorPlugin = (*NodeResourceEstimator)(nil)

// NewNodeResourceEstimator returns the plugin with the given node filters
// (none: every node passes). A nil filter is an error.
func NewNodeResourceEstimator(filters ...framework.FilterPlugin) (*NodeResourceEstimator, error) {
	for i, f := range filters {
		if f == nil {
			return nil, fmt.Errorf("estimator: NodeResourceEstimator: filters[%d] is nil", i)
		}
	}
	return &NodeResourceEstimator{filters: append([]framework.FilterPlugin(nil), filters...)}, nil
}

// Name returns NodeResourceEstimatorName.
func (p *NodeResourceEstimator) Name() string { return NodeResourceEstimatorName }

// nodeDemand is one requested resource of a replica, in the units of the
// node aggregates: milli-cores for cpu, Value() otherwise.
type nodeDemand struct {
	name resource.Name
	req  int64
}

// Estimate sums, over the nodes of snap that pass every filter, each node's
// fit: min(free pod slots, min over requested resources of ⌊free / request⌋),
// where free = allocatable − requested of the node's pods, floored at 0, and
// free pod slots = allowed pods − pod count, floored at 0. Requested
// resources are cpu (milli-cores), memory, ephemeral storage and scalar
// resources (Value()); other names are ignored, as Karmada's
// util.Resource.MaxDivided ignores them; a zero request is skipped. A
// filter's PreFilter runs first when it has one: Skip disables its Filter, a
// node list narrows the nodes, a rejection means no node fits. The sum
// saturates at MaxInt32 (Karmada's int32 sum would wrap).
//
// Node requests come from the snapshot's NodeInfo, i.e. kube-scheduler's
// accounting in the release the snapshot was built for (sidecars, pod-level
// resources, a resize in flight), where Karmada's lifted scheduler cache
// uses the older container-plus-init-max rule over the spec.
func (p *NodeResourceEstimator) Estimate(ctx context.Context, snap *framework.Snapshot, req *ReplicaRequirements) (int32, *framework.Status) {
	if snap == nil || snap.NumNodes() == 0 {
		return 0, nil
	}
	if err := checkRequirements("request", req); err != nil {
		return 0, framework.AsStatus(err)
	}
	pi, err := framework.NewPodInfo(replicaPod(req))
	if err != nil {
		return 0, framework.AsStatus(fmt.Errorf("estimator: replica node claim: %w", err))
	}
	nodes := snap.Nodes()
	state := framework.NewCycleState()
	state.SetSnapshot(snap)
	state.SetAllNodes(true) // PreFilter gets nodes, the snapshot's list
	active := make([]framework.FilterPlugin, 0, len(p.filters))
	var allowed map[string]struct{}
	restricted := false
	for _, f := range p.filters {
		if pf, ok := f.(framework.PreFilterPlugin); ok {
			res, st := pf.PreFilter(ctx, state, pi, nodes)
			switch {
			case st.IsSkip():
				continue
			case st.IsRejected():
				return 0, nil
			case !st.IsSuccess():
				return 0, framework.NewStatus(framework.Error, fmt.Sprintf("prefilter %q: %s", f.Name(), st.Message()))
			}
			if !res.AllNodes() {
				if restricted {
					kept := map[string]struct{}{}
					for n := range res.NodeNames {
						if _, ok := allowed[n]; ok {
							kept[n] = struct{}{}
						}
					}
					allowed = kept
				} else {
					allowed, restricted = res.NodeNames, true
				}
			}
		}
		active = append(active, f)
	}
	demands := replicaDemands(req)
	var total int64
	for _, ni := range nodes {
		if ctx.Err() != nil {
			return 0, framework.AsStatus(ctx.Err())
		}
		if restricted {
			if _, ok := allowed[ni.Name()]; !ok {
				continue
			}
		}
		fits := true
		for _, f := range active {
			if st := f.Filter(ctx, state, pi, ni); !st.IsSuccess() {
				if !st.IsRejected() {
					return 0, framework.NewStatus(framework.Error, fmt.Sprintf("filter %q on node %q: %s", f.Name(), ni.Name(), st.Message()))
				}
				fits = false
				break
			}
		}
		if fits {
			total = satAdd(total, nodeFit(ni, demands))
		}
	}
	return clamp32(total), nil
}

// nodeFit is how many replicas one node can still take.
func nodeFit(ni *framework.NodeInfo, demands []nodeDemand) int64 {
	fit := max(ni.Allocatable.Pods-int64(len(ni.Pods)), 0)
	for _, d := range demands {
		free := max(ni.Allocatable.Get(d.name)-ni.Requested.Get(d.name), 0)
		fit = min(fit, free/d.req)
	}
	return fit
}

func replicaDemands(req *ReplicaRequirements) []nodeDemand {
	if req == nil {
		return nil
	}
	var out []nodeDemand
	for _, n := range req.ResourceRequest.Names() {
		if !tracked(n) {
			continue
		}
		if v := quantityUnits(n, req.ResourceRequest[n]); v > 0 {
			out = append(out, nodeDemand{n, v})
		}
	}
	return out
}

// replicaPod is the pod the node filters see for a replica: its requests
// in one container, and its node claim as node selector, required node
// affinity and tolerations.
func replicaPod(req *ReplicaRequirements) *api.Pod {
	p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "replica", Namespace: "default"}}
	if req == nil {
		return p
	}
	p.Spec.Containers = []api.Container{{Name: "replica", Resources: api.ResourceRequirements{Requests: req.ResourceRequest}}}
	if nc := req.NodeClaim; nc != nil {
		p.Spec.NodeSelector = nc.NodeSelector
		p.Spec.Tolerations = nc.Tolerations
		if nc.HardNodeAffinity != nil {
			p.Spec.Affinity = &api.Affinity{NodeAffinity: &api.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: nc.HardNodeAffinity}}
		}
	}
	return p
}
