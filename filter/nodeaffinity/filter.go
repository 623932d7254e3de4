package nodeaffinity

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/filter"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/fastpath"
)

// naPreFilterKey is kube's "PreFilter"+NodeAffinity state key.
const naPreFilterKey framework.StateKey = "PreFilter" + config.NodeAffinityName

type naPreFilterState struct {
	required requiredTerms
	// indexed is required resolved against snap, the cycle's snapshot
	// (own, when PreFilter had the snapshot).
	indexed *api.IndexedNodeMatch
	own     api.IndexedNodeMatch
	snap    *framework.Snapshot
	// bits, when not nil, are the snapshot's nodes indexed matches, one
	// bit each by position (Snapshot.RepeatedNodesMatching: constraints of
	// more than one expression that pods met before).
	bits []uint64
	// every: indexed matches every node of the snapshot
	// (api.IndexedNodeMatch.MatchesEvery), so the filter rejects none.
	every bool
}

// Clone returns the state itself: other pods never change it.
func (s *naPreFilterState) Clone() framework.StateData { return s }

// naCompiled is a pod's hard node constraints compiled and resolved
// against a snapshot's nodes (indexed), kept in the snapshot's NodesMemo
// under naMemoPrefix and appendRequiredKey's key; read-only.
type naCompiled struct {
	required requiredTerms
	indexed  api.IndexedNodeMatch
	every    bool // indexed.MatchesEvery
	// result is the PreFilterResult of the constraints' metadata.name
	// terms, shared by the cycles of pods written alike (read-only).
	result *framework.PreFilterResult
	status *framework.Status
	// state is the PreFilter state of these constraints on one snapshot
	// of these nodes, once complete (its bitmap made, or not wanted),
	// which later cycles on that snapshot share: it is read-only and
	// reads nothing but the constraints and the snapshot's nodes.
	state atomic.Pointer[naPreFilterState]
}

// naNamed is the PreFilter outcome of constraints that only name nodes
// (namedTerms): the names in order, the state, whose constraints match
// by name, and the PreFilterResult of the names, both read-only and
// shared by the pods naming the same nodes.
type naNamed struct {
	names  []string
	state  naNamedState
	result framework.PreFilterResult
	// one holds the name of a single term (a DaemonSet pod's), so that
	// names needs no array of its own.
	one [1]string
}

// naNamedState is the PreFilter state of constraints that only name
// nodes: the constraints, which match by name, without the fields that
// resolve other constraints against a snapshot.
type naNamedState struct {
	required requiredTerms
}

// Clone returns the state itself: other pods never change it.
func (s *naNamedState) Clone() framework.StateData { return s }

// naFewNames is the most nodes a PreFilterResult may name for the
// filter to match them one by one rather than read the snapshot's bitmap
// of the nodes the constraints match.
const naFewNames = 64

// naMemoPrefix starts NodeAffinity's keys in the snapshot's memos.
const naMemoPrefix = "NodeAffinity/required:"

var _ fastpath.IsolatedPreFilterPlugin = (*NodeAffinity)(nil)

// PreFilterIsolated marks the plugin as one whose PreFilter reads the pod
// and the snapshot alone and writes only its own state.
func (pl *NodeAffinity) PreFilterIsolated() {}

// PreFilter compiles the pod's hard node constraints and derives the
// PreFilterResult from metadata.name terms.
func (pl *NodeAffinity) PreFilter(_ context.Context, state *framework.CycleState, pod *framework.PodInfo, _ []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	spec := &pod.Pod.Spec
	var required *api.NodeSelector
	if a := spec.Affinity; a != nil && a.NodeAffinity != nil {
		required = a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	}
	if required == nil && pl.addedRequired == nil && spec.NodeSelector == nil {
		return nil, framework.NewStatus(framework.Skip)
	}
	if terms := namedTerms(spec); len(terms) > 0 && pl.addedRequired == nil {
		if named := pl.lastNames.Load(); named != nil && sameNamedNodes(terms, named.names) {
			state.Write(naPreFilterKey, &named.state)
			return &named.result, nil
		}
		named := &naNamed{}
		named.names = namedNodes(terms, named.one[:0])
		if snap := state.Snapshot(); snap != nil {
			named.result = snap.PreFilterResultOf(named.names)
		} else {
			named.result = framework.PreFilterResultOf(named.names)
		}
		named.state.required.names = named.result.NodeNames
		if len(named.names) == 1 {
			named.state.required.one = named.names[0]
		}
		pl.lastNames.Store(named)
		state.Write(naPreFilterKey, &named.state)
		return &named.result, nil
	}
	snap := state.Snapshot()
	if snap == nil {
		state.Write(naPreFilterKey, &naPreFilterState{required: podRequired(pod.Pod)})
		return pl.preFilterResult(required)
	}
	// Pods whose constraints are written alike share them compiled and
	// resolved against the snapshot's nodes.
	var buf [256]byte
	key := appendRequiredKey(append(buf[:0], naMemoPrefix...), spec)
	c := snap.NodesMemo(key, func() any {
		r := podRequired(pod.Pod)
		c := &naCompiled{required: r, indexed: r.Indexed(snap)}
		c.every = c.indexed.MatchesEvery()
		c.result, c.status = pl.preFilterResult(required)
		return c
	}).(*naCompiled)
	if kept := c.state.Load(); kept != nil && kept.snap == snap {
		state.Write(naPreFilterKey, kept)
		return c.result, c.status
	}
	ps := &naPreFilterState{snap: snap, required: c.required, own: c.indexed.On(snap), every: c.every}
	ps.indexed = &ps.own
	// A bitmap of the nodes matched pays over many nodes, not over the
	// few a metadata.name term leaves to the filters.
	few := c.result != nil && len(c.result.NodeNames) <= naFewNames
	complete := true
	if _, _, single := c.indexed.Single(); !single && !c.every && !few {
		ps.bits = snap.RepeatedNodesMatching(key, ps.indexed)
		complete = ps.bits != nil
	}
	if complete {
		c.state.Store(ps)
	}
	state.Write(naPreFilterKey, ps)
	return c.result, c.status
}

