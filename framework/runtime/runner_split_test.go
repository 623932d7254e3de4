package runtime

import (
	"math/bits"
	"slices"
	"testing"

	"github.com/schedkit/schedkit/framework"
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
	snaps := []*framework.Snapshot{framework.MustSnapshot(testNodes(40), nil), framework.MustSnapshot(testNodes(300), nil)}
	rej, fail := framework.NewStatus(framework.Unschedulable, "no"), framework.NewStatus(framework.Error, "boom")
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
		statuses := make([]*framework.Status, end)
		if large {
			// A few rejections and errors at drawn positions.
			for range rapid.IntRange(0, 6).Draw(t, "numRejected") {
				if len(statuses) > 0 {
					statuses[rapid.IntRange(0, len(statuses)-1).Draw(t, "rejectedAt")] = rapid.SampledFrom([]*framework.Status{rej, rej, rej, fail}).Draw(t, "which")
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

		// As filterNodes leaves it.
		r := &Result{snap: snap, order: candidates, StartIndex: start}
		if candIdx != nil {
			r.candidates = candidates
		}
		// Stale contents from an earlier cycle must not leak through:
		// buffers with old entries (and checkSplit's stale node list).
		r.feasible = make([]int32, 0, rapid.IntRange(0, 50).Draw(t, "capFeasible"))
		r.feasibleCache = slices.Repeat([]*framework.NodeInfo{all[0]}, rapid.IntRange(0, 50).Draw(t, "capNodes"))[:0]
		r.feasibleWords = wordsOf(slices.Repeat([]*framework.NodeInfo{all[0]}, rapid.IntRange(0, 50).Draw(t, "capWords")))[:0]
		r.feasibleBuf = make([]int32, 0, rapid.IntRange(0, 50).Draw(t, "capIdx"))
		mayFail := slices.Contains(statuses, fail) || rapid.Bool().Draw(t, "mayFail")
		bitmap, given := drawRejectedBitmap(t, statuses, fail)
		list := rapid.Bool().Draw(t, "listRejected")
		checkSplit(t, r, bitmap, statuses, given, want, mayFail, candidates, candIdx, start, list)
	})
}

// checkSplit runs r.splitEvaluated on the bitmap of rejected positions
// (statuses: nil where feasible; given: what the runner's buffer holds,
// stale where feasible) and checks it against the plain walk over
// statuses: the end of the evaluated prefix, the error, the feasible
// positions with their NodeInfos (looked up twice) and snapshot indices,
// the rejected positions when listed, whatever node list and runs an
// earlier cycle left; and that nothing was written to the candidates or
// to the snapshot's runs of indices.
func checkSplit(t *rapid.T, r *Result, bitmap []uint64, statuses, given []*framework.Status, want int, mayFail bool, candidates []*framework.NodeInfo, candIdx []int32, start int, list bool) {
	n := len(candidates)
	wantCut, wantFailure := len(statuses), (*framework.Status)(nil)
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
		if st.Code() == framework.Error {
			wantCut, wantFailure = p, st
			break
		}
		wantRejected = append(wantRejected, int32(p))
	}
	var wantNodes []*framework.NodeInfo
	var wantIdx []int32
	for _, p := range wantFeasible {
		ni := candidates[(start+int(p))%n]
		wantNodes = append(wantNodes, ni)
		wantIdx = append(wantIdx, int32(ni.Index()))
	}
	// A node list and runs as long as this cycle's, left from an earlier
	// one, must not leak through.
	r.feasibleList = slices.Repeat([]*framework.NodeInfo{candidates[0]}, len(wantFeasible))
	r.spans = append(r.spans, span{0, int32(len(wantFeasible))})
	cands := slices.Clone(candidates)
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
	for range 2 { // looked up once, then kept
		if !slices.Equal(wantNodes, r.feasibleNodes()) {
			t.Fatalf("feasible nodes differ")
		}
	}
	// Once the cycle ends, the list comes from the order, not from the
	// words placed for the cycle's steps.
	r.endCycle()
	clear(r.feasibleWords[:cap(r.feasibleWords)])
	for range 2 {
		if !slices.Equal(wantNodes, r.feasibleNodes()) {
			t.Fatalf("feasible nodes differ after the cycle")
		}
	}
	if !slices.Equal(wantIdx, r.feasibleIndices()) {
		t.Fatalf("feasible indices %v, want %v", r.feasibleIndices(), wantIdx)
	}
	if !slices.Equal(cands, candidates) {
		t.Fatalf("the split wrote to the candidates")
	}
	for i, k := range r.snap.IndexRuns() {
		if int(k) != i%r.snap.NumNodes() {
			t.Fatalf("the split wrote to the snapshot's runs of indices")
		}
	}
}

// drawRejectedBitmap returns the bitmap of the positions whose status is
// not nil, with stale bits past the end, and the statuses as the runner's
// buffer holds them: stale (fail) at some positions without a bit.
func drawRejectedBitmap(t *rapid.T, statuses []*framework.Status, fail *framework.Status) ([]uint64, []*framework.Status) {
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
	return bitmap, given
}

