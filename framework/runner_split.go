package framework

import (
	"slices"
	"sort"
)

// splitEvaluated is the end of filterNodes when some node was rejected: it
// sorts the filtered positions [0, len(statuses)) into the feasible ones
// (nil status) and the rejected ones in one pass without a data-dependent
// branch (a rejection is as likely at one node as at the next, so a branch
// on it mispredicts), then writes each feasible node's NodeInfo and
// snapshot index (Result.feasibleNodes and feasibleIndices, which scoring
// reads). The evaluated prefix ends before the (want+1)-th feasible node or
// at the first error (looked for only when mayFail: some filter returned
// something other than a rejection), whichever comes first (kube counts
// neither); it
// returns that end, the error status (nil if none) and the rejected
// positions before the end, in increasing order (a view of the feasible
// positions' array, valid until the next cycle).
//
// Position p is candidates[(start+p) mod len(candidates)], whose snapshot
// index is candIdx of that candidates index, or the index itself when
// candIdx is nil (the candidates are the snapshot's nodes).
func (r *Result) splitEvaluated(statuses []*Status, want int, mayFail bool, candidates []*NodeInfo, candIdx []int32, start int) (cut int, failure *Status, rejected []int32) {
	m, n := len(statuses), len(candidates)
	// Feasible positions from the front of buf, rejected ones from the
	// back (w+x ≤ p+1 ≤ m, so they never meet).
	buf := grow(r.feasible, m)
	w, back := 0, m-1
	for p, st := range statuses {
		buf[w], buf[back] = int32(p), int32(p)
		ok := 0
		if st == nil {
			ok = 1
		}
		w, back = w+ok, back-1+ok
	}
	rejected = buf[back+1 : m]
	slices.Reverse(rejected)
	cut = m
	if w > want {
		cut, w = int(buf[want]), want
	}
	if !mayFail {
		rejected = rejected[:sort.Search(len(rejected), func(i int) bool { return int(rejected[i]) >= cut })]
	} else {
		for i, p := range rejected {
			if int(p) >= cut {
				rejected = rejected[:i]
				break
			}
			if st := statuses[p]; st.Code() == Error {
				cut, failure, rejected = int(p), st, rejected[:i]
				for w > 0 && int(buf[w-1]) > cut {
					w--
				}
				break
			}
		}
	}
	feasible := buf[:w]
	nodes, idx := grow(r.feasibleCache, w), grow(r.feasibleBuf, w)
	for i, p := range feasible {
		k := start + int(p)
		if k >= n {
			k -= n
		}
		nodes[i] = candidates[k]
		idx[i] = int32(k)
	}
	if candIdx != nil {
		for i, k := range idx {
			idx[i] = candIdx[k]
		}
	}
	r.feasible, r.feasibleCache, r.feasibleBuf, r.feasibleIdx = feasible, nodes, idx, idx
	return cut, failure, rejected
}
