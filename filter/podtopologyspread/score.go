package podtopologyspread

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/bits"
	"reflect"
	"slices"
	"sync/atomic"
	"unsafe"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/fastpath"
	"github.com/schedkit/schedkit/internal/slicepool"
	"github.com/schedkit/schedkit/scoring"
)

const ptsPreScoreStateKey framework.StateKey = "PreScore" + config.PodTopologySpreadName

// ptsScoreNoKey in ptsPreScoreState.dom: the node lacks the constraint's
// topology key and the constraint adds nothing to its score.
const ptsScoreNoKey int32 = -1

var (
	_ framework.PreScorePlugin      = (*PodTopologySpread)(nil)
	_ framework.ScorePlugin         = (*PodTopologySpread)(nil)
	_ fastpath.BatchScorePlugin     = (*PodTopologySpread)(nil)
	_ framework.ScoreExtensions     = (*PodTopologySpread)(nil)
	_ fastpath.BatchScoreExtensions = (*PodTopologySpread)(nil)

	_ framework.ReleasableStateData = (*ptsPreScoreState)(nil)
)

// ptsPreScoreState is what PreScore computes for Score and NormalizeScore.
// Per constraint c: DomainIndex[c]/DomainValues[c] are the topology values
// found among the scored (feasible, not ignored) nodes, Counts[c] the
// matching pods per value over all nodes of the snapshot, Weights[c] the
// normalizing weight ln(domains + 2). Hostname constraints have no domains:
// their count is the matching pods on the scored node itself (hostCount,
// taken in PreScore from the NodeInfo Score will see; Score recounts for
// any other NodeInfo). Per scored node j (PreScore's order): ignored[j] and
// dom[j*len(Constraints)+c], the node's domain index or ptsScoreNoKey. Score
// and NormalizeScore only read the state; PreScoreAfterAdd updates a
// fast-mode state in place, which Clone therefore copies.
type ptsPreScoreState struct {
	Constraints  []constraint
	IgnoredNodes map[string]bool
	DomainIndex  []map[string]int32
	DomainValues [][]string
	Counts       [][]int64
	Weights      []float64

	namespace  string
	requireAll bool
	nodes      []*framework.NodeInfo
	ignored    []bool
	dom        []int32
	snap       *framework.Snapshot
	// nodeSeq is snap's NodeChangeSeq when the state was computed (the
	// inclusion policies read the nodes' taints and labels).
	nodeSeq uint64
	// posOf maps a snapshot index to the node's position in nodes (-1).
	posOf []int32
	// hostCount[j*len(Constraints)+c] is, for a hostname constraint c, the
	// matching pods on scored node j (counted during PreScore).
	hostCount []int32
	// isHost[c] caches Constraints[c].IsHostname() for Score.
	isHost []bool

	// Fast mode (PreScore's nodes are the snapshot's own NodeInfos; ignored,
	// dom, posOf and hostCount are then nil): per constraint c, tvs[c]
	// numbers the topology values over the snapshot, domOf[c][slot] is the
	// domain of a value id (slot len(tvs[c].Values) stands for a node
	// without the key, which shares the domain of the value ""), and
	// perNode[c] is the snapshot's per-node matching count (hostname
	// constraints; read-only, valid for the cycle). member has bit k set
	// for the snapshot node k given to PreScore; such a node is ignored when
	// requireAll and it lacks a key.
	tvs     []*api.TopologyValues
	domOf   [][]int32
	perNode [][]int32
	// nonZero[c] is the bitmap of perNode[c]'s non-zero entries
	// (Snapshot.PodCountsBits), read while the counts are summed.
	nonZero [][]uint64
	member  []uint64
	// everyMember stands for a member bitmap with every snapshot node set
	// (member is then incomplete): PreScoreAfterAdd sets it when no node
	// can be ignored and every value of every non-hostname constraint is
	// a domain, where an own node scores the same whether or not it was
	// given to PreScore.
	everyMember bool
	// keyed[c] is set when every snapshot node carries constraint c's key.
	keyed []bool
	// hoisted is ScoreBatch's view of the fast state, built by PreScore.
	hoisted *ptsScoreHoisted
	// slots, set by PreScoreAfterAdd, are the counts by value it keeps
	// from cycle to cycle (nil: none kept).
	slots *ptsSlotCounts
	// pool, when set, takes member back on Release.
	pool *slicepool.Pool[uint64]
	// missing and open are calPreScoreStateFast's scratch, kept for
	// PreScoreAfterAdd's next call; queries (valid where queryOK) and
	// inclusion depend on the pod alone and are built once (fast mode).
	missing   []int32
	open      []int
	queries   []framework.PodQuery
	queryOK   []bool
	inclusion *inclusion
}

// fast reports whether PreScore took the snapshot-indexed path.
func (s *ptsPreScoreState) fast() bool { return s.tvs != nil }

// hasAll reports whether snapshot node k carries every topology key.
func (s *ptsPreScoreState) hasAll(k int) bool {
	for _, tv := range s.tvs {
		if tv.Domain[k] < 0 {
			return false
		}
	}
	return true
}

// isMember reports whether snapshot node k was given to PreScore (fast
// mode).
func (s *ptsPreScoreState) isMember(k int) bool {
	if s.everyMember {
		return k >= 0 && k < s.snap.NumNodes()
	}
	return k >= 0 && k>>6 < len(s.member) && s.member[k>>6]&(1<<(k&63)) != 0
}

// allMembers reports whether every snapshot node of idx was given to
// PreScore (fast mode, not everyMember).
func (s *ptsPreScoreState) allMembers(idx []int32) bool {
	member := s.member
	for _, k := range idx {
		if k < 0 || int(k>>6) >= len(member) || member[k>>6]&(1<<(k&63)) == 0 {
			return false
		}
	}
	return true
}

// fastScore is Score for snapshot node k, a non-ignored member, in fast
// mode.
func (s *ptsPreScoreState) fastScore(k int) int64 {
	var score float64
	for c, tv := range s.tvs {
		id := tv.Domain[k]
		if id < 0 {
			continue
		}
		var cnt int64
		if s.isHost[c] {
			if pn := s.perNode[c]; pn != nil {
				cnt = int64(pn[k])
			}
		} else {
			cnt = s.Counts[c][s.domOf[c][id]]
		}
		score += ptsScoreTerm(cnt, s.Weights[c], s.Constraints[c].MaxSkew)
	}
	return int64(math.Round(score))
}

