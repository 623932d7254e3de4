package tainttoleration

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/schedkit/schedkit/filter/internal/loopchoice"
	"github.com/schedkit/schedkit/filter/internal/loopchoice/looptest"
	"github.com/schedkit/schedkit/framework/fastpath"
	"pgregory.net/rapid"
)

// ttPositions returns the positions the first n entries of out name.
func ttPositions(out []fastpath.NodeRejection, n int) []int32 {
	var p []int32
	for _, r := range out[:n] {
		p = append(p, r.Node)
	}
	return p
}

// ttWantRejected is the positions i of the nodes idx[i] whose class has
// its bit set in rej, found one by one.
func ttWantRejected(class, idx []int32, rej uint64) []int32 {
	var want []int32
	for i, k := range idx {
		if rej&(1<<class[k]) != 0 {
			want = append(want, int32(i))
		}
	}
	return want
}

// TestPropRejectedNodeLoops: ttRejectedNodes lists exactly the positions
// of the nodes whose taint class is rejected, in order, whichever loop
// the first nodes choose: classes drawn at random or repeating with a
// period, any rejected set of classes, lists of any length and nodes in
// any order.
func TestPropRejectedNodeLoops(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := rand.New(rand.NewPCG(rapid.Uint64().Draw(t, "seed"), 3))
		nodes := []int{1, 63, 64, 65, 200, 600}[r.IntN(6)]
		classes := 1 + r.IntN(8)
		class := make([]int32, nodes)
		period, periodic := 1+r.IntN(6), r.IntN(3) == 0
		for k := range class {
			if periodic {
				class[k] = int32(k % period % classes)
			} else {
				class[k] = int32(r.IntN(classes))
			}
		}
		rej := r.Uint64() & (1<<classes - 1)
		idx := make([]int32, 0, nodes)
		for k := range nodes {
			if r.IntN(5) > 0 {
				idx = append(idx, int32(k))
			}
		}
		if r.IntN(2) == 0 {
			r.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
		}
		out := make([]fastpath.NodeRejection, len(idx))
		if got, want := ttPositions(out, ttRejectedNodes(out, class, idx, rej)), ttWantRejected(class, idx, rej); !slices.Equal(got, want) {
			t.Fatalf("ttRejectedNodes = %v, want %v", got, want)
		}
	})
}

// TestRejectedNodeLoopChoice: the rejections among the first nodes choose
// the branching loop for patterns a branch predictor learns (none
// tainted, all, a few, a tainted pool listed in turn) and the loop
// without a branch for tainted nodes scattered at random, and either
// keeps exactly the rejected nodes' positions past the probe.
func TestRejectedNodeLoopChoice(t *testing.T) {
	const n = 400
	r := rand.New(rand.NewPCG(13, 5))
	for _, tc := range []struct {
		name    string
		tainted func(k int) bool
		sparse  bool
	}{
		{"none", func(int) bool { return false }, true},
		{"all", func(int) bool { return true }, true},
		{"one in forty", func(k int) bool { return k%40 == 9 }, true},
		{"one pool of four, in turn", func(k int) bool { return k%4 == 2 }, true},
		{"a third, at random", func(int) bool { return r.IntN(3) == 0 }, false},
		{"half, at random", func(int) bool { return r.IntN(2) == 0 }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			class, idx := make([]int32, n), make([]int32, n)
			var mask uint64
			for k := range class {
				idx[k] = int32(k)
				if tc.tainted(k) {
					class[k] = 1 // class 1: rejected
					if k < loopchoice.Probe {
						mask |= 1 << k
					}
				}
			}
			if got := loopchoice.Predictable(mask, loopchoice.Probe); got != tc.sparse {
				t.Fatalf("loopchoice.Predictable(%064b) = %v, want %v", mask, got, tc.sparse)
			}
			out := make([]fastpath.NodeRejection, n)
			if got, want := ttPositions(out, ttRejectedNodes(out, class, idx, 2)), ttWantRejected(class, idx, 2); !slices.Equal(got, want) {
				t.Fatalf("ttRejectedNodes = %v, want %v", got, want)
			}
		})
	}
}

// BenchmarkRejectedNodeLoops times the filter's loops over 5,000 nodes,
// with none, 5–50 % at random, every fourth node (a tainted pool listed
// in turn) or all of the nodes in a rejected taint class: branching
// writes only a rejected node's position, dense writes every position
// and keeps it by the verdict, and chosen is what the filter runs
// (ttRejectedNodes). Each call reads another of 64 sets of classes, so
// that the branch predictor cannot learn random positions.
func BenchmarkRejectedNodeLoops(b *testing.B) {
	const nodes, sets = 5000, 64
	idx := make([]int32, nodes)
	for i := range idx {
		idx[i] = int32(i)
	}
	out := make([]fastpath.NodeRejection, nodes)
	for _, p := range looptest.Standard(looptest.InTurn("pool-in-turn", func(i int) bool { return i%4 == 2 })) {
		pattern := p.Name
		classes := make([][]int32, sets)
		for s, v := range p.Sets(sets, nodes) {
			classes[s] = make([]int32, nodes)
			for i, tainted := range v {
				if tainted {
					classes[s][i] = 1
				}
			}
		}
		for _, loop := range []struct {
			name string
			run  func(class []int32) int
		}{
			{"branching", func(class []int32) int { return ttRejectedSparse(out, class, idx, 0, 2) }},
			{"dense", func(class []int32) int { return ttRejectedDense(out, class, idx, 0, 2) }},
			{"chosen", func(class []int32) int { return ttRejectedNodes(out, class, idx, 2) }},
		} {
			b.Run(pattern+"/"+loop.name, func(b *testing.B) {
				s, n := 0, 0
				for b.Loop() {
					s++
					n += loop.run(classes[s%sets])
				}
				if pattern == "none" && n != 0 {
					b.Fatalf("%d rejected, want none", n)
				}
			})
		}
	}
}
