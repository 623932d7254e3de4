package framework

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestPropSplitEvaluated: splitEvaluated's split of the bitmap of
// rejected positions gives what the plain walk over the statuses gives — the end of the evaluated prefix
// (before the (want+1)-th feasible node or at the first error), the error,
// the feasible positions before it with their NodeInfos and snapshot
// indices, and the rejected positions before it — for any mix of
// statuses, round-robin start and candidate narrowing, whatever the
// Result's buffers held before.
func TestPropSplitEvaluated(t *testing.T) {
	snap := MustSnapshot(testNodes(40), nil)
	all := snap.Nodes()
	rej, fail := NewStatus(Unschedulable, "no"), NewStatus(Error, "boom")
	rapid.Check(t, func(t *rapid.T) {
		// Candidates: the snapshot's nodes, or some of them in any order.
		candidates, candIdx := all, []int32(nil)
		if rapid.Bool().Draw(t, "narrowed") {
			perm := rapid.Permutation(all).Draw(t, "perm")
			candidates = perm[:rapid.IntRange(1, len(perm)).Draw(t, "numCandidates")]
			for _, ni := range candidates {
				candIdx = append(candIdx, int32(ni.Index()))
			}
		}
		n := len(candidates)
		start := rapid.IntRange(0, n-1).Draw(t, "start")
		statuses := make([]*Status, rapid.IntRange(0, n).Draw(t, "end"))
		for p := range statuses {
			switch rapid.IntRange(0, 9).Draw(t, "status") {
			case 0, 1, 2:
				statuses[p] = rej
			case 3:
				if rapid.IntRange(0, 3).Draw(t, "error") == 0 {
					statuses[p] = fail
				}
			}
		}
		want := rapid.IntRange(1, n).Draw(t, "want")

		// The plain walk.
		wantCut, wantFailure := len(statuses), (*Status)(nil)
		var wantFeasible, wantRejected []int32
		for p, st := range statuses {
			if st == nil {
				if len(wantFeasible) == want {
					wantCut = p
					break
				}
				wantFeasible = append(wantFeasible, int32(p))
				continue
			}
			if st.Code() == Error {
				wantCut, wantFailure = p, st
				break
			}
			wantRejected = append(wantRejected, int32(p))
		}
		var wantNodes []*NodeInfo
		var wantIdx []int32
		for _, p := range wantFeasible {
			ni := candidates[(start+int(p))%n]
			wantNodes = append(wantNodes, ni)
			wantIdx = append(wantIdx, int32(ni.Index()))
		}

		r := &Result{snap: snap}
		// Stale contents from an earlier cycle must not leak through.
		r.feasible = make([]int32, 0, rapid.IntRange(0, 50).Draw(t, "capFeasible"))
		r.feasibleCache = slices.Repeat([]*NodeInfo{all[0]}, rapid.IntRange(0, 50).Draw(t, "capNodes"))[:0]
		r.feasibleBuf = make([]int32, 0, rapid.IntRange(0, 50).Draw(t, "capIdx"))
		mayFail := slices.Contains(statuses, fail) || rapid.Bool().Draw(t, "mayFail")
		// The bitmap of rejected positions, with stale bits past the end
		// and stale statuses at the positions without a bit.
		bitmap := make([]uint64, (len(statuses)+63)/64+1)
		for i := range bitmap {
			bitmap[i] = rapid.Uint64().Draw(t, "staleBits")
		}
		given := slices.Clone(statuses)
		for p := range len(statuses) {
			bitmap[p/64] &^= 1 << (p % 64)
			if statuses[p] != nil {
				bitmap[p/64] |= 1 << (p % 64)
			} else if rapid.Bool().Draw(t, "staleStatus") {
				given[p] = fail
			}
		}
		list := rapid.Bool().Draw(t, "listRejected")
		cut, failure, rejected := r.splitEvaluated(bitmap, given, len(statuses), want, mayFail, candidates, candIdx, start, list, nil)
		if !list {
			wantRejected = nil
		}
		if cut != wantCut || failure != wantFailure {
			t.Fatalf("cut %d failure %v, want %d %v", cut, failure, wantCut, wantFailure)
		}
		if !slices.Equal(wantFeasible, r.feasible) {
			t.Fatalf("feasible %v, want %v", r.feasible, wantFeasible)
		}
		if !slices.Equal(wantRejected, rejected) {
			t.Fatalf("rejected %v, want %v", rejected, wantRejected)
		}
		if !slices.Equal(wantNodes, r.feasibleNodes()) {
			t.Fatalf("feasible nodes differ")
		}
		if !slices.Equal(wantIdx, r.feasibleIndices()) {
			t.Fatalf("feasible indices %v, want %v", r.feasibleIndices(), wantIdx)
		}
	})
}
