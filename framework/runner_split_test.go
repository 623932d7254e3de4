package framework

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// TestPropSplitEvaluated: splitEvaluated's split of the bitmap of
// rejected positions gives what the plain walk over the statuses gives — the end of the evaluated prefix
// (before the (want+1)-th feasible node or at the first error), the error,
// the feasible positions before it with their NodeInfos (looked up
// afterwards, as often as asked) and snapshot indices, and the rejected
// positions before it — for any mix of
// statuses, round-robin start and candidate narrowing, whatever the
// Result's buffers held before; on 40 nodes, and on 300 with few
// rejections, so that whole words of feasible positions (copied as runs)
// occur, some wrapping round the candidates.
func TestPropSplitEvaluated(t *testing.T) {
	snaps := []*Snapshot{MustSnapshot(testNodes(40), nil), MustSnapshot(testNodes(300), nil)}
	rej, fail := NewStatus(Unschedulable, "no"), NewStatus(Error, "boom")
	rapid.Check(t, func(t *rapid.T) {
		large := rapid.Bool().Draw(t, "large")
		snap := snaps[0]
		if large {
			snap = snaps[1]
		}
		all := snap.Nodes()
		// Candidates: the snapshot's nodes, or some of them in any order.
		candidates, candIdx := all, []int32(nil)
		if !large && rapid.Bool().Draw(t, "narrowed") {
			perm := rapid.Permutation(all).Draw(t, "perm")
			candidates = perm[:rapid.IntRange(1, len(perm)).Draw(t, "numCandidates")]
			for _, ni := range candidates {
				candIdx = append(candIdx, int32(ni.Index()))
			}
		}
		n := len(candidates)
		start := rapid.IntRange(0, n-1).Draw(t, "start")
		lowEnd, lowWant := 0, 1
		if large { // most positions evaluated, most feasible
			lowEnd, lowWant = n-70, n/2
		}
		end, want := rapid.IntRange(lowEnd, n).Draw(t, "end"), rapid.IntRange(lowWant, n).Draw(t, "want")
		statuses := make([]*Status, end)
		if large {
			// A few rejections and errors at drawn positions.
			for range rapid.IntRange(0, 6).Draw(t, "numRejected") {
				if len(statuses) > 0 {
					statuses[rapid.IntRange(0, len(statuses)-1).Draw(t, "rejectedAt")] = rapid.SampledFrom([]*Status{rej, rej, rej, fail}).Draw(t, "which")
				}
			}
		} else {
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
		}

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

		// As filterNodes leaves it.
		r := &Result{snap: snap, order: candidates, StartIndex: start}
		if candIdx != nil {
			r.candidates = candidates
		}
		// Stale contents from an earlier cycle must not leak through: a
		// node list as long as this cycle's, buffers with old entries.
		r.feasible = make([]int32, 0, rapid.IntRange(0, 50).Draw(t, "capFeasible"))
		r.feasibleList = slices.Repeat([]*NodeInfo{all[0]}, len(wantFeasible))
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
		before := slices.Clone(candidates)
		for range 2 { // looked up once, then kept
			if !slices.Equal(wantNodes, r.feasibleNodes()) {
				t.Fatalf("feasible nodes differ")
			}
		}
		if !slices.Equal(before, candidates) {
			t.Fatalf("feasibleNodes wrote to the candidates")
		}
		if !slices.Equal(wantIdx, r.feasibleIndices()) {
			t.Fatalf("feasible indices %v, want %v", r.feasibleIndices(), wantIdx)
		}
	})
}
