package interpodaffinity

import (
	"math/bits"
	"sync/atomic"

	"github.com/schedkit/schedkit/filter"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/fastpath"
	"github.com/schedkit/schedkit/internal/slicepool"
)

// This file is InterPodAffinity's PreFilter from the snapshot's pod index,
// taken when PreFilter runs over the snapshot's own node list (the
// runner's call, CycleState.AllNodes): the existing pods' required anti-affinity comes from
// Snapshot.AffinityGroupsSelecting (one match per distinct term instead of
// one per pod, memoized for pods of the same labels) and
// Snapshot.AffinityGroupDomainCounts (each group's terms per topology
// domain), the incoming pod's required (anti-)affinity from
// Snapshot.PodDomainCounts (the pods matching the terms per domain); both
// are kept by the snapshot as pods come and go, so a cycle costs
// O(distinct terms × values/64), not O(pods). It fills the same count
// tables as the walk over every pod (sums of the same integers, so the
// order does not matter), and also keeps the counts by value number, so
// that Filter reads slices instead of label maps.

// ipaDense holds, for each slot of the three count tables, which values of
// TopologyValues(key) (by number) have a positive count, and where the
// counts come from; they equal the tables until AddPod or RemovePod
// changes the state, which then drops them.
type ipaDense struct {
	snap                     *framework.Snapshot
	existing, affinity, anti []ipaDenseSlot
	// The first slot of each, held here.
	held [3][1]ipaDenseSlot
	// hits recycles the slots' own hit bitmaps (one bit per value: per
	// node for kubernetes.io/hostname) on release, unless cloned: a clone
	// of the state shares the slots.
	hits   *slicepool.Pool[uint64]
	cloned atomic.Bool
	// filled is set once the state's tables were filled from these
	// counts (fillTables).
	filled atomic.Bool
}

// release hands the slots' own hit bitmaps back to the plugin's pool,
// unless a clone shares them.
func (d *ipaDense) release() {
	if d.hits == nil || d.cloned.Load() {
		return
	}
	for _, slots := range [...][]ipaDenseSlot{d.existing, d.affinity, d.anti} {
		for i := range slots {
			if slots[i].ownHit {
				d.hits.Put(slots[i].hit)
				slots[i].hit, slots[i].ownHit = nil, false
			}
		}
	}
	d.hits = nil
}

// ipaDenseSlot is one topology key's counts by value number: hit has bit
// id set when value id's count is positive (every count added is). Filter
// reads only hit, a few words even for a key with a value per node; the
// counts themselves are read from their sources (the snapshot's per-domain
// sums of affinity groups and pod queries, read-only for the cycle) only
// when the tables are filled.
type ipaDenseSlot struct {
	domain  []int32 // value number by node index (−1: the node lacks the key)
	hit     []uint64
	values  []string // the key's values by number
	sources []*framework.DomainCounts
	// ownHit is set once hit is the slot's own (a union of sources); with
	// one source, hit is that source's.
	ownHit bool
}

// ipaSourcesHeld bounds the capacity a slot's list of sources is made
// with: a slot with more grows it as it goes.
const ipaSourcesHeld = 16

// has reports whether value id has a positive count.
func (sl *ipaDenseSlot) has(id int32) bool { return sl.hit[id>>6]&(1<<(id&63)) != 0 }

// slot returns the dense slot i of slots, growing slots to cover it.
func (d *ipaDense) slot(slots *[]ipaDenseSlot, i int) *ipaDenseSlot {
	if *slots == nil {
		switch slots {
		case &d.existing:
			*slots = d.held[0][:0]
		case &d.affinity:
			*slots = d.held[1][:0]
		case &d.anti:
			*slots = d.held[2][:0]
		}
	}
	for len(*slots) <= i {
		*slots = append(*slots, ipaDenseSlot{})
	}
	return &(*slots)[i]
}

