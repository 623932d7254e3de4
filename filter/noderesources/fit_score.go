package noderesources

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"sync"

	"github.com/schedkit/schedkit/framework/fastpath"
	"github.com/schedkit/schedkit/scoring/imagelocality"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/scoring"
)

// nrfKind classifies a scored resource the way kube-scheduler v1.36's
// calculateResourceAllocatableRequest switches on it.
type nrfKind uint8

const (
	nrfCPU nrfKind = iota
	nrfMemory
	nrfEphemeral
	nrfScalar
	// nrfOther is any other name (e.g. "pods"): kube finds no allocatable
	// for it and leaves it out of the score.
	nrfOther
)

func nrfKindOf(n resource.Name) nrfKind {
	switch n {
	case resource.CPU:
		return nrfCPU
	case resource.Memory:
		return nrfMemory
	case resource.EphemeralStorage:
		return nrfEphemeral
	}
	if n.IsScalar() {
		return nrfScalar
	}
	return nrfOther
}

// nrfResource is one configured resource with its weight.
type nrfResource struct {
	name   resource.Name
	kind   nrfKind
	weight int64
}

func nrfResources(specs []config.ResourceSpec) []nrfResource {
	out := make([]nrfResource, len(specs))
	for i, s := range specs {
		out[i] = nrfResource{name: resource.Name(s.Name), kind: nrfKindOf(resource.Name(s.Name)), weight: s.Weight}
	}
	return out
}

// nrfPreScoreKey is kube's "PreScore"+NodeResourcesFit state key.
const nrfPreScoreKey framework.StateKey = "PreScore" + config.NodeResourcesFitName

// nrfPreScoreState holds the pod's request for each configured resource, in
// configuration order, and the DRA objects the scores read (nil unless a
// DeviceClass backs a configured resource).
type nrfPreScoreState struct {
	podRequests []int64
	dra         *nrfDRA
	// held stores podRequests when there are at most nrfHeldRequests
	// resources, so that PreScore allocates the state alone.
	held [nrfHeldRequests]int64
	// memo is the cycle's view of the plugin's lbMemo, taken once by the
	// first score chunk that fuses BalancedAllocation's scores.
	memoOnce sync.Once
	memo     lbView
}

// memoView returns the cycle's view of m, taking it on the first call.
func (s *nrfPreScoreState) memoView(m *lbMemo, snap *framework.Snapshot, req leastBalancedRequests) lbView {
	s.memoOnce.Do(func() { s.memo = m.view(snap, req) })
	return s.memo
}

// nrfHeldRequests is how many resources' requests a PreScore state holds
// in itself: the default configurations name two (cpu and memory).
const nrfHeldRequests = 4

// nrfRequestSlice returns n zeroed requests in buf when it has room, else
// in a new slice.
func nrfRequestSlice(buf []int64, n int) []int64 {
	if n <= len(buf) {
		req := buf[:n]
		clear(req)
		return req
	}
	return make([]int64, n)
}

// newPreScoreState returns the pod's PreScore state: its requests and
// what the scores read of the DRA objects.
func (pl *NodeResourcesFit) newPreScoreState(state *framework.CycleState, pod *framework.PodInfo) *nrfPreScoreState {
	s := &nrfPreScoreState{dra: pl.draOf(state)}
	s.podRequests = pl.podRequests(pod, s.held[:])
	return s
}

// Clone returns the state itself: it is read-only, but for the memo view
// its first score chunk takes once.
func (s *nrfPreScoreState) Clone() framework.StateData { return s }

// nrfStrategy numbers the scoring strategies for the per-node switch.
type nrfStrategy uint8

const (
	nrfLeast nrfStrategy = iota
	nrfMost
	nrfRTCR
)

// nrfPodRequest returns the pod's request of r in the non-zero view used by
// LeastAllocated, MostAllocated and RequestedToCapacityRatio.
func nrfPodRequest(pod *framework.PodInfo, r *nrfResource) int64 {
	switch r.kind {
	case nrfCPU:
		return pod.NonZeroMilliCPU
	case nrfMemory:
		return pod.NonZeroMemory
	case nrfEphemeral:
		return pod.Requests.EphemeralStorage
	case nrfScalar:
		return pod.Requests.Get(r.name)
	}
	return 0
}