// TestPropSplitEvaluatedRuns: splitEvaluated and the lists it leaves
// (feasible positions, NodeInfos, snapshot indices) are the plain walk's
// when the feasible positions come in long runs, copied run by run, as a
// capacity question's cycles see them: a few blocks of rejected positions
// anywhere (none: one run), runs wrapping round the candidates, every
// candidate evaluated (a run of exactly n), a start at n−1, candidates
// narrowed as a PreFilterResult leaves them (indices copied from theirs,
// wrapping round); each Result reused, reset as a cycle with opts.Reuse
// resets it, for up to four cycles of different shapes (node counts,
// narrowing, cuts), never writing to another cycle's candidates or to
// the snapshot's runs of indices.
func TestPropSplitEvaluatedRuns(t *testing.T) {
	snaps := []*framework.Snapshot{framework.MustSnapshot(testNodes(40), nil), framework.MustSnapshot(testNodes(64), nil), framework.MustSnapshot(testNodes(300), nil)}
	rej, fail := framework.NewStatus(framework.Unschedulable, "no"), framework.NewStatus(framework.Error, "boom")
	var runs, narrowedRuns int
	rapid.Check(t, func(t *rapid.T) {
		r := &Result{}
		for range rapid.IntRange(1, 4).Draw(t, "cycles") {
			snap := rapid.SampledFrom(snaps).Draw(t, "snap")
			all := snap.Nodes()
			candidates, candIdx := all, []int32(nil)
			if rapid.IntRange(0, 2).Draw(t, "narrowed") == 0 {
				perm := rapid.Permutation(all).Draw(t, "perm")
				candidates = perm[:rapid.IntRange(len(perm)/2, len(perm)).Draw(t, "numCandidates")]
				for _, ni := range candidates {
					candIdx = append(candIdx, int32(ni.Index()))
				}
			}
			n := len(candidates)
			start := rapid.SampledFrom([]int{0, n - 1, rapid.IntRange(0, n-1).Draw(t, "anyStart")}).Draw(t, "start")
			end := rapid.SampledFrom([]int{n, rapid.IntRange(0, n).Draw(t, "anyEnd")}).Draw(t, "end")
			want := rapid.SampledFrom([]int{n, rapid.IntRange(1, n).Draw(t, "anyWant")}).Draw(t, "want")
			statuses := make([]*framework.Status, end)
			for range rapid.IntRange(0, 4).Draw(t, "blocks") {
				if end == 0 {
					break
				}
				at := rapid.IntRange(0, end-1).Draw(t, "blockAt")
				st := rapid.SampledFrom([]*framework.Status{rej, rej, rej, rej, rej, rej, rej, fail}).Draw(t, "blockStatus")
				for p := at; p < min(end, at+rapid.IntRange(1, 12).Draw(t, "blockLen")); p++ {
					statuses[p] = st
				}
			}
			mayFail := slices.Contains(statuses, fail)
			bitmap, given := drawRejectedBitmap(t, statuses, fail)
			r.reset() // as a cycle with opts.Reuse = r
			r.snap, r.order, r.StartIndex = snap, candidates, start
			if candIdx != nil {
				r.candidates = candidates
			}
			checkSplit(t, r, bitmap, statuses, given, want, mayFail, candidates, candIdx, start, rapid.Bool().Draw(t, "listRejected"))
			if len(r.spans) > 0 {
				runs++
				if candIdx != nil {
					narrowedRuns++
				}
			}
		}
	})
	if runs == 0 || narrowedRuns == 0 {
		t.Fatalf("runs copied run by run in %d cycles (%d narrowed): the property missed that path", runs, narrowedRuns)
	}
}

// TestPropNthSetBit: nthSetBit finds the bit that clearing the j lowest
// set bits of x one by one leaves lowest.
func TestPropNthSetBit(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		x := rapid.Uint64().Draw(t, "x")
		if rapid.Bool().Draw(t, "sparse") {
			x &= rapid.Uint64().Draw(t, "mask") & rapid.Uint64().Draw(t, "mask2")
		}
		if x == 0 {
			return
		}
		j := rapid.IntRange(0, bits.OnesCount64(x)-1).Draw(t, "j")
		y := x
		for range j {
			y &= y - 1
		}
		if got, want := nthSetBit(x, j), bits.TrailingZeros64(y); got != want {
			t.Fatalf("nthSetBit(%#x, %d) = %d, want %d", x, j, got, want)
		}
	})
}

// TestPropFewSpans: fewSpans says whether the runs of clear bits below cut,
// counted position by position, are at most most.
func TestPropFewSpans(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cut := rapid.IntRange(0, 300).Draw(t, "cut")
		rejected := make([]uint64, (cut+63)/64)
		for i := range rejected {
			rejected[i] = rapid.Uint64().Draw(t, "word")
			switch rapid.IntRange(0, 2).Draw(t, "kind") {
			case 0: // long runs
				rejected[i] &= rapid.Uint64().Draw(t, "and") & rapid.Uint64().Draw(t, "and2") & rapid.Uint64().Draw(t, "and3")
			case 1: // all feasible
				rejected[i] = 0
			}
		}
		runs, prev := 0, false
		for p := range cut {
			feasible := rejected[p/64]&(1<<(p%64)) == 0
			if feasible && !prev {
				runs++
			}
			prev = feasible
		}
		most := rapid.IntRange(0, runs+2).Draw(t, "most")
		if got := fewSpans(rejected, cut, most); got != (runs <= most) {
			t.Fatalf("fewSpans(%x, %d, %d) = %v with %d runs", rejected, cut, most, got, runs)
		}
	})
}