// add adds the counts dc (over the slot's key) to the slot, counting the
// values that become positive in table c's pairs (c.n); most is how many
// sources the slot may get in all, the capacity its list of sources is
// made with. nodes, when not
// nil, are the nodes (by snapshot index) holding dc's counts, each with a
// positive count: marking their values is cheaper than merging dc.Hit when
// they are fewer than its words.
func (sl *ipaDenseSlot) add(hits *slicepool.Pool[uint64], c *ipaCounts, dc *framework.DomainCounts, nodes []int32, most int) {
	if sl.sources == nil {
		sl.sources = make([]*framework.DomainCounts, 0, min(max(most, 1), ipaSourcesHeld))
	}
	sl.sources = append(sl.sources, dc)
	sparse := nodes != nil && len(nodes) < len(dc.Hit)
	if sl.hit == nil {
		sl.domain, sl.values = dc.Values.Domain, dc.Values.Values
		if !sparse {
			sl.hit = dc.Hit
			c.n += dc.NonZero
			return
		}
		sl.hit, sl.ownHit = hits.Take(len(dc.Hit)), true
		clear(sl.hit)
	}
	if dc.NonZero == 0 {
		return
	}
	if !sl.ownHit {
		own := hits.Take(len(sl.hit))
		copy(own, sl.hit)
		sl.hit, sl.ownHit = own, true
	}
	if sparse {
		for _, k := range nodes {
			if id := sl.domain[k]; id >= 0 && !sl.has(id) {
				sl.hit[id>>6] |= 1 << (id & 63)
				c.n++
			}
		}
		return
	}
	for w, word := range dc.Hit {
		c.n += bits.OnesCount64(word &^ sl.hit[w])
		sl.hit[w] |= word
	}
}

// fillTables fills the three count tables' maps from the dense counts'
// sources (a fast PreFilter leaves them empty until something reads them).
func (s *ipaPreFilterState) fillTables() {
	for _, t := range [...]struct {
		c     *ipaCounts
		dense []ipaDenseSlot
	}{{&s.existingAnti, s.dense.existing}, {&s.affinity, s.dense.affinity}, {&s.anti, s.dense.anti}} {
		for slot := range t.dense {
			sl := &t.dense[slot]
			m := t.c.vals[slot]
			if m == nil {
				m = make(map[string]int64, len(sl.sources))
				t.c.vals[slot] = m
			}
			for _, dc := range sl.sources {
				dc.EachCount(func(id, count int32, _ int64) { m[sl.values[id]] += int64(count) })
			}
		}
	}
	s.dense.filled.Store(true)
}

// countExistingFast is countExisting from the snapshot's affinity groups:
// every group of required anti-affinity terms that selects the incoming pod
// adds its terms per domain (Snapshot.AffinityGroupDomainCounts).
func (pl *InterPodAffinity) countExistingFast(s *ipaPreFilterState) {
	groups := s.snap.AffinityGroupsSelecting(s.pod.Pod)
	for _, g := range groups {
		if g.Kind != framework.TermRequiredAntiAffinity {
			continue
		}
		dc := s.snap.AffinityGroupDomainCounts(g)
		if dc.NonZero == 0 { // no node of the group has the key: as the walk, which creates no table slot then
			continue
		}
		slot := s.existingAnti.slot(g.Term.TopologyKey)
		s.dense.slot(&s.dense.existing, slot).add(s.dense.hits, &s.existingAnti, dc, g.Nodes, len(groups))
	}
}

// existingAntiSelects reports whether countExistingFast would count
// anything for pod: some existing pod's required anti-affinity term
// selects it in a domain of the snapshot.
func existingAntiSelects(snap *framework.Snapshot, pod *api.Pod) bool {
	for _, g := range snap.AffinityGroupsSelecting(pod) {
		if g.Kind == framework.TermRequiredAntiAffinity && snap.AffinityGroupDomainCounts(g).NonZero > 0 {
			return true
		}
	}
	return false
}

