package noderesources

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/schedkit/schedkit/filter/internal/loopchoice"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/fastpath"
	"pgregory.net/rapid"
)

// TestPropShortNodes: nrfShortNodes and nrfShortNodes2 keep exactly the
// positions of the nodes short of a pod slot, cpu, memory (or ephemeral
// storage), in order, whichever loop the first nodes choose for the rest:
// short nodes drawn rare, common or everywhere, free amounts and requests
// at the int64 extremes among them; the nodes any list of indices, or a
// run of them from any first node, wrapping past the last, which they
// read with first given and as a list.
func TestPropShortNodes(t *testing.T) {
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
		first := -1
		if n > 0 && r.IntN(2) == 0 {
			first = r.IntN(n)
			for i := range r.IntN(n + 1) {
				idx = append(idx, int32((first+i)%n))
			}
		} else {
			for i := range n {
				if r.IntN(4) > 0 {
					idx = append(idx, int32(i))
				}
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
		positions := func(out []fastpath.NodeRejection, k int) []int32 {
			var got []int32
			for _, r := range out[:k] {
				got = append(got, r.Node)
			}
			return got
		}
		out := make([]fastpath.NodeRejection, len(idx))
		for _, f := range []int{first, -1} {
			if got := positions(out, nrfShortNodes(out, free, testFreeMins(free), idx, f, cpu, mem, eph)); !slices.Equal(got, want) {
				t.Fatalf("nrfShortNodes (first %d) = %v, want %v", f, got, want)
			}
			if got := positions(out, nrfShortNodes2(out, free, testFreeMins(free), idx, f, cpu, mem)); !slices.Equal(got, want2) {
				t.Fatalf("nrfShortNodes2 (first %d) = %v, want %v", f, got, want2)
			}
		}
	})
}

// TestShortNodesEachLoop: the short nodes among the first
// loopchoice.Probe choose the loop for the rest (loopchoice.Predictable)
// as intended, and either loop keeps exactly the short nodes' positions
// past the probe: none short, one in three or four short at random (the
// dense loop), one short past the probe, all short, every one but one,
// and every fourth node (a period the branch predictor learns: the sparse
// loop; nrfShortNodes2, which does not look at ephemeral storage, sees
// none of them short).
func TestShortNodesEachLoop(t *testing.T) {
	roomy := framework.NodeFree{Pods: 10, MilliCPU: 4000, Memory: 1 << 30, EphemeralStorage: 1 << 30}
	r := rand.New(rand.NewPCG(7, 1))
	for _, tc := range []struct {
		name  string
		short func(i int) bool
		// The loop each function chooses; nrfShortNodes2 does not see
		// the nodes short of ephemeral storage alone (one in four).
		sparse, sparse2 bool
	}{
		{"none short", func(int) bool { return false }, true, true},
		{"one in three short", func(int) bool { return r.IntN(3) == 0 }, false, false},
		{"one short past the probe", func(i int) bool { return i == 300 }, true, true},
		// nrfShortNodes2 sees three nodes short in every four, in turn.
		{"all short", func(int) bool { return true }, true, true},
		{"all short but one", func(i int) bool { return i != 100 }, true, true},
		{"one in four short at random", func(int) bool { return r.IntN(4) == 0 }, false, false},
		{"every fourth short", func(i int) bool { return i%4 == 3 }, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const n = 400
			free := make([]framework.NodeFree, n)
			idx := make([]int32, n)
			var want, want2 []int32
			var probe, probe2 uint64 // the short nodes among the first loopchoice.Probe
			for i := range free {
				idx[i], free[i] = int32(i), roomy
				if tc.short(i) {
					// Short of cpu, memory, a slot or (for nrfShortNodes
					// alone) ephemeral storage, in turn.
					switch i % 4 {
					case 0:
						free[i].MilliCPU = 100
					case 1:
						free[i].Memory = 1
					case 2:
						free[i].Pods = 0
					default:
						free[i].EphemeralStorage = 1
					}
					want = append(want, int32(i))
					if i%4 != 3 {
						want2 = append(want2, int32(i))
					}
					if i < loopchoice.Probe {
						probe |= 1 << i
						if i%4 != 3 {
							probe2 |= 1 << i
						}
					}
				}
			}
			if got := loopchoice.Predictable(probe, loopchoice.Probe); got != tc.sparse {
				t.Fatalf("nrfShortNodes: loopchoice.Predictable(%064b) = %v, want %v", probe, got, tc.sparse)
			}
			if got := loopchoice.Predictable(probe2, loopchoice.Probe); got != tc.sparse2 {
				t.Fatalf("nrfShortNodes2: loopchoice.Predictable(%064b) = %v, want %v", probe2, got, tc.sparse2)
			}
			out := make([]fastpath.NodeRejection, n)
			got := func(k int) []int32 {
				var p []int32
				for _, r := range out[:k] {
					p = append(p, r.Node)
				}
				return p
			}
			for _, first := range []int{-1, 0} { // a list, and the run it is
				if g := got(nrfShortNodes(out, free, testFreeMins(free), idx, first, 500, 1<<20, 1<<20)); !slices.Equal(g, want) {
					t.Fatalf("nrfShortNodes (first %d) = %v, want %v", first, g, want)
				}
				if g := got(nrfShortNodes2(out, free, testFreeMins(free), idx, first, 500, 1<<20)); !slices.Equal(g, want2) {
					t.Fatalf("nrfShortNodes2 (first %d) = %v, want %v", first, g, want2)
				}
			}
		})
	}
}

// testFreeMins is Snapshot.FreeMins of free: each block's element-wise
// minimum.
func testFreeMins(free []framework.NodeFree) []framework.NodeFree {
	var out []framework.NodeFree
	for b := 0; b*framework.FreeBlock < len(free); b++ {
		m := free[b*framework.FreeBlock]
		for _, f := range free[b*framework.FreeBlock : min(len(free), (b+1)*framework.FreeBlock)] {
			m = framework.NodeFree{Pods: min(m.Pods, f.Pods), MilliCPU: min(m.MilliCPU, f.MilliCPU),
				Memory: min(m.Memory, f.Memory), EphemeralStorage: min(m.EphemeralStorage, f.EphemeralStorage)}
		}
		out = append(out, m)
	}
	return out
}
