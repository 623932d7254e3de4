package framework

import (
	"testing"

	"pgregory.net/rapid"
)

// TestPropIndexRun: IndexRun recognizes every view of the runner's index
// runs (with its first position) and nothing else: not an equal copy, not
// a view of another snapshot's runs, not an empty slice, and no run on a
// nil snapshot.
func TestPropIndexRun(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 40).Draw(t, "nodes")
		snap := MustSnapshot(testNodes(n), nil)
		if _, ok := snap.IndexRun([]int32{0}); ok {
			t.Fatalf("a run before the runs exist")
		}
		runs := snap.IndexRuns()
		k := rapid.IntRange(0, n-1).Draw(t, "first")
		m := rapid.IntRange(0, n).Draw(t, "len")
		view := runs[k : k+m : k+m]
		first, ok := snap.IndexRun(view)
		if ok != (m > 0) || ok && first != k {
			t.Fatalf("IndexRun(runs[%d:%d]) = %d, %v", k, k+m, first, ok)
		}
		for i, x := range view {
			if int(x) != (k+i)%n {
				t.Fatalf("runs[%d] = %d, want %d", k+i, x, (k+i)%n)
			}
		}
		if m > 0 {
			if _, ok := snap.IndexRun(append([]int32(nil), view...)); ok {
				t.Fatalf("a copy taken for a run")
			}
			other := MustSnapshot(testNodes(n), nil)
			other.IndexRuns()
			if _, ok := other.IndexRun(view); ok {
				t.Fatalf("another snapshot's run taken for a run")
			}
			var none *Snapshot
			if _, ok := none.IndexRun(view); ok {
				t.Fatalf("a run on a nil snapshot")
			}
		}
	})
}
