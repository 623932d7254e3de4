package noderesources

import (
	"context"
	"fmt"
	"math"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/fastpath"
)

// baPreScoreKey is kube's "PreScore"+NodeResourcesBalancedAllocation key.
const baPreScoreKey framework.StateKey = "PreScore" + config.NodeResourcesBalancedAllocationName

// baPreScoreState holds the pod's request of each configured resource and
// the DRA objects the score reads (nil unless a DeviceClass backs a
// configured resource).
type baPreScoreState struct {
	podRequests []int64
	dra         *nrfDRA
	// held stores podRequests when there are at most nrfHeldRequests
	// resources, so that PreScore allocates the state alone.
	held [nrfHeldRequests]int64
}

// Clone returns the state itself; it is read-only.
func (s *baPreScoreState) Clone() framework.StateData { return s }

// baMaxInline bounds the fractions kept on the stack; more resources spill
// to the heap (only with more than 16 configured resources).
const baMaxInline = 16

// NodeResourcesBalancedAllocation is kube-scheduler's
// NodeResourcesBalancedAllocation score: it favours nodes whose resource
// usage fractions stay close to each other. Three generations are offered
// (BalancedAllocationMode):
//
//   - Delta (default, kube-scheduler's since v1.36): with f_r = min(req_r/alloc_r, 1)
//     over the configured resources (real requests, no non-zero defaults;
//     a resource with allocatable 0, or a scalar the pod does not request,
//     is left out) and S(f) = int64((1 − σ(f))·100), where σ is
//     |f1 − f2|/2 for two fractions, the population standard deviation for
//     more and 0 for fewer, the score is
//     50 + (50 + S(with pod) − S(without pod))/2 in integer arithmetic.
//   - StdDev (kube-scheduler v1.23–v1.35): S(with pod).
//   - Classic (seed 001, kube-scheduler ≤ v1.21): cpu and memory in the
//     non-zero view, fraction 1 for a zero capacity; 0 when a fraction is
//     ≥ 1, else int64((1 − |f_cpu − f_mem|)·100).
//
// In Delta and StdDev modes PreScore returns Skip for a pod whose request
// of every configured resource is 0 (kubernetes/kubernetes#129138). There
// is no NormalizeScore.
type NodeResourcesBalancedAllocation struct {
	mode      BalancedAllocationMode
	resources []nrfResource
	// hasOther is set when some configured name is neither cpu, memory,
	// ephemeral-storage nor scalar; its request is read from the pod's
	// full request list, counted by statusRule (the handle's release).
	hasOther   bool
	statusRule api.StatusRule
	// cpuMem is set when the resources are exactly cpu and memory (in
	// either order, kube's default): Score then takes a branch-light path
	// with the same floating-point operations as balance.
	cpuMem bool
	// cel compiles DeviceClass selectors for resources DRA backs.
	cel *draCEL
}

var (
	_ framework.PreScorePlugin  = (*NodeResourcesBalancedAllocation)(nil)
	_ framework.ScorePlugin     = (*NodeResourcesBalancedAllocation)(nil)
	_ fastpath.BatchScorePlugin = (*NodeResourcesBalancedAllocation)(nil)
)

// NewBalancedAllocation builds NodeResourcesBalancedAllocation from args,
// a NodeResourcesBalancedAllocationArgs or a pointer to one (nil:
// DefaultNodeResourcesBalancedAllocationArgs()), after kube-scheduler's
// defaulting (cpu:1, memory:1; weight 0 becomes 1; mode Delta) and
// validation (NodeResourcesBalancedAllocationArgs.Validate). It is the
// plugin's framework.Factory.
func NewBalancedAllocation(args any, h framework.Handle) (framework.Plugin, error) {
	return config.NewPlugin(config.NodeResourcesBalancedAllocationName, args, h, DefaultNodeResourcesBalancedAllocationArgs, newBalancedAllocation)
}

