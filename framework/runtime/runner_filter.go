package runtime

import (
	"context"
	"sync/atomic"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/fastpath"
	"github.com/schedkit/schedkit/internal/parallel"
)

// filterRun is one filterNodes' loop over the evaluation positions: what
// its chunks read, and what they count, worker by worker. It lives in the
// pooled batchScratch, so that the loop allocates nothing; its chunks
// write only the positions they filter (chunks of a parallel loop start at
// multiples of parallel.Align, so that no two workers write one word of
// the recorder's bitmap).
type filterRun struct {
	f          *Framework
	ctx        context.Context
	done       <-chan struct{} // ctx.Done(): a cancelled cycle stops at the next chunk
	state      *framework.CycleState
	pod        *framework.PodInfo
	candidates []*framework.NodeInfo
	n, start   int
	active     []framework.FilterPlugin
	idx        []int16 // active[j] is the framework's filter idx[j]
	batch      []fastpath.BatchFilterPlugin
	rejecters  []fastpath.RejectingFilterPlugin
	trusted    []bool
	deferring  []fastpath.DeferringRejectingFilterPlugin
	rec        *filterRecorder
	nominated  func(nodeName string) []*framework.PodInfo
	// perNode filters node by node, every plugin on a node in turn
	// (checkNodes): with nominated pods, and for so few candidates that
	// each plugin's call per chunk costs more than its calls per node.
	perNode bool
	// Buffers by position: a chunk uses its [lo, hi) range.
	live    nodeWords
	livePos []int32
	liveIdx []int32
	out     []*framework.Status // all nil between calls
	rejBuf  []fastpath.NodeRejection
	candIdx []int32 // the candidates' snapshot indices (nil: the snapshot's own nodes)
	runs    []int32 // the snapshot's index runs, when candIdx is nil
	// stop is the count of feasible nodes at which the loop stops (kube
	// cancels on the (want+1)-th); stopping says the loop can reach it,
	// so that found counts the feasible nodes across workers.
	stop     int64
	stopping bool
	// width is the number of workers the loop was sized for.
	width int
	// counts[w] is what worker w counted.
	counts []workerCounts
	_      [64]byte
	found  atomic.Int64
	// checked counts the positions of the chunks done of a loop on
	// several workers (ChunkSize reads it), on found's line: a chunk adds
	// to both as it ends.
	checked atomic.Int64
	_       [48]byte
}

// workerCounts is one worker's count of rejected nodes, on a cache line
// of its own.
type workerCounts struct {
	rejected int64
	_        [56]byte
}

// release drops the run's references (the scratch is pooled).
func (r *filterRun) release() {
	counts := r.counts
	clear(counts)
	*r = filterRun{counts: counts[:0]}
}

// rejected returns the nodes the workers rejected.
func (r *filterRun) rejected() int64 {
	var t int64
	for i := range r.counts {
		t += r.counts[i].rejected
	}
	return t
}

// Chunk filters positions [lo, hi) on worker w and reports whether the
// loop should stop: enough feasible nodes found, a filter failed at a
// position below hi or the cycle was cancelled.
func (r *filterRun) Chunk(w, lo, hi int) bool {
	if r.done != nil {
		select {
		case <-r.done:
			return true
		default:
		}
	}
	var feasible, rejected int
	if r.perNode {
		feasible, rejected = r.checkNodes(lo, hi)
	} else {
		feasible, rejected = r.check(lo, hi)
	}
	if rejected > 0 {
		r.counts[w].rejected += int64(rejected)
	}
	if r.stopping {
		if r.width > 1 {
			r.checked.Add(int64(hi - lo))
		}
		if r.found.Add(int64(feasible)) >= r.stop {
			return true
		}
	}
	return r.rec.failedBelow(hi)
}

// sizedFilterRun is a loop that stops early: its chunks are sized to the
// feasible nodes still needed.
type sizedFilterRun struct{ *filterRun }

// ChunkSize returns the number of positions expected to bring the
// feasible nodes found to the stop at the share of feasible nodes seen so
// far, at least 8 positions and at most seqChunk: a loop that stops early
// evaluates few positions past the stop in few chunks, where chunks of a
// fixed size would pay each plugin's per-call cost many times. On several
// workers the chunks claimed but not done yet count as what they are
// expected to find (the positions the loop needs in all, at the share of
// the positions done, less those claimed), split among the workers, each
// at least a worker's chunk (parallel.Align): sizing each chunk for all
// that is still missing, as if no other chunk were under way, would have
// the workers together claim a multiple of it, filtered and then thrown
// past the stop.
func (r sizedFilterRun) ChunkSize(lo int) int {
	f := r.found.Load()
	need := r.stop - f
	if r.width > 1 {
		size := need
		if c := r.checked.Load(); f > 0 && c > 0 {
			size = (r.stop*c+f-1)/f - int64(lo)
		}
		return int(min(max(size/int64(r.width), parallel.Align), seqChunk))
	}
	size := need
	if f > 0 && lo > 0 {
		size = (need*int64(lo) + f - 1) / f
	}
	return int(min(max(size, 8), seqChunk))
}

