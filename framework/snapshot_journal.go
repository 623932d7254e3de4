package framework

// nodeJournal records which nodes of a snapshot changed lately, so that a
// cache of per-node results (Incremental's) finds the nodes to compute
// again without comparing every node's NodeInfo and Generation.
//
// seq counts the changes: a change to one node (through mutable: a pod
// added or removed, the node object or its CSINode replaced) or to every
// node (a node added or removed). ring holds the index of the node of
// each of the last journalRing changes, change c at ring[c%journalRing]
// (−1 for a change to every node); it is allocated at the first change,
// so that a clone nobody changes costs nothing. nodes counts the changes
// to nodes themselves (added, removed, restored, their node object
// replaced).
type nodeJournal struct {
	seq   uint64
	ring  []int32
	nodes uint64
}

// journalRing is how many changes the journal remembers: a cache that
// fell further behind starts over. Caches kept per class of pods
// (Incremental in a scheduler) see a class's cycles many cycles apart, a
// few changes each.
const journalRing = 4096

// note records change seq as k.
func (j *nodeJournal) note(k int32) {
	if j.ring == nil {
		j.ring = make([]int32, journalRing)
	}
	j.ring[j.seq%journalRing] = k
	j.seq++
}

// noteNode records a change to node i.
func (j *nodeJournal) noteNode(i int) { j.note(int32(i)) }

// noteAll records a change to every node (nodes added, removed or
// renumbered).
func (j *nodeJournal) noteAll() {
	j.note(-1)
	j.nodes++
}

// ChangeSeq is the number of changes the snapshot's nodes went through:
// equal values mean no NodeInfo of the snapshot changed in between, and
// every node keeps its NodeInfo pointer and Generation.
func (s *Snapshot) ChangeSeq() uint64 { return s.journal.seq }

// NodeChangeSeq is the number of changes to the snapshot's nodes
// themselves: nodes added, removed or restored and node objects replaced
// (UpdateNode). Pods added or removed leave it as it is. Equal values
// mean the nodes, their order and everything derived from their objects
// alone (labels, taints, images, allocatable) are the same.
func (s *Snapshot) NodeChangeSeq() uint64 { return s.journal.nodes }

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