func newBalancedAllocation(args NodeResourcesBalancedAllocationArgs, h framework.Handle) (framework.Plugin, error) {
	args.SetDefaults()
	if err := args.Validate(); err != nil {
		return nil, err
	}
	pl := &NodeResourcesBalancedAllocation{mode: args.Mode, resources: nrfResources(args.Resources), statusRule: framework.DefaultKubeVersion.StatusRule(), cel: &draCEL{}}
	if h != nil {
		pl.statusRule = h.KubeVersion().StatusRule()
	}
	for _, r := range pl.resources {
		pl.hasOther = pl.hasOther || r.kind == nrfOther
	}
	pl.cpuMem = len(pl.resources) == 2 &&
		(pl.resources[0].kind == nrfCPU && pl.resources[1].kind == nrfMemory ||
			pl.resources[0].kind == nrfMemory && pl.resources[1].kind == nrfCPU)
	return pl, nil
}

// Name returns "NodeResourcesBalancedAllocation".
func (pl *NodeResourcesBalancedAllocation) Name() string {
	return config.NodeResourcesBalancedAllocationName
}

// podRequests returns the pod's request per configured resource: real
// requests (Delta, StdDev) or, in Classic mode, cpu and memory in the
// non-zero view.
func (pl *NodeResourcesBalancedAllocation) podRequests(pod *framework.PodInfo, buf []int64) []int64 {
	req := nrfRequestSlice(buf, len(pl.resources))
	if pl.mode == BalancedAllocationClassic {
		for i := range pl.resources {
			req[i] = nrfPodRequest(pod, &pl.resources[i])
		}
		return req
	}
	for i := range pl.resources {
		r := &pl.resources[i]
		switch r.kind {
		case nrfCPU:
			req[i] = pod.Requests.MilliCPU
		case nrfMemory:
			req[i] = pod.Requests.Memory
		case nrfEphemeral:
			req[i] = pod.Requests.EphemeralStorage
		case nrfScalar:
			req[i] = pod.Requests.Get(r.name)
		}
	}
	if pl.hasOther {
		all := api.PodRequests(pod.Pod, api.RequestOptions{UseStatusResources: true, StatusRule: pl.statusRule})
		for i := range pl.resources {
			if pl.resources[i].kind == nrfOther {
				q := all[pl.resources[i].name]
				req[i] = q.Value()
			}
		}
	}
	return req
}

func baBestEffort(req []int64) bool {
	for _, v := range req {
		if v != 0 {
			return false
		}
	}
	return true
}

var _ fastpath.CycleScopedPreScorePlugin = (*NodeResourcesBalancedAllocation)(nil)

// PreScoreNodesInCycle marks the plugin as one that uses the nodes PreScore
// receives within the cycle only: it reads no node in PreScore.
func (pl *NodeResourcesBalancedAllocation) PreScoreNodesInCycle() {}

// PreScore caches the pod's requests; in Delta and StdDev modes it returns
// Skip when every configured request is 0.
func (pl *NodeResourcesBalancedAllocation) PreScore(_ context.Context, state *framework.CycleState, pod *framework.PodInfo, _ []*framework.NodeInfo) *framework.Status {
	s := &baPreScoreState{}
	s.podRequests = pl.podRequests(pod, s.held[:])
	if pl.mode != BalancedAllocationClassic && baBestEffort(s.podRequests) {
		return framework.NewStatus(framework.Skip)
	}
	s.dra = pl.draOf(state)
	state.Write(baPreScoreKey, s)
	return nil
}

// draOf is newNRFDRA for the plugin's resources (nil in Classic mode and
// over cpu and memory alone).
func (pl *NodeResourcesBalancedAllocation) draOf(state *framework.CycleState) *nrfDRA {
	if pl.cpuMem || pl.mode == BalancedAllocationClassic {
		return nil
	}
	return newNRFDRA(state, pl.resources, pl.cel)
}

// readDRA returns the PreScore state's DRA objects, or those computed
// afresh when PreScore did not run.
func (pl *NodeResourcesBalancedAllocation) readDRA(state *framework.CycleState) *nrfDRA {
	if d, err := state.Read(baPreScoreKey); err == nil {
		if s, ok := d.(*baPreScoreState); ok {
			return s.dra
		}
	}
	return pl.draOf(state)
}

