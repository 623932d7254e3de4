package filter

import (
	"github.com/schedkit/schedkit/framework"
)

// This file is InterPodAffinity's PreFilter from the snapshot's pod index,
// taken when PreFilter runs over the snapshot's own node list (what the
// runner passes): the existing pods' required anti-affinity comes from
// Snapshot.AffinityGroups (one match per distinct term instead of one per
// pod), the incoming pod's required (anti-)affinity from Snapshot.PodCounts
// (per-node counts of the pods matching the terms, memoized across
// cycles), and each node's topology value from Snapshot.TopologyValues.
// It fills the same count tables as the walk over every pod (sums of the
// same integers, so the order does not matter), and also keeps the counts
// by value number, so that Filter reads slices instead of label maps.

// ipaDense holds, for each slot of the three count tables, the counts by
// value number of TopologyValues(key) (counts[id] is the table's count for
// Values[id]); they equal the tables until AddPod or RemovePod changes the
// state, which then drops them.
type ipaDense struct {
	snap                     *framework.Snapshot
	existing, affinity, anti []ipaDenseSlot
}

// ipaDenseSlot is one topology key's counts by value number.
type ipaDenseSlot struct {
	domain []int32 // value number by node index (−1: the node lacks the key)
	counts []int64
}

// slot returns the dense slot i of slots, growing slots to cover it and
// creating the slot's arrays for key.
func (d *ipaDense) slot(slots *[]ipaDenseSlot, i int, key string) *ipaDenseSlot {
	for len(*slots) <= i {
		*slots = append(*slots, ipaDenseSlot{})
	}
	sl := &(*slots)[i]
	if sl.counts == nil {
		tv := d.snap.TopologyValues(key)
		sl.domain, sl.counts = tv.Domain, make([]int64, len(tv.Values))
	}
	return sl
}

// ipaAddDense adds n to the pair (key, value of node k) in the table c and
// its dense view, when node k carries key.
func ipaAddDense(c *ipaCounts, d *ipaDense, dense *[]ipaDenseSlot, slot int, key string, tv *framework.TopologyValues, k int, n int64) {
	id := tv.Domain[k]
	if id < 0 {
		return
	}
	c.add(slot, tv.Values[id], n)
	d.slot(dense, slot, key).counts[id] += n
}

// countExistingFast is countExisting from the snapshot's affinity groups:
// every group of required anti-affinity terms that selects the incoming pod
// adds, on each node carrying the term, the number of its pods with it.
func (pl *InterPodAffinity) countExistingFast(s *ipaPreFilterState) {
	incoming := s.pod.Pod
	for _, g := range s.snap.AffinityGroups() {
		if g.Kind != framework.TermRequiredAntiAffinity || !g.Term.Matches(incoming, s.nsLabels) {
			continue
		}
		key := g.Term.TopologyKey
		tv := s.snap.TopologyValues(key)
		slot := -1
		for p, k := range g.Nodes {
			if tv.Domain[k] < 0 {
				continue
			}
			if slot < 0 {
				slot = s.existingAnti.slot(key)
				s.existingAnti.reserve(slot, len(g.Nodes))
			}
			ipaAddDense(&s.existingAnti, s.dense, &s.dense.existing, slot, key, tv, int(k), int64(g.Count[p]))
		}
	}
}

// countIncomingFast is countIncoming from the pod index: the pods matching
// all the incoming pod's required affinity terms (one query), and those
// matching each of its required anti-affinity terms (one query each), per
// node.
func (pl *InterPodAffinity) countIncomingFast(s *ipaPreFilterState) {
	snap := s.snap
	if len(s.affTerms) > 0 {
		q := framework.PodQuery{Terms: make([]framework.PodTerm, len(s.affTerms))}
		tvs := make([]*framework.TopologyValues, len(s.affTerms))
		for i := range s.affTerms {
			q.Terms[i] = framework.PodTermOf(s.affTerms[i].AffinityTerm)
			tvs[i] = snap.TopologyValues(s.affTerms[i].TopologyKey)
			s.dense.slot(&s.dense.affinity, s.affTerms[i].slot, s.affTerms[i].TopologyKey)
		}
		counts := snap.PodCounts(q)
		nz := ipaNonZero(counts)
		for i := range s.affTerms {
			s.affinity.reserve(s.affTerms[i].slot, nz)
		}
		for k, n := range counts {
			if n == 0 {
				continue
			}
			for i := range s.affTerms {
				t := &s.affTerms[i]
				ipaAddDense(&s.affinity, s.dense, &s.dense.affinity, t.slot, t.TopologyKey, tvs[i], k, int64(n))
			}
		}
	}
	for i := range s.antiTerms {
		t := &s.antiTerms[i]
		tv := snap.TopologyValues(t.TopologyKey)
		s.dense.slot(&s.dense.anti, t.slot, t.TopologyKey)
		counts := snap.PodCounts(framework.PodQuery{Terms: []framework.PodTerm{framework.PodTermOf(t.AffinityTerm)}})
		s.anti.reserve(t.slot, ipaNonZero(counts))
		for k, n := range counts {
			if n != 0 {
				ipaAddDense(&s.anti, s.dense, &s.dense.anti, t.slot, t.TopologyKey, tv, k, int64(n))
			}
		}
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
		if sl.counts[id] <= 0 {
			podsExist = false
		}
	}
	if !podsExist && (s.affinity.n != 0 || !s.selfMatch) {
		return pl.affinityFail
	}
	if s.anti.n != 0 {
		for i := range s.antiTerms {
			sl := &d.anti[s.antiTerms[i].slot]
			if id := sl.domain[k]; id >= 0 && sl.counts[id] > 0 {
				return pl.antiAffinityFail
			}
		}
	}
	if s.existingAnti.n != 0 {
		for i := range d.existing {
			sl := &d.existing[i]
			if sl.counts == nil {
				continue
			}
			if id := sl.domain[k]; id >= 0 && sl.counts[id] > 0 {
				return pl.existingFail
			}
		}
	}
	return nil
}

// ipaNonZero counts the nodes with a non-zero count (a map size hint).
func ipaNonZero(counts []int32) int {
	nz := 0
	for _, n := range counts {
		if n != 0 {
			nz++
		}
	}
	return nz
}

// reserve makes room for about hint pairs in slot when it is still empty.
func (c *ipaCounts) reserve(slot, hint int) {
	if len(c.vals[slot]) == 0 && hint > 8 {
		c.vals[slot] = make(map[string]int64, hint)
	}
}
