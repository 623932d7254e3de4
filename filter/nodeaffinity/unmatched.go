package nodeaffinity

import (
	"github.com/schedkit/schedkit/filter/internal/loopchoice"
	"github.com/schedkit/schedkit/framework/fastpath"
	"github.com/schedkit/schedkit/internal/boolbit"
)

// The filter's loops over the nodes. Each sets the Node of out[0:n] to the
// positions i (in increasing order) of the nodes idx[i] the pod's
// constraints do not match, and returns n; the statuses are left to the
// caller, and out has room for every node. The rejections among the
// first loopchoice.Probe nodes, found by the branching loop, choose the
// loop for the rest (loopchoice.Predictable): the branching one again, or
// the one without a branch. The loops are not inlined and call nothing,
// so that Go keeps their values in registers.

// naUnmatched is the loop for a single indexed expression (domain, pass:
// api.IndexedNodeMatch.Single): node k matches when pass[domain[k]+1].
func naUnmatched(out []fastpath.NodeRejection, idx, domain []int32, pass []bool) int {
	out = out[:len(idx)]
	head := min(len(idx), loopchoice.Probe)
	n := naUnmatchedSparse(out, idx[:head], 0, domain, pass)
	if loopchoice.Predictable(loopchoice.Mask(out[:n]), head) {
		return n + naUnmatchedSparse(out[n:], idx[head:], head, domain, pass)
	}
	return n + naUnmatchedDense(out[n:], idx[head:], head, domain, pass)
}

// naUnmatchedSparse is naUnmatched's branching loop, numbering idx's
// nodes from position base.
//
//go:noinline
func naUnmatchedSparse(out []fastpath.NodeRejection, idx []int32, base int, domain []int32, pass []bool) int {
	out = out[:len(idx)]
	n := 0
	for i, k := range idx {
		if !pass[domain[k]+1] {
			out[n].Node = int32(base + i)
			n++
		}
	}
	return n
}

// naUnmatchedDense is naUnmatched's loop without a branch, numbering
// idx's nodes from position base.
//
//go:noinline
func naUnmatchedDense(out []fastpath.NodeRejection, idx []int32, base int, domain []int32, pass []bool) int {
	out = out[:len(idx)]
	n := 0
	for i, k := range idx {
		out[n].Node = int32(base + i)
		n += int(boolbit.Of(!pass[domain[k]+1]))
	}
	return n
}

// naUnmatchedBits is the loop for the matched nodes as a bitmap by
// snapshot position (bits).
func naUnmatchedBits(out []fastpath.NodeRejection, idx []int32, bits []uint64) int {
	out = out[:len(idx)]
	head := min(len(idx), loopchoice.Probe)
	n := naUnmatchedBitsSparse(out, idx[:head], 0, bits)
	if loopchoice.Predictable(loopchoice.Mask(out[:n]), head) {
		return n + naUnmatchedBitsSparse(out[n:], idx[head:], head, bits)
	}
	return n + naUnmatchedBitsDense(out[n:], idx[head:], head, bits)
}

// naUnmatchedBitsSparse is naUnmatchedBits' branching loop, numbering
// idx's nodes from position base.
//
//go:noinline
func naUnmatchedBitsSparse(out []fastpath.NodeRejection, idx []int32, base int, bits []uint64) int {
	out = out[:len(idx)]
	n := 0
	for i, k := range idx {
		if bits[k>>6]&(1<<(k&63)) == 0 {
			out[n].Node = int32(base + i)
			n++
		}
	}
	return n
}

// naUnmatchedBitsDense is naUnmatchedBits' loop without a branch,
// numbering idx's nodes from position base.
//
//go:noinline
func naUnmatchedBitsDense(out []fastpath.NodeRejection, idx []int32, base int, bits []uint64) int {
	out = out[:len(idx)]
	n := 0
	for i, k := range idx {
		out[n].Node = int32(base + i)
		n += int(^bits[k>>6] >> (k & 63) & 1)
	}
	return n
}
