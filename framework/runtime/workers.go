package runtime

import (
	"fmt"
	"math"
	"runtime"
	"time"

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
// How many of them a cycle's loops use is chosen from what recent
// cycles cost (docs/framework.md#workers). Results do not depend on the
// number of workers.
//
// Close stops the goroutines; Workers dropped without Close are stopped
// once the garbage collector finds them unreachable.
type Workers struct {
	pool     *parallel.Pool
	minChunk int
	// passLeast is what a pass over the totals or the feasible
	// positions needs per worker to be shared: cheapPass·minChunk;
	// fusedLeast is an incremental evaluator's fused pass's least
	// chunk: fusedPass·minChunk.
	passLeast, fusedLeast int
	// gov chooses how many of the workers a cycle uses (widthGovernor).
	gov widthGovernor
}

// turn is one cycle's share of the workers: the width gov chose for it
// at level of a ladder topped by most.
type turn struct {
	level, most, width int
	start              time.Time
}

// begin starts a cycle over n candidate nodes: it caps the workers' loops
// at the width the governor chooses and reports false when the cycle
// has no loop large enough to share (nothing to choose or measure).
func (w *Workers) begin(n int) (turn, bool) {
	if w == nil {
		return turn{}, false
	}
	if w.pool.Widest(n, w.minChunk) <= 1 {
		return turn{}, false
	}
	// The ladder's top: the pool's width for a loop of any length, so
	// that cycles over different numbers of nodes share one ladder.
	most := w.pool.Widest(math.MaxInt32, 1)
	k, l := w.gov.choose(most)
	if k >= most {
		w.pool.SetLimit(0) // not capped: written only when it changes
	} else {
		w.pool.SetLimit(k)
	}
	// PreFilter comes before the first loop: helpers asleep since the
	// last cycle wake up meanwhile.
	w.pool.Wake(k)
	return turn{level: l, most: most, width: k, start: time.Now()}, true
}

// end ends the cycle begin started, which evaluated n nodes: its wall
// time per node (the machine's time, not a framework's clock, which a
// simulation may hold still) goes to the governor. The cap stays until
// the next cycle begins: loops outside a cycle (an incremental
// scheduler's) run at the width last chosen.
func (w *Workers) end(t turn, n int) {
	w.gov.note(t.most, t.level, t.width, time.Since(t.start), n)
}

// DefaultMinChunk is the fewest nodes in a worker's chunk of a loop on
// two workers by default: a few microseconds of the built-in plugins'
// work, well above the cost of a fork and join. On more workers chunks
// shrink with the width, to 256 nodes.
const DefaultMinChunk = 512

// WorkersOption configures NewWorkers.
type WorkersOption func(*Workers)

// WithMinChunk sets the fewest nodes in a worker's chunk of a loop on two
// workers (default DefaultMinChunk; rounded up to a multiple of 64; on
// more, chunks shrink with the width down to the smaller of it and 256
// nodes): a loop over fewer than twice as many nodes runs on the caller's
// goroutine alone.
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
	w.passLeast, w.fusedLeast = cheapPass*w.minChunk, fusedPass*w.minChunk
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
