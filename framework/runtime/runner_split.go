package runtime

import (
	"math/bits"

	"github.com/schedkit/schedkit/framework"
)

// splitEvaluated is the end of filterNodes when some node was rejected: it
// sorts the filtered positions [0, m) into the feasible ones and the
// rejected ones (those whose bit is set in rejected, a bitmap by position;
// statuses[p] is then the status of position p), reading the bitmap a word
// at a time so that a position costs nothing beyond writing it out, then
// writes each feasible node's snapshot index (Result.feasibleIndices,
// which scoring reads; a view of the snapshot's runs when no position
// before the end was rejected). When the feasible positions come in long
// runs (a capacity question's cycles: ~500 in a few runs), positions and
// indices are copied run by run and the runs kept (Result.spans). Their
// NodeInfos are looked up only when asked for (Result.feasibleNodes, run
// by run when the runs were kept): writing 500 pointers every cycle
// costs write barriers while the GC marks. The evaluated prefix ends
// before the (want+1)-th feasible node or at the first error (looked for
// only when mayFail: some filter returned something other than a
// rejection), whichever comes first (kube counts neither); it returns
// that end, the error status (nil if none) and, when listRejected, the
// rejected positions before the end, in increasing order, in rejBuf's
// array (grown as needed; nil otherwise).
//
// Position p is candidates[(start+p) mod len(candidates)], whose snapshot
// index is candIdx of that candidates index, or the index itself when
// candIdx is nil (the candidates are the snapshot's nodes).
func (r *Result) splitEvaluated(rejected []uint64, statuses []*framework.Status, m, want int, mayFail bool, candidates []*framework.NodeInfo, candIdx []int32, start int, listRejected bool, rejBuf []int32) (cut int, failure *framework.Status, rejPos []int32) {
	nw := (m + 63) >> 6
	rejected = rejected[:nw]
	// The cut: the (want+1)-th feasible position, if there is one.
	cut = m
	w := 0 // feasible positions before cut
	for i, word := range rejected {
		f := ^word
		if i == nw-1 && m&63 != 0 {
			f &= 1<<(m&63) - 1
		}
		c := bits.OnesCount64(f)
		if w+c > want {
			cut, w = i<<6+nthSetBit(f, want-w), want
			break
		}
		w += c
	}
	nr := cut - w // rejected positions before cut
	if mayFail {
		// The first error before cut ends the prefix there.
		for i, word := range rejected[:(cut+63)>>6] {
			for ; word != 0; word &= word - 1 {
				p := i<<6 + bits.TrailingZeros64(word)
				if p >= cut {
					break
				}
				if st := statuses[p]; st.Code() == framework.Error {
					cut, failure = p, st
					break
				}
			}
			if failure != nil {
				break
			}
		}
	}
	if failure != nil {
		nr, w = 0, 0 // recounted below
		for i, word := range rejected[:(cut+63)>>6] {
			if rest := cut - i<<6; rest < 64 {
				word &= 1<<rest - 1
			}
			nr += bits.OnesCount64(word)
		}
		w = cut - nr
	}
	feasible := grow(r.feasible, w)
	if listRejected {
		rejPos = grow(rejBuf, nr)
	}
	// runs: the snapshot's runs of indices (0…n−1 twice), when the
	// candidates are its nodes.
	var runs []int32
	if r.snap != nil && candIdx == nil && len(candidates) == r.snap.NumNodes() {
		runs = r.snap.IndexRuns()
	}
	r.feasible, r.feasibleList, r.cycleNodes, r.spans = feasible, nil, nil, r.spans[:0]
	r.inCycle = r.fw != nil && r.fw.wordNodes
	if nr == 0 && runs != nil {
		// Positions 0…w−1, the snapshot's nodes from start on: the
		// indices are a view of its runs.
		copy(feasible, runs[:w])
		r.feasibleIdx = runs[start : start+w : start+w]
		return cut, failure, rejPos
	}
	rejected = rejected[:(cut+63)>>6]
	idx := grow(r.feasibleBuf, w)
	if (runs != nil || candIdx != nil && r.snap != nil && len(candidates) <= r.snap.NumNodes()) && fewSpans(rejected, cut, w/spanMinLen) {
		// Long runs of feasible positions: copied run by run.
		r.spans = placeSpans(rejected, cut, start, r.snap.IndexRuns(), candIdx, feasible, idx, r.spans)
	} else {
		// Placed as words, which the collector does not scan: for this
		// cycle's steps (cycleNodes), no write barrier a feasible node,
		// when the profile's PreScore plugins use them in the cycle only
		// (Framework.wordNodes); else copied to a list of the Result's
		// own.
		words := nodeWords(grow(r.feasibleWords, w))
		r.place(rejected, cut, start, candidates, runs, candIdx, feasible, idx, words)
		r.feasibleWords = words
		if r.inCycle {
			r.cycleNodes = words.nodes()
		} else {
			list := grow(r.feasibleCache, w)
			copy(list, words.nodes())
			r.feasibleCache, r.feasibleList = list, list
		}
	}
	if listRejected {
		rejectedPositions(rejected, cut, rejPos)
	}
	r.feasibleBuf, r.feasibleIdx = idx, idx
	return cut, failure, rejPos
}

