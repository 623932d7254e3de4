package parallel

import (
	"sync/atomic"
	"testing"

	"pgregory.net/rapid"
)

func TestChunkSize(t *testing.T) {
	for _, tc := range []struct{ n, workers, want int }{
		{0, 16, 1}, {1, 16, 1}, {100, 16, 7}, {5000, 16, 70}, {5000, 1, 70}, {10, 0, 3}, {30, 16, 2},
	} {
		if got := ChunkSize(tc.n, tc.workers); got != tc.want {
			t.Errorf("ChunkSize(%d, %d) = %d, want %d", tc.n, tc.workers, got, tc.want)
		}
	}
}

// TestPropOrderedPrefix: every index below the returned end is processed
// exactly once, none at or above it, and stopping early still returns a
// complete prefix that contains the chunk that asked to stop.
func TestPropOrderedPrefix(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 500).Draw(t, "n")
		workers := rapid.IntRange(1, 8).Draw(t, "workers")
		chunk := rapid.IntRange(1, 64).Draw(t, "chunk")
		stopAt := rapid.IntRange(-1, n).Draw(t, "stopAt")
		seen := make([]atomic.Int32, n)
		end := Ordered(workers, n, chunk, func(lo, hi int) bool {
			for i := lo; i < hi; i++ {
				seen[i].Add(1)
			}
			return stopAt >= lo && stopAt < hi
		})
		checkPrefix(t, seen, end, stopAt)
	})
}

// checkPrefix fails t unless seen (how many times each index was
// processed) shows a complete prefix [0, end), each index once, that
// contains stopAt when a chunk asked to stop there (stopAt in [0,
// len(seen))), else every index.
func checkPrefix(t *rapid.T, seen []atomic.Int32, end, stopAt int) {
	n := len(seen)
	if end < 0 || end > n {
		t.Fatalf("end %d outside [0,%d]", end, n)
	}
	for i := range n {
		c := seen[i].Load()
		if i < end && c != 1 || i >= end && c != 0 {
			t.Fatalf("index %d processed %d times with end %d", i, c, end)
		}
	}
	if stopAt < 0 || stopAt >= n {
		if end != n {
			t.Fatalf("no stop, end %d != n %d", end, n)
		}
	} else if end <= stopAt {
		t.Fatalf("stop requested at %d but end is %d", stopAt, end)
	}
}

func TestUntilVisitsAll(t *testing.T) {
	for _, workers := range []int{1, 2, 7} {
		var sum atomic.Int64
		Until(workers, 1000, func(i int) { sum.Add(int64(i)) })
		if sum.Load() != 999*1000/2 {
			t.Fatalf("workers %d: sum %d", workers, sum.Load())
		}
	}
}
