// Package parallel runs per-node loops over chunks of indices on a fixed
// number of workers, with results written by index so that the outcome never
// depends on goroutine scheduling.
package parallel

import (
	"context"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
)

// ChunkSize returns kube-scheduler's chunk size for n items on workers:
// max(1, min(⌊√n⌋, n/workers+1)).
func ChunkSize(n, workers int) int {
	if workers < 1 {
		workers = 1
	}
	s := int(math.Sqrt(float64(n)))
	if r := n/workers + 1; s > r {
		s = r
	}
	return max(s, 1)
}

// Ordered calls fn(lo, hi) for consecutive chunks [lo, hi) of [0, n),
// claiming chunks in increasing order. When fn returns true, no further
// chunk is claimed, but chunks already claimed finish. It returns the end of
// the processed prefix: every index below it was processed, none above it.
// It starts a goroutine per worker, at most GOMAXPROCS of them, each
// time (Pool keeps its workers from loop to loop); with one worker it runs
// inline on the caller's goroutine. A panic in fn stops the loop and is
// raised again on the caller's goroutine once every worker has returned.
func Ordered(workers, n, chunk int, fn func(lo, hi int) (stop bool)) int {
	if n <= 0 {
		return 0
	}
	if chunk < 1 {
		chunk = 1
	}
	if workers > 1 {
		workers = min(workers, runtime.GOMAXPROCS(0))
	}
	if workers <= 1 || n <= chunk {
		for lo := 0; lo < n; lo += chunk {
			hi := min(lo+chunk, n)
			if fn(lo, hi) {
				return hi
			}
		}
		return n
	}
	var next atomic.Int64
	var stopped atomic.Bool
	var end atomic.Int64
	numChunks := (n + chunk - 1) / chunk
	workers = min(workers, numChunks)
	var wg sync.WaitGroup
	var panicOnce sync.Once
	var panicked any
	hasPanic := false
	wg.Add(workers)
	for w := 0; w < workers; w++ {
		go func() {
			defer wg.Done()
			defer func() {
				if v := recover(); v != nil {
					panicOnce.Do(func() { panicked, hasPanic = v, true })
					stopped.Store(true)
				}
			}()
			for !stopped.Load() {
				c := int(next.Add(1) - 1)
				if c >= numChunks {
					return
				}
				lo := c * chunk
				hi := min(lo+chunk, n)
				for {
					cur := end.Load()
					if int64(hi) <= cur || end.CompareAndSwap(cur, int64(hi)) {
						break
					}
				}
				if fn(lo, hi) {
					stopped.Store(true)
				}
			}
		}()
	}
	wg.Wait()
	if hasPanic {
		panic(panicked)
	}
	return int(end.Load())
}

// Until calls fn(i) for every i in [0, n) on up to workers goroutines.
func Until(workers, n int, fn func(i int)) {
	Ordered(workers, n, ChunkSize(n, workers), func(lo, hi int) bool {
		for i := lo; i < hi; i++ {
			fn(i)
		}
		return false
	})
}

// Pieces calls piece(i) for i in [lo, hi) while done is open, and reports
// whether done closed first: the chunk of a loop that a context cuts
// short, as kube's ParallelizeUntil checks its context before each piece.
func Pieces(done <-chan struct{}, lo, hi int, piece func(i int)) (stopped bool) {
	if done == nil { // a context that is never done
		for i := lo; i < hi; i++ {
			piece(i)
		}
		return false
	}
	for i := lo; i < hi; i++ {
		select {
		case <-done:
			return true
		default:
		}
		piece(i)
	}
	return false
}

// DoneOf returns ctx.Done(), nil (never done) for a nil ctx.
func DoneOf(ctx context.Context) <-chan struct{} {
	if ctx == nil {
		return nil
	}
	return ctx.Done()
}