// checkNodes filters positions [lo, hi) node by node (the path with
// nominated pods, which needs per-node state clones, and with very few
// candidates) and returns the feasible and rejected nodes.
func (r *filterRun) checkNodes(lo, hi int) (feasible, rejected int) {
	f, ctx, state, pod, n, candidates := r.f, r.ctx, r.state, r.pod, r.n, r.candidates
	k := r.start + lo // candidates index of position p, wrapped without a division
	if k >= n {
		k -= n
	}
	for p := lo; p < hi; p, k = p+1, k+1 {
		if k == n {
			k = 0
		}
		ni := candidates[k]
		var st *framework.Status
		pi := int16(-1)
		var nps []*framework.PodInfo
		if r.nominated != nil {
			nps = r.nominated(ni.Name())
		}
		if len(nps) > 0 {
			st = f.RunFilterPluginsWithNominatedPods(ctx, state, pod, ni, nps)
			if st.IsSuccess() {
				st = nil // a non-nil Success passes, as from any filter
			} else {
				pi = int16(f.filterIndex[st.Plugin()])
			}
		} else {
			for j, pl := range r.active {
				if s := pl.Filter(ctx, state, pod, ni); s != nil && s.Code() != framework.Success {
					st, pi = s, r.idx[j]
					break
				}
			}
		}
		if st == nil {
			feasible++
			continue
		}
		r.rec.add1(p, st, pi)
		rejected++
	}
	return feasible, rejected
}

// record records the rejections rl, at positions, of the active filter j.
func (r *filterRun) record(rl []fastpath.NodeRejection, j int) {
	if r.deferring[j] != nil {
		r.rec.addRest(rl, r.idx[j], true)
	} else {
		r.rec.add(rl, r.idx[j])
	}
}

// check filters positions [lo, hi) plugin by plugin and returns the
// feasible and rejected nodes: each plugin sees the chunk's nodes that
// every earlier plugin accepted (in evaluation order until the first
// rejection, then in the order removeRejected leaves them), so every node
// gets the statuses a node-by-node loop gives. A plugin's rejections come
// as a list of the nodes' indices (RejectingFilterPlugin's, or collected
// from FilterBatch's statuses or Filter's), so the runner's work is per
// rejection, not per node.
func (r *filterRun) check(lo, hi int) (feasible, rejected int) {
	n, start, candIdx := r.n, r.start, r.candIdx
	m := hi - lo
	o := r.out[lo:hi:hi] // all nil between calls
	rb := r.rejBuf[lo:lo:hi]
	k := start + lo
	if k >= n {
		k -= n
	}
	// ix[x] is the snapshot index of nodes[x], compacted with nodes: a
	// view of the snapshot's runs until the first compaction (ixOwned:
	// in liveIdx).
	var ix []int32
	ixOwned := candIdx != nil
	if candIdx != nil {
		ix = r.liveIdx[lo:hi:hi]
		copy(ix[copy(ix, candIdx[k:]):], candIdx)
	} else {
		ix = r.runs[k : k+m : k+m]
	}
	// nodes starts as a view of candidates (no copy) when the chunk does
	// not wrap; it is copied into live before the first compaction.
	var nodes []*framework.NodeInfo
	owned := false
	if k+m <= n {
		nodes = r.candidates[k : k+m : k+m]
	} else {
		lw := r.live[lo:hi:hi]
		copy(lw[copy(lw, wordsOf(r.candidates[k:])):], wordsOf(r.candidates))
		nodes = lw.nodes()
		owned = true
	}
	// pos[x] is the position of nodes[x], kept only when the candidates
	// are narrowed (otherwise it follows from ix[x]) and written at the
	// first compaction (lo+x until then).
	var pos []int32
	compacted := false // removeRejected has moved nodes
	for j, pl := range r.active {
		l := len(nodes)
		var rl []fastpath.NodeRejection
		if d := r.deferring[j]; d != nil {
			rl = d.FilterRejectsDeferred(r.ctx, r.state, r.pod, nodes, ix[:l:l], rb)
		} else {
			rl = filterChunk(r.ctx, r.state, r.pod, pl, r.batch[j], r.rejecters[j], r.trusted[j], nodes, ix[:l:l], o[:l], rb)
		}
		if len(rl) == 0 {
			continue
		}
		if !compacted && len(rl) == l {
			// Every node of the chunk is rejected by the first plugin
			// that rejects any (a cycle no node fits): node x is still
			// at position lo+x, and nothing is left to compact.
			for x := range rl {
				rl[x].Node += int32(lo)
			}
			r.record(rl, j)
			return 0, rejected + l
		}
		compacted = true
		if pos == nil && candIdx != nil {
			pos = r.livePos[lo : lo+l : hi]
			for x := range pos {
				pos[x] = int32(lo + x)
			}
		}
		if !owned {
			nodes = r.live[lo : lo+copy(r.live[lo:hi], wordsOf(nodes)) : hi].nodes()
			owned = true
		}
		if !ixOwned {
			ix = r.liveIdx[lo : lo+copy(r.liveIdx[lo:hi], ix) : hi]
			ixOwned = true
		}
		// Two passes over the list: one pass that both removes and
		// records holds more values than there are registers, and its
		// spills made a sampled cycle over the varied stream 2 % more
		// instructions.
		w := removeRejected(rl, wordsOf(nodes), ix, pos, start, n)
		r.record(rl, j)
		if pos != nil {
			pos = pos[:w]
		}
		rejected += l - w
		nodes = nodes[:w]
		if w == 0 {
			break
		}
	}
	return len(nodes), rejected
}