func (pl *NodeResourcesFit) podRequests(pod *framework.PodInfo, buf []int64) []int64 {
	req := nrfRequestSlice(buf, len(pl.resources))
	for i := range pl.resources {
		req[i] = nrfPodRequest(pod, &pl.resources[i])
	}
	return req
}

var _ fastpath.CycleScopedPreScorePlugin = (*NodeResourcesFit)(nil)

// PreScoreNodesInCycle marks the plugin as one that uses the nodes PreScore
// receives within the cycle only: it reads no node in PreScore.
func (pl *NodeResourcesFit) PreScoreNodesInCycle() {}

// PreScore caches the pod's request of every configured resource and,
// when a DeviceClass backs one of them, what the scores read of the DRA
// objects.
func (pl *NodeResourcesFit) PreScore(_ context.Context, state *framework.CycleState, pod *framework.PodInfo, _ []*framework.NodeInfo) *framework.Status {
	state.Write(nrfPreScoreKey, pl.newPreScoreState(state, pod))
	return nil
}

// draOf is newNRFDRA for the plugin's resources (nil when they are all
// cpu, memory or ephemeral storage).
func (pl *NodeResourcesFit) draOf(state *framework.CycleState) *nrfDRA {
	if pl.simple {
		return nil
	}
	return newNRFDRA(state, pl.resources, pl.cel)
}

// nrfAllocRequest returns the node's allocatable of r and its requested
// amount plus podReq, or (0, 0) when r is left out of the score. useReal
// selects NodeInfo.Requested instead of NonZeroRequested for cpu and
// memory (BalancedAllocation's view).
func nrfAllocRequest(node *framework.NodeInfo, r *nrfResource, podReq int64, useReal bool) (alloc, req int64) {
	switch r.kind {
	case nrfCPU:
		if useReal {
			return node.Allocatable.MilliCPU, node.Requested.MilliCPU + podReq
		}
		return node.Allocatable.MilliCPU, node.NonZeroRequested.MilliCPU + podReq
	case nrfMemory:
		if useReal {
			return node.Allocatable.Memory, node.Requested.Memory + podReq
		}
		return node.Allocatable.Memory, node.NonZeroRequested.Memory + podReq
	case nrfEphemeral:
		return node.Allocatable.EphemeralStorage, node.Requested.EphemeralStorage + podReq
	case nrfScalar:
		if podReq == 0 {
			return 0, 0
		}
		return node.Allocatable.Get(r.name), node.Requested.Get(r.name) + podReq
	}
	return 0, 0
}

// Score returns the strategy's score of node (0–100). Without PreScore
// state it computes the pod's requests itself, as kube does.
func (pl *NodeResourcesFit) Score(_ context.Context, state *framework.CycleState, pod *framework.PodInfo, node *framework.NodeInfo) (int64, *framework.Status) {
	s, st := pl.readState(state, pod)
	if st != nil {
		return 0, st
	}
	return pl.score(node, s.podRequests, s.dra), nil
}

// readPodRequests returns the PreScore state's requests, or the pod's
// requests computed afresh when PreScore did not run.
func (pl *NodeResourcesFit) readPodRequests(state *framework.CycleState, pod *framework.PodInfo) ([]int64, *framework.Status) {
	s, st := pl.readState(state, pod)
	if st != nil {
		return nil, st
	}
	return s.podRequests, nil
}

// readState returns the PreScore state, or the state computed afresh when
// PreScore did not run.
func (pl *NodeResourcesFit) readState(state *framework.CycleState, pod *framework.PodInfo) (*nrfPreScoreState, *framework.Status) {
	d, err := state.Read(nrfPreScoreKey)
	if err != nil {
		return pl.newPreScoreState(state, pod), nil
	}
	s, ok := d.(*nrfPreScoreState)
	if !ok {
		return nil, framework.AsStatus(fmt.Errorf("invalid PreScore state, got type %T", d))
	}
	return s, nil
}

