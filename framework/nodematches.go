package framework

import (
	"slices"
	"sync"
	"sync/atomic"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/boolbit"
)

// nodeMatchMemoMax bounds the node constraints whose matched nodes a
// snapshot keeps (and those it remembers being asked for); past it, the
// memo starts over.
const nodeMatchMemoMax = 256

// nodeMatchMemo holds, per node constraint (by its key), the bitmap of the
// nodes it matches, and the keys asked for once without one. It belongs
// to one set of node objects: the snapshot drops it when a node changes,
// and clones of the same nodes share it.
type nodeMatchMemo struct {
	mu    sync.Mutex
	bits  map[string][]uint64
	asked map[string]struct{}
	// values are NodesMemo's.
	values map[string]any
	// asking is the PreFilterResult PositionsOf was last asked for
	// without kept positions, and kept the positions of the result asked
	// for twice in a row (Snapshot.PositionsOf).
	asking atomic.Pointer[PreFilterResult]
	kept   atomic.Pointer[resultPositions]
}

// matchMemo returns the snapshot's memo of node matches, made when it has
// none (at first, and after a node changed).
func (s *Snapshot) matchMemo() *nodeMatchMemo {
	if m := s.nodeMatches.Load(); m != nil {
		return m
	}
	s.topoMu.Lock()
	defer s.topoMu.Unlock()
	m := s.nodeMatches.Load()
	if m == nil {
		m = &nodeMatchMemo{}
		s.nodeMatches.Store(m)
	}
	return m
}

// NodesMemo returns the value kept under key while the snapshot's nodes
// stay the same, calling build for it the first time key is asked for
// (again after a node changes). It lets a plugin compile and resolve a
// constraint against the snapshot once for the pods that share it: key
// must identify everything build reads but the snapshot's nodes, with the
// caller's own prefix (plugins share the memo), and the value must be
// read-only. Clones of the same nodes share the memo, so a value that
// refers to the snapshot that built it is rebound to the reader's own
// (api.IndexedNodeMatch.On); at most a few hundred keys are kept, past
// which it starts over. It is safe for
// concurrent use: build runs without the lock, and when two readers
// build the same key the first value stored is the one both return.
func (s *Snapshot) NodesMemo(key []byte, build func() any) any {
	memo := s.matchMemo()
	memo.mu.Lock()
	if v, ok := memo.values[string(key)]; ok { // no allocation for the lookup
		memo.mu.Unlock()
		return v
	}
	memo.mu.Unlock()
	v := build()
	memo.mu.Lock()
	defer memo.mu.Unlock()
	if cur, ok := memo.values[string(key)]; ok {
		return cur
	}
	switch {
	case memo.values == nil:
		memo.values = map[string]any{}
	case len(memo.values) >= nodeMatchMemoMax:
		// Keys that do not repeat (constraints naming a node each, with
		// a nodeSelector besides) fill the memo again: sized for it, it
		// does not grow.
		memo.values = make(map[string]any, nodeMatchMemoMax)
	}
	memo.values[string(key)] = v
	return v
}

// resultPositions are the positions of a PreFilterResult's nodes in the
// snapshots of one node set (their nodeMatchMemo, which every node added,
// removed or changed drops, so the positions stay valid with it).
type resultPositions struct {
	r   *PreFilterResult
	pos []int
}

// PositionsOf returns, in ascending order, the positions in s of the
// nodes r names that s holds (none for a nil r or one naming every node).
// The slice is read-only: buf's array, or the positions s's node set
// keeps for the result its cycles were last asked for twice in a row (a
// plugin's PreFilterResult shared by the pods written alike), so that
// such a cycle looks no name up while s's nodes stay the same. It is
// safe for concurrent use.
func (s *Snapshot) PositionsOf(r *PreFilterResult, buf []int) []int {
	if r.AllNodes() {
		return buf[:0]
	}
	memo := s.matchMemo()
	if k := memo.kept.Load(); k != nil && k.r == r {
		return k.pos
	}
	pos := buf[:0]
	names := r.listed()
	if ni := r.node; ni != nil && names != nil {
		if i := r.pos; i < len(s.nodes) && s.nodes[i] == ni {
			return append(pos, i)
		}
	}
	if names != nil { // PreFilterResultOf's list
		for _, name := range names {
			if i := s.Index(name); i >= 0 {
				pos = append(pos, i)
			}
		}
	} else {
		for name := range r.NodeNames {
			if i := s.Index(name); i >= 0 {
				pos = append(pos, i)
			}
		}
	}
	slices.Sort(pos)
	if memo.asking.Swap(r) == r {
		memo.kept.Store(&resultPositions{r: r, pos: slices.Clone(pos)})
	}
	return pos
}

