package noderesources

import (
	"context"
	"math"
	"slices"

	"github.com/schedkit/schedkit/filter/internal/loopchoice"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/fastpath"
	"github.com/schedkit/schedkit/internal/boolbit"
)

var _ fastpath.TrustedRejectingFilterPlugin = (*NodeResourcesFit)(nil)

// FilterRejects is FilterBatch reporting the rejected nodes alone
// (fastpath.RejectingFilterPlugin): with the runner's snapshot indices, a
// node is checked on the snapshot's dense numbers and only a node short of
// something takes a status; without them, each node takes Filter's path.
func (pl *NodeResourcesFit) FilterRejects(_ context.Context, state *framework.CycleState, _ *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32, rejected []fastpath.NodeRejection) []fastpath.NodeRejection {
	return pl.filterRejects(state, nodes, idx, rejected, true)
}

var _ fastpath.DeferringRejectingFilterPlugin = (*NodeResourcesFit)(nil)

// FilterRejectsDeferred is FilterRejects leaving nil the statuses of the
// nodes it checks on the snapshot's dense numbers
// (fastpath.DeferringRejectingFilterPlugin).
func (pl *NodeResourcesFit) FilterRejectsDeferred(_ context.Context, state *framework.CycleState, _ *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32, rejected []fastpath.NodeRejection) []fastpath.NodeRejection {
	return pl.filterRejects(state, nodes, idx, rejected, false)
}

// RejectionStatuses sets each nil out[i] to FilterRejects' status of
// nodes[i], a node it rejects (fastpath.DeferringRejectingFilterPlugin):
// from the snapshot's dense numbers when idx gives the nodes' indices and
// the node has no scalar resource, else from the node.
func (pl *NodeResourcesFit) RejectionStatuses(_ context.Context, state *framework.CycleState, _ *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32, out []*framework.Status) {
	out = out[:len(nodes)]
	s, st := nrfReadPreFilterState(state)
	if st != nil {
		for i := range out {
			if out[i] == nil {
				out[i] = st
			}
		}
		return
	}
	if snap := state.Snapshot(); idx != nil && snap != nil {
		res := snap.Resources()
		if len(s.scalars) > 0 {
			// The nodes left without a status are the ones without
			// scalar resources (filterRejects).
			for i, x := range idx[:len(out)] {
				if out[i] != nil {
					continue
				}
				if r := &res[x]; !r.HasScalars {
					out[i] = pl.missingStatus(s, s.rowMask(r))
				} else {
					out[i] = pl.filter(s, nodes[i])
				}
			}
			return
		}
		pl.rowStatuses(out, res, idx[:len(out)], nrfChecked(s.cpu), nrfChecked(s.mem), nrfChecked(s.eph))
		return
	}
	for i, node := range nodes {
		if out[i] == nil {
			out[i] = pl.filter(s, node)
		}
	}
}