// ScoreBatch is Score over nodes (fastpath.BatchScorePlugin). With kube's
// default configuration (LeastAllocated or MostAllocated over cpu and
// memory) it reads each node's four amounts with no per-resource switch,
// from the snapshot's Resources when idx is given.
func (pl *NodeResourcesFit) ScoreBatch(_ context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32, out []int64) *framework.Status {
	s, st := pl.readState(state, pod)
	if st != nil {
		return st
	}
	podReq := s.podRequests
	out = out[:len(nodes)]
	if !pl.simple || pl.strat == nrfRTCR || len(pl.resources) != 2 ||
		pl.resources[0].kind != nrfCPU || pl.resources[1].kind != nrfMemory {
		for i, node := range nodes {
			out[i] = pl.score(node, podReq, s.dra)
		}
		return nil
	}
	// cpu then memory, in the non-zero view, from the snapshot's Resources
	// when idx is given.
	var res []framework.NodeResources
	if snap := state.Snapshot(); idx != nil && snap != nil {
		res = snap.Resources()
	}
	reqCPU, reqMem := podReq[0], podReq[1]
	wCPU, wMem := pl.resources[0].weight, pl.resources[1].weight
	most := pl.strat == nrfMost
	if res != nil && !most && wCPU == 1 && wMem == 1 {
		// kube's default configuration, from the dense rows: the mean of
		// the two LeastAllocated scores (nrfLeastRows leaves a node with a
		// zero allocatable to the general loop below).
		nrfLeastRows(out[:len(idx)], res, idx, reqCPU, reqMem)
		return nil
	}
	nrfCPUMemScores(out, res, idx, nodes, reqCPU, reqMem, wCPU, wMem, most)
	return nil
}

var _ fastpath.AddingBatchScorePlugin = (*NodeResourcesFit)(nil)

// ScoreBatchAdd adds w times ScoreBatch's scores to totals
// (fastpath.AddingBatchScorePlugin); in kube's default configuration,
// from the dense rows, as it scores each node.
func (pl *NodeResourcesFit) ScoreBatchAdd(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32, out []int64, w int64, totals []int64) bool {
	if snap := state.Snapshot(); idx != nil && snap != nil && pl.leastDefault() {
		podReq, st := pl.readPodRequests(state, pod)
		if st != nil {
			return false
		}
		return nrfLeastAdd(totals[:len(idx)], out[:len(idx)], snap.Resources(), idx, podReq[0], podReq[1], w)
	}
	if st := pl.ScoreBatch(ctx, state, pod, nodes, idx, out); st != nil && st.Code() != framework.Success {
		return false
	}
	return fastpath.AddScores(out[:len(nodes)], w, totals)
}

var _ fastpath.FusingBatchScorePlugin = (*NodeResourcesFit)(nil)

// AddsWith reports whether ScoreBatchAddWith adds other's scores in its
// own pass (fastpath.FusingBatchScorePlugin): in kube's default
// configuration, BalancedAllocation's in its default Delta mode over cpu
// and memory, and ImageLocality's.
func (pl *NodeResourcesFit) AddsWith(other fastpath.AddingBatchScorePlugin) bool {
	if !pl.leastDefault() {
		return false
	}
	switch o := other.(type) {
	case *NodeResourcesBalancedAllocation:
		return o.cpuMem && o.mode == BalancedAllocationDelta
	case *imagelocality.ImageLocality:
		return true
	}
	return false
}

// leastDefault reports whether the plugin scores as kube's default
// configuration: LeastAllocated over cpu and memory, weights 1 and 1.
func (pl *NodeResourcesFit) leastDefault() bool {
	return pl.simple && pl.strat == nrfLeast && len(pl.resources) == 2 &&
		pl.resources[0].kind == nrfCPU && pl.resources[1].kind == nrfMemory && pl.resources[0].weight == 1 && pl.resources[1].weight == 1
}

