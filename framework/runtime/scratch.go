package runtime

import (
	"fmt"
	"math"
	"sync"
	"sync/atomic"

	"github.com/schedkit/schedkit/framework"
)

// scratch holds per-cycle buffers that do not outlive the cycle (the
// filter's record of rejections by position, the NodeScore lists handed
// to NormalizeScore), reused through a pool so a cycle allocates only what
// its Result keeps.
type scratch struct {
	rec    filterRecorder
	rejPos []int32
	scores []framework.NodeScore
	// written bounds the positions a cycle may have recorded: the next
	// cycle clears only those (a sampled cycle writes the few positions it
	// evaluated, not the cluster's).
	written int
}

// filterRecorder records, by evaluation position, the status by which a
// filter rejected the node there and that filter's index; rejected has
// the bit of every such position set (splitEvaluated reads it a word at a
// time). A status that is not a rejection becomes a named Error, sets
// failed and lowers failedAt to its position.
type filterRecorder struct {
	// statuses are pointers, each store a write barrier while a
	// collection marks. Recording instead an int32 a position naming
	// the status's entry in the loop's list of rejections, kept whole
	// for the cycle, made unmarked cycles 1–4 % longer for the barriers
	// it saved; a uint64 naming an entry of per-worker tables of the
	// statuses met (one entry a run of equal statuses), 3 % longer, for
	// 3 % less while a collection marks (docs/performance.md, While a
	// collection marks).
	statuses []*framework.Status
	plugins  []int16
	// rejected's words are each written by one worker: the chunks of a
	// parallel loop start at multiples of 64 positions.
	rejected []uint64
	filters  []framework.FilterPlugin
	failed   atomic.Bool
	// failedAt is the lowest position of a failure (math.MaxInt64: none).
	failedAt atomic.Int64
}

// add1 records st, the failure by filter pi of the node at position p.
func (r *filterRecorder) add1(p int, st *framework.Status, pi int16) {
	if !st.IsRejected() {
		st = r.failure(st, pi, p)
	}
	r.statuses[p], r.plugins[p] = st, pi
	r.rejected[p>>6] |= 1 << (p & 63)
}

// failure is the status add records for st, not a rejection, by filter
// pi at position p: a named Error, which stops the cycle.
func (r *filterRecorder) failure(st *framework.Status, pi int16, p int) *framework.Status {
	if st.Code() != framework.Error || st.Plugin() == "" {
		name := r.filters[pi].Name()
		st = framework.AsStatus(fmt.Errorf("running %q filter plugin: %w", name, st.ErrOrCode())).WithPlugin(name)
	}
	r.failed.Store(true)
	for at := r.failedAt.Load(); int64(p) < at && !r.failedAt.CompareAndSwap(at, int64(p)); at = r.failedAt.Load() {
	}
	return st
}

// failedBelow reports whether a filter failed at a position below hi.
func (r *filterRecorder) failedBelow(hi int) bool {
	return r.failedAt.Load() < int64(hi)
}

func (f *Framework) getScratch() *scratch { return f.scratch.get() }

// keptPool is a sync.Pool that keeps one item out of the collector's
// reach: a Framework that runs one cycle at a time reuses the same
// buffers, sized by the nodes, from cycle to cycle, instead of allocating
// them again after each collection empties the pool; concurrent cycles
// take the others from the pool.
type keptPool[T any] struct {
	kept atomic.Pointer[T]
	pool sync.Pool
}

func (p *keptPool[T]) get() *T {
	if x := p.kept.Swap(nil); x != nil {
		return x
	}
	if x, ok := p.pool.Get().(*T); ok {
		return x
	}
	return new(T)
}

func (p *keptPool[T]) Put(x *T) {
	if !p.kept.CompareAndSwap(nil, x) {
		p.pool.Put(x)
	}
}

// putState releases a cycle state Schedule created and pools it, empty.
func (f *Framework) putState(state *framework.CycleState) {
	state.Release()
	f.states.Put(state)
}

// filterBuffers returns the recorder for n positions, all clear. The
// caller sets s.written to the end of the positions it wrote once it knows
// it; until then every position counts as written.
func (s *scratch) filterBuffers(n int, filters []framework.FilterPlugin) *filterRecorder {
	r := &s.rec
	nw := (n + 63) >> 6
	if cap(r.statuses) < n {
		r.statuses = make([]*framework.Status, n)
		r.plugins = make([]int16, n)
		r.rejected = make([]uint64, nw)
		s.written = 0
	}
	// Only the bitmap is cleared: a status is read only where this cycle
	// set the position's bit, so it was written this cycle.
	clear(r.rejected[:min((s.written+63)>>6, cap(r.rejected))])
	r.statuses, r.plugins, r.rejected = r.statuses[:n], r.plugins[:n], r.rejected[:nw]
	r.filters = filters
	r.failed.Store(false)
	r.failedAt.Store(math.MaxInt64)
	s.written = n
	return r
}

func (s *scratch) scoreBuffer(n int) []framework.NodeScore {
	if cap(s.scores) < n {
		s.scores = make([]framework.NodeScore, n)
	}
	s.scores = s.scores[:n]
	return s.scores
}
