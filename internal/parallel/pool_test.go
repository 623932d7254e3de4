package parallel

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"pgregory.net/rapid"
)

// sizedBody is a Body whose chunks are sized as they are claimed.
type sizedBody struct {
	Func
	size func(lo int) int
}

func (b sizedBody) ChunkSize(lo int) int { return b.size(lo) }

// inOrderBody is a Body of fixed chunks claimed in order.
type inOrderBody struct{ Func }

func (inOrderBody) InOrder() {}

// TestPropPoolOrderedPrefix: on a pool of any size, loop after loop (with
// fixed chunks or chunks sized as claimed), every index below the returned
// end is processed exactly once, every worker number is below the loop's
// width, a stop returns a complete prefix that contains the chunk that
// asked to stop, and no stop processes every index. Chunks claimed in
// order (sized as claimed, or InOrder) process nothing at or above the
// end; chunks of ranges end exactly at the end of the chunk that asked to
// stop, and process any chunk above it whole or not at all.
func TestPropPoolOrderedPrefix(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		size := rapid.IntRange(1, 8).Draw(t, "size")
		p := NewPoolSpin(size, time.Duration(rapid.IntRange(0, 20).Draw(t, "spinµs"))*time.Microsecond)
		defer p.Close()
		for range rapid.IntRange(1, 4).Draw(t, "loops") {
			n := rapid.IntRange(0, 2000).Draw(t, "n")
			chunk := rapid.IntRange(1, 300).Draw(t, "chunk")
			stopAt := rapid.IntRange(-1, n).Draw(t, "stopAt")
			claim := rapid.SampledFrom([]string{"ranges", "sized", "inOrder"}).Draw(t, "claim")
			width := p.Width(n, chunk)
			seen := make([]atomic.Int32, n)
			var badWorker atomic.Int64
			badWorker.Store(-1)
			fn := Func(func(w, lo, hi int) bool {
				if w < 0 || w >= max(width, 1) {
					badWorker.Store(int64(w))
				}
				for i := lo; i < hi; i++ {
					seen[i].Add(1)
				}
				return stopAt >= lo && stopAt < hi
			})
			var body Body = fn
			switch claim {
			case "sized":
				body = sizedBody{fn, func(lo int) int { return 1 + (lo*7+chunk)%150 }}
			case "inOrder":
				body = inOrderBody{fn}
			}
			end := p.Ordered(n, chunk, body)
			if w := badWorker.Load(); w >= 0 {
				t.Fatalf("worker %d outside the width %d", w, width)
			}
			if claim == "ranges" {
				checkRanges(t, seen, end, stopAt, chunk)
			} else {
				checkPrefix(t, seen, end, stopAt)
			}
		}
	})
}

// checkRanges checks the outcome of a loop of fixed chunks without a
// Sizer that asked to stop in the chunk holding stopAt (none when stopAt
// is outside [0, n)): end is n, or the end of that chunk; every index
// below end was processed once; each chunk above it was processed once
// whole, or not at all.
func checkRanges(t *rapid.T, seen []atomic.Int32, end, stopAt, chunk int) {
	n := len(seen)
	want := n
	if stopAt >= 0 && stopAt < n {
		want = min((stopAt/chunk+1)*chunk, n)
	}
	if end != want {
		t.Fatalf("stop at %d, chunk %d, n %d: end %d, want %d", stopAt, chunk, n, end, want)
	}
	for i := range n {
		c := seen[i].Load()
		if i < end && c != 1 || c > 1 {
			t.Fatalf("index %d processed %d times with end %d", i, c, end)
		}
		if first := i - i%chunk; c != seen[first].Load() {
			t.Fatalf("index %d processed %d times, the first of its chunk (%d) %d times", i, c, first, seen[first].Load())
		}
	}
}

// TestPoolRangesStopRunsLowerChunks: in a loop without a Sizer, a chunk
// that asks to stop while the caller is still in its own range, below it,
// leaves that range to run to its end: every index below the stopping
// chunk is processed, whichever worker stopped.
func TestPoolRangesStopRunsLowerChunks(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("needs GOMAXPROCS ≥ 2 for a helper")
	}
	p := NewPool(2)
	defer p.Close()
	const chunk, chunks = 64, 40
	for range 20 {
		var items, helped atomic.Int64
		end := p.Ordered(chunk*chunks, chunk, Func(func(w, lo, hi int) bool {
			items.Add(int64(hi - lo))
			if w != 0 {
				helped.Store(1)
				return lo/chunk == chunks-1 // the last chunk, in the helper's range
			}
			time.Sleep(20 * time.Microsecond) // the caller lags behind
			return false
		}))
		if end != chunk*chunks || items.Load() != chunk*chunks {
			t.Fatalf("stop in the last chunk (helper ran: %v): end %d, items %d, want %d", helped.Load() == 1, end, items.Load(), chunk*chunks)
		}
	}
}