// Score returns the balance score of node. Without PreScore state it
// computes the requests itself and, as kube, scores a best-effort pod 0.
func (pl *NodeResourcesBalancedAllocation) Score(_ context.Context, state *framework.CycleState, pod *framework.PodInfo, node *framework.NodeInfo) (int64, *framework.Status) {
	req, zero, st := pl.readRequests(state, pod)
	if st != nil {
		return 0, st
	}
	if zero {
		return 0, nil
	}
	return pl.score(node, req, pl.readDRA(state)), nil
}

// readRequests returns the PreScore state's requests or, without PreScore
// state, the pod's requests computed afresh; zero reports a best-effort pod
// scored 0 in that case (Delta and StdDev modes).
func (pl *NodeResourcesBalancedAllocation) readRequests(state *framework.CycleState, pod *framework.PodInfo) (req []int64, zero bool, st *framework.Status) {
	if d, err := state.Read(baPreScoreKey); err == nil {
		s, ok := d.(*baPreScoreState)
		if !ok {
			return nil, false, framework.AsStatus(fmt.Errorf("invalid PreScore state, got type %T", d))
		}
		return s.podRequests, false, nil
	}
	req = pl.podRequests(pod, nil)
	return req, pl.mode != BalancedAllocationClassic && baBestEffort(req), nil
}

// ScoreBatch is Score over nodes (fastpath.BatchScorePlugin): the requests
// are read once and, in the default Delta mode over cpu and memory, each
// node costs the two baTwo scores, with and without the pod, with no
// per-node switch — one when idx is given, the snapshot's Resources
// holding the score without the pod.
func (pl *NodeResourcesBalancedAllocation) ScoreBatch(_ context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32, out []int64) *framework.Status {
	req, zero, st := pl.readRequests(state, pod)
	if st != nil {
		return st
	}
	out = out[:len(nodes)]
	if zero {
		clear(out)
		return nil
	}
	if !pl.cpuMem || pl.mode != BalancedAllocationDelta {
		dra := pl.readDRA(state)
		for i, node := range nodes {
			out[i] = pl.score(node, req, dra)
		}
		return nil
	}
	r0, r1 := req[0], req[1]
	cpuFirst := pl.resources[0].kind == nrfCPU
	// With idx, the snapshot's Resources carry the score without the pod
	// (the same operations, done when the node last changed), so only the
	// one with the pod remains. σ is symmetric in the two resources, so
	// S does not depend on their order: work in cpu, memory order.
	if !cpuFirst {
		r0, r1 = r1, r0
	}
	if snap := state.Snapshot(); idx != nil && snap != nil {
		baDeltaRows(out, snap.Resources(), idx, r0, r1)
		return nil
	}
	for i, n := range nodes {
		aC, uC, aM, uM := n.Allocatable.MilliCPU, n.Requested.MilliCPU, n.Allocatable.Memory, n.Requested.Memory
		out[i] = baDelta(baTwo(uC+r0, aC, uM+r1, aM), baTwo(uC, aC, uM, aM))
	}
	return nil
}

var _ fastpath.AddingBatchScorePlugin = (*NodeResourcesBalancedAllocation)(nil)

// ScoreBatchAdd adds w times ScoreBatch's scores to totals
// (fastpath.AddingBatchScorePlugin); in the default Delta mode over cpu
// and memory, from the dense rows, as it scores each node.
func (pl *NodeResourcesBalancedAllocation) ScoreBatchAdd(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32, out []int64, w int64, totals []int64) bool {
	if snap := state.Snapshot(); idx != nil && snap != nil && pl.cpuMem && pl.mode == BalancedAllocationDelta {
		req, zero, st := pl.readRequests(state, pod)
		if st != nil {
			return false
		}
		if zero {
			return true // every score is 0
		}
		r0, r1 := req[0], req[1]
		if pl.resources[0].kind != nrfCPU {
			r0, r1 = r1, r0 // as ScoreBatch: cpu, then memory
		}
		return baDeltaAdd(totals[:len(idx)], snap.Resources(), idx, r0, r1, w)
	}
	if st := pl.ScoreBatch(ctx, state, pod, nodes, idx, out); st != nil && st.Code() != framework.Success {
		return false
	}
	return fastpath.AddScores(out[:len(nodes)], w, totals)
}