// Clone returns s (Score and NormalizeScore never change it), or, when s
// is a fast-mode state whose buffers PreScoreAfterAdd reuses in place, a
// copy that owns its own.
func (s *ptsPreScoreState) Clone() framework.StateData {
	if s.pool == nil {
		return s
	}
	c := *s
	c.member, c.pool = slices.Clone(s.member), nil
	c.slots = nil // PreScoreAfterAdd updates them in place
	c.IgnoredNodes = maps.Clone(s.IgnoredNodes)
	c.DomainValues, c.Counts, c.domOf = ptsCloneEach(s.DomainValues), ptsCloneEach(s.Counts), ptsCloneEach(s.domOf)
	c.Weights, c.tvs, c.perNode, c.nonZero, c.keyed, c.isHost = slices.Clone(s.Weights), slices.Clone(s.tvs), slices.Clone(s.perNode), slices.Clone(s.nonZero), slices.Clone(s.keyed), slices.Clone(s.isHost)
	c.missing, c.open, c.queries, c.queryOK, c.inclusion = nil, nil, nil, nil, nil
	if s.hoisted != nil {
		h := *s.hoisted
		h.cs, h.rounded = slices.Clone(h.cs), slices.Clone(h.rounded)
		if h.small != nil {
			small := *h.small
			h.small, h.smallBuf = &small, &small
		} else {
			h.smallBuf = nil
		}
		for i := range h.cs {
			h.cs[i].term = slices.Clone(h.cs[i].term)
		}
		c.hoisted = &h
	}
	return &c
}

// ptsCloneEach returns a copy of b whose elements are copies.
func ptsCloneEach[T any](b [][]T) [][]T {
	if b == nil {
		return nil
	}
	out := make([][]T, len(b))
	for i, e := range b {
		out[i] = slices.Clone(e)
	}
	return out
}

// Release hands the membership bitmap back to the plugin
// (framework.ReleasableStateData); the state must not be used afterwards.
func (s *ptsPreScoreState) Release() {
	if s.pool == nil {
		return
	}
	s.pool.Put(s.member)
	s.member, s.pool = nil, nil
}

var _ fastpath.ClusterWalkingPreScorePlugin = (*PodTopologySpread)(nil)

// PreScoreWalksCluster marks the plugin as one whose PreScore counts
// matching pods over the snapshot's nodes.
func (pl *PodTopologySpread) PreScoreWalksCluster() {}

var _ fastpath.CycleScopedPreScorePlugin = (*PodTopologySpread)(nil)

// PreScoreNodesInCycle marks the plugin as one that uses the nodes PreScore
// receives within the cycle only: its PreScore state keeps them for the
// cycle's Score and NormalizeScore alone, and PreScoreAfterAdd replaces
// them with the next cycle's.
func (pl *PodTopologySpread) PreScoreNodesInCycle() {}

// PreScore builds the pod's soft constraints (its own ScheduleAnyway
// constraints, or the ScheduleAnyway defaults when it has none and a default
// selector exists) and counts, over all nodes of the snapshot that pass the
// eligibility rules, the matching pods of every domain present among the
// scored nodes. When the pod has its own constraints or the defaults are not
// the system ones, a feasible node missing any topology key is ignored
// (scores 0). It returns Skip when there is no soft constraint or the
// snapshot has no node.
func (pl *PodTopologySpread) PreScore(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo) *framework.Status {
	snap := state.Snapshot()
	if snap == nil {
		return framework.AsStatus(errors.New("podtopologyspread: PreScore needs the cycle's snapshot (all nodes), but the cycle state has none"))
	}
	all := snap.Nodes()
	if len(all) == 0 {
		return framework.NewStatus(framework.Skip)
	}
	cs, err := buildConstraints(pod.Pod, api.ScheduleAnyway, pl.defaults, snap)
	if err != nil {
		return framework.AsStatus(fmt.Errorf("podtopologyspread: soft topology spread constraints: %w", err))
	}
	if len(cs) == 0 {
		return framework.NewStatus(framework.Skip)
	}
	// Only non-system defaults require every topology key, so that nodes
	// without a zone label still get hostname spreading.
	requireAll := len(pod.Pod.Spec.TopologySpreadConstraints) > 0 || !pl.systemDefaulted
	st := pl.calPreScoreStateFast(pod.Pod, cs, nodes, state.ScoredIndices(), snap, requireAll, nil, nil)
	if st == nil { // some node is not the snapshot's own
		st = pl.calPreScoreState(ctx, pod.Pod, cs, nodes, snap, requireAll)
	}
	st.finish()
	state.Write(ptsPreScoreStateKey, st)
	return nil
}

// finish fills what Score reads besides the counts: isHost and, in fast
// mode, ScoreBatch's hoisted view.
func (s *ptsPreScoreState) finish() {
	s.isHost = ptsResize(s.isHost, len(s.Constraints))
	for c := range s.Constraints {
		s.isHost[c] = s.Constraints[c].IsHostname()
	}
	if s.fast() {
		s.hoisted = s.hoist(s.hoisted)
	}
}

// ptsSnapshotWalk finds the snapshot positions of nodes, which must be the
// snapshot's own NodeInfos. The runner passes them in round-robin order
// (a subsequence of the snapshot's order rotated), so each is found by
// walking the snapshot's node list forward from the previous one, comparing
// pointers only, without reading the NodeInfos; after 2·n + len(nodes)
// steps (nodes in another order) it reads NodeInfo.Index instead.
type ptsSnapshotWalk struct {
	all    []*framework.NodeInfo
	cur    int // position of the previous node, -1 before the first
	budget int
}

// ptsMembers sets the member bits of the snapshot indices idx of nodes,
// checking each against the snapshot's nodes (all), and returns how many
// it set; false when an index is not its node's. member covers all. The
// bits of consecutive indices in one word gather in a register, and the
// word is written when the indices move to another: the runner's indices
// climb through the snapshot, so a write to memory a node (each waiting
// for the one before) becomes one a word.
func ptsMembers(member []uint64, all, nodes []*framework.NodeInfo, idx []int32) (int, bool) {
	if len(nodes) == 0 {
		return 0, true
	}
	idx = idx[:len(nodes)]
	member = member[:(len(all)+63)/64]
	word, at := uint64(0), 0
	for j, ni := range nodes {
		k := uint(idx[j])
		if k >= uint(len(all)) || all[k] != ni {
			return 0, false
		}
		if w := int(k >> 6); w != at {
			member[at] |= word
			word, at = 0, w
		}
		word |= 1 << (k & 63)
	}
	member[at] |= word
	return len(nodes), true
}

func ptsNewSnapshotWalk(snap *framework.Snapshot, nodes int) ptsSnapshotWalk {
	return ptsSnapshotWalk{all: snap.Nodes(), cur: -1, budget: 2*snap.NumNodes() + nodes}
}