// filterRejects is FilterRejects; without withStatus, the rejections
// found on the dense numbers keep a nil status.
func (pl *NodeResourcesFit) filterRejects(state *framework.CycleState, nodes []*framework.NodeInfo, idx []int32, rejected []fastpath.NodeRejection, withStatus bool) []fastpath.NodeRejection {
	s, st := nrfReadPreFilterState(state)
	if st != nil {
		for i := range nodes {
			_, st := nrfReadPreFilterState(state)
			rejected = append(rejected, fastpath.NodeRejection{Node: int32(i), Status: st})
		}
		return rejected
	}
	snap := state.Snapshot()
	if idx == nil || snap == nil {
		for i, node := range nodes {
			alloc, used := &node.Allocatable, &node.Requested
			if len(s.scalars) == 0 && !s.short(int64(len(node.Pods)), alloc.Pods, alloc.MilliCPU-used.MilliCPU,
				alloc.Memory-used.Memory, alloc.EphemeralStorage-used.EphemeralStorage) {
				continue
			}
			if st := pl.filter(s, node); st != nil {
				rejected = append(rejected, fastpath.NodeRejection{Node: int32(i), Status: st})
			}
		}
		return rejected
	}
	res := snap.Resources()
	if len(s.scalars) > 0 {
		// A node without scalar resources misses every scalar the pod
		// requests: its status follows from the dense numbers. When a
		// scalar is one no DeviceClass backs (s.plain), a node with
		// none of it, scalar resources or not, is rejected whatever its
		// other amounts, and without withStatus its status is left to
		// RejectionStatuses.
		for i, x := range idx {
			r := &res[x]
			var st *framework.Status
			switch {
			case r.HasScalars && s.plain > 0 && !withStatus && s.missesPlain(&nodes[i].Allocatable):
				// None of a plain scalar the pod asks for: rejected,
				// its status left to RejectionStatuses.
				rejected = append(rejected, fastpath.NodeRejection{Node: int32(i)})
				continue
			case r.HasScalars:
				st = pl.filter(s, nodes[i])
			case s.plain > 0 && !withStatus:
				rejected = append(rejected, fastpath.NodeRejection{Node: int32(i)})
				continue
			default:
				st = pl.missingStatus(s, s.rowMask(r))
			}
			if st != nil {
				rejected = append(rejected, fastpath.NodeRejection{Node: int32(i), Status: st})
			}
		}
		return rejected
	}
	// The first pass over a cycle's nodes streams the 32-byte free
	// amounts (Snapshot.Free), one comparison per resource: a request of
	// 0 (not checked) becomes math.MinInt64, which no free amount is
	// below, and pods+1 > allocPods is allocPods − pods ≤ 0. Only a node
	// short of something has its full row read.
	//
	// The pass writes the positions of the short nodes into the room
	// after rejected (nrfShortNodes, with or without a branch on the node
	// as the nodes it meets first suggest); the statuses follow for them.
	// (markRejections would do the same through a closure, which costs
	// this loop's statuses about 10 instructions each.)
	start := len(rejected)
	rejected = slices.Grow(rejected, len(idx))
	first, ok := snap.IndexRun(idx)
	if !ok {
		first = -1
	}
	var n int
	if s.eph > 0 {
		n = nrfShortNodes(rejected[start:start+len(idx)], snap.Free(), snap.FreeMins(), idx, first, nrfChecked(s.cpu), nrfChecked(s.mem), s.eph)
	} else {
		n = nrfShortNodes2(rejected[start:start+len(idx)], snap.Free(), snap.FreeMins(), idx, first, nrfChecked(s.cpu), nrfChecked(s.mem))
	}
	rejected = rejected[:start+n]
	if !withStatus {
		for k := start; k < len(rejected); k++ {
			rejected[k].Status = nil
		}
		return rejected
	}
	cpu, mem, eph := nrfChecked(s.cpu), nrfChecked(s.mem), nrfChecked(s.eph)
	for k := start; k < len(rejected); k++ {
		rejected[k].Status = pl.maskStatus(nrfShortfalls(&res[idx[rejected[k].Node]], cpu, mem, eph))
	}
	return rejected
}

// RejectionsTrusted marks FilterRejects as keeping its contract
// (fastpath.TrustedRejectingFilterPlugin).
func (pl *NodeResourcesFit) RejectionsTrusted() {}

// nrfShortNodes sets the Node of out[0:n] to the positions i (in
// increasing order) of the nodes idx[i] that lack a pod slot or the room
// for cpu, mem or eph (nrfChecked amounts), and returns n; the entries'
// statuses are left as they were. out has room for every node (n ≤ i
// when out[n] is written for node i).
//
// first ≥ 0 says idx is the run of snapshot nodes first, first+1, …
// (Snapshot.IndexRun: mod len(free)), and mins is free's block minimums
// (Snapshot.FreeMins): the run is read block by block (nrfShortBlocks).
// first < 0: idx is any list, and mins is not read.
//
// Two loops go through a list. The dense one writes every node's
// position and keeps it by the count, with no branch on the node; the
// sparse one writes only a short node's, branching on each node. The
// first loopchoice.Probe nodes go through the dense loop, and the rest
// through the sparse one when their shortfalls follow a pattern the
// branch predictor learns (loopchoice.Predictable: rare, nearly
// universal, or repeating with a short period, as a full zone's nodes
// listed in turn with the others').
func nrfShortNodes(out []fastpath.NodeRejection, free, mins []framework.NodeFree, idx []int32, first int, cpu, mem, eph int64) int {
	out = out[:len(idx)]
	if first >= 0 {
		return nrfShortBlocks(out, free, mins, first, cpu, mem, eph, func(out []fastpath.NodeRejection, seg []framework.NodeFree, base int) int {
			return nrfShortDenseRun(out, seg, base, cpu, mem, eph)
		}, func(out []fastpath.NodeRejection, seg []framework.NodeFree, base int) int {
			return nrfShortSparseRun(out, seg, base, cpu, mem, eph)
		})
	}
	head := min(len(idx), loopchoice.Probe)
	n := nrfShortDense(out, free, idx[:head], 0, cpu, mem, eph)
	if !loopchoice.Predictable(loopchoice.Mask(out[:n]), head) {
		return n + nrfShortDense(out[n:], free, idx[head:], head, cpu, mem, eph)
	}
	return n + nrfShortSparse(out[n:], free, idx[head:], head, cpu, mem, eph)
}