// PreFilterResultOf returns the result naming exactly names, as the
// package's PreFilterResultOf does. For a single name s holds, NodeNames
// is a set kept with that node from the first result naming it on,
// shared by every result naming it (nobody modifies a returned set), and
// the result remembers the node's position, so that PositionsOf finds it
// without looking the name up: the pods of a cluster's DaemonSets, each
// naming its node, build one set a node between them.
func (s *Snapshot) PreFilterResultOf(names []string) PreFilterResult {
	if len(names) != 1 {
		return PreFilterResultOf(names)
	}
	i := s.Index(names[0])
	if i < 0 {
		return PreFilterResultOf(names)
	}
	ni := s.nodes[i]
	set := ni.nameSet()
	return PreFilterResult{NodeNames: set, names: names, set: mapID(set), node: ni, pos: i}
}

// NodesMatching returns the nodes r matches (the pod's nodeSelector and
// required node affinity, as r.Match decides) as a bitmap by snapshot
// position: bit k&63 of word k>>6 is set when the node at position k
// matches. Pods of a workload share their constraints: the bitmap is
// computed once per constraint while the snapshot's nodes stay the same,
// in O(nodes) matches, then read in O(1). It is read-only and valid until
// the snapshot's nodes next change. It is safe for concurrent use.
func (s *Snapshot) NodesMatching(r *api.RequiredNodeAffinity) []uint64 {
	var buf [256]byte
	key := r.AppendKey(append(buf[:0], 'R'))
	return s.nodeBits(key, false, func() api.IndexedNodeMatch { return r.Indexed(s) })
}

// RepeatedNodesMatching is NodesMatching for a match m resolved against
// this snapshot, memoized under key, once the key has been asked for
// before: the first call for a key records it and returns nil (a
// constraint met once costs the caller its own matches only, not a match
// of every node). key must identify what m matches: the caller derives it
// from what m was built from, equal keys for equal matches.
func (s *Snapshot) RepeatedNodesMatching(key []byte, m *api.IndexedNodeMatch) []uint64 {
	var buf [256]byte
	k := append(append(buf[:0], 'X'), key...)
	return s.nodeBits(k, true, func() api.IndexedNodeMatch { return *m })
}

// nodeBits returns key's bitmap, matching every node with the match
// build returns when the memo has none (only when key was asked before,
// with onRepeat).
func (s *Snapshot) nodeBits(key []byte, onRepeat bool, build func() api.IndexedNodeMatch) []uint64 {
	memo := s.matchMemo()
	memo.mu.Lock()
	if b, ok := memo.bits[string(key)]; ok { // no allocation for the lookup
		memo.mu.Unlock()
		return b
	}
	if onRepeat {
		if _, ok := memo.asked[string(key)]; !ok {
			if memo.asked == nil || len(memo.asked) >= nodeMatchMemoMax {
				memo.asked = map[string]struct{}{}
			}
			memo.asked[string(key)] = struct{}{}
			memo.mu.Unlock()
			return nil
		}
	}
	memo.mu.Unlock()
	// Matched without the lock, which other readers take meanwhile.
	m := build()
	b := matchedBits(&m, len(s.nodes))
	memo.mu.Lock()
	defer memo.mu.Unlock()
	if cur, ok := memo.bits[string(key)]; ok { // matched meanwhile by another reader
		return cur
	}
	if memo.bits == nil || len(memo.bits) >= nodeMatchMemoMax {
		memo.bits = map[string][]uint64{}
	}
	memo.bits[string(key)] = b
	return b
}

// matchedBits returns the nodes m matches among the first n, a bit each
// by position; a single expression's table is read without a call.
func matchedBits(m *api.IndexedNodeMatch, n int) []uint64 {
	b := make([]uint64, (n+63)/64)
	if domain, pass, ok := m.Single(); ok {
		domain = domain[:n]
		for w := range b {
			var word uint64
			for k := w * 64; k < min(w*64+64, n); k++ {
				word |= uint64(boolbit.Of(pass[domain[k]+1])) << (k & 63)
			}
			b[w] = word
		}
		return b
	}
	for k := range n {
		if m.Match(k) {
			b[k>>6] |= 1 << (k & 63)
		}
	}
	return b
}