// next returns the position of ni, or −1 when ni is not the snapshot's own.
func (w *ptsSnapshotWalk) next(ni *framework.NodeInfo) int {
	all, n := w.all, len(w.all)
	if w.cur >= 0 && w.budget > 0 {
		k := w.cur
		for w.budget > 0 {
			w.budget--
			if k++; k >= n {
				k = 0
			}
			if all[k] == ni {
				w.cur = k
				return k
			}
		}
	}
	k := ni.Index()
	if k < 0 || k >= n || all[k] != ni {
		return -1
	}
	w.cur = k
	return k
}

// newFastState returns a fast-mode state for nc constraints and a
// membership bitmap of words words, cleared, with its per-constraint
// slices sized: reuse's buffers when reuse is a fast-mode state that
// PreScoreAfterAdd replaces (it must be the plugin's alone: Clone copies
// what is reused here), else new ones. The state returned is reuse itself
// when its buffers are reused; it then keeps reuse's topology values.
func (pl *PodTopologySpread) newFastState(nc, words int, reuse *ptsPreScoreState) *ptsPreScoreState {
	s := reuse
	if s == nil || s.pool == nil {
		s = &ptsPreScoreState{IgnoredNodes: map[string]bool{}, pool: pl.members, member: pl.members.Take(words)}
	} else {
		clear(s.IgnoredNodes)
		if cap(s.member) >= words {
			s.member = s.member[:words]
		} else {
			s.pool.Put(s.member)
			s.member = pl.members.Take(words)
		}
		s.slots = nil
	}
	s.everyMember = false
	clear(s.member)
	s.DomainValues = ptsResizeKeep(s.DomainValues, nc)
	for c := range s.DomainValues {
		s.DomainValues[c] = s.DomainValues[c][:0]
	}
	s.Counts = ptsResizeKeep(s.Counts, nc)
	s.Weights = ptsResize(s.Weights, nc)
	if s != reuse {
		s.tvs = ptsResize(s.tvs, nc)
	}
	s.domOf = ptsResizeKeep(s.domOf, nc)
	s.perNode = ptsResize(s.perNode, nc)
	s.nonZero = ptsResize(s.nonZero, nc)
	s.keyed = ptsResize(s.keyed, nc)
	return s
}

// ptsResize returns b with length n, zeroed, reusing its array when it is
// large enough.
func ptsResize[T any](b []T, n int) []T {
	if cap(b) < n {
		return make([]T, n)
	}
	b = b[:n]
	clear(b)
	return b
}

// ptsResizeKeep returns b with length n, keeping the elements already
// there (slices whose arrays are reused), up to its capacity.
func ptsResizeKeep[T any](b []T, n int) []T {
	if cap(b) < n {
		return append(b[:cap(b)], make([]T, n-cap(b))...)
	}
	return b[:n]
}

