package noderesources

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/fastpath"
	"pgregory.net/rapid"
)

// TestPropShortNodes: nrfShortNodes and nrfShortNodes2 keep exactly the
// positions of the nodes short of a pod slot, cpu, memory (or ephemeral
// storage), in order, whichever loop the first nodes choose for the rest:
// short nodes drawn rare, common or everywhere, free amounts and requests
// at the int64 extremes among them.
func TestPropShortNodes(t *testing.T) {
	// Runs whose short nodes past the first nrfProbe went through each loop.
	var sparse, dense int
	rapid.Check(t, func(t *rapid.T) {
		// The shape comes from rapid; where the short nodes fall, from a
		// source it seeds (rapid favours the first of its choices, which
		// would leave the short nodes too rare or too common).
		r := rand.New(rand.NewPCG(rapid.Uint64().Draw(t, "seed"), 1))
		n := []int{0, 1, 63, 64, 65, 130, 400}[r.IntN(7)]
		percent := []int{0, 2, 6, 30, 100}[r.IntN(5)]
		amounts := []int64{math.MinInt64, -1 << 40, -5, -1, 0, 1, 5, 1 << 40, math.MaxInt64}
		amount := func() int64 { return amounts[r.IntN(len(amounts))] }
		free := make([]framework.NodeFree, n)
		for i := range free {
			free[i] = framework.NodeFree{Pods: 10, MilliCPU: 1 << 20, Memory: 1 << 40, EphemeralStorage: 1 << 40}
			switch f := &free[i]; {
			case r.IntN(100) >= percent:
			case r.IntN(2) == 0: // every amount drawn
				*f = framework.NodeFree{Pods: amount(), MilliCPU: amount(), Memory: amount(), EphemeralStorage: amount()}
			default: // one amount drawn, the others roomy
				*[]*int64{&f.Pods, &f.MilliCPU, &f.Memory, &f.EphemeralStorage}[r.IntN(4)] = amount()
			}
		}
		var idx []int32
		for i := range n {
			if r.IntN(4) > 0 {
				idx = append(idx, int32(i))
			}
		}
		req := func() int64 { return nrfChecked([]int64{0, 1, 1 << 20, math.MaxInt64}[r.IntN(4)]) }
		cpu, mem, eph := req(), req(), req()
		var want, want2 []int32
		for i, k := range idx {
			f := free[k]
			if f.Pods <= 0 || cpu > f.MilliCPU || mem > f.Memory {
				want2 = append(want2, int32(i))
				want = append(want, int32(i))
			} else if eph > f.EphemeralStorage {
				want = append(want, int32(i))
			}
		}
		if len(want2) > 0 && int(want2[len(want2)-1]) >= nrfProbe {
			short := 0 // among the first nrfProbe
			for _, p := range want2 {
				if int(p) < nrfProbe {
					short++
				}
			}
			if nrfSparse(short, min(len(idx), nrfProbe)) {
				sparse++
			} else {
				dense++
			}
		}
		positions := func(out []fastpath.NodeRejection, k int) []int32 {
			var got []int32
			for _, r := range out[:k] {
				got = append(got, r.Node)
			}
			return got
		}
		out := make([]fastpath.NodeRejection, len(idx))
		if got := positions(out, nrfShortNodes(out, free, idx, cpu, mem, eph)); !slices.Equal(got, want) {
			t.Fatalf("nrfShortNodes = %v, want %v", got, want)
		}
		if got := positions(out, nrfShortNodes2(out, free, idx, cpu, mem)); !slices.Equal(got, want2) {
			t.Fatalf("nrfShortNodes2 = %v, want %v", got, want2)
		}
	})
	if sparse == 0 || dense == 0 {
		t.Fatalf("short nodes past the first %d went through the sparse loop in %d runs, the dense one in %d: both should be tried", nrfProbe, sparse, dense)
	}
}
