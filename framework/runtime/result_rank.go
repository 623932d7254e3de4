package runtime

// RankedCandidate is a feasible node of a scored cycle: its index in the
// cycle's snapshot, its position among the feasible nodes (evaluation
// order, which orders ties) and its total score.
type RankedCandidate struct {
	Index int32
	Pos   int32
	Total int64
}

// AppendRunnersUp appends to buf every feasible node the cycle scored but
// did not select, in evaluation order, and returns it: the ranking a later
// cycle of an identical pod may reuse (kube-scheduler's
// SortedScoredNodes after the winner is popped). It appends nothing when
// the cycle did not score (no node or one node was feasible) or when the
// feasible nodes are not the snapshot's own (an extender returned its own
// NodeInfos).
func (r *Result) AppendRunnersUp(buf []RankedCandidate) []RankedCandidate {
	if r == nil || len(r.Totals) == 0 || len(r.Totals) != len(r.feasible) {
		return buf
	}
	idx := r.feasibleIndices()
	if idx == nil {
		return buf
	}
	for j, t := range r.Totals {
		if j != r.selected {
			buf = append(buf, RankedCandidate{Index: idx[j], Pos: int32(j), Total: t})
		}
	}
	return buf
}