// nrfShortBlocks does nrfShortNodes' work for the run of len(out)
// snapshot nodes from first on (mod len(free); first below 2·len(free)):
// a block of framework.FreeBlock nodes whose minimum (mins) has a pod
// slot and the room for cpu, mem and eph (nrfChecked amounts) holds no
// short node and is passed unread. The run's nodes in the other blocks
// go through dense or sparse, loops over consecutive free amounts that
// number the nodes from position base, chosen as for a list: the first
// loopchoice.Probe of them through dense, the rest through the loop their
// shortfalls suggest. When most nodes have room for the pod, as in the
// few hundred nodes a sampled cycle reads, the pass costs a comparison
// per block instead of one per node.
func nrfShortBlocks(out []fastpath.NodeRejection, free, mins []framework.NodeFree, first int, cpu, mem, eph int64, dense, sparse nrfRunLoop) int {
	n, pos, i := 0, 0, first
	if i >= len(free) {
		i -= len(free)
	}
	p := nrfProbe{dense: dense, sparse: sparse}
	// from ≥ 0: free[from:i] are blocks met short, not yet read (one
	// span, so that consecutive such blocks take one loop call), their
	// first node at position at.
	from, at := -1, 0
	for pos < len(out) {
		b := i / framework.FreeBlock
		end := min((b+1)*framework.FreeBlock, len(free), i+len(out)-pos)
		if m := &mins[b]; m.Pods <= 0 || cpu > m.MilliCPU || mem > m.Memory || eph > m.EphemeralStorage {
			if from < 0 {
				from, at = i, pos
			}
		} else if from >= 0 {
			n += p.run(out[n:], free[from:i], at)
			from = -1
		}
		pos += end - i
		if i = end; i == len(free) {
			if from >= 0 {
				n += p.run(out[n:], free[from:i], at)
				from = -1
			}
			i = 0
		}
	}
	if from >= 0 {
		n += p.run(out[n:], free[from:i], at)
	}
	return n
}

// nrfProbe chooses nrfShortBlocks' loop for the nodes it reads: the
// first loopchoice.Probe of them go through dense, the rest through the
// loop their shortfalls suggest.
type nrfProbe struct {
	dense, sparse nrfRunLoop
	mask          uint64     // the short nodes among the probed ones
	probed        int        // nodes read so far, up to loopchoice.Probe
	loop          nrfRunLoop // the loop chosen, once probed reaches loopchoice.Probe
}

// run reads seg, numbering its nodes from position at, into out, and
// returns how many it found short.
func (p *nrfProbe) run(out []fastpath.NodeRejection, seg []framework.NodeFree, at int) int {
	n := 0
	if p.loop == nil {
		take := min(len(seg), loopchoice.Probe-p.probed)
		n = p.dense(out, seg[:take], at)
		for _, r := range out[:n] {
			p.mask |= 1 << (p.probed + int(r.Node) - at)
		}
		p.probed, seg, at = p.probed+take, seg[take:], at+take
		if p.probed == loopchoice.Probe {
			p.loop = p.dense
			if loopchoice.Predictable(p.mask, p.probed) {
				p.loop = p.sparse
			}
		}
	}
	if len(seg) > 0 {
		n += p.loop(out[n:], seg, at)
	}
	return n
}

// nrfRunLoop is a loop of nrfShortBlocks: it sets the Node of out[0:k]
// to the positions base+j of the nodes seg[j] short of something, and
// returns k.
type nrfRunLoop func(out []fastpath.NodeRejection, seg []framework.NodeFree, base int) int