// calPreScoreStateFast is calPreScoreState when the scored nodes are the
// snapshot's own NodeInfos (it returns nil when one is not): topology values come from
// Snapshot.TopologyValues and per-node matching counts from the snapshot's
// pod index, and the per-node data stays indexed by snapshot position (a
// membership bitmap, no per-node arrays), so the cycle costs a few slice
// reads per node and constraint instead of O(pods) label matches. Domains
// (numbered by first appearance in the scored nodes' order), counts,
// weights and ignored nodes are those of calPreScoreState; DomainIndex is
// left nil (Score's fallback for nodes PreScore did not see scans
// DomainValues).
//
// idx, when it has an entry for each node, is the runner's snapshot
// index of each (CycleState.ScoredIndices): a node's position is read
// from it and checked against the snapshot's list, not found by walking
// that list. It returns nil, as for a node that is not the snapshot's
// own, when an entry does not match.
//
// slots, when not nil (PreScoreAfterAdd), holds the counts by value
// (ptsSlotCounts) kept up to date across cycles, or nil to have them built
// here from the snapshot; domains are then counted from them in
// O(values) instead of O(nodes) or a query of the snapshot's per-value
// sums, and the state keeps them for the next cycle. With slots, when no
// node can be ignored, the walk over nodes stops as soon as every value
// of every non-hostname constraint is a domain (at once when every
// constraint is a hostname one), which makes the cycle's cost
// independent of len(nodes) in the common case; the nodes it does not
// reach are taken to be the snapshot's own NodeInfos, as the runner
// passes them. reuse, when not nil, is the state PreScoreAfterAdd
// replaces, for the same constraints, whose topology values must be the
// snapshot's current numbering.
func (pl *PodTopologySpread) calPreScoreStateFast(pod *api.Pod, cs []constraint, nodes []*framework.NodeInfo, idx []int32, snap *framework.Snapshot, requireAll bool, slots **ptsSlotCounts, reuse *ptsPreScoreState) *ptsPreScoreState {
	nc, n := len(cs), snap.NumNodes()
	s := pl.newFastState(nc, (n+63)/64, reuse)
	s.Constraints, s.namespace, s.requireAll, s.nodes, s.snap = cs, pod.Namespace, requireAll, nodes, snap
	s.nodeSeq = snap.NodeChangeSeq()
	// missing[c] is the slot of nodes without the key: the id of the value
	// "" when some node has it, else the extra slot len(Values). open[c]
	// counts the slots not numbered yet (while some are, pending > 0).
	missing := ptsResize(s.missing, nc)
	open := ptsResize(s.open, nc)
	s.missing, s.open = missing, open
	pending := 0
	complete := true // every node carries every key
	for c := range cs {
		tv := s.tvs[c] // reuse's: the snapshot's numbering (PreScoreAfterAdd checks)
		if s != reuse {
			tv = snap.TopologyValues(cs[c].TopologyKey)
			s.tvs[c] = tv
		}
		keyed := tv.Unkeyed == 0
		complete = complete && keyed
		s.keyed[c] = keyed
		if cs[c].IsHostname() {
			s.domOf[c] = nil
			continue
		}
		missing[c] = int32(len(tv.Values))
		for id, v := range tv.Values {
			if v == "" {
				missing[c] = int32(id)
				break
			}
		}
		d := ptsResize(s.domOf[c], len(tv.Values)+1)
		for k := range d {
			d[k] = -1
		}
		s.domOf[c] = d
		open[c] = len(tv.Values)
		if !keyed && missing[c] == int32(len(tv.Values)) {
			open[c]++
		}
		pending++
	}
	checkKeys := requireAll && !complete
	// PreScoreAfterAdd (slots != nil), when no node can be ignored, stops
	// once every slot is a domain: the nodes after that add no domain,
	// ignore none and count as scored, and membership no longer changes
	// an own node's score (everyMember).
	stopEarly := slots != nil && !checkKeys
	// The scored nodes, in order: membership, ignored nodes, and the
	// domains they hold, numbered by first appearance (until every slot
	// is).
	scored := 0
	walk := ptsNewSnapshotWalk(snap, len(nodes))
	// The membership bits of consecutive nodes gather in word (the
	// runner's order walks the snapshot forward) and go to member when
	// the node moves to another word.
	word, wordAt := uint64(0), -1
	if len(idx) != len(nodes) {
		idx = nil
	}
	for j, ni := range nodes {
		if pending == 0 && stopEarly {
			s.everyMember, scored = true, len(nodes)
			break
		}
		if pending == 0 && !checkKeys && idx != nil {
			// Every domain is numbered and no node is ignored: the
			// rest only join the members (ptsMembers).
			if wordAt >= 0 {
				s.member[wordAt] |= word
				wordAt = -1
			}
			n, ok := ptsMembers(s.member, walk.all, nodes[j:], idx[j:])
			if !ok {
				return nil
			}
			scored += n
			break
		}
		var k int
		if idx != nil {
			// The runner's indices, checked against the node.
			if k = int(idx[j]); uint(k) >= uint(len(walk.all)) || walk.all[k] != ni {
				return nil
			}
		} else if c := walk.cur + 1; c < len(walk.all) && walk.all[c] == ni {
			k, walk.cur = c, c // the runner's order: the next snapshot node
		} else if k = walk.next(ni); k < 0 {
			return nil
		}
		if k>>6 != wordAt {
			if wordAt >= 0 {
				s.member[wordAt] |= word
			}
			word, wordAt = 0, k>>6
		}
		word |= 1 << (k & 63)
		if checkKeys && !s.hasAll(k) {
			s.IgnoredNodes[ni.Name()] = true
			continue
		}
		scored++
		if pending == 0 {
			continue
		}
		for c, tv := range s.tvs {
			dom := s.domOf[c]
			if dom == nil { // hostname
				continue
			}
			slot := tv.Domain[k]
			if slot < 0 {
				slot = missing[c]
			}
			if dom[slot] < 0 {
				dom[slot] = int32(len(s.DomainValues[c]))
				v := ""
				if slot < int32(len(tv.Values)) {
					v = tv.Values[slot]
				}
				s.DomainValues[c] = append(s.DomainValues[c], v)
				if open[c]--; open[c] == 0 {
					pending--
				}
			}
		}
	}
	if wordAt >= 0 {
		s.member[wordAt] |= word
	}
	needPass := false
	for c := range cs {
		s.Counts[c] = ptsResize(s.Counts[c], len(s.DomainValues[c]))
		size := len(s.DomainValues[c])
		if cs[c].IsHostname() {
			size = len(nodes) - len(s.IgnoredNodes)
		}
		needPass = needPass || size > 0
		s.Weights[c] = math.Log(float64(size + 2))
	}
	if slots != nil {
		s.slots = *slots
	}
	if !needPass || scored == 0 {
		return s
	}
	if s.queries == nil {
		// They depend on the pod alone: PreScoreAfterAdd keeps them.
		s.queries, s.queryOK = make([]framework.PodQuery, nc), make([]bool, nc)
		for c := range cs {
			s.queries[c], s.queryOK[c] = selectorQuery(cs[c].Selector, pod.Namespace)
		}
		s.inclusion = newInclusion(pod, cs)
	}
	queries := s.queries
	// With counts by value kept, only the hostname constraints read the
	// per-node counts.
	kept := slots != nil && *slots != nil
	// Every eligible node of the snapshot adds its count to the domain of
	// its value, when that value is a domain (hostname constraints read
	// perNode directly).
	inclusion := s.inclusion
	includeAll := inclusion.IncludesAll()
	var indexed *indexedInclusion
	if !includeAll {
		indexed = inclusion.Indexed(snap)
		if indexed.everyNode(snap.NumNodes()) {
			includeAll, indexed = true, nil
		}
	}
	for c := range cs {
		if !s.queryOK[c] || kept && !cs[c].IsHostname() {
			continue
		}
		if slots == nil && s.domOf[c] != nil && !(complete && includeAll) {
			// Summed node by node below: the nodes holding
			// matching pods come with the counts.
			s.perNode[c], s.nonZero[c] = snap.PodCountsBits(queries[c])
		} else {
			s.perNode[c] = snap.PodCounts(queries[c])
		}
	}
	if slots != nil {
		if *slots == nil {
			*slots = newPTSSlotCounts(snap, s.tvs, cs, missing, indexed, requireAll, s.perNode)
			s.slots = *slots
		}
		for c := range cs {
			if dom, by := s.domOf[c], s.slots.bySlot[c]; dom != nil && by != nil {
				for slot, d := range dom {
					if d >= 0 {
						s.Counts[c][d] += by[slot]
					}
				}
			}
		}
		return s
	}
	for c := range cs {
		cnt, dom := s.perNode[c], s.domOf[c]
		if dom == nil || len(s.DomainValues[c]) == 0 || cnt == nil {
			continue
		}
		values, miss, counts := s.tvs[c].Domain, missing[c], s.Counts[c]
		if complete && includeAll {
			// Every node counts: the snapshot's sums by value
			// (Snapshot.PodDomainCounts), then by domain.
			byValue := snap.PodDomainCounts(queries[c], s.tvs[c].Key).Count
			for id, k := range byValue {
				if d := dom[id]; d >= 0 {
					counts[d] += int64(k)
				}
			}
			continue
		}
		// The nodes holding matching pods, by the bitmap of cnt's
		// non-zero entries: a sum, in any order.
		nz := s.nonZero[c]
		for w := range nz[:(n+63)/64] {
			for word := nz[w]; word != 0; word &= word - 1 {
				i := w<<6 + bits.TrailingZeros64(word)
				if requireAll && !s.hasAll(i) {
					continue
				}
				slot := values[i]
				if slot < 0 {
					slot = miss
				}
				d := dom[slot]
				if d < 0 {
					continue
				}
				if !includeAll && !indexed.Eval(i).Includes(&cs[c]) {
					continue
				}
				counts[d] += int64(cnt[i])
			}
		}
	}
	return s
}