// ScoreBatchAddWith adds w times the plugin's scores and ws[j] times those
// of others[j], a BalancedAllocation and an ImageLocality AddsWith
// accepts, to totals (fastpath.FusingBatchScorePlugin): with
// BalancedAllocation at kube's default weights (1 and 1), in one pass
// over the dense rows, which also adds ImageLocality's scores when they
// are dense this cycle and its weight is 1; each plugin adds its own
// otherwise.
func (pl *NodeResourcesFit) ScoreBatchAddWith(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32, out []int64, w int64, others []fastpath.AddingBatchScorePlugin, ws []int64, totals []int64) bool {
	var ba *NodeResourcesBalancedAllocation
	var il *imagelocality.ImageLocality
	var wBA, wIL int64
	var alone []int // others that add their own scores
	for j, o := range others {
		switch o := o.(type) {
		case *NodeResourcesBalancedAllocation:
			if ba == nil && pl.AddsWith(o) {
				ba, wBA = o, ws[j]
				continue
			}
		case *imagelocality.ImageLocality:
			if il == nil {
				il, wIL = o, ws[j]
				continue
			}
		}
		alone = append(alone, j)
	}
	addAlone := func() bool {
		for _, j := range alone {
			if !others[j].ScoreBatchAdd(ctx, state, pod, nodes, idx, out, ws[j], totals) {
				return false
			}
		}
		return true
	}
	snap := state.Snapshot()
	if ba == nil || idx == nil || snap == nil || !pl.leastDefault() || w != 1 || wBA != 1 {
		if !pl.ScoreBatchAdd(ctx, state, pod, nodes, idx, out, w, totals) ||
			ba != nil && !ba.ScoreBatchAdd(ctx, state, pod, nodes, idx, out, wBA, totals) ||
			il != nil && !il.ScoreBatchAdd(ctx, state, pod, nodes, idx, out, wIL, totals) {
			return false
		}
		return addAlone()
	}
	ps, st := pl.readState(state, pod)
	if st != nil {
		return false
	}
	podReq := ps.podRequests
	baReq, zero, st := ba.readRequests(state, pod)
	if st != nil {
		return false
	}
	res := snap.Resources()
	if zero { // BalancedAllocation's scores are all 0
		if !nrfLeastAdd(totals[:len(idx)], out[:len(idx)], res, idx, podReq[0], podReq[1], w) ||
			il != nil && !il.ScoreBatchAdd(ctx, state, pod, nodes, idx, out, wIL, totals) {
			return false
		}
		return addAlone()
	}
	r0, r1 := baReq[0], baReq[1]
	if ba.resources[0].kind != nrfCPU {
		r0, r1 = r1, r0 // as BalancedAllocation's ScoreBatch: cpu, then memory
	}
	req := leastBalancedRequests{cpu: podReq[0], mem: podReq[1], baCPU: r0, baMem: r1}
	// ImageLocality's dense scores join the pass at weight 1.
	var delta []int8
	if il != nil && wIL == 1 {
		floor, d, st := il.DenseScores(state, pod)
		if st != nil {
			return false
		}
		if d != nil {
			delta, req.images = d, floor
		}
	}
	var memo lbView
	if pl.memo != nil {
		// A state cloned into a cycle on another snapshot computes
		// every addend.
		if v := ps.memoView(pl.memo, snap, req); v.snap == snap {
			memo = v
		}
	}
	if !leastBalancedAdd(totals[:len(idx)], res, idx, &req, delta, memo) ||
		il != nil && delta == nil && !il.ScoreBatchAdd(ctx, state, pod, nodes, idx, out, wIL, totals) {
		return false
	}
	return addAlone()
}

