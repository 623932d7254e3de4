package parallel

import (
	"math"
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// Align is the multiple at which Pool.Chunk sizes the chunks of a
// parallel loop: 64 items are one word of a bitmap by item and a whole
// number of cache lines of any per-item array of elements of 1 to 8
// bytes, so that two workers writing the results of their own chunks
// never write the same word or cache line.
const Align = 64

// Body is the work of one loop: Chunk processes the items [lo, hi) on
// worker w (0 is the goroutine that called Pool.Ordered, the others are
// below the loop's width) and reports whether the loop should stop. A
// Body that also implements Sizer chooses the length of each chunk as it
// is claimed.
type Body interface {
	Chunk(w, lo, hi int) (stop bool)
}

// Sizer is implemented by a Body whose chunks are sized as they are
// claimed (a loop that stops early sizes them to the items it still
// expects to need): ChunkSize returns the length wanted for the chunk
// that starts at lo, which the pool rounds up to a multiple of Align
// when the loop runs on more than one worker.
type Sizer interface {
	ChunkSize(lo int) int
}

// InOrder is implemented by a Body whose fixed chunks are claimed in
// increasing order by whichever worker is free, as a Sizer's are, rather
// than from ranges the workers own: a loop over a few tasks of unlike
// cost, where a range could leave one worker all the dear ones.
type InOrder interface {
	InOrder()
}

// Func adapts a function to Body.
type Func func(w, lo, hi int) bool

// Chunk calls f(w, lo, hi).
func (f Func) Chunk(w, lo, hi int) bool { return f(w, lo, hi) }

// ctl's layout: the loop's number (epoch) above epochShift, the open
// flag (helpers may still join the loop), the waiter flag (the caller
// sleeps until the last helper leaves) and the count of helpers inside
// the loop.
const (
	epochShift = 24
	openBit    = 1 << 23
	waiterBit  = 1 << 22
	countMask  = waiterBit - 1
)

// yieldEvery+1 is how many times a spinning worker reads the loop's state
// (about a nanosecond each) between two yields of its core (yield): about
// a microsecond of spinning.
const yieldEvery = 1<<10 - 1

// cacheLine separates fields written by different goroutines.
type cacheLine [64]byte

// Pool runs the chunks of loops over many items on a fixed set of
// goroutines that persist from loop to loop: the caller's goroutine and up
// to Size()−1 helpers, started by the first loop that uses them and
// stopped by Close. One loop runs on the pool at a time; a loop started
// while another runs (from another goroutine, or from inside a chunk)
// runs on its caller's goroutine alone. A loop uses at most GOMAXPROCS
// workers (as read within the last few loops: procsEvery), and one chunk
// per worker at least: a loop too small to share
// runs on the caller's goroutine without waking anyone.
//
// Between loops a helper spins for a short while (Spin) before it
// sleeps, so that the loops of one scheduling cycle, a few microseconds
// apart, find it awake; the caller never waits for a helper to wake up.
// A Pool holds no package-level state: its owner closes it.
type Pool struct {
	size int
	spin time.Duration

	// procs is GOMAXPROCS as Widest last read it, and widths counts the
	// calls of Widest: it reads GOMAXPROCS again once every procsEvery
	// calls (maxProcs).
	procs  atomic.Int64
	widths atomic.Uint64

	// limit caps the width of the loops that start while it is set (0:
	// none; SetLimit), on a line of its own: the helpers never read it.
	_     cacheLine
	limit atomic.Int64

	_   cacheLine
	ctl atomic.Uint64
	_   cacheLine
	// woken counts the calls of Wake: a spinning helper that sees it
	// change spins for another spin from then.
	woken atomic.Uint64
	_     cacheLine
	// next is the first item not yet claimed (a loop with a Sizer).
	next atomic.Int64
	_    cacheLine
	// stop ends the loop: a chunk of a loop with a Sizer asked to stop,
	// or a helper's chunk panicked.
	stop atomic.Bool
	_    cacheLine
	// stopChunk is the lowest chunk of a loop of ranges that asked to
	// stop (math.MaxInt64: none); ranges are that loop's chunks by
	// worker.
	stopChunk atomic.Int64
	_         cacheLine
	// exhausted has bit w set once range w has no chunk left to start,
	// so that a worker looking for chunks reads one word rather than
	// every range's counter.
	exhausted atomic.Uint64
	_         cacheLine
	ranges    []chunkRange
	inOrder   bool   // the loop claims its chunks in order
	tag       uint64 // the loop's tag in its ranges (chunkRange)

	// The loop in progress, written by the caller before it opens the
	// loop (ctl) and read by the helpers that join it.
	body  Body
	sizer Sizer
	n     int
	chunk int
	width int

	// panicked holds the first panic of a helper's chunk, re-raised by
	// the caller once the loop is joined.
	panicMu  sync.Mutex
	panicked any
	hasPanic atomic.Bool

	busy    atomic.Bool
	started atomic.Bool
	closed  atomic.Bool
	epoch   uint64 // the caller's, under busy
	joined  chan struct{}

	mu        sync.Mutex // guards helpers and closeOnce's start
	helpers   []*helper
	wg        sync.WaitGroup
	closeOnce sync.Once
}

// chunkRange is the next chunk to start in one worker's range of a loop
// of ranges, on a cache line of its own. state holds the loop's tag
// (Pool.tag) above 32 bits and the chunk below: a range whose tag is an
// earlier loop's starts at its first chunk, so that the caller need not
// reset every range before a loop, which would move each range's line
// to its core.
type chunkRange struct {
	state atomic.Uint64
	_     [56]byte
}

// claim returns the next chunk of the range [start, end) of loop tag,
// false when none is left.
func (r *chunkRange) claim(tag, start, end uint64) (uint64, bool) {
	for {
		v := r.state.Load()
		c := start
		if v>>32 == tag {
			c = v & (1<<32 - 1)
		}
		if c >= end {
			return 0, false
		}
		if r.state.CompareAndSwap(v, tag<<32|(c+1)) {
			return c, true
		}
	}
}

// helper is one helper goroutine's wake-up handshake.
type helper struct {
	_        cacheLine
	sleeping atomic.Bool
	wake     chan struct{}
	_        cacheLine
}

// DefaultSpin is how long a helper of NewPool stays awake after a loop:
// long enough to bridge the serial steps between the loops of a
// scheduling cycle and the pauses between cycles (a pod that fails, a
// long PreFilter, the caller's own work), short enough that an idle pool
// soon costs nothing. A helper that has gone to sleep misses the loops
// of the next tens of microseconds: the goroutine woken by a loop waits
// on the waking goroutine's processor until another processor takes it,
// which the Go scheduler does only after a short sleep of its own.
const DefaultSpin = time.Millisecond

// NewPool returns a pool of size workers, the caller's goroutine
// included (size below 1 counts as 1: every loop runs inline), whose
// helpers spin for DefaultSpin after each loop.
func NewPool(size int) *Pool {
	return NewPoolSpin(size, DefaultSpin)
}

// NewPoolSpin is NewPool with helpers that spin for spin after each loop
// (0: they sleep at once).
func NewPoolSpin(size int, spin time.Duration) *Pool {
	return &Pool{size: max(size, 1), spin: max(spin, 0), joined: make(chan struct{}, 1)}
}

// Size returns the most workers a loop uses, the caller's goroutine
// included. A nil Pool has one: every loop runs on the caller's
// goroutine.
func (p *Pool) Size() int {
	if p == nil {
		return 1
	}
	return p.size
}

// Width returns how many workers a loop of n items in chunks of chunk
// items would run on now: at most Size, GOMAXPROCS, the pool's limit
// (SetLimit) and the number of whole chunks in n (a loop of fewer than
// two runs on the caller's goroutine alone); 1 when the pool is closed.
func (p *Pool) Width(n, chunk int) int {
	k := p.Widest(n, chunk)
	if k <= 1 {
		return k
	}
	if l := p.limit.Load(); l > 0 {
		k = int(min(int64(k), l))
	}
	return k
}

// Widest is Width without the pool's limit (SetLimit).
func (p *Pool) Widest(n, chunk int) int {
	chunk = max(chunk, 1)
	if p == nil || p.size <= 1 || n < 2*chunk || p.closed.Load() {
		return 1
	}
	return min(p.size, p.maxProcs(), n/chunk)
}

// procsEvery is how many calls of Widest read GOMAXPROCS once between
// them. Reading it takes the Go scheduler's global lock, which each
// helper that gives up its processor while it spins (yield) takes as
// well, and a cycle asks for its loops' widths a dozen times or more: on
// sixteen workers the caller would queue for that lock behind fifteen
// helpers. A change of GOMAXPROCS (the program's, or the runtime's own
// when the container's CPU limit changes) reaches the loops within
// procsEvery calls, a few cycles.
const procsEvery = 64

// maxProcs returns GOMAXPROCS as read within the last procsEvery calls.
func (p *Pool) maxProcs() int {
	if p.widths.Add(1)%procsEvery != 1 {
		if v := p.procs.Load(); v > 0 {
			return int(v)
		}
	}
	v := runtime.GOMAXPROCS(0)
	p.procs.Store(int64(v))
	return v
}

// SetLimit caps the width of the loops that start from now on at k
// workers (k below 1: no cap). Loops already running keep theirs.
func (p *Pool) SetLimit(k int) {
	if p != nil && p.limit.Load() != int64(max(k, 0)) {
		p.limit.Store(int64(max(k, 0)))
	}
}

// Chunk returns the chunk length for a loop over n items that runs every
// one of them: about four chunks per worker of the loop's width, so that
// a worker slowed down by others (another process on its core) leaves its
// share to the rest, and at least least items; a multiple of Align.
func (p *Pool) Chunk(n, least int) int {
	w := p.Width(n, max(least, 1))
	c := max((n+4*w-1)/(4*w), least, 1)
	return (c + Align - 1) / Align * Align
}

// Ordered runs body over consecutive chunks [lo, hi) of [0, n) of chunk
// items (or of the lengths a Sizer body asks for) on up to Width(n, chunk)
// workers, and returns an end below which every item was processed.
//
// A Sizer or InOrder body's chunks, and those of a loop on more than 64
// workers, are claimed in increasing order. Once
// one returns true no further chunk is claimed, but chunks already claimed
// finish; the end is that of the processed prefix, and no item at or
// above it was processed.
//
// Otherwise each worker of the loop's width owns a contiguous
// range of the chunks, the same from loop to loop for the same n, chunk
// and width, so that a worker finds the items it handled in the last loop
// in its own core's cache; it runs its range in increasing order, then
// takes chunks from the ranges of workers still busy. Once a chunk
// returns true no chunk above it is started, and every chunk below it
// still runs: the end is that of the lowest chunk that returned true (n
// when none did), and chunks above it that had started finish.
//
// A panic in a chunk is raised again on the caller's goroutine once every
// worker has left the loop.
func (p *Pool) Ordered(n, chunk int, body Body) int {
	if n <= 0 {
		return 0
	}
	chunk = max(chunk, 1)
	sizer, _ := body.(Sizer)
	k := p.Width(n, chunk)
	if k <= 1 || !p.busy.CompareAndSwap(false, true) {
		return inline(n, chunk, body, sizer)
	}
	defer p.busy.Store(false)
	if p.closed.Load() {
		return inline(n, chunk, body, sizer)
	}
	if !p.started.Load() {
		p.start()
	}
	p.run(n, chunk, k, body, sizer)
	if p.hasPanic.Load() {
		p.panicMu.Lock()
		v := p.panicked
		p.panicked = nil
		p.hasPanic.Store(false)
		p.panicMu.Unlock()
		panic(v)
	}
	if sizer != nil || p.inOrder {
		return min(int(p.next.Load()), n)
	}
	if s := p.stopChunk.Load(); s != math.MaxInt64 {
		return min(int(s+1)*chunk, n)
	}
	return n
}

// run opens the loop to k−1 helpers, runs the caller's share and joins
// the helpers, even when the caller's own chunk panics.
func (p *Pool) run(n, chunk, k int, body Body, sizer Sizer) {
	p.body, p.sizer, p.n, p.chunk, p.width = body, sizer, n, chunk, k
	p.panicked = nil // left by a loop whose caller's chunk panicked too
	p.hasPanic.Store(false)
	p.next.Store(0)
	p.stop.Store(false)
	_, p.inOrder = body.(InOrder)
	p.inOrder = p.inOrder || k > maxRanges || (n+chunk-1)/chunk >= 1<<32
	p.epoch++
	if sizer == nil && !p.inOrder {
		p.exhausted.Store(0)
		p.stopChunk.Store(math.MaxInt64)
		if p.ranges == nil {
			p.ranges = make([]chunkRange, p.size)
		}
		if uint32(p.epoch) == 0 {
			// The tags wrap: no range may keep one equal to a
			// coming loop's.
			for i := range p.ranges {
				p.ranges[i].state.Store(0)
			}
			p.epoch++
		}
		p.tag = uint64(uint32(p.epoch))
	}
	p.ctl.Store(p.epoch<<epochShift | openBit)
	for _, h := range p.helpers[:k-1] {
		if h.sleeping.Load() && h.sleeping.CompareAndSwap(true, false) {
			h.wake <- struct{}{}
		}
	}
	defer func() {
		p.join()
		p.body, p.sizer = nil, nil
	}()
	p.work(0)
}

// Wake readies the helpers of a loop of up to k workers expected soon: a
// sleeping one is woken, and every spinning one spins for another Spin
// from now, as after a loop. A caller whose loops follow serial work of
// unknown length (a scheduling cycle's PreFilter) calls it before that
// work, so that the loop finds its helpers awake rather than waking them
// then. It does nothing before the first loop that uses helpers has
// started them, nor after Close.
func (p *Pool) Wake(k int) {
	if p == nil || k <= 1 || !p.started.Load() || p.closed.Load() {
		return
	}
	p.woken.Add(1)
	hs := p.helpers
	for _, h := range hs[:min(k-1, len(hs))] {
		if h.sleeping.Load() && h.sleeping.CompareAndSwap(true, false) {
			h.wake <- struct{}{}
		}
	}
}

// inline runs the loop on the caller's goroutine.
func inline(n, chunk int, body Body, sizer Sizer) int {
	for lo := 0; lo < n; {
		c := chunk
		if sizer != nil {
			c = max(sizer.ChunkSize(lo), 1)
		}
		hi := min(lo+c, n)
		if body.Chunk(0, lo, hi) {
			return hi
		}
		lo = hi
	}
	return n
}

// work claims and runs chunks as worker w until none is left or the loop
// stops.
func (p *Pool) work(w int) {
	if p.sizer == nil && !p.inOrder {
		p.workRanges(w)
		return
	}
	n, chunk, body, sizer := p.n, p.chunk, p.body, p.sizer
	for !p.stop.Load() {
		var lo, hi int
		if sizer != nil {
			lo = int(p.next.Load())
			if lo >= n {
				return
			}
			c := max(sizer.ChunkSize(lo), 1)
			c = (c + Align - 1) / Align * Align
			hi = min(lo+c, n)
			if !p.next.CompareAndSwap(int64(lo), int64(hi)) {
				continue
			}
		} else {
			hi = int(p.next.Add(int64(chunk)))
			lo = hi - chunk
			if lo >= n {
				return
			}
			hi = min(hi, n)
		}
		if body.Chunk(w, lo, hi) {
			p.stop.Store(true)
		}
	}
}

// maxRanges is the widest loop that runs on ranges (a bit each in
// Pool.exhausted); a wider one claims its chunks in order.
const maxRanges = 64

// workRanges is work for a loop of ranges: worker w runs the chunks of
// its own range, then those left in the others' ranges, in the order of
// the workers after it; it leaves the rest of a range once a chunk below
// has asked to stop.
func (p *Pool) workRanges(w int) {
	n, chunk, body, k, tag := p.n, p.chunk, p.body, p.width, p.tag
	chunks := uint64((n + chunk - 1) / chunk)
	all := ^uint64(0) >> (64 - k)
	if p.exhausted.Load() == all {
		return // a helper that joins late: the others took every chunk
	}
	for j := w; ; {
		r := &p.ranges[j]
		start, end := chunks*uint64(j)/uint64(k), chunks*uint64(j+1)/uint64(k)
		for {
			if p.stop.Load() {
				return
			}
			c, ok := r.claim(tag, start, end)
			if !ok || int64(c) > p.stopChunk.Load() {
				p.exhausted.Or(1 << j)
				break
			}
			lo := int(c) * chunk
			if body.Chunk(w, lo, min(lo+chunk, n)) {
				for s := p.stopChunk.Load(); int64(c) < s && !p.stopChunk.CompareAndSwap(s, int64(c)); s = p.stopChunk.Load() {
				}
			}
		}
		left := all &^ p.exhausted.Load()
		if left == 0 {
			return
		}
		// The next range after j, in the order of the workers, with
		// chunks left.
		after := left &^ (uint64(1)<<(j+1) - 1)
		if after == 0 {
			after = left
		}
		j = bits.TrailingZeros64(after)
	}
}

// join closes the loop to helpers not yet in it and waits until those in
// it have left: it spins while they finish their chunks, then sleeps.
func (p *Pool) join() {
	for {
		c := p.ctl.Load()
		if p.ctl.CompareAndSwap(c, c&^openBit) {
			if c&countMask == 0 {
				return
			}
			break
		}
	}
	for i := 1; i <= 1<<16; i++ {
		if p.ctl.Load()&countMask == 0 {
			return
		}
		if i&yieldEvery == 0 {
			yield(i / (yieldEvery + 1))
		}
	}
	for {
		c := p.ctl.Load()
		if c&countMask == 0 {
			return
		}
		if p.ctl.CompareAndSwap(c, c|waiterBit) {
			break
		}
	}
	<-p.joined
}

// start starts the helpers.
func (p *Pool) start() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.started.Load() {
		return
	}
	p.helpers = make([]*helper, p.size-1)
	for i := range p.helpers {
		h := &helper{wake: make(chan struct{}, 1)}
		p.helpers[i] = h
		p.wg.Add(1)
		go p.help(i+1, h)
	}
	p.started.Store(true)
}

