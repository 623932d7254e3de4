package runtime

import (
	"fmt"
	"runtime"

	"github.com/schedkit/schedkit/internal/parallel"
)

// Workers is a set of goroutines that run the chunks of a Framework's
// per-node loops (filtering, scoring, explaining filters) and persist
// from loop to loop, so that a loop costs a fork and a join of a few
// hundred nanoseconds rather than starting goroutines. The caller's
// goroutine is one of the workers; the others start with the first loop
// large enough to share (a loop over fewer than twice MinChunk nodes runs
// on the caller's goroutine alone) and spin for a few tens of
// microseconds after each loop before they sleep. A loop uses at most
// GOMAXPROCS workers. One loop runs at a time: a loop started while
// another runs (a concurrent cycle) runs on its caller's goroutine.
// Results do not depend on the number of workers.
//
// Close stops the goroutines; Workers dropped without Close are stopped
// once the garbage collector finds them unreachable.
type Workers struct {
	pool     *parallel.Pool
	minChunk int
	// passLeast is the least chunk of a pass over the totals or the
	// feasible positions: cheapPass·minChunk.
	passLeast int
}

// DefaultMinChunk is the fewest nodes in a worker's chunk of a loop by
// default: a few microseconds of the built-in plugins' work, well above
// the cost of a fork and join.
const DefaultMinChunk = 512

// WorkersOption configures NewWorkers.
type WorkersOption func(*Workers)

// WithMinChunk sets the fewest nodes in a worker's chunk of a loop
// (default DefaultMinChunk; rounded up to a multiple of 64): a loop over
// fewer than twice as many nodes runs on the caller's goroutine alone.
// Plugins that cost much more per node than the built-in ones pay with a
// smaller one. Values below 1 are an error of NewWorkers.
func WithMinChunk(nodes int) WorkersOption { return func(w *Workers) { w.minChunk = nodes } }

// NewWorkers returns a set of n workers, the caller's goroutine included.
// n below 1 is an error naming it.
func NewWorkers(n int, opts ...WorkersOption) (*Workers, error) {
	w := &Workers{minChunk: DefaultMinChunk}
	for _, o := range opts {
		o(w)
	}
	if n < 1 {
		return nil, fmt.Errorf("framework: NewWorkers(%d): must be at least 1", n)
	}
	if w.minChunk < 1 {
		return nil, fmt.Errorf("framework: NewWorkers: WithMinChunk(%d): must be at least 1", w.minChunk)
	}
	w.minChunk = (w.minChunk + parallel.Align - 1) / parallel.Align * parallel.Align
	w.passLeast = cheapPass * w.minChunk
	w.pool = parallel.NewPool(n)
	runtime.AddCleanup(w, func(p *parallel.Pool) { p.Close() }, w.pool)
	return w, nil
}

// Size returns the number of workers, the caller's goroutine included.
func (w *Workers) Size() int { return w.pool.Size() }

// Close stops the workers and waits until their goroutines have exited;
// it waits for a loop in progress first. Loops after Close run on the
// caller's goroutine. Closing twice is harmless.
func (w *Workers) Close() { w.pool.Close() }