func (pl *PodTopologySpread) calPreScoreState(ctx context.Context, pod *api.Pod, cs []constraint, nodes []*framework.NodeInfo, snap *framework.Snapshot, requireAll bool) *ptsPreScoreState {
	nc, nf := len(cs), len(nodes)
	s := &ptsPreScoreState{
		Constraints:  cs,
		IgnoredNodes: map[string]bool{},
		DomainIndex:  make([]map[string]int32, nc),
		DomainValues: make([][]string, nc),
		Counts:       make([][]int64, nc),
		Weights:      make([]float64, nc),
		namespace:    pod.Namespace,
		requireAll:   requireAll,
		nodes:        nodes,
		ignored:      make([]bool, nf),
		dom:          make([]int32, nf*nc),
		snap:         snap,
		posOf:        make([]int32, snap.NumNodes()),
	}
	for i := range s.posOf {
		s.posOf[i] = -1
	}
	for c := range cs {
		s.DomainIndex[c] = map[string]int32{}
	}
	// The scored nodes: which are ignored, and the domains they hold (in
	// node order, so numbering does not depend on map order).
	for j, ni := range nodes {
		node := ni.Node()
		if i := snap.Index(node.Name); i >= 0 {
			s.posOf[i] = int32(j)
		}
		row := s.dom[j*nc : (j+1)*nc]
		if requireAll && !hasAllKeys(node.Labels, cs) {
			s.ignored[j] = true
			s.IgnoredNodes[node.Name] = true
			for c := range row {
				row[c] = ptsScoreNoKey
			}
			continue
		}
		for c := range cs {
			v, ok := node.Labels[cs[c].TopologyKey]
			row[c] = ptsScoreNoKey
			if cs[c].IsHostname() {
				if ok {
					row[c] = 0
				}
				continue
			}
			// A missing key still makes the value "" a domain (it counts
			// for the weight and gathers pods of nodes without the key),
			// as kube-scheduler does under system defaulting.
			d, seen := s.DomainIndex[c][v]
			if !seen {
				d = int32(len(s.DomainValues[c]))
				s.DomainIndex[c][v] = d
				s.DomainValues[c] = append(s.DomainValues[c], v)
			}
			if ok {
				row[c] = d
			}
		}
	}
	needPass := false
	for c := range cs {
		s.Counts[c] = make([]int64, len(s.DomainValues[c]))
		size := len(s.DomainValues[c])
		if cs[c].IsHostname() {
			size = nf - len(s.IgnoredNodes)
		}
		needPass = needPass || size > 0
		s.Weights[c] = math.Log(float64(size + 2))
	}
	s.hostCount = make([]int32, nf*nc)
	if !needPass {
		return s
	}
	// Count, over all nodes of the snapshot, the matching pods of every
	// domain; on the way, count the scored nodes' own pods for hostname
	// constraints (what Score needs), sharing counts between constraints
	// with the same selector.
	same := make([]int, nc)
	for c := range cs {
		same[c] = c
		for o := range c {
			if reflect.DeepEqual(cs[o].Selector, cs[c].Selector) {
				same[c] = o
				break
			}
		}
	}
	hostDone := make([]bool, nf)
	inclusion := newInclusion(pod, cs)
	all := snap.Nodes()
	pl.parallelizer().Until(ctx, len(all), func(i int) {
		ni := all[i]
		node := ni.Node()
		j := int(s.posOf[i])
		scored := j >= 0 && !s.ignored[j] && s.nodes[j] == ni
		if requireAll && !hasAllKeys(node.Labels, cs) {
			return
		}
		memo := ptsCountMemo{pods: ni.Pods, namespace: pod.Namespace}
		var verdict nodeVerdict
		evaluated := false
		for c := range cs {
			tc := &cs[c]
			if tc.IsHostname() {
				if scored && s.dom[j*nc+c] != ptsScoreNoKey {
					s.hostCount[j*nc+c] = int32(memo.count(cs, same, c))
				}
				continue
			}
			if len(s.DomainValues[c]) == 0 {
				continue
			}
			if !evaluated {
				verdict, evaluated = inclusion.Eval(node), true
			}
			if !verdict.Includes(tc) {
				continue
			}
			d, ok := s.DomainIndex[c][node.Labels[tc.TopologyKey]]
			if !ok {
				continue
			}
			if n := memo.count(cs, same, c); n > 0 {
				atomic.AddInt64(&s.Counts[c][d], int64(n))
			}
		}
		if scored {
			hostDone[j] = true
		}
	}, config.PodTopologySpreadName)
	// Scored nodes the snapshot pass did not reach (PreScore's NodeInfos
	// are not the snapshot's) count their own pods here.
	for j, ni := range nodes {
		if hostDone[j] || s.ignored[j] {
			continue
		}
		memo := ptsCountMemo{pods: ni.Pods, namespace: pod.Namespace}
		for c := range cs {
			if cs[c].IsHostname() && s.dom[j*nc+c] != ptsScoreNoKey {
				s.hostCount[j*nc+c] = int32(memo.count(cs, same, c))
			}
		}
	}
	return s
}

// ptsCountMemo counts one node's matching pods per selector, once for all
// constraints that share it (same[c] is the first constraint with c's
// selector; only the first 64 constraints are memoized).
type ptsCountMemo struct {
	pods      []*framework.PodInfo
	namespace string
	have      uint64
	counts    [64]int32
}

func (m *ptsCountMemo) count(cs []constraint, same []int, c int) int {
	o := same[c]
	if o < 64 && m.have&(1<<o) != 0 {
		return int(m.counts[o])
	}
	n := countMatching(m.pods, &cs[o].Selector, m.namespace)
	if o < 64 {
		m.counts[o] = int32(n)
		m.have |= 1 << o
	}
	return n
}

func ptsReadPreScoreState(state *framework.CycleState) (*ptsPreScoreState, error) {
	d, err := state.Read(ptsPreScoreStateKey)
	if err != nil {
		return nil, fmt.Errorf("podtopologyspread: reading %q from cycle state: %w", ptsPreScoreStateKey, err)
	}
	s, ok := d.(*ptsPreScoreState)
	if !ok {
		return nil, fmt.Errorf("podtopologyspread: cycle state %q holds %T, want PodTopologySpread's PreScore state", ptsPreScoreStateKey, d)
	}
	return s, nil
}

// position returns node's index in PreScore's node list (-1 when absent)
// and whether it is the very NodeInfo PreScore saw.
func (s *ptsPreScoreState) position(node *framework.NodeInfo) (int, bool) {
	if i := node.Index(); i >= 0 && i < len(s.posOf) && s.snap.Nodes()[i] == node {
		j := int(s.posOf[i])
		if j < 0 {
			return -1, false
		}
		return j, s.nodes[j] == node
	}
	i := s.snap.Index(node.Name())
	if i < 0 || i >= len(s.posOf) {
		return -1, false
	}
	j := int(s.posOf[i])
	if j < 0 {
		return -1, false
	}
	return j, s.nodes[j] == node
}

// domainOf returns the index of domain value v of constraint c.
func (s *ptsPreScoreState) domainOf(c int, v string) (int32, bool) {
	if s.DomainIndex == nil {
		for d, dv := range s.DomainValues[c] {
			if dv == v {
				return int32(d), true
			}
		}
		return 0, false
	}
	d, ok := s.DomainIndex[c][v]
	return d, ok
}

