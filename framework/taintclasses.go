package framework

import (
	"slices"
	"strconv"

	"github.com/schedkit/schedkit/framework/api"
)

// TaintClasses numbers the distinct cordon flags and taint lists of a
// snapshot's nodes, so that plugins deciding per taint list (TaintToleration,
// NodeUnschedulable, PodTopologySpread's nodeTaintsPolicy) decide once per
// class and read each node's verdict by its index. Nodes of one class are
// equally cordoned (or not) and have equal taint lists: the same keys,
// values and effects in the same order (TimeAdded aside). Read-only.
type TaintClasses struct {
	// Class[i] is the class of the node at position i (NodeInfo.Index).
	Class []int32
	// Taints[c] is the taint list of one node of class c.
	Taints [][]api.Taint
	// Unschedulable[c] is spec.unschedulable of the nodes of class c.
	Unschedulable []bool
	// Cordoned lists the positions of the nodes with spec.unschedulable,
	// in increasing order.
	Cordoned []int32

	// keys[c] identifies class c (taintClassKey of its nodes) and sizes[c]
	// counts its nodes, so that a node change can derive the changed
	// snapshot's classes from these instead of reading every node again.
	keys  []string
	sizes []int32
}

// TaintClasses returns the snapshot's taint classes, computing them once
// per snapshot (and again after node changes). It is safe for concurrent
// use.
func (s *Snapshot) TaintClasses() *TaintClasses {
	// Read without the lock, which the chunks of a cycle's loops, each
	// asking, would otherwise take in turn on every worker.
	if tc := s.taintClasses.Load(); tc != nil {
		return tc
	}
	s.topoMu.Lock()
	defer s.topoMu.Unlock()
	tc := s.taintClasses.Load()
	if tc == nil {
		tc = taintClassesOf(s.nodes)
		s.taintClasses.Store(tc)
	}
	return tc
}

// taintClassesOf numbers the taint classes of nodes, in the order of
// their first nodes.
func taintClassesOf(nodes []*NodeInfo) *TaintClasses {
	tc := &TaintClasses{Class: make([]int32, len(nodes))}
	ids := map[string]int32{}
	var key []byte
	for i, n := range nodes {
		spec := &n.node.Spec
		key = taintClassKey(key[:0], spec)
		id, ok := ids[string(key)]
		if !ok {
			id = int32(len(tc.Taints))
			k := string(key)
			ids[k] = id
			tc.keys = append(tc.keys, k)
			tc.sizes = append(tc.sizes, 0)
			tc.Taints = append(tc.Taints, spec.Taints)
			tc.Unschedulable = append(tc.Unschedulable, spec.Unschedulable)
		}
		tc.Class[i] = id
		tc.sizes[id]++
		if spec.Unschedulable {
			tc.Cordoned = append(tc.Cordoned, int32(i))
		}
	}
	return tc
}

// taintClassKey appends to b what identifies spec's taint class: its
// cordon flag and each taint's key, value and effect, in order.
func taintClassKey(b []byte, spec *api.NodeSpec) []byte {
	b = strconv.AppendBool(b, spec.Unschedulable)
	for j := range spec.Taints {
		t := &spec.Taints[j]
		b = appendStrKey(appendStrKey(appendStrKey(b, t.Key), t.Value), string(t.Effect))
	}
	return b
}

// inserted returns the classes of the snapshot tc describes with node n
// inserted at position at (the nodes from at on move up one), or nil
// when tc is nil. tc is not changed: readers may hold it.
func (tc *TaintClasses) inserted(at int, n *api.Node) *TaintClasses {
	if tc == nil {
		return nil
	}
	spec := &n.Spec
	key := string(taintClassKey(nil, spec))
	out := &TaintClasses{Taints: tc.Taints, Unschedulable: tc.Unschedulable, keys: tc.keys, sizes: slices.Clone(tc.sizes)}
	id := int32(slices.Index(tc.keys, key))
	if id < 0 {
		id = int32(len(tc.keys))
		out.keys = append(slices.Clip(tc.keys), key)
		out.sizes = append(out.sizes, 0)
		out.Taints = append(slices.Clip(tc.Taints), spec.Taints)
		out.Unschedulable = append(slices.Clip(tc.Unschedulable), spec.Unschedulable)
	}
	out.sizes[id]++
	out.Class = insertCopy(tc.Class, at, id)
	out.Cordoned = make([]int32, len(tc.Cordoned), len(tc.Cordoned)+1)
	for i, p := range tc.Cordoned {
		if int(p) >= at {
			p++
		}
		out.Cordoned[i] = p
	}
	if spec.Unschedulable {
		k, _ := slices.BinarySearch(out.Cordoned, int32(at))
		out.Cordoned = slices.Insert(out.Cordoned, k, int32(at))
	}
	return out
}

// removed returns the classes of the snapshot tc describes with the node
// at position at removed (the later nodes move down one), or nil when tc
// is nil or the node was its class's last, since every class keeps a
// node. tc is not changed: readers may hold it.
func (tc *TaintClasses) removed(at int) *TaintClasses {
	if tc == nil || tc.sizes[tc.Class[at]] == 1 {
		return nil
	}
	out := &TaintClasses{Taints: tc.Taints, Unschedulable: tc.Unschedulable, keys: tc.keys, sizes: slices.Clone(tc.sizes)}
	out.sizes[tc.Class[at]]--
	out.Class = slices.Delete(slices.Clone(tc.Class), at, at+1)
	out.Cordoned = make([]int32, 0, len(tc.Cordoned))
	for _, p := range tc.Cordoned {
		switch {
		case int(p) < at:
			out.Cordoned = append(out.Cordoned, p)
		case int(p) > at:
			out.Cordoned = append(out.Cordoned, p-1)
		}
	}
	return out
}

// replaced returns the classes of the snapshot tc describes with the node
// at position at replaced by n: tc itself when n is of the class the node
// was of, nil when tc is nil or the node was its class's last.
func (tc *TaintClasses) replaced(at int, n *api.Node) *TaintClasses {
	if tc == nil {
		return nil
	}
	if string(taintClassKey(nil, &n.Spec)) == tc.keys[tc.Class[at]] {
		return tc
	}
	return tc.removed(at).inserted(at, n)
}
