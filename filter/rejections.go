package filter

import (
	"slices"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/fastpath"
)

// MarkRejections appends to rejected the rejections mark finds among n
// nodes and returns the extended list and the entries it added, whose
// statuses the caller sets (a fastpath.RejectingFilterPlugin's
// FilterRejects). mark gets room for n entries, sets the Node of the first
// k of them to the rejected nodes' positions, in increasing order, and
// returns k: a loop that attaches no status calls nothing, so Go keeps its
// values in registers (the filters' loops over every node are such
// functions, not inlined).
func MarkRejections(rejected []fastpath.NodeRejection, n int, mark func(room []fastpath.NodeRejection) int) (all, added []fastpath.NodeRejection) {
	start := len(rejected)
	rejected = slices.Grow(rejected, n)[:start+n]
	k := start + mark(rejected[start:])
	return rejected[:k], rejected[start:k]
}

// SetStatus sets the Status of every entry of rl to st.
func SetStatus(rl []fastpath.NodeRejection, st *framework.Status) {
	for j := range rl {
		rl[j].Status = st
	}
}