// countIncomingFast is countIncoming from the pod index: the pods matching
// all the incoming pod's required affinity terms (one query), and those
// matching each of its required anti-affinity terms (one query each), per
// domain (Snapshot.PodDomainCounts).
func (pl *InterPodAffinity) countIncomingFast(s *ipaPreFilterState) {
	snap := s.snap
	if len(s.affTerms) > 0 {
		q := framework.PodQuery{Terms: make([]framework.PodTerm, len(s.affTerms))}
		for i := range s.affTerms {
			q.Terms[i] = s.affTerms[i].PodTerm()
		}
		for i := range s.affTerms {
			t := &s.affTerms[i]
			s.dense.slot(&s.dense.affinity, t.slot).add(s.dense.hits, &s.affinity, snap.PodDomainCounts(q, t.TopologyKey), nil, len(s.affTerms))
		}
	}
	for i := range s.antiTerms {
		t := &s.antiTerms[i]
		q := framework.PodQuery{Terms: []framework.PodTerm{t.PodTerm()}}
		s.dense.slot(&s.dense.anti, t.slot).add(s.dense.hits, &s.anti, snap.PodDomainCounts(q, t.TopologyKey), nil, len(s.antiTerms))
	}
}

// checkDense runs Filter's three rules on snapshot node k from the dense
// counts.
func (pl *InterPodAffinity) checkDense(s *ipaPreFilterState, k int) *framework.Status {
	d := s.dense
	podsExist := true
	for i := range s.affTerms {
		sl := &d.affinity[s.affTerms[i].slot]
		id := sl.domain[k]
		if id < 0 {
			return pl.affinityFail // every topology key must exist on the node
		}
		if !sl.has(id) {
			podsExist = false
		}
	}
	if !podsExist && (s.affinity.n != 0 || !s.selfMatch) {
		return pl.affinityFail
	}
	if s.anti.n != 0 {
		for i := range s.antiTerms {
			sl := &d.anti[s.antiTerms[i].slot]
			if id := sl.domain[k]; id >= 0 && sl.has(id) {
				return pl.antiAffinityFail
			}
		}
	}
	if s.existingAnti.n != 0 {
		for i := range d.existing {
			sl := &d.existing[i]
			if sl.hit == nil {
				continue
			}
			if id := sl.domain[k]; id >= 0 && sl.has(id) {
				return pl.existingFail
			}
		}
	}
	return nil
}

// ipaHoistMax bounds the terms and keys filterDense hoists.
const ipaHoistMax = 8

// ipaHoisted is what filterDense reads of a dense slot. byIndex says
// that the key numbers its values by node (a hostname key: node k has
// value k), so that hit is a bitmap of the nodes themselves.
type ipaHoisted struct {
	domain  []int32
	hit     []uint64
	byIndex bool
}

// has reports whether snapshot node k carries the key with a value that
// has a positive count.
func (h *ipaHoisted) has(k int32) bool {
	id := h.domain[k]
	return id >= 0 && h.hit[id>>6]&(1<<(id&63)) != 0
}

func ipaHoist(sl *ipaDenseSlot) ipaHoisted {
	byIndex := len(sl.sources) > 0 && sl.sources[0].Values.ByIndex && len(sl.hit) >= (len(sl.domain)+63)>>6
	return ipaHoisted{sl.domain, sl.hit, byIndex}
}

