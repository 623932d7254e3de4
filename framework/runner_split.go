package framework

import (
	"math"
	"math/bits"
)

// splitEvaluated is the end of filterNodes when some node was rejected: it
// sorts the filtered positions [0, m) into the feasible ones and the
// rejected ones (those whose bit is set in rejected, a bitmap by position;
// statuses[p] is then the status of position p), reading the bitmap a word
// at a time so that a position costs nothing beyond writing it out, then
// writes each feasible node's NodeInfo and snapshot index
// (Result.feasibleNodes and feasibleIndices, which scoring reads). The
// evaluated prefix ends before the (want+1)-th feasible node or at the
// first error (looked for only when mayFail: some filter returned
// something other than a rejection), whichever comes first (kube counts
// neither); it returns that end, the error status (nil if none) and,
// when listRejected, the rejected positions before the end, in increasing
// order, in rejBuf's array (grown as needed; nil otherwise).
//
// Position p is candidates[(start+p) mod len(candidates)], whose snapshot
// index is candIdx of that candidates index, or the index itself when
// candIdx is nil (the candidates are the snapshot's nodes).
func (r *Result) splitEvaluated(rejected []uint64, statuses []*Status, m, want int, mayFail bool, candidates []*NodeInfo, candIdx []int32, start int, listRejected bool, rejBuf []int32) (cut int, failure *Status, rejPos []int32) {
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
			for range want - w {
				f &= f - 1
			}
			cut, w = i<<6+bits.TrailingZeros64(f), want
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
				if st := statuses[p]; st.Code() == Error {
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
	nodes, idx := grow(r.feasibleCache, w), grow(r.feasibleBuf, w)
	placeFeasible(rejected[:(cut+63)>>6], cut, start, candidates, feasible, idx, nodes)
	if listRejected {
		rejectedPositions(rejected[:(cut+63)>>6], cut, rejPos)
	}
	if candIdx != nil {
		for i, k := range idx {
			idx[i] = candIdx[k]
		}
	}
	r.feasible, r.feasibleCache, r.feasibleBuf, r.feasibleIdx = feasible, nodes, idx, idx
	return cut, failure, rejPos
}

// placeFeasible writes the positions [0, cut) whose bit is clear in
// rejected to feasible, in increasing order, and for each its candidates
// index (idx) and NodeInfo (nodes); their lengths are that count. A word
// of 64 feasible positions that does not wrap round the candidates is a
// run: its nodes are copied at once.
func placeFeasible(rejected []uint64, cut, start int, candidates []*NodeInfo, feasible, idx []int32, nodes []*NodeInfo) {
	n := len(candidates)
	fi := 0
	for i, word := range rejected {
		f, base := ^word, i<<6
		if rest := cut - base; rest < 64 {
			f &= 1<<rest - 1
		}
		k0 := start + base
		if k0 >= n {
			k0 -= n
		}
		if f == math.MaxUint64 && k0+64 <= n {
			copy(nodes[fi:fi+64], candidates[k0:k0+64])
			pos, ix := feasible[fi:fi+64], idx[fi:fi+64]
			for t := range pos {
				pos[t], ix[t] = int32(base+t), int32(k0+t)
			}
			fi += 64
			continue
		}
		for ; f != 0; f &= f - 1 {
			t := bits.TrailingZeros64(f)
			k := k0 + t
			if k >= n {
				k -= n
			}
			feasible[fi], idx[fi], nodes[fi] = int32(base+t), int32(k), candidates[k]
			fi++
		}
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