// leastBalancedAdd adds LeastAllocated's and BalancedAllocation's scores
// of the nodes idx to totals, and, with delta, the ImageLocality score
// req.images + delta[k] of each node k, all at weight 1; it reports false
// when a score is out of range, as the two plugins' ScoreBatchAdd would.
// A pass scores the nodes leastCovered holds; the others are found and
// scored afterwards. With memo on (lbMemo), the pass reads and stores
// the nodes' addends there.
func leastBalancedAdd(totals []int64, res []framework.NodeResources, idx []int32, req *leastBalancedRequests, delta []int8, memo lbView) bool {
	var bad uint64
	if memo.entries != nil {
		bad = leastBalancedMemoPass(totals, res, idx, req, delta, memo)
	} else if delta != nil {
		bad = leastBalancedImagesAddPass1(totals, res, idx, req, delta)
	} else {
		bad = leastBalancedAddPass1(totals, res, idx, req)
	}
	if bad < 128 {
		return true
	}
	// Some node was left alone, or some BalancedAllocation score is out
	// of range: find which.
	var one [1]int64
	for i, x := range idx {
		r := &res[x]
		aC, aM := r.AllocatableMilliCPU, r.AllocatableMemory
		if leastCovered(aC, aM, r.NonZeroMilliCPU+req.cpu, r.NonZeroMemory+req.mem) {
			if !baDeltaAdd(one[:], res, idx[i:i+1], req.baCPU, req.baMem, 1) {
				return false
			}
			continue
		}
		nrfCPUMemScores(one[:], res, idx[i:i+1], nil, req.cpu, req.mem, 1, 1, false)
		if one[0] < framework.MinNodeScore || one[0] > framework.MaxNodeScore ||
			!baDeltaAdd(totals[i:i+1], res, idx[i:i+1], req.baCPU, req.baMem, 1) {
			return false
		}
		totals[i] += one[0]
		if delta != nil {
			totals[i] += req.images + int64(delta[x])
		}
	}
	return true
}

// leastBalancedAddPass1 adds nrfLeastAddPass1's
// LeastAllocated score and baDeltaAdd's BalancedAllocation score of each
// node to totals, where leastCovered holds, and returns check bits: ≥ 128
// when some node was left alone or a BalancedAllocation score is out of
// range (baDeltaAdd's check). Both scores are the two plugins' own,
// operation for operation: a covered node has no zero allocatable, so
// BalanceOfTwo would leave neither resource out (baBalance), and a
// request above its allocatable scores 0, as a free amount of 0 does. The
// requests come through a pointer, which leaves the loop's values their
// registers. leastBalancedImagesAddPass1 is the same loop with one
// addend more: a shared loop body (a closure or a generic addend) costs
// an indirect call per node.
func leastBalancedAddPass1(totals []int64, res []framework.NodeResources, idx []int32, req *leastBalancedRequests) (bad uint64) {
	totals = totals[:len(idx)]
	for i, x := range idx {
		r := &res[x]
		aC, aM := r.AllocatableMilliCPU, r.AllocatableMemory
		uC, uM := r.NonZeroMilliCPU+req.cpu, r.NonZeroMemory+req.mem
		if !leastCovered(aC, aM, uC, uM) {
			bad |= 1 << 8
			continue
		}
		faC, faM := float64(aC), float64(aM)
		num := framework.MaxNodeScore/2 - int64(r.CPUMemoryBalance) +
			baBalance(float64(r.RequestedMilliCPU+req.baCPU)/faC, float64(r.RequestedMemory+req.baMem)/faM)
		bad |= uint64(num) | uint64(num+127-framework.MaxNodeScore)
		totals[i] += (leastFractionOf(max(aC-uC, 0), faC)+leastFractionOf(max(aM-uM, 0), faM))>>1 + framework.MaxNodeScore/2 + num>>1
	}
	return bad
}

// leastBalancedImagesAddPass1 is leastBalancedAddPass1 adding also
// ImageLocality's score req.images + delta[k] of each node k it scores.
func leastBalancedImagesAddPass1(totals []int64, res []framework.NodeResources, idx []int32, req *leastBalancedRequests, delta []int8) (bad uint64) {
	totals, delta = totals[:len(idx)], delta[:len(res)]
	for i, x := range idx {
		r := &res[x]
		im := int64(delta[x]) // read first: fewer values live across the arithmetic
		aC, aM := r.AllocatableMilliCPU, r.AllocatableMemory
		uC, uM := r.NonZeroMilliCPU+req.cpu, r.NonZeroMemory+req.mem
		if !leastCovered(aC, aM, uC, uM) {
			bad |= 1 << 8
			continue
		}
		faC, faM := float64(aC), float64(aM)
		num := framework.MaxNodeScore/2 - int64(r.CPUMemoryBalance) +
			baBalance(float64(r.RequestedMilliCPU+req.baCPU)/faC, float64(r.RequestedMemory+req.baMem)/faM)
		bad |= uint64(num) | uint64(num+127-framework.MaxNodeScore)
		totals[i] += (leastFractionOf(max(aC-uC, 0), faC)+leastFractionOf(max(aM-uM, 0), faM))>>1 + framework.MaxNodeScore/2 + num>>1 +
			req.images + im
	}
	return bad
}