// ptsScoreTerm is one constraint's contribution, cnt·weight + (maxSkew − 1),
// with the product rounded to float64 before the addition (no fused
// multiply-add), as on the amd64 builds of kube-scheduler.
func ptsScoreTerm(cnt int64, w float64, maxSkew int32) float64 {
	return float64(float64(cnt)*w) + float64(maxSkew-1)
}

// Score returns the node's raw score (see PodTopologySpread); ignored nodes
// score 0. It does not allocate.
func (pl *PodTopologySpread) Score(_ context.Context, state *framework.CycleState, _ *framework.PodInfo, node *framework.NodeInfo) (int64, *framework.Status) {
	s, err := ptsReadPreScoreState(state)
	if err != nil {
		return 0, framework.AsStatus(err)
	}
	return s.score(node)
}

// ScoreBatch is Score over nodes (fastpath.BatchScorePlugin): the state is
// read once and, in fast mode, a scored snapshot node costs a few slice
// reads per constraint.
func (pl *PodTopologySpread) ScoreBatch(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32, out []int64) *framework.Status {
	_, _, st := pl.ScoreBatchBounds(ctx, state, pod, nodes, idx, out)
	return st
}

// ScoreBatchBounds is ScoreBatch that also returns the least and greatest
// score it wrote (fastpath.BoundedBatchScorePlugin).
func (pl *PodTopologySpread) ScoreBatchBounds(_ context.Context, state *framework.CycleState, _ *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32, out []int64) (lo, hi int64, _ *framework.Status) {
	s, err := ptsReadPreScoreState(state)
	if err != nil {
		return 0, 0, framework.AsStatus(err)
	}
	out = out[:len(nodes)]
	if !s.fast() {
		for i, node := range nodes {
			v, st := s.score(node)
			if st != nil {
				return 0, 0, st
			}
			out[i] = v
		}
		lo, hi = scoring.RowBounds(out)
		return lo, hi, nil
	}
	all := s.snap.Nodes()
	h := s.hoisted
	useIdx := idx != nil && state.Snapshot() == s.snap // the runner's indices: no NodeInfo to read
	if useIdx && !h.checkKeys {
		// Nodes PreScore saw (its whole list, or members), none ignored:
		// table reads by snapshot index, two per node for a single
		// non-hostname constraint; over PreScore's whole list, the bounds
		// are known beforehand. The runner scores only nodes PreScore
		// saw, so a batch of ScoredNodes nodes is its whole list.
		scored := len(nodes) == len(s.nodes) && len(nodes) == state.ScoredNodes()
		if scored || s.everyMember || s.allMembers(idx[:len(nodes)]) {
			if lo, hi, ok := h.scoreIdx(idx[:len(nodes)], out, scored); ok {
				return lo, hi, nil
			}
		}
	}
	for i, node := range nodes {
		k := -1
		if useIdx {
			k = int(idx[i])
		} else if node != nil {
			if k = node.Index(); k >= len(all) || all[k] != node {
				k = -1
			}
		}
		if k < 0 || !s.isMember(k) {
			v, st := s.score(node)
			if st != nil {
				return 0, 0, st
			}
			out[i] = v
			continue
		}
		if h.checkKeys && !s.hasAll(k) {
			out[i] = 0
			continue
		}
		one := [1]int32{int32(k)}
		h.scoreIdx(one[:], out[i:i+1], false)
	}
	lo, hi = scoring.RowBounds(out)
	return lo, hi, nil
}

var _ fastpath.BoundedBatchScorePlugin = (*PodTopologySpread)(nil)

// ptsScoreSmall sets out[i] to t[uint8(dom[idx[i]])], the score of
// snapshot node idx[i] under a single non-hostname constraint whose value
// ids are all below 255 (see ptsScoreHoisted); false, with out partly
// written, when some index is not a snapshot node's.
func ptsScoreSmall(dom []int32, t *[256]int64, idx []int32, out []int64) bool {
	out = out[:len(idx)]
	tt := t[:] // 256 long: a byte index needs no check
	for i, k := range idx {
		j := uint(k)
		if j >= uint(len(dom)) {
			return false
		}
		out[i] = tt[uint8(dom[j])]
	}
	return true
}

// ptsScoreSmallBounds is ptsScoreSmall that also returns the least and
// greatest score written.
func ptsScoreSmallBounds(dom []int32, t *[256]int64, idx []int32, out []int64) (lo, hi int64, ok bool) {
	out = out[:len(idx)]
	lo, hi = math.MaxInt64, math.MinInt64
	tt := t[:]
	for i, k := range idx {
		j := uint(k)
		if j >= uint(len(dom)) {
			return 0, 0, false
		}
		v := tt[uint8(dom[j])]
		out[i] = v
		lo, hi = min(lo, v), max(hi, v)
	}
	return lo, hi, true
}

// ptsScoreRounded sets out[i] to rounded[dom[idx[i]]+1], the score of
// snapshot node idx[i] under a single non-hostname constraint (see
// ptsScoreHoisted), and returns the least and greatest; false, with out partly
// written, when some index is not a snapshot node's.
func ptsScoreRounded(dom []int32, rounded []int64, idx []int32, out []int64) (lo, hi int64, ok bool) {
	out = out[:len(idx)]
	lo, hi = math.MaxInt64, math.MinInt64
	for i, k := range idx {
		j := int(k)
		if uint(j) >= uint(len(dom)) {
			return 0, 0, false
		}
		v := rounded[int(dom[j])+1]
		out[i] = v
		lo, hi = min(lo, v), max(hi, v)
	}
	return lo, hi, true
}

// scoreIdx sets out[i] to the score of snapshot node idx[i], a member
// PreScore does not ignore (fastScore's sum, term by term, from the
// hoisted terms), and returns the least and greatest; false, with out
// partly written, when some index is not a snapshot node's. scored says
// the nodes are PreScore's own list, whose bounds hoist may know.
func (h *ptsScoreHoisted) scoreIdx(idx []int32, out []int64, scored bool) (lo, hi int64, ok bool) {
	switch {
	case h.rounded == nil:
	case h.small == nil:
		return ptsScoreRounded(h.cs[0].dom, h.rounded, idx, out)
	case scored && h.bounded:
		return h.lo, h.hi, ptsScoreSmall(h.cs[0].dom, h.small, idx, out)
	default:
		return ptsScoreSmallBounds(h.cs[0].dom, h.small, idx, out)
	}
	out = out[:len(idx)]
	n := uint(len(h.cs[0].dom)) // every constraint's dom is the snapshot's length
	// Constraint by constraint, each node's sum held in out as the bits
	// of a float64 (+0 to start): every node's terms are added in
	// constraint order, as a loop over a node's constraints adds them,
	// so the sums are the same to the bit, without choosing each
	// constraint's kind again at every node.
	for i, k := range idx {
		if uint(k) >= n {
			return 0, 0, false
		}
		out[i] = 0
	}
	for c := range h.cs {
		hc := &h.cs[c]
		dom := hc.dom
		switch {
		case hc.perNode != nil:
			perNode := hc.perNode
			for i, k := range idx {
				if dom[k] >= 0 {
					out[i] = ptsAddBits(out[i], ptsScoreTerm(int64(perNode[k]), hc.weight, hc.maxSkew))
				}
			}
		case hc.host:
			t := ptsScoreTerm(0, hc.weight, hc.maxSkew)
			for i, k := range idx {
				if dom[k] >= 0 {
					out[i] = ptsAddBits(out[i], t)
				}
			}
		default:
			term := hc.term
			for i, k := range idx {
				if id := dom[k]; id >= 0 {
					out[i] = ptsAddBits(out[i], term[id])
				}
			}
		}
	}
	lo, hi = math.MaxInt64, math.MinInt64
	for i, b := range out {
		v := int64(math.Round(math.Float64frombits(uint64(b))))
		out[i] = v
		lo, hi = min(lo, v), max(hi, v)
	}
	return lo, hi, true
}