// baDeltaAdd adds w times baDeltaRows' scores to totals and reports
// whether each lies in [MinNodeScore, MaxNodeScore]. It checks x = 50 +
// S_with − S_without, the score's numerator, against [0, 100], where
// halving it is a shift and the score lies in [50, 100]: both balances
// lie in [50, 100] unless an amount summed past int64's range makes a
// fraction negative, and then it reports false (so the runner weighs the
// plain row, which has the score exactly).
func baDeltaAdd(totals []int64, res []framework.NodeResources, idx []int32, reqCPU, reqMem, w int64) bool {
	totals = totals[:len(idx)]
	var bad uint64 // a numerator outside [0, 100] sets a bit above 127 (runtime's scoreBits)
	for i, k := range idx {
		r := &res[k]
		with := baTwo(r.RequestedMilliCPU+reqCPU, r.AllocatableMilliCPU, r.RequestedMemory+reqMem, r.AllocatableMemory)
		num := framework.MaxNodeScore/2 + with - int64(r.CPUMemoryBalance)
		bad |= uint64(num) | uint64(num+127-framework.MaxNodeScore)
		totals[i] += w * (framework.MaxNodeScore/2 + num>>1)
	}
	return bad < 128
}

// baDeltaRows is ScoreBatch's Delta score over cpu and memory from the
// snapshot's dense rows, whose score without the pod
// (NodeResources.CPUMemoryBalance) is baTwo's, done when the node last
// changed.
func baDeltaRows(out []int64, res []framework.NodeResources, idx []int32, reqCPU, reqMem int64) {
	out = out[:len(idx)]
	for i, x := range idx {
		r := &res[x]
		aC, aM := r.AllocatableMilliCPU, r.AllocatableMemory
		with := baTwo(r.RequestedMilliCPU+reqCPU, aC, r.RequestedMemory+reqMem, aM)
		out[i] = baDelta(with, int64(r.CPUMemoryBalance))
	}
}

// baDelta is kube's score of the change in balance: 50 + (50 + S_with −
// S_without)/2 in integer arithmetic.
func baDelta(with, without int64) int64 {
	return framework.MaxNodeScore/2 + (framework.MaxNodeScore/2+with-without)/2
}

// score is Score with the requests known.
func (pl *NodeResourcesBalancedAllocation) score(node *framework.NodeInfo, req []int64, dra *nrfDRA) int64 {
	switch pl.mode {
	case BalancedAllocationClassic:
		return pl.classic(node, req)
	case BalancedAllocationStdDev:
		if pl.cpuMem {
			a0, u0, a1, u1 := pl.cpuMemUsage(node)
			return baTwo(u0+req[0], a0, u1+req[1], a1)
		}
		return pl.balance(node, req, true, dra)
	}
	if pl.cpuMem {
		a0, u0, a1, u1 := pl.cpuMemUsage(node)
		with := baTwo(u0+req[0], a0, u1+req[1], a1)
		without := baTwo(u0, a0, u1, a1)
		return baDelta(with, without)
	}
	with := pl.balance(node, req, true, dra)
	without := pl.balance(node, req, false, dra)
	return baDelta(with, without)
}

// balance is kube's balancedResourceScore over the node's fractions with
// (withPod) or without the pod's requests.
func (pl *NodeResourcesBalancedAllocation) balance(node *framework.NodeInfo, req []int64, withPod bool, dra *nrfDRA) int64 {
	var buf [baMaxInline]float64
	fractions := buf[:0]
	var total float64
	for i := range pl.resources {
		alloc, used := dra.allocRequest(node, &pl.resources[i], i, req[i], true)
		if alloc == 0 {
			continue
		}
		if !withPod {
			used -= req[i]
		}
		f := float64(used) / float64(alloc)
		if f > 1 {
			f = 1
		}
		total += f
		fractions = append(fractions, f)
	}
	return baScore(fractions, total)
}