// TestPoolChunksAligned: the chunks of a parallel loop sized by Chunk,
// or by a Sizer, start at multiples of Align.
func TestPoolChunksAligned(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("needs GOMAXPROCS ≥ 2 for a parallel loop")
	}
	p := NewPool(4)
	defer p.Close()
	for _, n := range []int{1000, 5000, 4097} {
		chunk := p.Chunk(n, 1)
		if chunk%Align != 0 {
			t.Fatalf("Chunk(%d) = %d, not a multiple of %d", n, chunk, Align)
		}
		for _, body := range []Body{
			Func(func(w, lo, hi int) bool { return false }),
			sizedBody{nil, func(lo int) int { return 1 + lo%100 }},
		} {
			var mu sync.Mutex
			var starts []int
			rec := Func(func(w, lo, hi int) bool {
				mu.Lock()
				starts = append(starts, lo)
				mu.Unlock()
				return false
			})
			if sb, ok := body.(sizedBody); ok {
				sb.Func = rec
				body = sb
			} else {
				body = rec
			}
			p.Ordered(n, chunk, body)
			for _, lo := range starts {
				if lo%Align != 0 {
					t.Fatalf("n=%d: chunk starts at %d", n, lo)
				}
			}
		}
	}
}

func TestPoolWidth(t *testing.T) {
	p := NewPool(16)
	defer p.Close()
	procs := runtime.GOMAXPROCS(0)
	for _, tc := range []struct{ n, chunk, want int }{
		{0, 64, 1}, {64, 64, 1}, {127, 64, 1}, {128, 64, min(2, procs)}, {5000, 64, min(16, procs)}, {5000, 2500, min(2, procs)}, {5000, 2501, 1},
	} {
		if got := p.Width(tc.n, tc.chunk); got != tc.want {
			t.Errorf("Width(%d, %d) = %d, want %d", tc.n, tc.chunk, got, tc.want)
		}
	}
	if got := NewPool(1).Width(5000, 64); got != 1 {
		t.Errorf("a pool of 1: Width = %d, want 1", got)
	}
	p.Close()
	if got := p.Width(5000, 64); got != 1 {
		t.Errorf("a closed pool: Width = %d, want 1", got)
	}
}

// TestPoolPanicReachesCaller: a panic in a helper's chunk is raised on
// the caller's goroutine, and the pool runs the next loop.
func TestPoolPanicReachesCaller(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("needs GOMAXPROCS ≥ 2 for a helper")
	}
	p := NewPool(2)
	defer p.Close()
	for range 20 {
		got := func() (v any) {
			defer func() { v = recover() }()
			p.Ordered(4096, 64, Func(func(w, lo, hi int) bool {
				if w != 0 {
					panic("boom")
				}
				time.Sleep(10 * time.Microsecond) // leaves chunks for the helper
				return false
			}))
			return nil
		}()
		if got != nil && got != "boom" {
			t.Fatalf("recovered %v, want boom", got)
		}
		var sum atomic.Int64
		if end := p.Ordered(1000, 64, Func(func(w, lo, hi int) bool { sum.Add(int64(hi - lo)); return false })); end != 1000 || sum.Load() != 1000 {
			t.Fatalf("after a panic: end %d, items %d", end, sum.Load())
		}
	}
}

// TestPoolNestedAndConcurrentLoops: a loop started from inside a chunk,
// or from another goroutine while one runs, still processes every index.
func TestPoolNestedAndConcurrentLoops(t *testing.T) {
	p := NewPool(4)
	defer p.Close()
	var wg sync.WaitGroup
	var total atomic.Int64
	for range 4 {
		wg.Go(func() {
			for range 50 {
				p.Ordered(300, 64, Func(func(w, lo, hi int) bool {
					p.Ordered(hi-lo, 8, Func(func(_, a, b int) bool { total.Add(int64(b - a)); return false }))
					return false
				}))
			}
		})
	}
	wg.Wait()
	if got, want := total.Load(), int64(4*50*300); got != want {
		t.Fatalf("processed %d items, want %d", got, want)
	}
}