// filterDense is checkDense over the snapshot nodes idx, with each term's
// numbering and counts read once.
func (pl *InterPodAffinity) filterDense(s *ipaPreFilterState, idx []int32, rl []fastpath.NodeRejection) []fastpath.NodeRejection {
	d := s.dense
	if len(s.affTerms) > ipaHoistMax || len(s.antiTerms) > ipaHoistMax || len(d.existing) > ipaHoistMax {
		for i, k := range idx {
			if st := pl.checkDense(s, int(k)); st != nil {
				rl = append(rl, fastpath.NodeRejection{Node: int32(i), Status: st})
			}
		}
		return rl
	}
	var affBuf, antiBuf, exBuf [ipaHoistMax]ipaHoisted
	aff := affBuf[:len(s.affTerms)]
	for i := range aff {
		aff[i] = ipaHoist(&d.affinity[s.affTerms[i].slot])
	}
	var anti, ex []ipaHoisted
	if s.anti.n != 0 {
		anti = antiBuf[:len(s.antiTerms)]
		for i := range anti {
			anti[i] = ipaHoist(&d.anti[s.antiTerms[i].slot])
		}
	}
	if s.existingAnti.n != 0 {
		ex = exBuf[:0]
		for i := range d.existing {
			if d.existing[i].hit != nil {
				ex = append(ex, ipaHoist(&d.existing[i]))
			}
		}
	}
	if len(aff) == 0 && len(anti) == 0 {
		return pl.filterExisting(ex, idx, rl)
	}
	if len(aff) == 0 && len(anti) == 1 && len(ex) <= 1 {
		// One anti-affinity term (the one-per-node replica), and at most
		// one key claimed by the existing pods.
		a := anti[0]
		if len(ex) == 0 {
			for i, k := range idx {
				if a.has(k) {
					rl = append(rl, fastpath.NodeRejection{Node: int32(i), Status: pl.antiAffinityFail})
				}
			}
			return rl
		}
		e := ex[0]
		if len(a.domain) > 0 && len(a.domain) == len(e.domain) && &a.domain[0] == &e.domain[0] && len(a.hit) == len(e.hit) {
			if a.byIndex {
				// Both over a key numbered by node (the replicas'
				// hostname): two bitmaps of the nodes, read a bit a node,
				// and the status of each node kept.
				var added []fastpath.NodeRejection
				rl, added = filter.MarkRejections(rl, len(idx), func(room []fastpath.NodeRejection) int { return markedNodes2(room, idx, a.hit, e.hit) })
				for j := range added {
					added[j].Status = pl.existingFail
					if k := idx[added[j].Node]; a.hit[k>>6]>>(k&63)&1 != 0 {
						added[j].Status = pl.antiAffinityFail
					}
				}
				return rl
			}
			// Both over one key: one value lookup a node.
			return pl.filterAntiSameKey(a.domain, a.hit, e.hit, idx, rl)
		}
		for i, k := range idx {
			if a.has(k) {
				rl = append(rl, fastpath.NodeRejection{Node: int32(i), Status: pl.antiAffinityFail})
			} else if e.has(k) {
				rl = append(rl, fastpath.NodeRejection{Node: int32(i), Status: pl.existingFail})
			}
		}
		return rl
	}
	// Without a matching pod in some term's domain, the node passes only
	// as the first pod of a self-affine group.
	firstOK := s.affinity.n == 0 && s.selfMatch
nodes:
	for i, k := range idx {
		podsExist := true
		for a := range aff {
			if aff[a].domain[k] < 0 {
				rl = append(rl, fastpath.NodeRejection{Node: int32(i), Status: pl.affinityFail}) // every topology key must exist on the node
				continue nodes
			}
			if !aff[a].has(k) {
				podsExist = false
			}
		}
		if !podsExist && !firstOK {
			rl = append(rl, fastpath.NodeRejection{Node: int32(i), Status: pl.affinityFail})
			continue
		}
		for a := range anti {
			if anti[a].has(k) {
				rl = append(rl, fastpath.NodeRejection{Node: int32(i), Status: pl.antiAffinityFail})
				continue nodes
			}
		}
		for e := range ex {
			if ex[e].has(k) {
				rl = append(rl, fastpath.NodeRejection{Node: int32(i), Status: pl.existingFail})
				continue nodes
			}
		}
	}
	return rl
}