// help is helper w's goroutine: it joins each loop whose width includes
// it, until the pool closes.
func (p *Pool) help(w int, h *helper) {
	defer p.wg.Done()
	var seen uint64
	for {
		c := p.ctl.Load()
		e := c >> epochShift
		if e == seen {
			if !p.await(h, seen) {
				return
			}
			continue
		}
		seen = e
		if !p.enter(e) {
			continue
		}
		if w < p.width {
			p.helpWork(w)
		}
		p.leave()
	}
}

// helpWork is work for a helper: a panic stops the loop and is kept for
// the caller.
func (p *Pool) helpWork(w int) {
	defer func() {
		if v := recover(); v != nil {
			p.panicMu.Lock()
			if !p.hasPanic.Load() {
				p.panicked = v
				p.hasPanic.Store(true)
			}
			p.panicMu.Unlock()
			p.stop.Store(true)
		}
	}()
	p.work(w)
}

// enter joins loop e if it is still open.
func (p *Pool) enter(e uint64) bool {
	for {
		c := p.ctl.Load()
		if c>>epochShift != e || c&openBit == 0 {
			return false
		}
		if p.ctl.CompareAndSwap(c, c+1) {
			return true
		}
	}
}

// leave leaves the loop, waking the caller if it sleeps and this was the
// last helper in it.
func (p *Pool) leave() {
	c := p.ctl.Add(^uint64(0))
	if c&countMask == 0 && c&waiterBit != 0 {
		p.joined <- struct{}{}
	}
}