// preFilterResult is the PreFilterResult of the pod's required terms:
// nil when they name no node by metadata.name, the conflict status when
// the names they allow are none.
func (pl *NodeAffinity) preFilterResult(required *api.NodeSelector) (*framework.PreFilterResult, *framework.Status) {
	if required == nil || len(required.NodeSelectorTerms) == 0 {
		return nil, nil
	}
	names, all := nodeNames(required.NodeSelectorTerms)
	if all {
		return nil, nil
	}
	if len(names) == 0 {
		return nil, pl.conflict
	}
	return &framework.PreFilterResult{NodeNames: names}, nil
}

var _ fastpath.BoundedPreFilterPlugin = (*NodeAffinity)(nil)

// PreFilterBound bounds PreFilter's result when every required term of
// the pod names nodes by "metadata.name In" (fastpath.BoundedPreFilterPlugin):
// the result unites the terms' names, each term's no more than its
// shortest such list.
func (pl *NodeAffinity) PreFilterBound(pod *framework.PodInfo) (int, bool) {
	a := pod.Pod.Spec.Affinity
	if a == nil || a.NodeAffinity == nil || a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution == nil {
		return 0, false
	}
	terms := a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
	if len(terms) == 0 {
		return 0, false
	}
	total := 0
	for i := range terms {
		least := -1
		for _, r := range terms[i].MatchFields {
			if r.Key == objectNameField && r.Operator == api.NodeSelectorOpIn && (least < 0 || len(r.Values) < least) {
				least = len(r.Values)
			}
		}
		if least < 0 {
			return 0, false
		}
		total += least
	}
	return total, true
}

// PreFilterExtensions returns nil: the state does not depend on other pods.
func (pl *NodeAffinity) PreFilterExtensions() framework.PreFilterExtensions { return nil }

// VictimRemoval reports that removing pods from a node leaves the verdict
// unchanged (the verdict reads the node's labels and fields alone;
// runtime.VictimRemovalFilter).
func (pl *NodeAffinity) VictimRemoval(*framework.PodInfo) (unchanged, keepsPass bool) {
	return true, true
}

// Filter checks the added affinity, then the pod's constraints. Without
// PreFilter state it compiles them itself, as kube does.
func (pl *NodeAffinity) Filter(_ context.Context, state *framework.CycleState, pod *framework.PodInfo, node *framework.NodeInfo) *framework.Status {
	n := node.Node()
	if pl.addedRequired != nil && !pl.addedRequired.Match(n) {
		return pl.rejectEnforced
	}
	req, st := pl.required(state, pod)
	if st != nil {
		return st
	}
	if !req.Match(n) {
		return pl.rejectPod
	}
	return nil
}

// required returns the PreFilter state's constraints, or the pod's
// compiled afresh when PreFilter did not run.
func (pl *NodeAffinity) required(state *framework.CycleState, pod *framework.PodInfo) (*requiredTerms, *framework.Status) {
	if d, err := state.Read(naPreFilterKey); err == nil {
		switch s := d.(type) {
		case *naNamedState:
			return &s.required, nil
		case *naPreFilterState:
			return &s.required, nil
		}
		return nil, framework.AsStatus(fmt.Errorf("invalid PreFilter state, got type %T", d))
	}
	r := podRequired(pod.Pod)
	return &r, nil
}

// FilterBatch is Filter over nodes (fastpath.BatchFilterPlugin), by way
// of FilterRejects.
func (pl *NodeAffinity) FilterBatch(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32, out []*framework.Status) {
	fastpath.FilterBatchFromRejects(ctx, pl, state, pod, nodes, idx, out)
}

