// Package loopchoice chooses between the two loops a filter runs over the
// nodes: one that branches on each node's verdict and writes only a
// rejected node's position, and one without a branch that writes every
// node's position and keeps it by the verdict. The branching loop does
// about half the work while the branch is predicted and several times the
// work when it is not; a branch predictor learns verdicts that are rare,
// nearly universal, or that repeat with a short period (a zone's nodes
// listed in turn with the others', as kube's node tree lists them), and
// mispredicts verdicts scattered at random, which the loop without a
// branch pays nothing for. A filter checks the first Probe nodes, then
// asks Predictable about their rejections to choose the loop for the
// rest.
package loopchoice

import (
	"math/bits"

	"github.com/schedkit/schedkit/framework/fastpath"
)

// Probe is how many nodes a filter checks before it chooses its loop.
const Probe = 64

// Predictable reports whether the rejections among the first head nodes
// (head at most 64; bit i of mask for the node at position i, the bits
// from head on ignored) follow a pattern a branch predictor learns: at
// most one in sixteen of them rejected, or accepted, or each node's
// verdict the same as that of the node p places on, for some p up to
// eight, but for one in thirty-two.
func Predictable(mask uint64, head int) bool {
	mask &= ^uint64(0) >> (64 - head)
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

// Mask returns the positions in rl's Node fields (each below 64) as the
// bits of a mask, the form Predictable reads.
func Mask(rl []fastpath.NodeRejection) uint64 {
	var mask uint64
	for _, r := range rl {
		mask |= 1 << (r.Node & 63)
	}
	return mask
}
