package scoring

import "math"

// RowBounds returns the least and greatest of scores (MaxInt64 and
// MinInt64 when it is empty): the bounds a fastpath.BoundedBatchScorePlugin
// reports where its batch took no path that tracks them.
func RowBounds(scores []int64) (lo, hi int64) {
	lo, hi = math.MaxInt64, math.MinInt64
	for _, v := range scores {
		lo, hi = min(lo, v), max(hi, v)
	}
	return lo, hi
}
