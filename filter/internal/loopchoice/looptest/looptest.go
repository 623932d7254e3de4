// Package looptest draws the node verdicts the filters' loop benchmarks
// time (BenchmarkShortNodeLoops, BenchmarkUnmatchedLoops,
// BenchmarkRejectedNodeLoops): none rejected, all, a share at random, or
// a pattern repeating with a period, as a zone or a pool listed in turn
// with the others.
package looptest

import (
	"fmt"
	"math/rand/v2"
)

// Pattern is a named rule for which nodes a filter rejects.
type Pattern struct {
	Name   string
	reject func(r *rand.Rand, i int) bool
}

// Random rejects pct percent of the nodes, at random positions.
func Random(pct int) Pattern {
	return Pattern{fmt.Sprintf("random-%d%%", pct), func(r *rand.Rand, _ int) bool { return r.IntN(100) < pct }}
}

// InTurn rejects node i when rejected(i): a pattern repeating with a
// period, which a branch predictor learns.
func InTurn(name string, rejected func(i int) bool) Pattern {
	return Pattern{name, func(_ *rand.Rand, i int) bool { return rejected(i) }}
}

// Standard returns the patterns a loop benchmark times: none rejected,
// 5, 30 and 50 % at random, inTurn, and all.
func Standard(inTurn Pattern) []Pattern {
	return []Pattern{
		{"none", func(*rand.Rand, int) bool { return false }},
		Random(5), Random(30), Random(50),
		inTurn,
		{"all", func(*rand.Rand, int) bool { return true }},
	}
}

// Sets returns sets sets of n verdicts each (true: rejected), drawn from
// a source seeded by the pattern's name: a benchmark reads another set
// each call, so that the branch predictor cannot learn random positions.
func (p Pattern) Sets(sets, n int) [][]bool {
	r := rand.New(rand.NewPCG(uint64(len(p.Name)), 1))
	out := make([][]bool, sets)
	for s := range out {
		out[s] = make([]bool, n)
		for i := range out[s] {
			out[s][i] = p.reject(r, i)
		}
	}
	return out
}
