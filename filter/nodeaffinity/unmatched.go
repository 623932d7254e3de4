package nodeaffinity

import (
	"math/bits"

	"github.com/schedkit/schedkit/framework/fastpath"
	"github.com/schedkit/schedkit/internal/boolbit"
)

// The filter's loops over the nodes. Each sets the Node of out[0:n] to the
// positions i (in increasing order) of the nodes idx[i] the pod's
// constraints do not match, and returns n; the statuses are left to the
// caller, and out has room for every node. The rejections among the
// first naProbe nodes, found by the branching loop, choose the loop for
// the rest: the branching one again, which writes only a rejected node's
// position (about half the work while the branch is predicted), or one
// without a branch that writes every node's position and keeps it by the
// verdict. A branch predictor learns rejections that are rare, nearly
// universal, or that repeat with a short period (a selector of one zone
// over nodes listed zone by zone in turn, as kube's node tree lists
// them); it mispredicts rejections scattered at random (a selector of an
// instance type or a rack), which the loop without a branch pays nothing
// for. The loops are not inlined and call nothing, so that Go keeps their
// values in registers.

// naProbe is how many nodes the loops check before they choose.
const naProbe = 64

// naPredictable reports whether the rejections among the first head nodes
// (the bits of mask) follow a pattern a branch predictor learns: at most
// one in sixteen of them rejected, or accepted, or each node's verdict the
// same as the node's p places on, for some p up to eight, but for one in
// thirty-two.
func naPredictable(mask uint64, head int) bool {
	r := bits.OnesCount64(mask)
	if r*16 <= head || r*16 >= 15*head {
		return true
	}
	for p := 1; p <= 8 && p < head; p++ {
		valid := uint64(1)<<(head-p) - 1
		if bits.OnesCount64((mask^mask>>p)&valid)*32 <= head-p {
			return true
		}
	}
	return false
}

// naMaskOf returns the positions of rl (each below 64) as the bits of a
// mask.
func naMaskOf(rl []fastpath.NodeRejection) uint64 {
	var mask uint64
	for _, r := range rl {
		mask |= 1 << (r.Node & 63)
	}
	return mask
}

// naUnmatched is the loop for a single indexed expression (domain, pass:
// api.IndexedNodeMatch.Single): node k matches when pass[domain[k]+1].
func naUnmatched(out []fastpath.NodeRejection, idx, domain []int32, pass []bool) int {
	out = out[:len(idx)]
	head := min(len(idx), naProbe)
	n := naUnmatchedSparse(out, idx[:head], 0, domain, pass)
	if naPredictable(naMaskOf(out[:n]), head) {
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
	head := min(len(idx), naProbe)
	n := naUnmatchedBitsSparse(out, idx[:head], 0, bits)
	if naPredictable(naMaskOf(out[:n]), head) {
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
