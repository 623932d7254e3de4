// Package noderesources is kube-scheduler's noderesources plugins:
// NodeResourcesFit (a node without room for the pod's requests rejects it;
// nodes score by LeastAllocated, MostAllocated or RequestedToCapacityRatio,
// and, in v1.36, placements by MostAllocated) and
// NodeResourcesBalancedAllocation (nodes whose resource fractions the pod
// leaves most balanced score higher). They reproduce v1.37 (the default
// release) and v1.36, with their args (NodeResourcesFitArgs,
// NodeResourcesBalancedAllocationArgs).
//
// In kube's default configuration (LeastAllocated over cpu and memory,
// BalancedAllocation over the same, ImageLocality at weight 1) the three
// scores are added in one pass over the snapshot's dense rows
// (NodeResourcesFit.ScoreBatchAddWith, fastpath.FusingBatchScorePlugin),
// and the filter leaves the statuses of the nodes it rejects for when no
// node fits (fastpath.DeferringRejectingFilterPlugin).
package noderesources

import (
	"context"
	"sync/atomic"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/fastpath"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/scoring"
)

// Filter reasons of NodeResourcesFit, worded as kube-scheduler's.
const (
	// ReasonTooManyPods is reported when the node's pod slots are full.
	ReasonTooManyPods = "Too many pods"
	// ReasonInsufficientPrefix starts "Insufficient cpu", "Insufficient
	// nvidia.com/gpu", ...
	ReasonInsufficientPrefix = "Insufficient "
)

// NodeResourcesFit is kube-scheduler's NodeResourcesFit.
//
// Its filter: a node fits when it has a free pod slot and, for every
// resource the pod requests, allocatable − requested ≥ the pod's request.
// All shortfalls are reported; the status is UnschedulableAndUnresolvable
// when some request exceeds the node's allocatable outright (preemption
// cannot help), Unschedulable otherwise.
//
// Its score: for each configured resource it takes the node's allocatable
// and requested-plus-pod amounts — cpu and memory in the non-zero view
// (NodeInfo.NonZeroRequested and the pod's 100m / 200 MiB per-container
// defaults), everything else from the real requests — and scores them with
// the configured strategy:
//   - LeastAllocated: (alloc−req)·100/alloc (0 when req > alloc);
//   - MostAllocated: min(req, alloc)·100/alloc;
//   - RequestedToCapacityRatio: shape(req·100/alloc, or 100 when
//     req > alloc), where shape is the piecewise-linear function through
//     the configured points (scores ×10), evaluated in integer arithmetic.
//
// A resource whose allocatable is 0, a scalar resource the pod does not
// request, and a name that is neither cpu, memory, ephemeral-storage nor a
// scalar resource are left out (no score, no weight). The node score is
// Σ score·weight / Σ weight, truncated (LeastAllocated, MostAllocated) or
// rounded half away from zero (RequestedToCapacityRatio, which also leaves
// out resources scoring 0); 0 when nothing is left. There is no
// NormalizeScore.
type NodeResourcesFit struct {
	// The filter's args: extended resources and groups it does not check.
	ignored       map[resource.Name]struct{}
	ignoredGroups map[string]struct{}

	// Pre-built single-reason statuses (the runner never mutates them).
	tooManyPods                    *framework.Status
	cpuUnsch, memUnsch, ephUnsch   *framework.Status
	cpuUnres, memUnres, ephUnres   *framework.Status
	reasonCPU, reasonMem, reasonEp string
	// multi memoizes the multi-reason statuses of shortfalls in pods, cpu,
	// memory and ephemeral storage only, by nrfShortfalls mask (built on
	// first use; a status depends on nothing else).
	multi *[nrfMasks]atomic.Pointer[framework.Status]
	// plain keeps the PreFilter states of the last pods that asked for
	// no scalar resource, each of other requests, which later pods
	// asking as much share (a state is read-only and reads nothing else
	// of the pod).
	plain *nrfPlainStates

	// The score's strategy and its resources.
	strategy  ScoringStrategyType
	resources []nrfResource
	shape     []scoring.ShapePoint
	// strat is strategy as a small integer, so the per-node path does not
	// compare strings.
	strat nrfStrategy
	// simple is set when every configured resource is cpu, memory or
	// ephemeral-storage: Score then reads NodeInfo fields directly.
	simple bool
	// cel compiles DeviceClass selectors for resources DRA backs.
	cel *draCEL
	// memo keeps the nodes' fused LeastAllocated and BalancedAllocation
	// scores for pods with equal requests (nil: none kept).
	memo *lbMemo
}