// baBalance is BalanceOfTwo's score of the fractions f0 and f1 of two
// resources neither of which it leaves out.
func baBalance(f0, f1 float64) int64 {
	if f0 > 1 {
		f0 = 1
	}
	if f1 > 1 {
		f1 = 1
	}
	return int64((1 - math.Abs((f0-f1)/2)) * float64(framework.MaxNodeScore))
}

// leastBalancedRequests are the pod's requests NodeResourcesFit (cpu,
// mem) and BalancedAllocation (baCPU, baMem) score with, and
// ImageLocality's score of a node holding none of the pod's images
// (images).
type leastBalancedRequests struct{ cpu, mem, baCPU, baMem, images int64 }

// leastCovered reports whether leastBalancedAddPass1 scores a node with
// allocatable aC and aM and requests uC and uM (the pod's included, summed
// as kube sums them): allocatables in [1, nrfLeastRowsMax] and requests
// not negative. Then a request above its allocatable scores 0, and the
// other free amounts lie in [0, allocatable] (leastFraction).
func leastCovered(aC, aM, uC, uM int64) bool {
	return (uint64(aC-1)|uint64(aM-1))>>nrfLeastRowsBits|(uint64(uC)|uint64(uM))>>63 == 0
}

// nrfLeastAdd adds w times nrfLeastRows' scores to totals and reports
// whether each lies in [MinNodeScore, MaxNodeScore]: nrfLeastAddPass adds
// those of the nodes its bounds cover (which do), and lists the others in
// rest (room for every node), scored here afterwards (a negative
// allocatable gives a negative score).
func nrfLeastAdd(totals, rest []int64, res []framework.NodeResources, idx []int32, reqCPU, reqMem, w int64) bool {
	var one [1]int64
	for _, i := range rest[:nrfLeastAddPass(totals, rest, res, idx, reqCPU, reqMem, w)] {
		nrfCPUMemScores(one[:], res, idx[i:i+1], nil, reqCPU, reqMem, 1, 1, false)
		if one[0] < framework.MinNodeScore || one[0] > framework.MaxNodeScore {
			return false
		}
		totals[i] += w * one[0]
	}
	return true
}

// nrfLeastAddPass is nrfLeastPass adding w times each score to totals;
// it lists the positions of the nodes it leaves alone in rest[:n] and
// returns n. Its loop keeps w out of it (a register fewer, none on the
// stack): with w ≠ 1 the scores go to rest's room first.
func nrfLeastAddPass(totals, rest []int64, res []framework.NodeResources, idx []int32, reqCPU, reqMem, w int64) (n int) {
	if w == 1 {
		return nrfLeastAddPass1(totals, rest, res, idx, reqCPU, reqMem)
	}
	// Scores (−1 for the nodes left alone) in rest, then weighed.
	rest = rest[:len(idx)]
	nrfLeastPass(rest, res, idx, reqCPU, reqMem)
	for i, v := range rest {
		if v >= 0 {
			totals[i] += w * v
			continue
		}
		rest[n] = int64(i) // n ≤ i: rest[i] is read already
		n++
	}
	return n
}

func nrfLeastAddPass1(totals, rest []int64, res []framework.NodeResources, idx []int32, reqCPU, reqMem int64) (n int) {
	totals, rest = totals[:len(idx)], rest[:len(idx)]
	for i, x := range idx {
		r := &res[x]
		aC, aM := r.AllocatableMilliCPU, r.AllocatableMemory
		fC, fM := aC-r.NonZeroMilliCPU-reqCPU, aM-r.NonZeroMemory-reqMem
		if (uint64(aC-1)|uint64(aM-1))&^(nrfLeastRowsMax-1) != 0 || uint64(fC) > uint64(aC) || uint64(fM) > uint64(aM) {
			rest[n] = int64(i)
			n++
			continue
		}
		totals[i] += (leastFraction(fC, aC) + leastFraction(fM, aM)) >> 1
	}
	return n
}

// nrfLeastRowsMax bounds the allocatable amounts nrfLeastRows divides
// itself: up to it, (alloc − used)·100 is exact in a float64 and so is
// the quotient's floor (leastFraction).
const nrfLeastRowsMax = 1 << nrfLeastRowsBits