// ptsAddBits returns the bits of the float64 whose bits are sum, plus t.
func ptsAddBits(sum int64, t float64) int64 {
	return int64(math.Float64bits(math.Float64frombits(uint64(sum)) + t))
}

// ptsScoreHoisted is ScoreBatch's view of a fast-mode state, built once per
// cycle by PreScore: per constraint, the value ids by snapshot index and
// either the hostname counts or the term cnt·weight + (maxSkew − 1) of
// every value id (a value that is not a domain gets 0; scored nodes never
// hold one). With a single non-hostname constraint, rounded[id+1] holds
// the final score of a node of value id, and rounded[0] = 0 that of a
// node without the key (id −1), so that a node's score is two loads.
//
// With rounded set, small (when every value id fits a byte: at most 255
// values) holds the same scores indexed by the low byte of the value id
// (255 for a node without the key), and bounded says lo and hi are the
// least and greatest score of PreScore's nodes, known without reading
// them: when every snapshot node carries the key, those scores are
// exactly the rounded[id+1] of the value ids that are domains, which are
// the values PreScore found among its nodes.
type ptsScoreHoisted struct {
	cs        []ptsHoistedConstraint
	rounded   []int64
	small     *[256]int64
	smallBuf  *[256]int64 // small's array, kept while small is nil
	bounded   bool
	lo, hi    int64
	checkKeys bool // requireAll and some node lacks a key
}

type ptsHoistedConstraint struct {
	dom     []int32
	host    bool
	perNode []int32
	weight  float64
	maxSkew int32
	term    []float64
}

// hoist builds ScoreBatch's view of s, reusing the arrays of reuse, a
// previous view of s (nil: none).
func (s *ptsPreScoreState) hoist(reuse *ptsScoreHoisted) *ptsScoreHoisted {
	h := reuse
	if h == nil {
		h = &ptsScoreHoisted{}
	}
	h.cs = ptsResizeKeep(h.cs, len(s.tvs))
	h.checkKeys = false
	for c, tv := range s.tvs {
		hc := &h.cs[c]
		term := hc.term
		*hc = ptsHoistedConstraint{dom: tv.Domain, host: s.isHost[c], weight: s.Weights[c], maxSkew: s.Constraints[c].MaxSkew}
		if s.requireAll && !s.keyed[c] {
			h.checkKeys = true
		}
		if hc.host {
			hc.perNode = s.perNode[c]
			continue
		}
		hc.term = ptsResize(term, len(tv.Values))
		for id := range hc.term {
			if d := s.domOf[c][id]; d >= 0 {
				hc.term[id] = ptsScoreTerm(s.Counts[c][d], hc.weight, hc.maxSkew)
			}
		}
	}
	rounded := h.rounded
	h.rounded, h.small, h.bounded = nil, nil, false
	if len(h.cs) == 1 && !h.cs[0].host {
		term := h.cs[0].term
		h.rounded = ptsResize(rounded, len(term)+1)
		for id, t := range term {
			// 0 + t, as Score sums from 0.
			h.rounded[id+1] = int64(math.Round(0 + t))
		}
		if len(h.rounded) <= len(h.smallBuf) {
			if h.smallBuf == nil {
				h.smallBuf = new([256]int64)
			}
			// The score of value id at byte id: a node without the
			// key (id −1) at 255, which no value id reaches.
			h.small = h.smallBuf
			for id, v := range h.rounded {
				h.small[uint8(id-1)] = v
			}
		}
		if s.keyed[0] {
			h.lo, h.hi = math.MaxInt64, math.MinInt64
			for id, d := range s.domOf[0][:len(term)] {
				if d >= 0 {
					v := h.rounded[id+1]
					h.lo, h.hi = min(h.lo, v), max(h.hi, v)
					h.bounded = true
				}
			}
		}
	}
	return h
}

// score is Score with the state read.
func (s *ptsPreScoreState) score(node *framework.NodeInfo) (int64, *framework.Status) {
	if node == nil || node.Node() == nil {
		return 0, framework.AsStatus(errors.New("podtopologyspread: node not found"))
	}
	if s.fast() {
		k := node.Index()
		all := s.snap.Nodes()
		own := k >= 0 && k < len(all) && all[k] == node
		if !own {
			k = s.snap.Index(node.Name())
		}
		if s.isMember(k) {
			if s.requireAll && !s.hasAll(k) {
				return 0, nil
			}
			if own {
				return s.fastScore(k), nil
			}
		}
		return s.labelScore(node)
	}
	j, same := s.position(node)
	if j >= 0 && s.ignored[j] {
		return 0, nil
	}
	if !same {
		return s.labelScore(node)
	}
	nc := len(s.Constraints)
	var score float64
	row := s.dom[j*nc : (j+1)*nc : (j+1)*nc]
	for c := range s.Constraints {
		d := row[c]
		if d == ptsScoreNoKey {
			continue
		}
		var cnt int64
		if s.isHost[c] {
			cnt = int64(s.hostCount[j*nc+c])
		} else {
			cnt = s.Counts[c][d]
		}
		score += ptsScoreTerm(cnt, s.Weights[c], s.Constraints[c].MaxSkew)
	}
	return int64(math.Round(score)), nil
}