// cpuMemUsage returns the node's allocatable and real requested amounts of
// the two configured resources (cpu and memory), in configuration order.
func (pl *NodeResourcesBalancedAllocation) cpuMemUsage(node *framework.NodeInfo) (a0, u0, a1, u1 int64) {
	if pl.resources[0].kind == nrfCPU {
		return node.Allocatable.MilliCPU, node.Requested.MilliCPU, node.Allocatable.Memory, node.Requested.Memory
	}
	return node.Allocatable.Memory, node.Requested.Memory, node.Allocatable.MilliCPU, node.Requested.MilliCPU
}

// baTwo is baScore over the fractions min(used/alloc, 1) of two resources,
// a resource with allocatable 0 being left out: σ = |f0 − f1|/2 when both
// count, else 0 (score 100). The operations are those of balance and
// baScore, so the result is bit for bit the same.
func baTwo(used0, alloc0, used1, alloc1 int64) int64 {
	return framework.BalanceOfTwo(used0, alloc0, used1, alloc1)
}

// baScore is int64((1 − σ)·100) with kube's σ: |f0 − f1|/2 for two
// fractions, the population standard deviation for more, 0 for fewer.
func baScore(fractions []float64, total float64) int64 {
	std := 0.0
	if len(fractions) == 2 {
		std = math.Abs((fractions[0] - fractions[1]) / 2)
	} else if len(fractions) > 2 {
		mean := total / float64(len(fractions))
		var sum float64
		for _, f := range fractions {
			sum = sum + (f-mean)*(f-mean)
		}
		std = math.Sqrt(sum / float64(len(fractions)))
	}
	return int64((1 - std) * float64(framework.MaxNodeScore))
}

// classic is seed 001's balancedResourceScorer over cpu and memory.
func (pl *NodeResourcesBalancedAllocation) classic(node *framework.NodeInfo, req []int64) int64 {
	var cpuF, memF float64
	for i := range pl.resources {
		r := &pl.resources[i]
		var alloc, used int64
		switch r.kind {
		case nrfCPU:
			alloc, used = node.Allocatable.MilliCPU, node.NonZeroRequested.MilliCPU+req[i]
		case nrfMemory:
			alloc, used = node.Allocatable.Memory, node.NonZeroRequested.Memory+req[i]
		default:
			continue
		}
		f := 1.0
		if alloc != 0 {
			f = float64(used) / float64(alloc)
		}
		if r.kind == nrfCPU {
			cpuF = f
		} else {
			memF = f
		}
	}
	if cpuF >= 1 || memF >= 1 {
		return 0
	}
	return int64((1 - math.Abs(cpuF-memF)) * float64(framework.MaxNodeScore))
}

// ScoreExtensions returns nil: scores are not normalized.
func (pl *NodeResourcesBalancedAllocation) ScoreExtensions() framework.ScoreExtensions { return nil }

var _ fastpath.NodeLocalPlugin = (*NodeResourcesBalancedAllocation)(nil)

// NodeLocal is true: the score reads the node's allocatable and requested
// resources.
func (pl *NodeResourcesBalancedAllocation) NodeLocal(pod *framework.PodInfo) bool {
	return !requestsDRA(pod, pl.resources)
}

var _ framework.SignPlugin = (*NodeResourcesBalancedAllocation)(nil)

// SignPod signs the pod's effective requests from its spec
// (noderesources/balanced_allocation.go, computePodResourceRequest).
func (pl *NodeResourcesBalancedAllocation) SignPod(_ context.Context, pod *framework.PodInfo) ([]framework.SignFragment, *framework.Status) {
	return []framework.SignFragment{{Key: framework.SignerResources, Value: *pod.SpecRequests()}}, nil
}