// await waits for a loop after loop seen: it spins for p.spin (from the
// last Wake, if one comes meanwhile), then sleeps until woken. It reports
// false when the pool is closed.
func (p *Pool) await(h *helper, seen uint64) bool {
	if p.spin > 0 {
		t0, woken := time.Now(), p.woken.Load()
		for i := 1; ; i++ {
			if p.ctl.Load()>>epochShift != seen {
				return true
			}
			if i&yieldEvery == 0 {
				if p.closed.Load() {
					return false
				}
				if w := p.woken.Load(); w != woken {
					t0, woken = time.Now(), w
				}
				if time.Since(t0) > p.spin {
					break
				}
				yield(i / (yieldEvery + 1))
			}
		}
	}
	h.sleeping.Store(true)
	if p.ctl.Load()>>epochShift != seen || p.closed.Load() {
		if h.sleeping.CompareAndSwap(true, false) {
			return !p.closed.Load()
		}
		// A waker cleared the flag: its token is on the way.
	}
	<-h.wake
	return !p.closed.Load()
}

// Close stops the helpers and waits until they have exited. It waits for
// a loop in progress to finish first, and must not be called from inside
// a chunk. Loops after Close run on the caller's goroutine. Closing twice
// is harmless.
func (p *Pool) Close() {
	if p == nil {
		return
	}
	p.closeOnce.Do(func() {
		for !p.busy.CompareAndSwap(false, true) {
			runtime.Gosched()
		}
		p.closed.Store(true)
		p.busy.Store(false)
		p.mu.Lock()
		helpers := p.helpers
		p.started.Store(true) // no helper starts after Close
		p.mu.Unlock()
		for _, h := range helpers {
			if h.sleeping.CompareAndSwap(true, false) {
				h.wake <- struct{}{}
			}
		}
		p.wg.Wait()
	})
}