// nrfLeastRowsBits is the base-2 logarithm of nrfLeastRowsMax.
const nrfLeastRowsBits = 46

// leastFraction is ⌊free·MaxNodeScore / alloc⌋ for 0 ≤ free ≤ alloc and
// 0 < alloc ≤ nrfLeastRowsMax, by a float64 division, which costs a
// fraction of an integer one. It is exact: x = free·100 < 2⁵³ and alloc
// are exact floats; the quotient t = x/alloc lies in [0, 100], where the
// rounding error is at most half an ulp, 2⁻⁴⁷, while a t that is not an
// integer lies at least 1/alloc ≥ 2⁻⁴⁶ below the next integer, so the
// rounded quotient truncates to ⌊t⌋ (and an integer t is exact). Both
// operands and the quotient fit an int64, whose conversions are single
// instructions (the unsigned ones branch). The scoring loops are not
// bound by their divisions: multiplying by reciprocals kept in each
// node's row instead (the row then 112 bytes, each product checked
// against the quotient's bounds) made cycles over the varied stream at
// 5,000 nodes 4.7–4.9 % longer (two sets of interleaved pairs).
func leastFraction(free, alloc int64) int64 {
	return leastFractionOf(free, float64(alloc))
}

// leastFractionOf is leastFraction with the allocatable converted.
func leastFractionOf(free int64, alloc float64) int64 {
	return int64(float64(free*framework.MaxNodeScore) / alloc)
}

// nrfLeastRows is ScoreBatch in kube's default configuration (LeastAllocated
// over cpu and memory, weights 1 and 1) from the dense rows: out[i] is the
// mean of the two LeastRequestedScores of node idx[i]. A first pass scores
// the nodes where 0 < alloc ≤ nrfLeastRowsMax and 0 ≤ free ≤ alloc (free =
// alloc − used) for both resources (leastFraction), and marks the others
// −1; nrfCPUMemScores scores those afterwards, so the loop makes no call.
// Every score is LeastRequestedScore's.
func nrfLeastRows(out []int64, res []framework.NodeResources, idx []int32, reqCPU, reqMem int64) {
	out = out[:len(idx)]
	if nrfLeastPass(out, res, idx, reqCPU, reqMem) == 0 {
		return
	}
	for i := range out {
		if out[i] < 0 {
			nrfCPUMemScores(out[i:i+1], res, idx[i:i+1], nil, reqCPU, reqMem, 1, 1, false)
		}
	}
}

// nrfLeastPass is nrfLeastRows' first pass, a function of its own so that
// its loop, which calls nothing, keeps its values in registers; it returns
// how many rows it marked −1.
func nrfLeastPass(out []int64, res []framework.NodeResources, idx []int32, reqCPU, reqMem int64) (rest int) {
	out = out[:len(idx)]
	for i, x := range idx {
		r := &res[x]
		aC, aM := r.AllocatableMilliCPU, r.AllocatableMemory
		fC, fM := aC-r.NonZeroMilliCPU-reqCPU, aM-r.NonZeroMemory-reqMem
		if (uint64(aC-1)|uint64(aM-1))&^(nrfLeastRowsMax-1) != 0 || uint64(fC) > uint64(aC) || uint64(fM) > uint64(aM) {
			out[i] = -1
			rest++
			continue
		}
		out[i] = (leastFraction(fC, aC) + leastFraction(fM, aM)) >> 1
	}
	return rest
}