// nthSetBit returns the index of x's set bit that has j set bits below
// it (j is below x's count of set bits).
func nthSetBit(x uint64, j int) int {
	b := 0
	if c := bits.OnesCount32(uint32(x)); j >= c {
		j, x, b = j-c, x>>32, 32
	}
	if c := bits.OnesCount16(uint16(x)); j >= c {
		j, x, b = j-c, x>>16, b+16
	}
	if c := bits.OnesCount8(uint8(x)); j >= c {
		j, x, b = j-c, x>>8, b+8
	}
	for range j {
		x &= x - 1
	}
	return b + bits.TrailingZeros64(x)
}

// span is a run of feasible positions [lo, hi).
type span struct{ lo, hi int32 }

// spanMinLen is the mean length of the runs of feasible positions from
// which splitEvaluated copies them run by run (placeSpans) rather than
// bit by bit (placeFeasible): a copy's fixed cost is a few positions'.
const spanMinLen = 8

// fewSpans reports whether the positions in [0, cut) whose bit is clear
// in rejected (its words up to cut's) form at most most runs, counting
// them a word at a time until there are more.
func fewSpans(rejected []uint64, cut, most int) bool {
	c, carry := 0, uint64(0) // carry: the position before the word is feasible
	for i, word := range rejected {
		f := ^word
		if rest := cut - i<<6; rest < 64 {
			f &= 1<<rest - 1
		}
		if c += bits.OnesCount64(f &^ (f<<1 | carry)); c > most {
			return false
		}
		carry = f >> 63
	}
	return true
}

// placeSpans is placeFeasible run by run: it appends each run of positions
// [0, cut) clear in rejected to spans (returned) and copies the run's
// positions from ident (0, 1, … up to at least cut) and its candidate
// indices from the runs of snapshot indices (0…n−1 twice, ident too; the
// candidates are the snapshot's nodes) or, when candIdx is not nil, from
// candIdx, wrapping round it.
func placeSpans(rejected []uint64, cut, start int, ident, candIdx, feasible, idx []int32, spans []span) []span {
	fi, p := 0, 0
	nc := len(candIdx)
	for p < cut {
		a := nextBit(rejected, p, cut, ^uint64(0))
		if a == cut {
			break
		}
		b := nextBit(rejected, a, cut, 0)
		spans = append(spans, span{int32(a), int32(b)})
		l := b - a
		copy(feasible[fi:fi+l], ident[a:b])
		ix := idx[fi : fi+l]
		if k := start + a; candIdx == nil {
			copy(ix, ident[k:k+l])
		} else {
			if k >= nc {
				k -= nc
			}
			copy(ix[copy(ix, candIdx[k:]):], candIdx)
		}
		fi, p = fi+l, b
	}
	return spans
}

