package parallel

import (
	"runtime"
	"slices"
	"sync/atomic"
	"time"
)

// RoundTrip measures the machine's handoff between two cores: two
// goroutines, each on an OS thread of its own, pass a counter back and
// forth through one cache line trips times, in rounds; it returns the
// median time of a round trip. Every join of a parallel loop pays about
// one, and every cache line one worker writes and another reads pays
// part of one, so the ratio of a loop's time on two workers to one
// follows it. It returns 0 when GOMAXPROCS is below 2 (the goroutines
// could not spin at the same time).
func RoundTrip(trips int) time.Duration {
	if runtime.GOMAXPROCS(0) < 2 || trips < 1 {
		return 0
	}
	const rounds = 5
	var line struct {
		_ cacheLine
		v atomic.Int64
		_ cacheLine
	}
	times := make([]time.Duration, rounds)
	for r := range times {
		line.v.Store(0)
		done := make(chan struct{})
		go func() {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			for i := int64(1); i < 2*int64(trips); i += 2 {
				for line.v.Load() != i {
				}
				line.v.Store(i + 1)
			}
			close(done)
		}()
		runtime.LockOSThread()
		t0 := time.Now()
		for i := int64(0); i < 2*int64(trips); i += 2 {
			for line.v.Load() != i {
			}
			line.v.Store(i + 1)
		}
		<-done
		times[r] = time.Since(t0) / time.Duration(trips)
		runtime.UnlockOSThread()
	}
	slices.Sort(times)
	return times[rounds/2]
}
