package looptest

import (
	"slices"
	"testing"
)

// TestSets: each pattern rejects what its name says in every set (the
// random ones within a few standard deviations of their share), and the
// random ones differ from set to set.
func TestSets(t *testing.T) {
	const sets, n = 4, 2000
	want := map[string][2]int{ // the least and most rejected nodes of a set
		"none": {0, 0}, "random-5%": {50, 150}, "random-30%": {500, 700},
		"random-50%": {900, 1100}, "every-third": {666, 667}, "all": {n, n},
	}
	for _, p := range Standard(InTurn("every-third", func(i int) bool { return i%3 == 1 })) {
		vs := p.Sets(sets, n)
		for s, v := range vs {
			rejected := 0
			for i, x := range v {
				if x {
					rejected++
				}
				if p.Name == "every-third" && x != (i%3 == 1) {
					t.Fatalf("%s, set %d: node %d rejected %v", p.Name, s, i, x)
				}
			}
			if w := want[p.Name]; rejected < w[0] || rejected > w[1] {
				t.Fatalf("%s, set %d: %d of %d rejected, want %d to %d", p.Name, s, rejected, n, w[0], w[1])
			}
		}
		if p.Name == "random-30%" && slices.Equal(vs[0], vs[1]) {
			t.Fatalf("%s: two sets alike", p.Name)
		}
	}
}