// nextBit returns the first position from p on below end whose bit in
// bm, xored with flip, is set, or end: the next rejected position with
// flip 0, the next feasible one with flip all ones. p is below end.
func nextBit(bm []uint64, p, end int, flip uint64) int {
	i := p >> 6
	x := (bm[i] ^ flip) &^ (1<<(p&63) - 1)
	for x == 0 {
		if i++; i<<6 >= end {
			return end
		}
		x = bm[i] ^ flip
	}
	return min(i<<6+bits.TrailingZeros64(x), end)
}

// placeFeasible writes the positions [0, cut) whose bit is clear in
// rejected to feasible, in increasing order, and for each its index among
// the n candidates (idx) and the candidate itself (list), position p
// being candidates[(start+p) mod n]; their lengths are that count. It goes
// a word of positions at a time, each writing into its own subslices (no
// per-position bounds check): a word of 64 feasible positions is copied
// from runs (0…n−1 twice) when given, and only a word that wraps round
// the candidates checks for the wrap per position.
func placeFeasible(rejected []uint64, cut, start int, candidates []*framework.NodeInfo, runs []int32, feasible, idx []int32, list nodeWords) {
	placeWords(rejected, 0, len(rejected), cut, start, candidates, runs, feasible, idx, list)
}

// placeWords is placeFeasible for the words [w0, w1) of rejected: it
// writes their feasible positions from the start of feasible, idx and
// list (which it does not go past).
func placeWords(rejected []uint64, w0, w1, cut, start int, candidates []*framework.NodeInfo, runs []int32, feasible, idx []int32, list nodeWords) {
	n := len(candidates)
	cw := wordsOf(candidates)
	fi := 0
	for i := w0; i < w1; i++ {
		f, base := ^rejected[i], i<<6
		if rest := cut - base; rest < 64 {
			f &= 1<<rest - 1
		}
		if f == 0 {
			continue
		}
		k0 := start + base
		if k0 >= n {
			k0 -= n
		}
		c := bits.OnesCount64(f)
		pos := feasible[fi : fi+c : fi+c]
		ix := idx[fi : fi+c : fi+c]
		ix = ix[:len(pos)]
		nodes := list[fi : fi+c : fi+c]
		fi += c
		b, k := int32(base), int32(k0)
		switch {
		case c == 64 && runs != nil && k0+64 <= n:
			copy(pos, runs[base:base+64])
			copy(ix, runs[k0:k0+64])
			copy(nodes, cw[k0:k0+64])
		case c == 64 && k0+64 <= n:
			for t := range pos {
				pos[t], ix[t] = b+int32(t), k+int32(t)
			}
			copy(nodes, cw[k0:k0+64])
		case k0+64 <= n:
			placeBits(pos, ix, nodes, cw[k0:k0+64], f, b, k)
		default: // the word wraps round the candidates
			for q := range pos {
				t := int32(bits.TrailingZeros64(f))
				f &= f - 1
				kt := k + t
				if int(kt) >= n {
					kt -= int32(n)
				}
				pos[q], ix[q], nodes[q] = b+t, kt, cw[kt]
			}
		}
	}
}

// placeBits writes, for the i-th set bit t of f, pos[i] = b+t,
// ix[i] = k+t and nodes[i] = word[t] (f has len(pos) bits set; word holds
// the 64 candidates from k on). It is not inlined: on its own its loop
// keeps every value in a register.
//
//go:noinline
func placeBits(pos, ix []int32, nodes, word nodeWords, f uint64, b, k int32) {
	ix, nodes, word = ix[:len(pos)], nodes[:len(pos)], word[:64]
	for q := range pos {
		t := int32(bits.TrailingZeros64(f | 1<<63)) // f ≠ 0: the same, without the zero case
		f &= f - 1
		pos[q], ix[q], nodes[q] = b+t, k+t, word[t&63]
	}
}

// rejectedPositions writes the positions [0, cut) whose bit is set in
// rejected to rejPos, in increasing order; its length is their count.
func rejectedPositions(rejected []uint64, cut int, rejPos []int32) {
	ri := 0
	for i, word := range rejected {
		base := int32(i << 6)
		if rest := cut - i<<6; rest < 64 {
			word &= 1<<rest - 1
		}
		for ; word != 0; word &= word - 1 {
			rejPos[ri] = base + int32(bits.TrailingZeros64(word))
			ri++
		}
	}
}
