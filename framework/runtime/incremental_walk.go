package runtime

import (
	"context"
	"math/bits"

	"github.com/schedkit/schedkit/framework"
)

// Incremental's filter walk. The node-local filters' verdicts live in
// bitmaps by snapshot index — known (cached), pass (every node-local
// filter passes) and vErr (one failed) — each of ⌈n/64⌉+1 words, the
// last always zero so that window can read 64 bits from any index. A
// verdict is computed when a walk first needs it and dropped when the
// snapshot's journal reports its node changed (syncChanges), so a known
// verdict is the node's current one. Invariant: pass and vErr ⊆ known.
//
// A cycle goes through the positions 0, 1, … (position p is snapshot node
// (start+p) mod n) a word of 64 positions at a time: it reads the word's
// verdicts from the bitmaps rotated by start (window), computes the
// unknown ones, and when no non-local filter comes before a node-local
// one (walkWords) finds the cut by popcounts; otherwise walk goes node by
// node in profile order.

// initVerdicts sizes the verdict cache for n nodes, every verdict unknown.
func (inc *Incremental) initVerdicts(n int) {
	nw := (n+63)>>6 + 1
	inc.known, inc.pass, inc.vErr = grow(inc.known, nw), grow(inc.pass, nw), grow(inc.vErr, nw)
	inc.cacheRej = grow(inc.cacheRej, n)
	inc.dropVerdicts()
}

// dropVerdicts forgets every cached verdict.
func (inc *Incremental) dropVerdicts() {
	clear(inc.known)
	clear(inc.pass)
	clear(inc.vErr)
	inc.nErr = 0
}

// dropVerdict forgets the verdict of snapshot node k.
func (inc *Incremental) dropVerdict(k int) {
	w, b := k>>6, uint64(1)<<(k&63)
	if inc.vErr[w]&b != 0 {
		inc.nErr--
	}
	inc.known[w] &^= b
	inc.pass[w] &^= b
	inc.vErr[w] &^= b
}

// window returns the bits of bm (a verdict bitmap of n nodes) for the
// snapshot indices k, k+1, …, wrapping from n−1 to 0: bit i of the result
// is node (k+i) mod n's, for i < min(64, n); the bits above are
// unspecified. k is in [0, n).
func window(bm []uint64, k, n int) uint64 {
	w, s := k>>6, uint(k&63)
	x := bm[w] >> s
	if s != 0 {
		x |= bm[w+1] << (64 - s)
	}
	if rest := n - k; rest < 64 {
		x = x&(1<<rest-1) | bm[0]<<rest
	}
	return x
}

// passWord returns the pass bits of the positions p0 … p0+63 (those of
// valid, a mask of the positions below n), snapshot nodes k0 = (start+p0)
// mod n on, computing the verdicts not yet known.
func (inc *Incremental) passWord(ctx context.Context, pod *framework.PodInfo, all []*framework.NodeInfo, k0 int, valid uint64) uint64 {
	n := len(all)
	if miss := valid &^ window(inc.known, k0, n); miss != 0 {
		for ; miss != 0; miss &= miss - 1 {
			k := k0 + bits.TrailingZeros64(miss)
			if k >= n {
				k -= n
			}
			inc.filterLocal(ctx, pod, all[k], k)
		}
	}
	return window(inc.pass, k0, n) & valid
}

// errBefore reports whether the node-local verdict of a position before m
// is a failure (the positions' verdicts are known).
func (inc *Incremental) errBefore(start, m, n int) bool {
	if inc.nErr == 0 {
		return false
	}
	for p0 := 0; p0 < m; p0 += 64 {
		k0 := start + p0
		if k0 >= n {
			k0 -= n
		}
		if window(inc.vErr, k0, n)&validBits(m-p0) != 0 {
			return true
		}
	}
	return false
}

// validBits is the mask of the lowest min(c, 64) bits.
func validBits(c int) uint64 {
	if c >= 64 {
		return ^uint64(0)
	}
	return 1<<c - 1
}

// walkWords filters the positions from 0 (node start) on, as filterNodes
// would, until the (want+1)-th feasible node or the last node, marking the
// rejected positions in inc.rejected, and returns the number of positions
// walked; false when a plugin failed on a walked node (not a rejection).
// Every non-local filter comes after the node-local ones (nonLocalLast):
// it goes a word of positions at a time, takes the word's node-local
// verdicts from the bitmaps, then runs each non-local filter once on the
// word's survivors, in their batch form when they have one (as filterNodes
// does), and stops at the word holding the (want+1)-th feasible node. Each
// node meets the plugins in profile order, so the verdicts are walk's. A
// non-local filter failing on any node of the last word, past the cut
// too, hands the cycle back (Schedule then decides whether it counts).
func (inc *Incremental) walkWords(ctx context.Context, pod *framework.PodInfo, all []*framework.NodeInfo, start, want int) (int, bool) {
	n := len(all)
	found := 0
	for p0 := 0; p0 < n; p0 += incChunk {
		k0 := start + p0
		if k0 >= n {
			k0 -= n
		}
		valid := validBits(n - p0)
		pw := inc.passWord(ctx, pod, all, k0, valid)
		if len(inc.nonLocal) > 0 && pw != 0 {
			var ok bool
			pw, ok = inc.filterNonLocal(ctx, pod, all, k0, pw)
			if !ok {
				inc.clearChunk()
				return 0, false
			}
		}
		inc.rejected[p0>>6] = ^pw & valid
		c := bits.OnesCount64(pw)
		if found+c > want {
			inc.clearChunk()
			m := p0 + nthSetBit(pw, want-found) + 1
			return m, !inc.errBefore(start, m, n)
		}
		found += c
	}
	inc.clearChunk()
	return n, !inc.errBefore(start, n, n)
}