// FilterRejects is Filter over nodes, reporting the rejected ones
// (fastpath.RejectingFilterPlugin): the pod's constraints are read (or
// compiled) once. With the runner's snapshot indices, a node is matched by
// the constraints PreFilter resolved against the snapshot's label values.
func (pl *NodeAffinity) FilterRejects(_ context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32, rejected []fastpath.NodeRejection) []fastpath.NodeRejection {
	if idx != nil && pl.addedRequired == nil {
		if d, err := state.Read(naPreFilterKey); err == nil {
			if s, ok := d.(*naPreFilterState); ok && s.indexed != nil && s.snap == state.Snapshot() {
				if s.every {
					return rejected
				}
				if domain, pass, ok := s.indexed.Single(); ok {
					rejected, added := filter.MarkRejections(rejected, len(idx), func(room []fastpath.NodeRejection) int { return naUnmatched(room, idx, domain, pass) })
					filter.SetStatus(added, pl.rejectPod)
					return rejected
				}
				if bits := s.bits; bits != nil {
					rejected, added := filter.MarkRejections(rejected, len(idx), func(room []fastpath.NodeRejection) int { return naUnmatchedBits(room, idx, bits) })
					filter.SetStatus(added, pl.rejectPod)
					return rejected
				}
				s.indexed.EachUnmatched(idx, func(i int) {
					rejected = append(rejected, fastpath.NodeRejection{Node: int32(i), Status: pl.rejectPod})
				})
				return rejected
			}
		}
	}
	var req *requiredTerms
	var st *framework.Status
	for i, node := range nodes {
		n := node.Node()
		if pl.addedRequired != nil && !pl.addedRequired.Match(n) {
			rejected = append(rejected, fastpath.NodeRejection{Node: int32(i), Status: pl.rejectEnforced})
			continue
		}
		if req == nil && st == nil {
			req, st = pl.required(state, pod)
		}
		if st != nil {
			rejected = append(rejected, fastpath.NodeRejection{Node: int32(i), Status: st})
			continue
		}
		if !req.Match(n) {
			rejected = append(rejected, fastpath.NodeRejection{Node: int32(i), Status: pl.rejectPod})
		}
	}
	return rejected
}

// appendRequiredKey appends to b a key of the pod's hard node constraints
// as written (spec.nodeSelector, then the required node affinity's terms
// with their requirements in order): pods whose constraints are written
// alike get equal keys, and constraints written differently get
// different keys.
func appendRequiredKey(b []byte, spec *api.PodSpec) []byte {
	b = appendLen(b, len(spec.NodeSelector))
	if len(spec.NodeSelector) > 0 {
		keys := make([]string, 0, len(spec.NodeSelector))
		for k := range spec.NodeSelector {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			b = appendKeyString(appendKeyString(b, k), spec.NodeSelector[k])
		}
	}
	var ns *api.NodeSelector
	if a := spec.Affinity; a != nil && a.NodeAffinity != nil {
		ns = a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	}
	if ns == nil {
		return append(b, '-')
	}
	b = appendLen(append(b, 'A'), len(ns.NodeSelectorTerms))
	for i := range ns.NodeSelectorTerms {
		t := &ns.NodeSelectorTerms[i]
		b = appendRequirementsKey(appendRequirementsKey(b, t.MatchExpressions), t.MatchFields)
	}
	return b
}

// appendRequirementsKey appends to b a key of a term's requirements as
// written: their count, then each one's key, operator and values.
func appendRequirementsKey(b []byte, rs []api.NodeSelectorRequirement) []byte {
	b = appendLen(b, len(rs))
	for i := range rs {
		r := &rs[i]
		b = appendLen(appendKeyString(appendKeyString(b, r.Key), string(r.Operator)), len(r.Values))
		for _, v := range r.Values {
			b = appendKeyString(b, v)
		}
	}
	return b
}

// appendKeyString appends s length-prefixed, so that concatenations are
// unambiguous.
func appendKeyString(b []byte, s string) []byte {
	return append(appendLen(b, len(s)), s...)
}

// appendLen appends n as four bytes (big-endian).
func appendLen(b []byte, n int) []byte {
	return append(b, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
}

// RejectionsTrusted marks FilterRejects as keeping its contract
// (fastpath.TrustedRejectingFilterPlugin).
func (pl *NodeAffinity) RejectionsTrusted() {}

var _ framework.EnqueueExtensions = (*NodeAffinity)(nil)

// EventsToRegister: a node added or its labels changed
// (nodeaffinity/node_affinity.go).
func (pl *NodeAffinity) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{Event: filter.NodeEvent(framework.Add | framework.UpdateNodeLabel), QueueingHintFn: pl.afterNodeChange},
	}, nil
}

// afterNodeChange: Queue when the node matches the added affinity and the
// pod's nodeSelector and required affinity now, and did not before (or
// was added).
func (pl *NodeAffinity) afterNodeChange(_ *framework.Snapshot, pod *framework.PodInfo, oldObj, newObj any) (framework.QueueingHint, error) {
	oldNode, newNode, err := framework.EventObjects[api.Node](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if pl.addedRequired != nil && !pl.addedRequired.Match(newNode) {
		return framework.QueueSkip, nil
	}
	req := api.GetRequiredNodeAffinity(pod.Pod)
	if !req.Match(newNode) {
		return framework.QueueSkip, nil
	}
	if oldNode == nil || !req.Match(oldNode) {
		return framework.Queue, nil
	}
	return framework.QueueSkip, nil
}