// nrfCPUMemScores sets out[i] to the LeastAllocated or MostAllocated score
// over cpu then memory of node i, read from res[idx[i]] when res is not nil,
// else from nodes[i].
func nrfCPUMemScores(out []int64, res []framework.NodeResources, idx []int32, nodes []*framework.NodeInfo, reqCPU, reqMem, wCPU, wMem int64, most bool) {
	for i := range out {
		var allocCPU, usedCPU, allocMem, usedMem int64
		if res != nil {
			r := &res[idx[i]]
			allocCPU, usedCPU, allocMem, usedMem = r.AllocatableMilliCPU, r.NonZeroMilliCPU, r.AllocatableMemory, r.NonZeroMemory
		} else {
			n := nodes[i]
			allocCPU, usedCPU, allocMem, usedMem = n.Allocatable.MilliCPU, n.NonZeroRequested.MilliCPU, n.Allocatable.Memory, n.NonZeroRequested.Memory
		}
		cpu, mem := usedCPU+reqCPU, usedMem+reqMem
		var sum, weights int64
		if allocCPU != 0 {
			if most {
				sum = MostRequestedScore(cpu, allocCPU) * wCPU
			} else {
				sum = LeastRequestedScore(cpu, allocCPU) * wCPU
			}
			weights = wCPU
		}
		if allocMem != 0 {
			if most {
				sum += MostRequestedScore(mem, allocMem) * wMem
			} else {
				sum += LeastRequestedScore(mem, allocMem) * wMem
			}
			weights += wMem
		}
		switch {
		case weights == 0:
			out[i] = 0
		case weights&(weights-1) == 0 && sum >= 0:
			// The shift is the division (kube's default weights 1+1 take
			// this path). A sum below 0 comes from a score that
			// overflowed in (capacity − requested)·100 as kube's does (an
			// allocatable above about 2⁶³/100): it takes kube's
			// truncating division below.
			out[i] = sum >> bits.TrailingZeros64(uint64(weights))
		default:
			out[i] = sum / weights
		}
	}
}

func (pl *NodeResourcesFit) score(node *framework.NodeInfo, podReq []int64, dra *nrfDRA) int64 {
	var nodeScore, weightSum int64
	for i := range pl.resources {
		r := &pl.resources[i]
		var alloc, req int64
		if pl.simple {
			// nrfAllocRequest for the three fixed kinds, inlined.
			switch r.kind {
			case nrfCPU:
				alloc, req = node.Allocatable.MilliCPU, node.NonZeroRequested.MilliCPU+podReq[i]
			case nrfMemory:
				alloc, req = node.Allocatable.Memory, node.NonZeroRequested.Memory+podReq[i]
			default:
				alloc, req = node.Allocatable.EphemeralStorage, node.Requested.EphemeralStorage+podReq[i]
			}
		} else {
			alloc, req = dra.allocRequest(node, r, i, podReq[i], false)
		}
		if alloc == 0 {
			continue
		}
		var s int64
		switch pl.strat {
		case nrfLeast:
			s = LeastRequestedScore(req, alloc)
		case nrfMost:
			s = MostRequestedScore(req, alloc)
		default:
			s = pl.rtcrResourceScore(req, alloc)
			if s <= 0 {
				continue
			}
		}
		nodeScore += s * r.weight
		weightSum += r.weight
	}
	if weightSum == 0 {
		return 0
	}
	if pl.strat == nrfRTCR {
		return int64(math.Round(float64(nodeScore) / float64(weightSum)))
	}
	return nodeScore / weightSum
}

// ScoreExtensions returns nil: scores are not normalized.
func (pl *NodeResourcesFit) ScoreExtensions() framework.ScoreExtensions { return nil }

// LeastRequestedScore is kube-scheduler's leastRequestedScore: the unused
// share (capacity−requested)·100/capacity in integer arithmetic; 0 when
// capacity is 0 or requested exceeds it.
func LeastRequestedScore(requested, capacity int64) int64 {
	if capacity == 0 || requested > capacity {
		return 0
	}
	return (capacity - requested) * framework.MaxNodeScore / capacity
}

// MostRequestedScore is kube-scheduler's mostRequestedScore:
// min(requested, capacity)·100/capacity; 0 when capacity is 0.
func MostRequestedScore(requested, capacity int64) int64 {
	if capacity == 0 {
		return 0
	}
	if requested > capacity {
		requested = capacity
	}
	return requested * framework.MaxNodeScore / capacity
}

// rtcrResourceScore maps one resource's utilization through the shape.
func (pl *NodeResourcesFit) rtcrResourceScore(requested, capacity int64) int64 {
	if capacity == 0 || requested > capacity {
		return scoring.BrokenLinear(pl.shape, 100)
	}
	return scoring.BrokenLinear(pl.shape, requested*100/capacity)
}
