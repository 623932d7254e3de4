package noderesources

import (
	"sync"
	"sync/atomic"

	"github.com/schedkit/schedkit/framework"
)

// lbMemo keeps, per snapshot node, the fused LeastAllocated and
// BalancedAllocation addend leastBalancedAddPass1 computes, for one set
// of requests, so that cycles of pods with equal requests (a
// Deployment's replicas) read a node's addend instead of computing it
// again: the addend depends only on the node's Resources row and the
// requests, and a row changes only with a change the snapshot's journal
// records (Snapshot.ChangedSince).
//
// A cycle takes a view (view) once, before its score chunks. A view is on
// for the snapshot and requests of the last view, so that pods with
// requests of their own, and cycles each on a new snapshot, cost the
// memo one comparison instead of storing every node's addend for nothing
// (each store is an atomic write).
//
// Each entry holds the tag of the view that wrote it above 32 bits and
// the addend below, in one atomic word, and a view reads only entries of
// its own tag. A change that makes entries wrong moves the memo to a new
// tag (other requests, another snapshot, nodes added or removed, a
// journal that lost track), and a node changed since the last view (a
// pod added or removed, its node object updated) has its entry cleared.
// Cycles on one plugin at the same time, on other snapshots or requests,
// then hold views of different tags and at worst overwrite each other's
// entries.
type lbMemo struct {
	mu      sync.Mutex
	snap    *framework.Snapshot
	n       int
	seq     uint64 // snap.ChangeSeq() at the last view
	key     leastBalancedRequests
	tag     uint32 // never 0: a cleared entry matches no view
	entries []atomic.Uint64
	dirty   []int32
}

// lbView is one cycle's use of an lbMemo: its entries and tag for
// snapshot snap, or none (entries nil) when the cycle computes every
// addend.
type lbView struct {
	snap    *framework.Snapshot
	entries []atomic.Uint64
	tag     uint64 // the view's tag, above 32 bits
}

func newLBMemo() *lbMemo { return &lbMemo{tag: 1} }

// view syncs the memo with snap and returns the view of a cycle scoring
// with req (its images field ignored): on when snap and req are the last
// view's.
func (m *lbMemo) view(snap *framework.Snapshot, req leastBalancedRequests) lbView {
	req.images = 0
	m.mu.Lock()
	defer m.mu.Unlock()
	n := snap.NumNodes()
	same := snap == m.snap && n == m.n
	switch {
	case !same:
		m.snap, m.n, m.seq = snap, n, snap.ChangeSeq()
		if len(m.entries) < n {
			m.entries = make([]atomic.Uint64, n)
		}
		m.newTag()
	case snap.ChangeSeq() != m.seq:
		var ok bool
		m.dirty, ok = snap.ChangedSince(m.seq, m.dirty[:0])
		if ok {
			for _, k := range m.dirty {
				m.entries[k].Store(0)
			}
		} else {
			m.newTag()
		}
		m.seq = snap.ChangeSeq()
	}
	if req != m.key {
		m.key = req
		m.newTag()
		return lbView{}
	}
	if !same {
		return lbView{}
	}
	return lbView{snap: snap, entries: m.entries[:n], tag: uint64(m.tag) << 32}
}

// newTag moves the memo to a tag no entry holds.
func (m *lbMemo) newTag() {
	m.tag++
	if m.tag == 0 { // wrapped: entries may hold any tag
		for i := range m.entries {
			m.entries[i].Store(0)
		}
		m.tag = 1
	}
}