// TestPoolCloseLeavesNoGoroutine: Close stops every helper, and loops
// after it run on the caller's goroutine.
func TestPoolCloseLeavesNoGoroutine(t *testing.T) {
	before := runtime.NumGoroutine()
	for _, spin := range []time.Duration{0, DefaultSpin} {
		p := NewPoolSpin(8, spin)
		for range 10 {
			p.Ordered(10000, 64, Func(func(w, lo, hi int) bool { return false }))
		}
		p.Close()
		p.Close()
		var callers atomic.Int64
		if end := p.Ordered(10000, 64, Func(func(w, lo, hi int) bool { callers.Add(int64(w)); return false })); end != 10000 || callers.Load() != 0 {
			t.Fatalf("after Close: end %d, worker numbers sum %d (want 10000, 0)", end, callers.Load())
		}
	}
	if err := waitGoroutines(before); err != nil {
		t.Fatal(err)
	}
}

// waitGoroutines waits up to a second for the number of goroutines to
// come back to want.
func waitGoroutines(want int) error {
	deadline := time.Now().Add(time.Second)
	for {
		got := runtime.NumGoroutine()
		if got <= want {
			return nil
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			return fmt.Errorf("%d goroutines, want %d:\n%s", got, want, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(time.Millisecond)
	}
}

// BenchmarkPoolForkJoin is one fork and join of the pool: a loop of
// one chunk of Align items per worker, each chunk doing nothing, on 1, 2,
// 4, 8 and 16 workers (GOMAXPROCS set to as many for the run, so that
// every worker runs). With one worker the loop runs inline.
func BenchmarkPoolForkJoin(b *testing.B) {
	for _, k := range []int{1, 2, 4, 8, 16} {
		b.Run(fmt.Sprintf("workers=%d", k), func(b *testing.B) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(k))
			p := NewPool(k)
			defer p.Close()
			n := k * Align
			var body Body = Func(func(w, lo, hi int) bool { return false })
			if w := p.Width(n, Align); w != k {
				b.Fatalf("width %d, want %d", w, k)
			}
			p.Ordered(n, Align, body) // starts the helpers
			b.ResetTimer()
			for b.Loop() {
				p.Ordered(n, Align, body)
			}
		})
	}
}

// BenchmarkGoroutinesForkJoin is the same loop run by Ordered, which
// starts goroutines for each loop.
func BenchmarkGoroutinesForkJoin(b *testing.B) {
	for _, k := range []int{1, 2, 4, 8, 16} {
		b.Run(fmt.Sprintf("workers=%d", k), func(b *testing.B) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(k))
			n := k * Align
			for b.Loop() {
				Ordered(k, n, Align, func(lo, hi int) bool { return false })
			}
		})
	}
}

// TestRoundTrip: the handoff takes some time with two Ps, and none is
// measured with one.
func TestRoundTrip(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	if d := RoundTrip(100); d != 0 {
		t.Errorf("GOMAXPROCS 1: RoundTrip = %v, want 0", d)
	}
	runtime.GOMAXPROCS(2)
	if d := RoundTrip(50); d <= 0 {
		t.Errorf("GOMAXPROCS 2: RoundTrip = %v, want above 0", d)
	}
}

// BenchmarkCacheLineRoundTrip reports the machine's handoff between two
// cores (RoundTrip): ns per round trip, to read beside the fork-join
// costs and the 2-worker ratios measured on the same machine.
func BenchmarkCacheLineRoundTrip(b *testing.B) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(max(2, runtime.GOMAXPROCS(0))))
	var d time.Duration
	for b.Loop() {
		d = RoundTrip(20000)
	}
	b.ReportMetric(float64(d.Nanoseconds()), "ns/roundtrip")
}

// TestPoolRangesTagWrap: loops of ranges around the wrap of their 32-bit
// tags still run every chunk once: a range keeps no tag a later loop
// takes for its own.
func TestPoolRangesTagWrap(t *testing.T) {
	p := NewPool(3)
	defer p.Close()
	loop := func(i int) {
		const n = 3 * 4 * Align
		seen := make([]atomic.Int32, n)
		end := p.Ordered(n, Align, Func(func(_, lo, hi int) bool {
			for j := lo; j < hi; j++ {
				seen[j].Add(1)
			}
			return false
		}))
		for j := range seen {
			if c := seen[j].Load(); c != 1 || end != n {
				t.Fatalf("loop %d: index %d processed %d times, end %d", i, j, c, end)
			}
		}
	}
	loop(0)
	p.epoch = 1<<32 - 3 // between loops: no helper reads it now
	for i := 1; i <= 5; i++ {
		loop(i)
	}
}

