package framework

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestMakeWrittenIsZeroed checks that makeWritten returns n zero elements,
// as make does, for element sizes below, at and above the stride's
// divisors and lengths around a page.
func TestMakeWrittenIsZeroed(t *testing.T) {
	type wide [3]int64
	for _, n := range []int{0, 1, 1023, 1024, 1025, 5000} {
		if s := makeWritten[int32](n); len(s) != n || slices.ContainsFunc(s, func(v int32) bool { return v != 0 }) {
			t.Errorf("makeWritten[int32](%d): len %d, want %d zeros", n, len(s), n)
		}
		if s := makeWritten[uint64](n); len(s) != n || slices.ContainsFunc(s, func(v uint64) bool { return v != 0 }) {
			t.Errorf("makeWritten[uint64](%d): len %d, want %d zeros", n, len(s), n)
		}
		if s := makeWritten[wide](n); len(s) != n || slices.ContainsFunc(s, func(v wide) bool { return v != wide{} }) {
			t.Errorf("makeWritten[wide](%d): len %d, want %d zeros", n, len(s), n)
		}
	}
}

// TestPropPageStoresReachEveryPage checks that, wherever an array starts
// (an address aligned to its element size), every page it spans holds an
// element pageStores stores at, and that each index is in range and
// stored once.
func TestPropPageStoresReachEveryPage(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		size := rapid.SampledFrom([]int{1, 2, 4, 8, 12, 16, 24, 40, 4096, 6000}).Draw(t, "size")
		n := rapid.IntRange(0, 3*pageStride).Draw(t, "n")
		align := min(size&-size, 8) // the element's alignment: a power of two up to 8
		base := rapid.IntRange(0, 2*pageStride/align).Draw(t, "base") * align
		touched := map[int]bool{}
		seen := map[int]bool{}
		pageStores(n, size, func(i int) {
			if i < 0 || i >= n {
				t.Fatalf("index %d outside [0, %d)", i, n)
			}
			if seen[i] {
				t.Fatalf("index %d stored twice", i)
			}
			seen[i] = true
			// A store of the element writes each of its bytes.
			for p := (base + i*size) / pageStride; p <= (base+(i+1)*size-1)/pageStride; p++ {
				touched[p] = true
			}
		})
		if n == 0 {
			return
		}
		for p := base / pageStride; p <= (base+n*size-1)/pageStride; p++ {
			if !touched[p] {
				t.Fatalf("page %d of the array [%d, %d) holds no stored element", p, base, base+n*size)
			}
		}
	})
}

// TestMakeWrittenAllocatesOnlyTheArray checks that the page stores cost
// no allocation of their own (the store function stays on the stack): a
// new sum array is one allocation, as with make.
func TestMakeWrittenAllocatesOnlyTheArray(t *testing.T) {
	var sink []int64
	if a := testing.AllocsPerRun(50, func() { sink = makeWritten[int64](5000) }); a != 1 {
		t.Errorf("makeWritten[int64](5000): %v allocations, want 1", a)
	}
	if len(sink) != 5000 {
		t.Errorf("len %d, want 5000", len(sink))
	}
}
