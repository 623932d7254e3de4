package loopchoice

import (
	"math/rand/v2"
	"testing"

	"github.com/schedkit/schedkit/framework/fastpath"
	"pgregory.net/rapid"
)

// maskOf sets bit k of the first head bits for each k that reject
// returns true for.
func maskOf(head int, reject func(k int) bool) uint64 {
	var m uint64
	for k := range head {
		if reject(k) {
			m |= 1 << k
		}
	}
	return m
}

// TestPredictable: rare, nearly universal and short-period rejections are
// predictable; rejections at random, or repeating with a period above
// eight, or a period broken too often, are not.
func TestPredictable(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 9))
	for _, tc := range []struct {
		name   string
		head   int
		reject func(k int) bool
		want   bool
	}{
		{"none", 64, func(int) bool { return false }, true},
		{"all", 64, func(int) bool { return true }, true},
		{"four of 64", 64, func(k int) bool { return k%16 == 3 }, true},
		{"all but four of 64", 64, func(k int) bool { return k%16 != 3 }, true},
		{"five of 64 at the start", 64, func(k int) bool { return k < 5 }, true},                            // one run: period 1 but for one change
		{"twenty at the start", 64, func(k int) bool { return k < 20 }, true},                               // one change in 63
		{"two zones of three, in turn", 64, func(k int) bool { return k%3 != 0 }, true},                     // period 3
		{"one of eight, in turn", 64, func(k int) bool { return k%8 == 5 }, true},                           // period 8
		{"one of nine, in turn", 64, func(k int) bool { return k%9 == 5 }, false},                           // period 9, 7 of 64
		{"every other, the last broken", 64, func(k int) bool { return k%2 == 0 != (k == 63) }, true},       // one break of 62
		{"every other, broken in the middle", 64, func(k int) bool { return k%2 == 0 != (k == 40) }, false}, // two of 62
		{"half at random", 64, func(int) bool { return r.IntN(2) == 0 }, false},
		{"a third at random", 64, func(int) bool { return r.IntN(3) == 0 }, false},
		{"a short probe, alternating", 10, func(k int) bool { return k%2 == 0 }, true},
		{"one node, rejected", 1, func(int) bool { return true }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := maskOf(tc.head, tc.reject)
			if got := Predictable(m, tc.head); got != tc.want {
				t.Fatalf("Predictable(%064b, %d) = %v, want %v", m, tc.head, got, tc.want)
			}
		})
	}
}

// TestPropPredictableComplement: a pattern and its complement (the
// accepted nodes in place of the rejected ones) are equally predictable,
// and bits above head do not count.
func TestPropPredictableComplement(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		head := rapid.IntRange(1, 64).Draw(t, "head")
		valid := ^uint64(0) >> (64 - head)
		m := rapid.Uint64().Draw(t, "mask") & valid
		above := rapid.Uint64().Draw(t, "above") &^ valid
		got := Predictable(m, head)
		if c := Predictable(^m&valid, head); c != got {
			t.Fatalf("Predictable(%064b) = %v but its complement %v", m, got, c)
		}
		if a := Predictable(m|above, head); a != got {
			t.Fatalf("bits above head %d changed Predictable(%064b) from %v to %v", head, m, got, a)
		}
	})
}

// TestMask: the positions of a rejection list become the bits of its
// mask, each position below 64 once.
func TestMask(t *testing.T) {
	rl := []fastpath.NodeRejection{{Node: 0}, {Node: 5}, {Node: 63}}
	if got, want := Mask(rl), uint64(1|1<<5|1<<63); got != want {
		t.Fatalf("Mask = %064b, want %064b", got, want)
	}
	if got := Mask(nil); got != 0 {
		t.Fatalf("Mask(nil) = %064b, want 0", got)
	}
}
