package nodeaffinity

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/schedkit/schedkit/filter/internal/loopchoice"
	"github.com/schedkit/schedkit/filter/internal/loopchoice/looptest"
	"github.com/schedkit/schedkit/framework/fastpath"
	"pgregory.net/rapid"
)

// naPositions returns the positions the first n entries of out name.
func naPositions(out []fastpath.NodeRejection, n int) []int32 {
	var p []int32
	for _, r := range out[:n] {
		p = append(p, r.Node)
	}
	return p
}

// TestPropUnmatchedLoops: naUnmatched and naUnmatchedBits list exactly the
// positions of the nodes their table or bitmap rejects, in order,
// whichever loop the first nodes choose: verdicts drawn rare, common,
// everywhere or repeating with a period, over lists of any length and
// nodes in any order.
func TestPropUnmatchedLoops(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := rand.New(rand.NewPCG(rapid.Uint64().Draw(t, "seed"), 2))
		nodes := []int{1, 63, 64, 65, 200, 600}[r.IntN(6)]
		values := 1 + r.IntN(6)
		domain := make([]int32, nodes)
		period := 1 + r.IntN(5)
		periodic := r.IntN(3) == 0
		for k := range domain {
			if periodic {
				domain[k] = int32(k % period % values)
			} else {
				domain[k] = int32(r.IntN(values+1)) - 1 // −1: no value for the key
			}
		}
		// Each value passes with a chance of 0, 1/4, 3/4 or 1.
		pass := make([]bool, values+1)
		least := []int{0, 1, 3, 4}[r.IntN(4)]
		for v := range pass {
			pass[v] = r.IntN(4) >= least
		}
		bits := make([]uint64, (nodes+63)/64)
		for k := range domain {
			if pass[domain[k]+1] {
				bits[k>>6] |= 1 << (k & 63)
			}
		}
		idx := make([]int32, 0, nodes)
		for k := range nodes {
			if r.IntN(5) > 0 {
				idx = append(idx, int32(k))
			}
		}
		if r.IntN(2) == 0 {
			r.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
		}
		var want []int32
		for i, k := range idx {
			if !pass[domain[k]+1] {
				want = append(want, int32(i))
			}
		}
		out := make([]fastpath.NodeRejection, len(idx))
		if got := naPositions(out, naUnmatched(out, idx, domain, pass)); !slices.Equal(got, want) {
			t.Fatalf("naUnmatched = %v, want %v", got, want)
		}
		if got := naPositions(out, naUnmatchedBits(out, idx, bits)); !slices.Equal(got, want) {
			t.Fatalf("naUnmatchedBits = %v, want %v", got, want)
		}
	})
}

// b2i is 1 for true and 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestUnmatchedLoopChoice: the rejections among the first nodes choose
// the branching loop for patterns a branch predictor learns (none, all,
// rare, nearly all, repeating with a period up to eight) and the loop
// without a branch for rejections scattered at random, and either keeps
// exactly the rejected nodes' positions past the probe.
func TestUnmatchedLoopChoice(t *testing.T) {
	const n = 400
	r := rand.New(rand.NewPCG(11, 3))
	for _, tc := range []struct {
		name   string
		reject func(k int) bool
		sparse bool
	}{
		{"none", func(int) bool { return false }, true},
		{"all", func(int) bool { return true }, true},
		{"one in thirty", func(k int) bool { return k%30 == 7 }, true},
		{"all but one in thirty", func(k int) bool { return k%30 != 7 }, true},
		{"two zones of three, in turn", func(k int) bool { return k%3 != 0 }, true},
		{"one of eight, in turn", func(k int) bool { return k%8 == 5 }, true},
		{"half, at random", func(int) bool { return r.IntN(2) == 0 }, false},
		{"a third, at random", func(int) bool { return r.IntN(3) == 0 }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			domain := make([]int32, n)
			idx := make([]int32, n)
			var want []int32
			var mask uint64
			for k := range domain {
				idx[k] = int32(k)
				if tc.reject(k) {
					domain[k] = 1 // value 1: rejected
					want = append(want, int32(k))
					if k < loopchoice.Probe {
						mask |= 1 << k
					}
				}
			}
			pass := []bool{false, true, false}
			if got := loopchoice.Predictable(mask, loopchoice.Probe); got != tc.sparse {
				t.Fatalf("loopchoice.Predictable(%064b) = %v, want %v", mask, got, tc.sparse)
			}
			out := make([]fastpath.NodeRejection, n)
			if got := naPositions(out, naUnmatched(out, idx, domain, pass)); !slices.Equal(got, want) {
				t.Fatalf("naUnmatched = %v, want %v", got, want)
			}
		})
	}
}

// BenchmarkUnmatchedLoops times the filter's loops over 5,000 nodes for a
// single expression, with the rejected nodes scattered at random (each
// call reads another of 64 sets of values, so that the branch predictor
// cannot learn them) or repeating every three nodes (a zone of three
// listed in turn): sparse branches on each node, dense writes every
// position and keeps the rejected ones by the count, and chosen is what
// the filter runs (naUnmatched).
func BenchmarkUnmatchedLoops(b *testing.B) {
	const nodes, sets = 5000, 64
	idx := make([]int32, nodes)
	for i := range idx {
		idx[i] = int32(i)
	}
	pass := []bool{false, true, false}
	out := make([]fastpath.NodeRejection, nodes)
	for _, p := range looptest.Standard(looptest.InTurn("zones-in-turn", func(k int) bool { return k%3 != 0 })) {
		pattern := p.Name
		domains := make([][]int32, sets)
		for s, v := range p.Sets(sets, nodes) {
			d := make([]int32, nodes)
			for k, rej := range v {
				d[k] = int32(b2i(rej))
			}
			domains[s] = d
		}
		for _, loop := range []struct {
			name string
			run  func(domain []int32) int
		}{
			{"sparse", func(domain []int32) int { return naUnmatchedSparse(out, idx, 0, domain, pass) }},
			{"dense", func(domain []int32) int { return naUnmatchedDense(out, idx, 0, domain, pass) }},
			{"chosen", func(domain []int32) int { return naUnmatched(out, idx, domain, pass) }},
		} {
			b.Run(pattern+"/"+loop.name, func(b *testing.B) {
				n := 0
				for i := 0; b.Loop(); i++ {
					n += loop.run(domains[i%sets])
				}
				if pattern == "none" && n != 0 {
					b.Fatalf("%d rejected, want none", n)
				}
			})
		}
	}
}