// nrfShortDenseRun is nrfShortDense over consecutive free amounts (no
// idx: no index load or bounds check a node).
//
//go:noinline
func nrfShortDenseRun(out []fastpath.NodeRejection, free []framework.NodeFree, base int, cpu, mem, eph int64) int {
	out = out[:len(free)]
	n := 0
	for i := range free {
		f := &free[i]
		out[n].Node = int32(base + i)
		n += int(boolbit.Of(f.Pods <= 0) | boolbit.Of(cpu > f.MilliCPU) | boolbit.Of(mem > f.Memory) | boolbit.Of(eph > f.EphemeralStorage))
	}
	return n
}

// nrfShortDense is nrfShortNodes' dense loop, numbering idx's nodes from
// position base. It is not inlined, so that its loop keeps every value in
// a register.
//
//go:noinline
func nrfShortDense(out []fastpath.NodeRejection, free []framework.NodeFree, idx []int32, base int, cpu, mem, eph int64) int {
	out = out[:len(idx)]
	n := 0
	for i, x := range idx {
		f := &free[x]
		out[n].Node = int32(base + i) // the Status, set by the caller, is not written here: no write barrier
		n += int(boolbit.Of(f.Pods <= 0) | boolbit.Of(cpu > f.MilliCPU) | boolbit.Of(mem > f.Memory) | boolbit.Of(eph > f.EphemeralStorage))
	}
	return n
}

// nrfShortSparse is nrfShortNodes' sparse loop (see nrfShortDense).
//
//go:noinline
func nrfShortSparse(out []fastpath.NodeRejection, free []framework.NodeFree, idx []int32, base int, cpu, mem, eph int64) int {
	out = out[:len(idx)]
	n := 0
	for i, x := range idx {
		if f := &free[x]; f.Pods <= 0 || cpu > f.MilliCPU || mem > f.Memory || eph > f.EphemeralStorage {
			out[n].Node = int32(base + i)
			n++
		}
	}
	return n
}

// nrfShortNodes2 is nrfShortNodes for a pod that requests no ephemeral
// storage (most pods): a comparison fewer a node, and a register more for
// the loops.
func nrfShortNodes2(out []fastpath.NodeRejection, free, mins []framework.NodeFree, idx []int32, first int, cpu, mem int64) int {
	out = out[:len(idx)]
	if first >= 0 {
		return nrfShortBlocks(out, free, mins, first, cpu, mem, math.MinInt64, func(out []fastpath.NodeRejection, seg []framework.NodeFree, base int) int {
			return nrfShortDenseRun2(out, seg, base, cpu, mem)
		}, func(out []fastpath.NodeRejection, seg []framework.NodeFree, base int) int {
			return nrfShortSparseRun2(out, seg, base, cpu, mem)
		})
	}
	head := min(len(idx), loopchoice.Probe)
	n := nrfShortDense2(out, free, idx[:head], 0, cpu, mem)
	if !loopchoice.Predictable(loopchoice.Mask(out[:n]), head) {
		return n + nrfShortDense2(out[n:], free, idx[head:], head, cpu, mem)
	}
	return n + nrfShortSparse2(out[n:], free, idx[head:], head, cpu, mem)
}

// nrfShortDense2 is nrfShortDense without ephemeral storage.
//
//go:noinline
func nrfShortDense2(out []fastpath.NodeRejection, free []framework.NodeFree, idx []int32, base int, cpu, mem int64) int {
	out = out[:len(idx)]
	n := 0
	for i, x := range idx {
		f := &free[x]
		out[n].Node = int32(base + i)
		n += int(boolbit.Of(f.Pods <= 0) | boolbit.Of(cpu > f.MilliCPU) | boolbit.Of(mem > f.Memory))
	}
	return n
}

// nrfShortSparseRun2 is nrfShortSparseRun without ephemeral storage.
//
//go:noinline
func nrfShortSparseRun2(out []fastpath.NodeRejection, free []framework.NodeFree, base int, cpu, mem int64) int {
	out = out[:len(free)]
	n := 0
	for i := range free {
		if f := &free[i]; f.Pods <= 0 || cpu > f.MilliCPU || mem > f.Memory {
			out[n].Node = int32(base + i)
			n++
		}
	}
	return n
}

