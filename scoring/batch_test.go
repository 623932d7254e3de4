package scoring

import (
	"math"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestPropBatchMapValues: batchMapValues gives every score f of it, as a
// plain loop does, for narrow ranges (the table), wide ones (the memo,
// with values colliding in its slots, negative ones among them) and
// rows where hi < lo (nothing changes).
func TestPropBatchMapValues(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		spread := rapid.SampledFrom([]int64{1, 10, batchTableMax, 5000, 1 << 40}).Draw(t, "spread")
		base := rapid.Int64Range(-1<<20, 1<<20).Draw(t, "base")
		n := rapid.IntRange(0, 300).Draw(t, "n")
		scores := make([]int64, n)
		for i := range scores {
			// Values a multiple of batchMemoSlots apart share a slot.
			v := base + rapid.Int64Range(0, spread-1).Draw(t, "offset")
			if rapid.IntRange(0, 3).Draw(t, "collide") == 0 {
				v = base + batchMemoSlots*rapid.Int64Range(0, 3).Draw(t, "k")
			}
			scores[i] = v
		}
		lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
		for _, v := range scores {
			lo, hi = min(lo, v), max(hi, v)
		}
		f := func(v int64) int64 { return 7*v/3 - 1 }
		want := make([]int64, n)
		for i, v := range scores {
			want[i] = 7*v/3 - 1
		}
		got := slices.Clone(scores)
		ok := MapRow(got, lo, hi, f)
		if ok != (n > 0) {
			t.Fatalf("mapped = %v for %d scores", ok, n)
		}
		if !ok {
			want = scores
		}
		if !slices.Equal(got, want) {
			t.Fatalf("got %v, want %v", got, want)
		}
	})
}