// TestPoolWidthFollowsGOMAXPROCS: a pool's loops take a change of
// GOMAXPROCS into account within procsEvery calls of Widest, down and up.
func TestPoolWidthFollowsGOMAXPROCS(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	p := NewPool(8)
	defer p.Close()
	const n = 16 * Align
	if w := p.Widest(n, Align); w != 4 {
		t.Fatalf("GOMAXPROCS 4: Widest = %d, want 4", w)
	}
	for _, procs := range []int{2, 8, 3} {
		runtime.GOMAXPROCS(procs)
		calls := 0
		for p.Widest(n, Align) != procs {
			if calls++; calls > procsEvery {
				t.Fatalf("GOMAXPROCS %d: Widest still %d after %d calls", procs, p.Widest(n, Align), calls)
			}
		}
		if w := p.Width(n, Align); w != procs {
			t.Errorf("GOMAXPROCS %d: Width = %d after Widest followed", procs, w)
		}
	}
}

// TestPoolSetLimit: a limit caps the width of the loops that start after
// it, Widest ignores it, and a limit of 0 lifts it.
func TestPoolSetLimit(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	p := NewPool(4)
	defer p.Close()
	const n = 8 * Align
	for _, tc := range []struct{ limit, want int }{{1, 1}, {2, 2}, {3, 3}, {0, 4}, {9, 4}} {
		p.SetLimit(tc.limit)
		if w := p.Width(n, Align); w != tc.want {
			t.Errorf("limit %d: Width = %d, want %d", tc.limit, w, tc.want)
		}
		if w := p.Widest(n, Align); w != 4 {
			t.Errorf("limit %d: Widest = %d, want 4", tc.limit, w)
		}
		var most atomic.Int32
		seen := make([]atomic.Int32, n)
		p.Ordered(n, Align, Func(func(w, lo, hi int) bool {
			for most.Load() < int32(w) && !most.CompareAndSwap(most.Load(), int32(w)) {
			}
			for j := lo; j < hi; j++ {
				seen[j].Add(1)
			}
			return false
		}))
		if m := int(most.Load()); m >= tc.want {
			t.Errorf("limit %d: worker %d ran a chunk, want below %d", tc.limit, m, tc.want)
		}
		for j := range seen {
			if c := seen[j].Load(); c != 1 {
				t.Fatalf("limit %d: item %d processed %d times", tc.limit, j, c)
			}
		}
	}
}

// waitAsleep waits up to ten seconds until helper h sleeps.
func waitAsleep(t *testing.T, h *helper) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !h.sleeping.Load(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the helper never went to sleep")
		}
	}
}

// Wake wakes the sleeping helpers of a loop of its width, and only those:
// a woken helper takes its token and spins for the pool's spin before it
// sleeps again; a helper still spinning spins for another spin from the
// Wake. Before the helpers start, after Close and on a nil pool it does
// nothing.
func TestPoolWake(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 3 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(3))
	}
	var nilPool *Pool
	nilPool.Wake(4)
	const spin = 200 * time.Millisecond
	p := NewPoolSpin(3, spin)
	p.Wake(3) // not started: nothing to wake
	body := Func(func(w, lo, hi int) bool { return false })
	p.Ordered(3*Align, Align, body) // starts both helpers
	h1, h2 := p.helpers[0], p.helpers[1]
	waitAsleep(t, h1)
	waitAsleep(t, h2)

	p.Wake(1) // a loop of one worker has no helper
	if !h1.sleeping.Load() || !h2.sleeping.Load() {
		t.Fatal("Wake(1) woke a helper")
	}
	p.Wake(2) // the first helper alone
	if h1.sleeping.Load() || !h2.sleeping.Load() {
		t.Fatalf("after Wake(2): helpers asleep %v, %v; want false, true", h1.sleeping.Load(), h2.sleeping.Load())
	}
	for deadline := time.Now().Add(10 * time.Second); len(h1.wake) != 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the woken helper never took its token")
		}
	}
	waitAsleep(t, h1) // it spins, then sleeps again

	// A spinning helper's spin starts again at a Wake: 3/4 of a spin
	// after the loop, a Wake keeps it awake past the loop's spin.
	p.Ordered(3*Align, Align, body)
	time.Sleep(spin * 3 / 4)
	awake := !h1.sleeping.Load()
	p.Wake(3)
	time.Sleep(spin / 2)
	if awake && h1.sleeping.Load() {
		t.Error("a helper spinning at a Wake slept within half a spin of it")
	}

	p.Close()
	p.Wake(3) // closed: nothing happens
	if n := len(h1.wake) + len(h2.wake); n != 0 {
		t.Fatalf("Wake after Close sent %d tokens", n)
	}
}
