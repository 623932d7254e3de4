package slicepool

import "testing"

func TestPoolTake(t *testing.T) {
	tests := []struct {
		name string
		pool *Pool[uint64]
		n    int
		// recycled: the slice handed back is taken again (sync.Pool keeps
		// it while no GC runs, except under the race detector, which
		// drops some at random).
		recycled bool
	}{
		{"nil pool", nil, 100, false},
		{"below the default threshold", &Pool[uint64]{}, MinBytes/8 - 1, false},
		{"at the default threshold", &Pool[uint64]{}, MinBytes / 8, true},
		{"own threshold", &Pool[uint64]{SmallestBytes: 8}, 1, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.pool.Take(tc.n)
			if len(b) != tc.n {
				t.Fatalf("Take(%d) has length %d", tc.n, len(b))
			}
			b[0] = 7
			tc.pool.Put(b)
			c := tc.pool.Take(tc.n)
			if len(c) != tc.n {
				t.Fatalf("Take(%d) after Put has length %d", tc.n, len(c))
			}
			if got := c[0] == 7; got != tc.recycled && !(raceEnabled && !got) {
				t.Fatalf("recycled = %v, want %v", got, tc.recycled)
			}
		})
	}
}

// TestPoolRecyclesWithoutAllocating: once a slice is in the pool, taking
// it and handing it back allocates nothing, its holder included.
func TestPoolRecyclesWithoutAllocating(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop items at random")
	}
	var p Pool[uint64]
	p.Put(p.Take(MinBytes / 8))
	if allocs := testing.AllocsPerRun(100, func() { p.Put(p.Take(MinBytes / 8)) }); allocs != 0 {
		t.Fatalf("a Take and a Put of a recycled slice allocated %v times", allocs)
	}
}

// TestPoolKeepsSizesApart: slices of a few values and of many, recycled
// in turn, are each taken again without allocating: a small one handed
// back last is not what a large Take finds.
func TestPoolKeepsSizesApart(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop items at random")
	}
	var p Pool[uint64]
	const small, large = MinBytes / 8, 5000
	p.Put(p.Take(small))
	p.Put(p.Take(large))
	allocs := testing.AllocsPerRun(100, func() {
		b := p.Take(large)
		c := p.Take(small)
		p.Put(c)
		p.Put(b)
	})
	if allocs != 0 {
		t.Fatalf("taking and handing back a slice of %d and one of %d allocated %v times", large, small, allocs)
	}
	for _, n := range []int{small, small + 1, 2*small - 1, 2 * small, large - 1, large} {
		if b := p.Take(n); len(b) != n {
			t.Fatalf("Take(%d) has length %d", n, len(b))
		} else {
			p.Put(b)
		}
	}
}