// labelScore scores a node PreScore did not see (or a copy of one): it
// reads the node's labels and counts its own pods.
func (s *ptsPreScoreState) labelScore(node *framework.NodeInfo) (int64, *framework.Status) {
	var score float64
	labels := node.Node().Labels
	for c := range s.Constraints {
		tc := &s.Constraints[c]
		v, ok := labels[tc.TopologyKey]
		if !ok {
			continue
		}
		var cnt int64
		if tc.IsHostname() {
			cnt = int64(countMatching(node.Pods, &tc.Selector, s.namespace))
		} else {
			d, ok := s.domainOf(c, v)
			if !ok {
				return 0, framework.AsStatus(fmt.Errorf("podtopologyspread: node %q: %s=%q is not a domain of the nodes given to PreScore", node.Name(), tc.TopologyKey, v))
			}
			cnt = s.Counts[c][d]
		}
		score += ptsScoreTerm(cnt, s.Weights[c], tc.MaxSkew)
	}
	return int64(math.Round(score)), nil
}

// ScoreExtensions returns the plugin: it normalizes its own scores.
func (pl *PodTopologySpread) ScoreExtensions() framework.ScoreExtensions { return pl }

// isIgnored reports whether the k-th score, of the named node, belongs to an
// ignored node.
func (s *ptsPreScoreState) isIgnored(k int, name string) bool {
	if k < len(s.nodes) && ptsSameString(s.nodes[k].Name(), name) {
		if s.fast() {
			return s.requireAll && !s.hasAll(s.nodes[k].Index())
		}
		return s.ignored[k]
	}
	return s.IgnoredNodes[name]
}

// ptsSameString is a == b, answered without comparing bytes when both
// share their data (a node's name read twice).
func ptsSameString(a, b string) bool {
	return len(a) == len(b) && (len(a) == 0 || unsafe.StringData(a) == unsafe.StringData(b) || a == b)
}

// NormalizeScoreBatch is NormalizeScore over a row of scores
// (fastpath.BatchScoreExtensions); node names are read only when some node
// is ignored.
func (pl *PodTopologySpread) NormalizeScoreBatch(_ context.Context, state *framework.CycleState, _ *framework.PodInfo, nodes []*framework.NodeInfo, scores []int64) *framework.Status {
	s, err := ptsReadPreScoreState(state)
	if err != nil {
		return framework.AsStatus(err)
	}
	var ignored func(k int) bool
	if len(s.IgnoredNodes) > 0 {
		ignored = func(k int) bool { return s.isIgnored(k, nodes[k].Name()) }
	}
	ptsNormalize(scores, ignored)
	return nil
}

// normalizeRange sets out[i] to what NormalizeScore gives a node of raw
// score lo+i in a row whose least raw score is lo and greatest
// lo+len(out)−1 (NormalizeRange); false, out untouched, when this
// cycle's normalization depends on more than that: some scored node is
// ignored (it scores 0 and is left out of the least and greatest), or
// the state cannot be read. As NormalizeScore, the greatest is taken no
// lower than 0 (kube's starts at 0), and a greatest of 0 gives every node
// MaxNodeScore.
func (pl *PodTopologySpread) normalizeRange(state *framework.CycleState, lo int64, out []int64) bool {
	s, err := ptsReadPreScoreState(state)
	if err != nil || len(s.IgnoredNodes) > 0 {
		return false
	}
	maxScore := max(lo+int64(len(out))-1, 0)
	for i := range out {
		if maxScore == 0 {
			out[i] = framework.MaxNodeScore
		} else {
			out[i] = framework.MaxNodeScore * (maxScore + lo - (lo + int64(i))) / maxScore
		}
	}
	return true
}

// NormalizeRange is fastpath.RangeNormalizer: the table of what
// NormalizeScore gives each raw score of a row whose least raw score is lo
// and greatest lo+len(out)−1; false while some scored node is ignored.
func (pl *PodTopologySpread) NormalizeRange(_ context.Context, state *framework.CycleState, _ *framework.PodInfo, lo int64, out []int64) bool {
	return pl.normalizeRange(state, lo, out)
}

var _ fastpath.RangeNormalizer = (*PodTopologySpread)(nil)

// ptsNormalize is NormalizeScore's arithmetic over a row; ignored (nil:
// no node is) tells the ignored positions.
func ptsNormalize(scores []int64, ignored func(k int) bool) {
	var minScore int64 = math.MaxInt64
	var maxScore int64
	if ignored == nil {
		// The common case, in tight loops: a few instructions a node.
		for _, v := range scores {
			minScore = min(minScore, v)
			maxScore = max(maxScore, v)
		}
		if maxScore == 0 {
			for k := range scores {
				scores[k] = framework.MaxNodeScore
			}
			return
		}
		if scoring.MapRow(scores, minScore, maxScore, func(v int64) int64 {
			return framework.MaxNodeScore * (maxScore + minScore - v) / maxScore
		}) {
			return
		}
	} else {
		for k, v := range scores {
			if ignored(k) {
				continue
			}
			minScore = min(minScore, v)
			maxScore = max(maxScore, v)
		}
	}
	for k, v := range scores {
		switch {
		case ignored != nil && ignored(k):
			scores[k] = 0
		case maxScore == 0:
			scores[k] = framework.MaxNodeScore
		default:
			scores[k] = framework.MaxNodeScore * (maxScore + minScore - v) / maxScore
		}
	}
}

// NormalizeScore maps raw scores to [0, 100] as kube-scheduler v1.36: with
// min and max over the non-ignored nodes (min starting at MaxInt64, max at
// 0), each gets 100·(max + min − raw)/max in integer arithmetic, or 100 when
// max is 0; ignored nodes get 0.
func (pl *PodTopologySpread) NormalizeScore(_ context.Context, state *framework.CycleState, _ *framework.PodInfo, scores framework.NodeScoreList) *framework.Status {
	s, err := ptsReadPreScoreState(state)
	if err != nil {
		return framework.AsStatus(err)
	}
	var minScore int64 = math.MaxInt64
	var maxScore int64
	if len(s.IgnoredNodes) == 0 {
		// No node is ignored (an ignored node is always listed).
		for k := range scores {
			minScore = min(minScore, scores[k].Score)
			maxScore = max(maxScore, scores[k].Score)
		}
		for k := range scores {
			if maxScore == 0 {
				scores[k].Score = framework.MaxNodeScore
			} else {
				scores[k].Score = framework.MaxNodeScore * (maxScore + minScore - scores[k].Score) / maxScore
			}
		}
		return nil
	}
	for k := range scores {
		if s.isIgnored(k, scores[k].Name) {
			continue
		}
		minScore = min(minScore, scores[k].Score)
		maxScore = max(maxScore, scores[k].Score)
	}
	for k := range scores {
		switch {
		case s.isIgnored(k, scores[k].Name):
			scores[k].Score = 0
		case maxScore == 0:
			scores[k].Score = framework.MaxNodeScore
		default:
			scores[k].Score = framework.MaxNodeScore * (maxScore + minScore - scores[k].Score) / maxScore
		}
	}
	return nil
}
