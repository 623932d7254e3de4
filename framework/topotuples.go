package framework

import (
	"maps"
	"slices"

	"github.com/schedkit/schedkit/framework/api"
)

// TopologyTuples numbers the distinct combinations of the values of
// several node label keys across a snapshot, so that a plugin summing
// per-key domain scores for every node reads one sum per combination
// instead of one per key. It is read-only.
type TopologyTuples struct {
	// Keys are the label keys, in the order asked for.
	Keys []string
	// Domain[i] is the combination of the node at position i
	// (NodeInfo.Index).
	Domain []int32
	// Parts[c][x] is combination c's value of Keys[x], numbered as
	// TopologyValues(Keys[x]) numbers it, or −1 for nodes without the key.
	Parts [][]int32
}

// TopologyTuplesMaxKeys bounds the keys of a TopologyTuples.
const TopologyTuplesMaxKeys = 8

// TopologyTuples returns the numbering of the combinations of keys'
// values over the snapshot's nodes, computed once per snapshot (and again
// after nodes are added or removed, or an update changes one of the keys'
// values on a node), or nil for no keys or more than
// TopologyTuplesMaxKeys. It is safe for concurrent use.
func (s *Snapshot) TopologyTuples(keys []string) *TopologyTuples {
	if len(keys) == 0 || len(keys) > TopologyTuplesMaxKeys {
		return nil
	}
	var buf [256]byte
	kb := buf[:0]
	for _, k := range keys {
		kb = append(append(kb, k...), 0)
	}
	s.topoMu.Lock()
	defer s.topoMu.Unlock()
	if t, ok := s.tuples[string(kb)]; ok { // no allocation for the lookup
		return t
	}
	tvs := make([]*api.TopologyValues, len(keys))
	for x, k := range keys {
		tvs[x] = s.topologyValuesLocked(k)
	}
	t := &TopologyTuples{Keys: slices.Clone(keys), Domain: make([]int32, len(s.nodes))}
	ids := map[[TopologyTuplesMaxKeys]int32]int32{}
	for i := range s.nodes {
		var combo [TopologyTuplesMaxKeys]int32
		for x, tv := range tvs {
			combo[x] = tv.Domain[i]
		}
		id, seen := ids[combo]
		if !seen {
			id = int32(len(t.Parts))
			ids[combo] = id
			t.Parts = append(t.Parts, slices.Clone(combo[:len(keys)]))
		}
		t.Domain[i] = id
	}
	// Clones share the map: replace it rather than write it.
	next := maps.Clone(s.tuples)
	if next == nil {
		next = map[string]*TopologyTuples{}
	}
	next[string(kb)] = t
	s.tuples = next
	return t
}
