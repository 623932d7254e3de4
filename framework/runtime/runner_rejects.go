package runtime

import (
	"context"
	"slices"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/fastpath"
)

// collectRejections appends to rl, in increasing order, the entries of o
// (one FilterBatch call's statuses) that reject a node, and sets o back to
// all nil.
func collectRejections(o []*framework.Status, rl []fastpath.NodeRejection) []fastpath.NodeRejection {
	rl = rl[:len(rl)+len(o)] // the caller leaves room for every node
	w := len(rl) - len(o)
	for q := range o {
		if s := o[q]; s != nil {
			o[q] = nil
			if s.Code() != framework.Success {
				rl[w] = fastpath.NodeRejection{Node: int32(q), Status: s}
				w++
			}
		}
	}
	return rl[:w]
}

// checkRejections returns what a RejectingFilterPlugin returned for l
// nodes in the form removeRejected needs: nodes in [0, l), each once, in
// increasing order, each with a status that is neither nil nor Success. A
// list out of order is sorted (keeping a node's first entry); entries out
// of range or without a failure are dropped.
func checkRejections(rl []fastpath.NodeRejection, l int) []fastpath.NodeRejection {
	prev := int32(-1)
	for _, x := range rl {
		if x.Node <= prev || int(x.Node) >= l || x.Status == nil || x.Status.Code() == framework.Success {
			return fixRejections(rl, l)
		}
		prev = x.Node
	}
	return rl
}

func fixRejections(rl []fastpath.NodeRejection, l int) []fastpath.NodeRejection {
	rl = slices.DeleteFunc(rl, func(x fastpath.NodeRejection) bool {
		return x.Node < 0 || int(x.Node) >= l || x.Status == nil || x.Status.Code() == framework.Success
	})
	slices.SortStableFunc(rl, func(a, b fastpath.NodeRejection) int { return int(a.Node) - int(b.Node) })
	return slices.CompactFunc(rl, func(a, b fastpath.NodeRejection) bool { return a.Node == b.Node })
}

// removeRejected removes from a chunk's live nodes (and their snapshot
// indices ix, and their positions pos when the candidates are narrowed)
// those that rl rejects (rl as checkRejections leaves it), each replaced
// by the chunk's last live node (so the survivors lose their order but
// nothing else moves), and returns how many nodes are left. Going through
// rl from its end, the last live node is never one still to remove, so
// the work is O(1) per rejection whatever the chunk's size. It replaces
// each entry's Node by the node's position: pos[x], or derived from ix
// when pos is nil (ix[x] = (start+p) mod n, the candidates being the
// snapshot's nodes).
func removeRejected(rl []fastpath.NodeRejection, nodes nodeWords, ix, pos []int32, start, n int) int {
	end := len(nodes)
	ix = ix[:end]
	if pos == nil {
		for r := len(rl) - 1; r >= 0; r-- {
			q := int(rl[r].Node)
			end--
			p := int(ix[q]) - start
			if p < 0 {
				p += n
			}
			nodes[q], ix[q] = nodes[end], ix[end]
			rl[r].Node = int32(p)
		}
		return end
	}
	pos = pos[:end]
	for r := len(rl) - 1; r >= 0; r-- {
		q := int(rl[r].Node)
		end--
		p := pos[q]
		nodes[q], ix[q], pos[q] = nodes[end], ix[end], pos[end]
		rl[r].Node = p
	}
	return end
}

// add records the rejections in rl by filter pi, each at the position
// in its Node (removeRejected's output). Its loop records rejections
// alone and hands the rest of the list to addRest at the first entry that
// is not one, so that it calls nothing and keeps its values in registers.
// The bits of positions in one word of r.rejected gather in a register
// and are written when the positions move to another word (they climb):
// a write a word rather than one a rejection, each of which would wait
// for the one before.
func (r *filterRecorder) add(rl []fastpath.NodeRejection, pi int16) {
	if len(rl) == 0 {
		return
	}
	statuses, bits := r.statuses, r.rejected
	plugins := r.plugins[:len(statuses)]
	word, at := uint64(0), int(rl[0].Node)>>6
	for k, x := range rl {
		if !x.Rejects() {
			bits[at] |= word
			r.addRest(rl[k:], pi, false)
			return
		}
		p := int(x.Node)
		statuses[p], plugins[p] = x.Status, pi
		if w := p >> 6; w != at {
			bits[at] |= word
			word, at = 0, w
		}
		word |= 1 << (p & 63)
	}
	bits[at] |= word
}

// addRest is add for any entry: a failure is recorded as
// filterRecorder.failure's status. With deferred (a DeferringRejectingFilterPlugin's list), an
// entry without a status is a rejection whose status deferredStatuses
// sets when the cycle keeps it.
func (r *filterRecorder) addRest(rl []fastpath.NodeRejection, pi int16, deferred bool) {
	statuses, plugins, bits := r.statuses, r.plugins, r.rejected
	for _, x := range rl {
		st, p := x.Status, int(x.Node)
		if (st != nil || !deferred) && !x.Rejects() {
			st = r.failure(st, pi, p)
		}
		statuses[p], plugins[p] = st, pi
		bits[p>>6] |= 1 << (p & 63)
	}
}

// filterChunk runs one Filter plugin, pl, on nodes (of snapshot indices
// idx, or nil) in its fastest form — r when it reports rejections (checked
// unless trusted), else b when it filters in batches, else node by node —
// and returns its rejections in increasing order of node, appended to rb
// (room for every node). out (len(nodes), all nil) receives FilterBatch's
// statuses and is left with them.
func filterChunk(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, pl framework.FilterPlugin, b fastpath.BatchFilterPlugin, r fastpath.RejectingFilterPlugin, trusted bool, nodes []*framework.NodeInfo, idx []int32, out []*framework.Status, rb []fastpath.NodeRejection) []fastpath.NodeRejection {
	switch {
	case r != nil:
		rl := r.FilterRejects(ctx, state, pod, nodes, idx, rb)
		if trusted {
			return rl
		}
		return checkRejections(rl, len(nodes))
	case b != nil:
		b.FilterBatch(ctx, state, pod, nodes, idx, out)
		return collectRejections(out, rb)
	}
	for q, ni := range nodes {
		if s := pl.Filter(ctx, state, pod, ni); s != nil && s.Code() != framework.Success {
			rb = append(rb, fastpath.NodeRejection{Node: int32(q), Status: s})
		}
	}
	return rb
}