// filterAntiSameKey is filterDense's loop for one anti-affinity term of
// the pod and one key claimed by the existing pods when both are the same
// key (numbering domain): a node whose value the pod's term counts
// (anti) fails the anti-affinity rule, else one whose value the existing
// pods claim (ex) fails theirs.
func (pl *InterPodAffinity) filterAntiSameKey(domain []int32, anti, ex []uint64, idx []int32, rl []fastpath.NodeRejection) []fastpath.NodeRejection {
	ex = ex[:len(anti)]
	for i, k := range idx {
		id := domain[k]
		if id < 0 {
			continue
		}
		w, bit := id>>6, uint64(1)<<(id&63)
		if anti[w]&bit != 0 {
			rl = append(rl, fastpath.NodeRejection{Node: int32(i), Status: pl.antiAffinityFail})
		} else if ex[w]&bit != 0 {
			rl = append(rl, fastpath.NodeRejection{Node: int32(i), Status: pl.existingFail})
		}
	}
	return rl
}

// filterExisting is filterDense for a pod without required terms of its
// own: only the existing pods' anti-affinity (the slots ex) can reject a
// node; one and two keys (hostname, zone...) get loops of their own, with
// the slices in locals (the compiler keeps them in registers).
func (pl *InterPodAffinity) filterExisting(ex []ipaHoisted, idx []int32, rl []fastpath.NodeRejection) []fastpath.NodeRejection {
	switch len(ex) {
	case 0:
	case 1:
		d0, h0 := ex[0].domain, ex[0].hit
		if ex[0].byIndex { // h0 is a bitmap of the nodes
			var added []fastpath.NodeRejection
			rl, added = filter.MarkRejections(rl, len(idx), func(room []fastpath.NodeRejection) int { return markedNodes(room, idx, h0) })
			filter.SetStatus(added, pl.existingFail)
			break
		}
		for i, k := range idx {
			if id := d0[k]; id >= 0 && h0[id>>6]&(1<<(id&63)) != 0 {
				rl = append(rl, fastpath.NodeRejection{Node: int32(i), Status: pl.existingFail})
			}
		}
	case 2:
		d0, h0, d1, h1 := ex[0].domain, ex[0].hit, ex[1].domain, ex[1].hit
		for i, k := range idx {
			if id := d0[k]; id >= 0 && h0[id>>6]&(1<<(id&63)) != 0 {
				rl = append(rl, fastpath.NodeRejection{Node: int32(i), Status: pl.existingFail})
			} else if id := d1[k]; id >= 0 && h1[id>>6]&(1<<(id&63)) != 0 {
				rl = append(rl, fastpath.NodeRejection{Node: int32(i), Status: pl.existingFail})
			}
		}
	default:
	nodes:
		for i, k := range idx {
			for e := range ex {
				if ex[e].has(k) {
					rl = append(rl, fastpath.NodeRejection{Node: int32(i), Status: pl.existingFail})
					continue nodes
				}
			}
		}
	}
	return rl
}

// markedNodes sets the Node of out[0:n] to the positions i (in increasing
// order) of the nodes idx[i] whose bit is set in bm (bit k%64 of word k/64
// for snapshot node k), and returns n; the statuses are left to the
// caller. out has room for every node. It is not inlined, so that its
// loop, which calls nothing, keeps every value in a register.
//
//go:noinline
func markedNodes(out []fastpath.NodeRejection, idx []int32, bm []uint64) int {
	out = out[:len(idx)]
	n := 0
	for i, k := range idx {
		if bm[k>>6]>>(k&63)&1 != 0 {
			out[n].Node = int32(i)
			n++
		}
	}
	return n
}

// markedNodes2 is markedNodes for the nodes whose bit is set in bm or in
// bm2 (of bm's length).
//
//go:noinline
func markedNodes2(out []fastpath.NodeRejection, idx []int32, bm, bm2 []uint64) int {
	out, bm2 = out[:len(idx)], bm2[:len(bm)]
	n := 0
	for i, k := range idx {
		if (bm[k>>6]|bm2[k>>6])>>(k&63)&1 != 0 {
			out[n].Node = int32(i)
			n++
		}
	}
	return n
}
