package framework

import (
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
}

// TaintClasses returns the snapshot's taint classes, computing them once
// per snapshot (and again after node changes). It is safe for concurrent
// use.
func (s *Snapshot) TaintClasses() *TaintClasses {
	s.topoMu.Lock()
	defer s.topoMu.Unlock()
	if s.taintClasses != nil {
		return s.taintClasses
	}
	tc := &TaintClasses{Class: make([]int32, len(s.nodes))}
	ids := map[string]int32{}
	var key []byte
	for i, n := range s.nodes {
		spec := &n.node.Spec
		key = strconv.AppendBool(key[:0], spec.Unschedulable)
		for j := range spec.Taints {
			t := &spec.Taints[j]
			key = appendStrKey(appendStrKey(appendStrKey(key, t.Key), t.Value), string(t.Effect))
		}
		id, ok := ids[string(key)]
		if !ok {
			id = int32(len(tc.Taints))
			ids[string(key)] = id
			tc.Taints = append(tc.Taints, spec.Taints)
			tc.Unschedulable = append(tc.Unschedulable, spec.Unschedulable)
		}
		tc.Class[i] = id
		if spec.Unschedulable {
			tc.Cordoned = append(tc.Cordoned, int32(i))
		}
	}
	s.taintClasses = tc
	return tc
}
