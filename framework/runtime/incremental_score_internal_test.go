package runtime

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestPropBounds: bounds gives the least and greatest entry of any row,
// whatever its length (the four-at-a-time loop and its tail).
func TestPropBounds(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		row := rapid.SliceOfN(rapid.Int64(), 1, 40).Draw(t, "row")
		lo, hi := bounds(row)
		if lo != slices.Min(row) || hi != slices.Max(row) {
			t.Fatalf("bounds %d %d, want %d %d", lo, hi, slices.Min(row), slices.Max(row))
		}
	})
}
