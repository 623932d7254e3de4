package framework

// nodeJournal records which nodes of a snapshot changed lately, so that a
// cache of per-node results (Incremental's) finds the nodes to compute
// again without comparing every node's NodeInfo and Generation.
//
// seq counts the changes: a change to one node (through mutable: a pod
// added or removed, the node object or its CSINode replaced) or to every
// node (a node added or removed). ring holds the index of the node of
// each of the last journalRing changes, change c at ring[c%journalRing]
// (−1 for a change to every node).
type nodeJournal struct {
	seq  uint64
	ring [journalRing]int32
}

// journalRing is how many changes the journal remembers: a cache that
// fell further behind starts over.
const journalRing = 32

// noteNode records a change to node i.
func (j *nodeJournal) noteNode(i int) {
	j.ring[j.seq%journalRing] = int32(i)
	j.seq++
}

// noteAll records a change to every node (nodes added, removed or
// renumbered).
func (j *nodeJournal) noteAll() {
	j.ring[j.seq%journalRing] = -1
	j.seq++
}

// ChangeSeq is the number of changes the snapshot's nodes went through:
// equal values mean no NodeInfo of the snapshot changed in between, and
// every node keeps its NodeInfo pointer and Generation.
func (s *Snapshot) ChangeSeq() uint64 { return s.journal.seq }

// ChangedSince appends to buf the index of each node changed since the
// snapshot's ChangeSeq was seq (a node changed twice is listed twice) and
// reports whether it could: false when the journal no longer holds every
// change since then, or one of them changed every node (the caller then
// checks every node itself).
func (s *Snapshot) ChangedSince(seq uint64, buf []int32) ([]int32, bool) {
	j := &s.journal
	if seq > j.seq || j.seq-seq > journalRing {
		return buf, false
	}
	for c := seq; c < j.seq; c++ {
		k := j.ring[c%journalRing]
		if k < 0 {
			return buf, false
		}
		buf = append(buf, k)
	}
	return buf, true
}