// leastBalancedMemoPass is leastBalancedAddPass1, or with delta
// leastBalancedImagesAddPass1, reading each node's addend from v when v
// holds it and storing it there otherwise (leastBalancedMemoMiss). The
// runs of nodes whose addend v holds are added by a loop of their own
// (lbMemoHits), which calls nothing and so keeps its values in
// registers; when idx is a run of snapshot nodes that does not wrap past
// the last (Snapshot.IndexRun), that loop reads their entries in order
// (lbMemoHitsRun).
func leastBalancedMemoPass(totals []int64, res []framework.NodeResources, idx []int32, req *leastBalancedRequests, delta []int8, v lbView) (bad uint64) {
	totals, entries, tag := totals[:len(idx)], v.entries[:len(res)], v.tag
	var run []atomic.Uint64 // idx's entries, in order, when idx is such a run
	if first, ok := v.snap.IndexRun(idx); ok && delta == nil && first+len(idx) <= len(entries) {
		run = entries[first : first+len(idx)]
	}
	for i := 0; i < len(idx); i++ {
		switch {
		case delta != nil:
			i = lbMemoHitsImages(totals, entries, idx, tag, req.images, delta, i)
		case run != nil:
			i = lbMemoHitsRun(totals, run, tag, i)
		default:
			i = lbMemoHits(totals, entries, idx, tag, i)
		}
		if i == len(idx) {
			break
		}
		x := idx[i]
		e, b, covered := leastBalancedMemoMiss(res, x, req, v)
		bad |= b
		if !covered {
			continue
		}
		add := int64(int32(uint32(e)))
		if delta != nil {
			add += req.images + int64(delta[x])
		}
		totals[i] += add
	}
	return bad
}

// lbMemoHits adds to totals[i], from position from on, the addend of
// snapshot node idx[i] that entries holds under tag, and returns the
// first position whose node's entry does not (len(idx) when none).
//
//go:noinline
func lbMemoHits(totals []int64, entries []atomic.Uint64, idx []int32, tag uint64, from int) int {
	totals, hi := totals[:len(idx)], tag>>32
	for i := from; i < len(idx); i++ {
		e := entries[idx[i]].Load()
		if e>>32 != hi {
			return i
		}
		totals[i] += int64(int32(uint32(e)))
	}
	return len(idx)
}

// lbMemoHitsRun is lbMemoHits for nodes whose entries are run[i], in
// order (no index load or bounds check a node).
//
//go:noinline
func lbMemoHitsRun(totals []int64, run []atomic.Uint64, tag uint64, from int) int {
	run, hi := run[:len(totals)], tag>>32
	for i := from; i < len(totals); i++ {
		e := run[i].Load()
		if e>>32 != hi {
			return i
		}
		totals[i] += int64(int32(uint32(e)))
	}
	return len(totals)
}

// lbMemoHitsImages is lbMemoHits adding images + delta[idx[i]] too
// (ImageLocality's score, leastBalancedImagesAddPass1).
//
//go:noinline
func lbMemoHitsImages(totals []int64, entries []atomic.Uint64, idx []int32, tag uint64, images int64, delta []int8, from int) int {
	totals, hi := totals[:len(idx)], tag>>32
	for i := from; i < len(idx); i++ {
		x := idx[i]
		e := entries[x].Load()
		if e>>32 != hi {
			return i
		}
		totals[i] += int64(int32(uint32(e))) + images + int64(delta[x])
	}
	return len(idx)
}

// leastBalancedMemoMiss computes snapshot node x's addend (the low 32
// bits of e), stores it in v when it is in range, and returns with it
// the scoreBits of the balance term (bad). covered is false, with bit 8
// of bad set and no addend, when the node's allocatable does not cover
// the requests.
//
//go:noinline
func leastBalancedMemoMiss(res []framework.NodeResources, x int32, req *leastBalancedRequests, v lbView) (e, bad uint64, covered bool) {
	r := &res[x]
	aC, aM := r.AllocatableMilliCPU, r.AllocatableMemory
	uC, uM := r.NonZeroMilliCPU+req.cpu, r.NonZeroMemory+req.mem
	if !leastCovered(aC, aM, uC, uM) {
		return 0, 1 << 8, false
	}
	faC, faM := float64(aC), float64(aM)
	num := framework.MaxNodeScore/2 - int64(r.CPUMemoryBalance) +
		baBalance(float64(r.RequestedMilliCPU+req.baCPU)/faC, float64(r.RequestedMemory+req.baMem)/faM)
	check := uint64(num) | uint64(num+127-framework.MaxNodeScore)
	add := (leastFractionOf(max(aC-uC, 0), faC)+leastFractionOf(max(aM-uM, 0), faM))>>1 + framework.MaxNodeScore/2 + num>>1
	e = v.tag | uint64(uint32(int32(add)))
	if check < 128 {
		v.entries[x].Store(e)
	}
	return e, check, true
}