// nrfShortSparse2 is nrfShortSparse without ephemeral storage.
//
//go:noinline
func nrfShortSparse2(out []fastpath.NodeRejection, free []framework.NodeFree, idx []int32, base int, cpu, mem int64) int {
	out = out[:len(idx)]
	n := 0
	for i, x := range idx {
		if f := &free[x]; f.Pods <= 0 || cpu > f.MilliCPU || mem > f.Memory {
			out[n].Node = int32(base + i)
			n++
		}
	}
	return n
}

// nrfShortSparseRun is nrfShortSparse over consecutive free amounts.
//
//go:noinline
func nrfShortSparseRun(out []fastpath.NodeRejection, free []framework.NodeFree, base int, cpu, mem, eph int64) int {
	out = out[:len(free)]
	n := 0
	for i := range free {
		if f := &free[i]; f.Pods <= 0 || cpu > f.MilliCPU || mem > f.Memory || eph > f.EphemeralStorage {
			out[n].Node = int32(base + i)
			n++
		}
	}
	return n
}

// nrfShortDenseRun2 is nrfShortDenseRun without ephemeral storage.
//
//go:noinline
func nrfShortDenseRun2(out []fastpath.NodeRejection, free []framework.NodeFree, base int, cpu, mem int64) int {
	out = out[:len(free)]
	n := 0
	for i := range free {
		f := &free[i]
		out[n].Node = int32(base + i)
		n += int(boolbit.Of(f.Pods <= 0) | boolbit.Of(cpu > f.MilliCPU) | boolbit.Of(mem > f.Memory))
	}
	return n
}

// rowStatuses sets each nil out[i] to the status of node idx[i]'s
// shortfalls (its res row's, nrfShortfalls), for a pod requesting no
// scalar resource and the nrfChecked amounts cpu, mem and eph. Nodes
// short of the same resources share a status: most of a cycle's, in a
// cycle no node fits.
func (pl *NodeResourcesFit) rowStatuses(out []*framework.Status, res []framework.NodeResources, idx []int32, cpu, mem, eph int64) {
	out = out[:len(idx)]
	last, st := ^uint(0), (*framework.Status)(nil)
	if eph == math.MinInt64 {
		// No ephemeral storage asked for (most pods): a comparison
		// fewer a node.
		for i, x := range idx {
			if out[i] != nil {
				continue
			}
			if mask := nrfShortfalls2(&res[x], cpu, mem); mask != last {
				last, st = mask, pl.maskStatus(mask)
			}
			out[i] = st
		}
		return
	}
	for i, x := range idx {
		if out[i] != nil {
			continue
		}
		if mask := nrfShortfalls(&res[x], cpu, mem, eph); mask != last {
			last, st = mask, pl.maskStatus(mask)
		}
		out[i] = st
	}
}

// nrfShortfalls2 is nrfShortfalls for a pod that asks for no ephemeral
// storage (eph math.MinInt64, which no node is short of), small enough
// for the loops over a cycle's short nodes to inline it.
func nrfShortfalls2(r *framework.NodeResources, cpu, mem int64) uint {
	var mask uint
	if r.NumPods+1 > r.AllocatablePods {
		mask = 1
	}
	if cpu > r.AllocatableMilliCPU-r.RequestedMilliCPU {
		mask |= 1 << 1
		if cpu > r.AllocatableMilliCPU {
			mask |= 1 << 2
		}
	}
	if mem > r.AllocatableMemory-r.RequestedMemory {
		mask |= 1 << 3
		if mem > r.AllocatableMemory {
			mask |= 1 << 4
		}
	}
	return mask
}

// nrfShortfalls is rowMask (the nrfMasks mask of a node's shortfalls in
// pods, cpu, memory and ephemeral storage) for the nrfChecked amounts
// cpu, mem and eph, written out without shortMask's loop.
func nrfShortfalls(r *framework.NodeResources, cpu, mem, eph int64) uint {
	mask := nrfShortfalls2(r, cpu, mem)
	if eph > r.AllocatableEphemeralStorage-r.RequestedEphemeralStorage {
		mask |= 1 << 5
		if eph > r.AllocatableEphemeralStorage {
			mask |= 1 << 6
		}
	}
	return mask
}
