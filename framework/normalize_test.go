package framework

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestPropDefaultNormalizeRange: the table DefaultNormalizeRange builds
// for a row's least and greatest score gives every score of the row what
// DefaultNormalizeScore gives it.
func TestPropDefaultNormalizeRange(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		row := rapid.SliceOfN(rapid.Int64Range(-50, 400), 1, 40).Draw(t, "row")
		reverse := rapid.Bool().Draw(t, "reverse")
		lo, hi := slices.Min(row), slices.Max(row)
		table := make([]int64, hi-lo+1)
		DefaultNormalizeRange(MaxNodeScore, reverse, lo, table)
		list := make(NodeScoreList, len(row))
		for j, v := range row {
			list[j].Score = v
		}
		if s := DefaultNormalizeScore(MaxNodeScore, reverse, list); !s.IsSuccess() {
			t.Fatalf("DefaultNormalizeScore: %v", s)
		}
		for j, v := range row {
			if got, want := table[v-lo], list[j].Score; got != want {
				t.Fatalf("score %d of row %v (reverse %v): table %d, DefaultNormalizeScore %d", v, row, reverse, got, want)
			}
		}
	})
}
