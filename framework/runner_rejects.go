package framework

import (
	"context"
	"slices"
	"sync/atomic"
)

// FilterBatchFromRejects is FilterBatch for a RejectingFilterPlugin: it
// sets out[i] to the status of every node pl.FilterRejects rejects, so a
// plugin can offer both interfaces from one loop. It allocates only when
// some node is rejected.
func FilterBatchFromRejects(ctx context.Context, pl RejectingFilterPlugin, state *CycleState, pod *PodInfo, nodes []*NodeInfo, idx []int32, out []*Status) {
	for _, x := range pl.FilterRejects(ctx, state, pod, nodes, idx, nil) {
		out[x.Node] = x.Status
	}
}

// collectRejections appends to rl, in increasing order, the entries of o
// (one FilterBatch call's statuses) that reject a node, and sets o back to
// all nil.
func collectRejections(o []*Status, rl []NodeRejection) []NodeRejection {
	rl = rl[:len(rl)+len(o)] // the caller leaves room for every node
	w := len(rl) - len(o)
	for q := range o {
		if s := o[q]; s != nil {
			o[q] = nil
			if s.code != Success {
				rl[w] = NodeRejection{Node: int32(q), Status: s}
				w++
			}
		}
	}
	return rl[:w]
}

// checkRejections returns what a RejectingFilterPlugin returned for l
// nodes in the form removeRejected needs: nodes in [0, l), each once, in
// increasing order. A list out of order is sorted (keeping a node's first
// entry); entries out of range are dropped.
func checkRejections(rl []NodeRejection, l int) []NodeRejection {
	prev := int32(-1)
	for _, x := range rl {
		if x.Node <= prev || int(x.Node) >= l {
			return fixRejections(rl, l)
		}
		prev = x.Node
	}
	return rl
}

func fixRejections(rl []NodeRejection, l int) []NodeRejection {
	rl = slices.DeleteFunc(rl, func(x NodeRejection) bool { return x.Node < 0 || int(x.Node) >= l })
	slices.SortStableFunc(rl, func(a, b NodeRejection) int { return int(a.Node) - int(b.Node) })
	return slices.CompactFunc(rl, func(a, b NodeRejection) bool { return a.Node == b.Node })
}

// removeRejected removes from a chunk's live nodes (and their snapshot
// indices ix, and their positions pos when the candidates are narrowed)
// those that rl rejects (rl as checkRejections leaves it; a nil or
// Success status rejects nothing), each replaced by the chunk's last live
// node (so the survivors lose their order but nothing else moves), and
// returns how many nodes are left. Going through rl from its end, the last
// live node is never one still to remove, so the work is O(1) per
// rejection whatever the chunk's size. It records each rejection by plugin
// pi with rec at its position: pos[x], or derived from ix when pos is nil
// (ix[x] = (start+p) mod n, the candidates being the snapshot's nodes).
func removeRejected(rl []NodeRejection, nodes []*NodeInfo, ix, pos []int32, start, n int, rec *filterRecorder, pi int16) int {
	end := len(nodes)
	ix = ix[:end]
	statuses, plugins, bits := rec.statuses, rec.plugins, rec.rejected
	for r := len(rl) - 1; r >= 0; r-- {
		s, q := rl[r].Status, int(rl[r].Node)
		if s == nil {
			continue
		}
		if c := s.code; c != Unschedulable && c != UnschedulableAndUnresolvable {
			if c == Success {
				continue
			}
			if c != Pending {
				s = rec.failure(s, pi)
			}
		}
		end--
		var p int
		if pos == nil {
			if p = int(ix[q]) - start; p < 0 {
				p += n
			}
		} else {
			p = int(pos[q])
			pos[q] = pos[end]
		}
		nodes[q], ix[q] = nodes[end], ix[end]
		statuses[p], plugins[p] = s, pi
		if rec.shared {
			atomic.OrUint64(&bits[p>>6], 1<<(p&63))
		} else {
			bits[p>>6] |= 1 << (p & 63)
		}
	}
	return end
}
