package framework

import (
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/schedkit/schedkit/framework/api"
)

// labelNumbering gives each node label key and each label value seen in
// a snapshot family a number, for good: a number means the same string in
// every snapshot of the family. Numbers are never reused, as with image
// names (imageNumbering): the strings of nodes removed stay numbered.
type labelNumbering struct {
	// fromMaps counts the keys the family's snapshots numbered before
	// one made the label rows (labelRowsLocked).
	fromMaps atomic.Int64

	mu     sync.Mutex
	keys   map[string]int32
	values map[string]int32
	// names holds each value by number; it only grows, so a copy of the
	// slice header taken under mu stays valid for the numbers it covers.
	names []string
}

// nodeLabel is one label of a node: its key's and its value's numbers.
type nodeLabel struct {
	key, value int32
}

// row appends labels to dst as numbered pairs, numbering new strings.
func (x *labelNumbering) row(labels map[string]string, dst []nodeLabel) []nodeLabel {
	if len(labels) == 0 {
		return dst
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.rowLocked(labels, dst)
}

// rowLocked is row with x.mu held.
func (x *labelNumbering) rowLocked(labels map[string]string, dst []nodeLabel) []nodeLabel {
	if x.keys == nil {
		x.keys, x.values = map[string]int32{}, map[string]int32{}
	}
	for k, v := range labels {
		kid, ok := x.keys[k]
		if !ok {
			kid = int32(len(x.keys))
			x.keys[k] = kid
		}
		vid, ok := x.values[v]
		if !ok {
			vid = int32(len(x.names))
			x.values[v] = vid
			x.names = append(x.names, v)
		}
		dst = append(dst, nodeLabel{kid, vid})
	}
	return dst
}

// labelRowsAfter is how many keys a snapshot family numbers from the
// nodes' labels maps before a snapshot makes its label rows.
const labelRowsAfter = 2

// keyNumber returns key's number and the values numbered so far, or -1
// when no node of the family has had the key.
func (x *labelNumbering) keyNumber(key string) (int32, []string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	kid, ok := x.keys[key]
	if !ok {
		kid = -1
	}
	return kid, x.names
}

// labelRowsLocked returns every node's labels as numbered pairs, by node
// position, or nil while the snapshot's family has numbered fewer than
// labelRowsAfter keys from the nodes' labels maps (with topoMu held). The
// rows are made in one pass over the nodes, at the cost of about fifteen
// numberings from warm maps (a few from cold ones), and the node changes keep them once made (AddNode, RemoveNode,
// RestoreNode, UpdateNode): a label key met later then costs a pass over
// compact rows rather than a lookup in every node's labels map, which lie
// scattered in memory. A snapshot made for one question, which numbers
// the hostname and zone keys and little else, never makes them.
func (s *Snapshot) labelRowsLocked() [][]nodeLabel {
	if s.labelIDs == nil {
		s.labelIDs = &labelNumbering{}
	}
	if s.labelRows != nil || len(s.nodes) == 0 {
		return s.labelRows
	}
	if s.labelIDs.fromMaps.Add(1) <= labelRowsAfter {
		return nil
	}
	total := 0
	for _, n := range s.nodes {
		total += len(n.node.Labels)
	}
	// One array for all rows, in node order: the pass that numbers a key
	// reads it from start to end.
	all := make([]nodeLabel, 0, total)
	rows := make([][]nodeLabel, len(s.nodes))
	x := s.labelIDs
	x.mu.Lock()
	for i, n := range s.nodes {
		start := len(all)
		all = x.rowLocked(n.node.Labels, all)
		rows[i] = all[start:len(all):len(all)]
	}
	x.mu.Unlock()
	s.labelRows, s.labelRowsShared = rows, false
	return rows
}

// ownLabelRows copies the rows' slice before a write when a clone shares
// it (the rows themselves are never written).
func (s *Snapshot) ownLabelRows() {
	if s.labelRowsShared {
		s.labelRows = append([][]nodeLabel(nil), s.labelRows...)
		s.labelRowsShared = false
	}
}

// nodeRow returns a node's labels as numbered pairs, for the rows.
func (s *Snapshot) nodeRow(labels map[string]string) []nodeLabel {
	if len(labels) == 0 {
		return nil
	}
	return s.labelIDs.row(labels, make([]nodeLabel, 0, len(labels)))
}

// rowValues numbers key's values over the nodes from their label rows:
// what mapValues counts from the labels maps, values in the same order
// of first appearance.
func rowValues(key string, rows [][]nodeLabel, x *labelNumbering) *api.TopologyValues {
	c := newValueCount(key, len(rows))
	kid, names := x.keyNumber(key)
	// local maps a value's family number to its number in this key's
	// numbering (-1: not met yet); no node has a key never numbered.
	var local []int32
	if kid >= 0 {
		local = make([]int32, len(names))
		for i := range local {
			local[i] = -1
		}
	}
	for i, row := range rows {
		vid := int32(-1)
		for _, p := range row {
			if p.key == kid {
				vid = p.value
				break
			}
		}
		if vid < 0 {
			c.unkeyed(i)
			continue
		}
		id := local[vid]
		if id < 0 {
			id = c.newValue(names[vid])
			local[vid] = id
		}
		c.keyed(i, id)
	}
	return c.done()
}

// valueCount is a topology numbering being counted node by node, in
// position order (rowValues, mapValues).
type valueCount struct {
	tv *api.TopologyValues
	// has is the bitmap of the nodes with the key, by position.
	has   []uint64
	nodes int
}

// newValueCount starts the numbering of key over n nodes.
func newValueCount(key string, n int) valueCount {
	return valueCount{
		tv:    &api.TopologyValues{Key: key, Domain: make([]int32, n), ByIndex: true, IDs: map[string]int32{}},
		has:   make([]uint64, (n+63)/64),
		nodes: n,
	}
}

// unkeyed records that the node at position i lacks the key.
func (c *valueCount) unkeyed(i int) {
	c.tv.Domain[i] = -1
	c.tv.Unkeyed++
	c.tv.ByIndex = false
}

// keyed records that the node at position i has the value numbered id.
func (c *valueCount) keyed(i int, id int32) {
	c.tv.Domain[i] = id
	c.tv.ByIndex = c.tv.ByIndex && id == int32(i)
	c.has[i>>6] |= 1 << (i & 63)
}

// newValue numbers v, a value not met before, and returns its number.
func (c *valueCount) newValue(v string) int32 {
	tv := c.tv
	id := int32(len(tv.Values))
	if id == distinctProbe && tv.ByIndex {
		// Every node so far has a value of its own (the hostname key):
		// size the numbering for all of them rather than growing it node
		// by node.
		grown := make(map[string]int32, c.nodes)
		maps.Copy(grown, tv.IDs)
		tv.IDs = grown
		tv.Values = slices.Grow(tv.Values, c.nodes-len(tv.Values))
	}
	tv.IDs[v] = id
	tv.Values = append(tv.Values, v)
	return id
}

// done returns the numbering, with the bitmap of the nodes that have the
// key when some node lacks it.
func (c *valueCount) done() *api.TopologyValues {
	if c.tv.Unkeyed > 0 {
		c.tv.Keyed = c.has
	}
	return c.tv
}