// clearChunk drops the NodeInfos filterNonLocal left in inc.cNodes (there
// are none without non-local filters).
func (inc *Incremental) clearChunk() {
	if len(inc.nonLocal) > 0 {
		clear(inc.cNodes[:])
	}
}

// filterNonLocal runs the non-local filters on the survivors pw of the
// word of positions whose first is snapshot node k0, and returns those
// that pass them all; false when one fails. It leaves NodeInfos in
// inc.cNodes for the caller to clear.
func (inc *Incremental) filterNonLocal(ctx context.Context, pod *framework.PodInfo, all []*framework.NodeInfo, k0 int, pw uint64) (uint64, bool) {
	n := len(all)
	c := 0
	for f := pw; f != 0; f &= f - 1 {
		k := k0 + bits.TrailingZeros64(f)
		if k >= n {
			k -= n
		}
		inc.cNodes[c], inc.cIdx[c] = all[k], int32(k)
		c++
	}
	for t, j := range inc.nonLocal {
		e := &inc.filters[j]
		rl := filterChunk(ctx, inc.state, pod, e.pl, e.batch, e.rejects, e.trusted, inc.cNodes[:c:c], inc.cIdx[:c:c], inc.cOut[:c:c], inc.cRej[:0:c])
		for _, r := range rl {
			if !r.Status.IsRejected() {
				clear(inc.cRej[:])
				return 0, false
			}
			b := int(inc.cIdx[r.Node]) - k0
			if b < 0 {
				b += n
			}
			pw &^= 1 << b
		}
		if len(rl) == 0 || t == len(inc.nonLocal)-1 {
			continue
		}
		// Keep the survivors for the next filter.
		w, r := 0, 0
		for q := range c {
			if r < len(rl) && int(rl[r].Node) == q {
				r++
				continue
			}
			inc.cNodes[w], inc.cIdx[w] = inc.cNodes[q], inc.cIdx[q]
			w++
		}
		if c = w; c == 0 {
			break
		}
	}
	return pw, true
}

// walk is walkWords for a profile with a non-local filter before a
// node-local one: it goes node by node, running on each the non-local
// filters that come before its first rejecting node-local one, in profile
// order.
func (inc *Incremental) walk(ctx context.Context, pod *framework.PodInfo, all []*framework.NodeInfo, start, want int) (int, bool) {
	n := len(all)
	rej := inc.rejected
	found := 0
	var word uint64
	m := n
	k := start
	for p := 0; p < n; p++ {
		if k == n {
			k = 0
		}
		ni := all[k]
		v := inc.localVerdict(ctx, pod, ni, k)
		k++
		// The non-local plugins before the first node-local rejecter
		// run: the node meets them first in Schedule.
		rejected := false
		limit := int16(len(inc.filters))
		if v != incPass {
			limit = v
			if v <= incErr {
				limit = incErr - v
			}
		}
		for _, j := range inc.nonLocal {
			if j >= limit {
				break
			}
			if st := inc.filters[j].pl.Filter(ctx, inc.state, pod, ni); st != nil && st.Code() != framework.Success {
				if !st.IsRejected() {
					return 0, false
				}
				rejected = true
				break
			}
		}
		if !rejected && v != incPass {
			if v <= incErr {
				return 0, false
			}
			rejected = true
		}
		if rejected {
			word |= 1 << (p & 63)
		} else if found++; found > want {
			m = p + 1
			rej[p>>6] = word
			break
		}
		if p&63 == 63 || p == n-1 {
			rej[p>>6] = word
			word = 0
		}
	}
	return m, true
}

// localVerdict is the node-local filters' verdict on ni, snapshot node k:
// the cached one when known.
func (inc *Incremental) localVerdict(ctx context.Context, pod *framework.PodInfo, ni *framework.NodeInfo, k int) int16 {
	if inc.known[k>>6]&(1<<(k&63)) != 0 {
		return inc.cacheRej[k]
	}
	return inc.filterLocal(ctx, pod, ni, k)
}

// filterLocal runs the node-local Filter plugins on ni, snapshot node k
// (whose verdict is not known), in order until the first that does not
// pass, and caches the outcome.
func (inc *Incremental) filterLocal(ctx context.Context, pod *framework.PodInfo, ni *framework.NodeInfo, k int) int16 {
	v := incPass
	for j := range inc.filters {
		e := &inc.filters[j]
		if !e.local {
			continue
		}
		if st := e.pl.Filter(ctx, inc.state, pod, ni); st != nil && st.Code() != framework.Success {
			v = int16(j)
			if !st.IsRejected() {
				v = incErr - int16(j)
			}
			break
		}
	}
	w, b := k>>6, uint64(1)<<(k&63)
	inc.known[w] |= b
	switch {
	case v == incPass:
		inc.pass[w] |= b
	case v <= incErr:
		inc.vErr[w] |= b
		inc.nErr++
	}
	inc.cacheRej[k] = v
	return v
}