var (
	_ framework.PreFilterPlugin      = (*NodeResourcesFit)(nil)
	_ framework.FilterPlugin         = (*NodeResourcesFit)(nil)
	_ fastpath.BatchFilterPlugin     = (*NodeResourcesFit)(nil)
	_ framework.PreScorePlugin       = (*NodeResourcesFit)(nil)
	_ framework.ScorePlugin          = (*NodeResourcesFit)(nil)
	_ fastpath.BatchScorePlugin      = (*NodeResourcesFit)(nil)
	_ framework.PlacementScorePlugin = (*NodeResourcesFit)(nil)
)

// NewFit builds NodeResourcesFit from args, a NodeResourcesFitArgs or a
// pointer to one (nil: DefaultNodeResourcesFitArgs()), after applying
// kube-scheduler's defaults (nil strategy: LeastAllocated over cpu:1,
// memory:1; weight 0 becomes 1) and validation
// (NodeResourcesFitArgs.Validate). It is the plugin's framework.Factory.
func NewFit(args any, h framework.Handle) (framework.Plugin, error) {
	return config.NewPlugin(config.NodeResourcesFitName, args, h, DefaultNodeResourcesFitArgs, newFit)
}

func newFit(args NodeResourcesFitArgs, _ framework.Handle) (framework.Plugin, error) {
	args.SetDefaults()
	if err := args.Validate(); err != nil {
		return nil, err
	}
	s := args.ScoringStrategy
	pl := &NodeResourcesFit{
		multi:         &[nrfMasks]atomic.Pointer[framework.Status]{},
		plain:         &nrfPlainStates{},
		ignored:       make(map[resource.Name]struct{}, len(args.IgnoredResources)),
		ignoredGroups: make(map[string]struct{}, len(args.IgnoredResourceGroups)),
		reasonCPU:     ReasonInsufficientPrefix + string(resource.CPU),
		reasonMem:     ReasonInsufficientPrefix + string(resource.Memory),
		reasonEp:      ReasonInsufficientPrefix + string(resource.EphemeralStorage),
		strategy:      s.Type,
		resources:     nrfResources(s.Resources),
		simple:        true,
		cel:           &draCEL{},
		memo:          newLBMemo(),
	}
	for _, r := range args.IgnoredResources {
		pl.ignored[resource.Name(r)] = struct{}{}
	}
	for _, g := range args.IgnoredResourceGroups {
		pl.ignoredGroups[g] = struct{}{}
	}
	pl.tooManyPods = framework.NewStatus(framework.Unschedulable, ReasonTooManyPods)
	pl.cpuUnsch = framework.NewStatus(framework.Unschedulable, pl.reasonCPU)
	pl.memUnsch = framework.NewStatus(framework.Unschedulable, pl.reasonMem)
	pl.ephUnsch = framework.NewStatus(framework.Unschedulable, pl.reasonEp)
	pl.cpuUnres = framework.NewStatus(framework.UnschedulableAndUnresolvable, pl.reasonCPU)
	pl.memUnres = framework.NewStatus(framework.UnschedulableAndUnresolvable, pl.reasonMem)
	pl.ephUnres = framework.NewStatus(framework.UnschedulableAndUnresolvable, pl.reasonEp)
	switch s.Type {
	case LeastAllocated:
		pl.strat = nrfLeast
	case MostAllocated:
		pl.strat = nrfMost
	default:
		pl.strat = nrfRTCR
	}
	for _, r := range pl.resources {
		if r.kind != nrfCPU && r.kind != nrfMemory && r.kind != nrfEphemeral {
			pl.simple = false
		}
	}
	if s.Type == RequestedToCapacityRatio {
		pl.shape = scoring.ScaleShape(s.RequestedToCapacityRatio.Shape)
	}
	return pl, nil
}

// Name returns "NodeResourcesFit".
func (pl *NodeResourcesFit) Name() string { return config.NodeResourcesFitName }

var _ fastpath.NodeLocalPlugin = (*NodeResourcesFit)(nil)

// NodeLocal is true unless the pod requests an extended resource a
// DeviceClass may back (resource.Name.IsDRAExtended): the verdict and the
// score read the node's allocatable and requested resources and pod
// count, and, for such a resource, which DeviceClass backs it and the
// devices of its class the node reaches and which of them claims hold.
func (pl *NodeResourcesFit) NodeLocal(pod *framework.PodInfo) bool {
	return !framework.RequestsDRAExtended(pod)
}

var _ framework.SignPlugin = (*NodeResourcesFit)(nil)

// SignPod signs the pod's effective requests from its spec
// (noderesources/fit.go computePodResourceRequest, which leaves status
// resources out although the scores count them).
func (pl *NodeResourcesFit) SignPod(_ context.Context, pod *framework.PodInfo) ([]framework.SignFragment, *framework.Status) {
	return []framework.SignFragment{{Key: framework.SignerResources, Value: *pod.SpecRequests()}}, nil
}
