package framework

import (
	"math/bits"
	"slices"
	"sync/atomic"

	"github.com/schedkit/schedkit/framework/api"
)

// This file keeps the pod index's counts summed per topology domain. The
// topology plugins read, every cycle, how many matching pods (or affinity
// terms) each value of a node label key holds: PodTopologySpread's
// per-zone counts, InterPodAffinity's domains claimed by the existing
// pods' anti-affinity and by the pods its own terms select. Summing the
// per-node counts costs O(nodes) a cycle, O(pods with the term) for an
// affinity group; the sums below are built once per (query or group, key)
// and then kept exact by the same AddPod/RemovePod updates as the per-node
// counts, so that a cycle reads them in O(values) — O(values/64) for which
// values hold anything.
//
// A sum belongs to one snapshot's slot (podIndexSlot, groupSlot): a clone
// shares it read-only and either side copies it before its first update
// (domOwned). It is numbered by one TopologyValues; node changes renumber
// the values (Snapshot.TopologyValues returns a new one), so a sum whose
// numbering is not the snapshot's current one is rebuilt when read, and
// AddNode/RemoveNode drop them all.

// DomainCounts is a count per value of a node label key: for a pod query
// (Snapshot.PodDomainCounts), the matching pods on the nodes holding each
// value; for an affinity group (Snapshot.AffinityGroupDomainCounts), the
// group's terms and their weights on those nodes. Nodes without the key
// count nowhere. It is read-only and valid until the snapshot is next
// mutated.
//
// The sums of an affinity group on a few nodes, over a key with many more
// values (kubernetes.io/hostname), are held as their Hits alone: Count
// and Weight are nil, Hit and NonZero are set. EachCount and Hits read
// either form.
type DomainCounts struct {
	// Values numbers the key's values; Count, Weight and Hit are indexed
	// by its value ids.
	Values *api.TopologyValues
	// Count is the pods (or terms) per value (nil when the sums are held
	// as Hits alone).
	Count []int32
	// Weight is the sum of the terms' weights per value (groups of
	// preferred terms only; nil for pod queries, for groups of required
	// terms, whose terms weigh nothing, and when the sums are held as
	// Hits alone).
	Weight []int64
	// Hit has bit id set when value id's count is positive (in either
	// form).
	Hit []uint64
	// NonZero is the number of values with a positive count.
	NonZero int

	// hits caches Hits: nil until asked, and again after a change.
	hits atomic.Pointer[[]DomainHit]
	// asked is set by KeptHits' first call after a change.
	asked atomic.Bool
	// current is the snapshot numbering map (Snapshot.topo) in which
	// Values was last found to be its key's numbering
	// (Snapshot.currentValues); nil before.
	current atomic.Pointer[numberingSeen]
}

// numberingSeen is a numbering map and the numbering found current in it.
type numberingSeen struct {
	topo *map[string]*api.TopologyValues
	tv   *api.TopologyValues
}

// DomainHit is one value of a DomainCounts with a positive count: its id,
// count and weight.
type DomainHit struct {
	ID     int32
	Count  int32
	Weight int64
}

// Hits returns the values whose Count is positive, in increasing order of
// id, with their counts and weights (0 without Weight): what EachHit
// visits, as one slice read in order instead of one load from Count and
// Weight a value. It is computed by the first call after the counts
// change and is read-only. A caller that builds a DomainCounts and changes
// its fields itself must not call Hits after such a change. It is safe for
// concurrent use.
func (d *DomainCounts) Hits() []DomainHit {
	if h := d.hits.Load(); h != nil {
		return *h
	}
	out := make([]DomainHit, 0, d.NonZero)
	for w, word := range d.Hit {
		for word != 0 {
			id := int32(w<<6 + bits.TrailingZeros64(word))
			word &= word - 1
			h := DomainHit{ID: id, Count: d.Count[id]}
			if d.Weight != nil {
				h.Weight = d.Weight[id]
			}
			out = append(out, h)
		}
	}
	d.hits.Store(&out)
	return out
}

// KeptHits returns Hits when it is worth keeping: built already, or asked
// for a second time since the counts last changed (built now). The first
// call after a change builds nothing and returns false, and the caller
// reads the counts with EachHit: counts that change between every two
// reads (an affinity group each cycle's pod joins) then cost no copy.
// It is safe for concurrent use.
func (d *DomainCounts) KeptHits() ([]DomainHit, bool) {
	if h := d.hits.Load(); h != nil {
		return *h, true
	}
	if !d.asked.Swap(true) {
		return nil, false
	}
	return d.Hits(), true
}

// newDomainCounts returns empty counts over tv's values.
func newDomainCounts(tv *api.TopologyValues, weighted bool) *DomainCounts {
	d := &DomainCounts{Values: tv, Count: makeWritten[int32](len(tv.Values)), Hit: makeWritten[uint64]((len(tv.Values) + 63) / 64)}
	if weighted {
		d.Weight = makeWritten[int64](len(tv.Values))
	}
	return d
}

// add adds count pods (terms) and weight on node to the node's value. A
// node outside the numbering (a sum about to be dropped as stale) is
// ignored.
func (d *DomainCounts) add(node int, count int32, weight int64) {
	if node < 0 || node >= len(d.Values.Domain) {
		return
	}
	id := d.Values.Domain[node]
	if id < 0 {
		return
	}
	old := d.Count[id]
	nw := old + count
	d.Count[id] = nw
	if d.Weight != nil {
		d.Weight[id] += weight
	}
	switch {
	case old <= 0 && nw > 0:
		d.Hit[id>>6] |= 1 << (id & 63)
	case old > 0 && nw <= 0:
		d.Hit[id>>6] &^= 1 << (id & 63)
	}
	d.changed(old > 0, nw > 0)
}

// changed records a change to a count (held, whether it was positive
// before and is now): the hits are listed again when next asked, and
// NonZero follows. Hit is the caller's to keep.
func (d *DomainCounts) changed(held, holds bool) {
	d.hits.Store(nil)
	d.asked.Store(false)
	switch {
	case holds && !held:
		d.NonZero++
	case held && !holds:
		d.NonZero--
	}
}

// clone returns a copy that updates do not share.
func (d *DomainCounts) clone() *DomainCounts {
	c := &DomainCounts{Values: d.Values, Count: slices.Clone(d.Count), Weight: slices.Clone(d.Weight), Hit: slices.Clone(d.Hit), NonZero: d.NonZero}
	if d.Count == nil {
		c.hits.Store(d.hits.Load()) // sums held as Hits, which nothing changes
	}
	return c
}

// EachCount calls fn with every value id whose count is positive, in
// increasing order, with its count and weight (0 without weights), from
// the dense counts or from the Hits that hold them.
func (d *DomainCounts) EachCount(fn func(id, count int32, weight int64)) {
	if d.Count == nil {
		for _, h := range d.Hits() {
			fn(h.ID, h.Count, h.Weight)
		}
		return
	}
	d.EachHit(func(id int32) {
		var w int64
		if d.Weight != nil {
			w = d.Weight[id]
		}
		fn(id, d.Count[id], w)
	})
}

// EachHit calls fn with every value id whose Count is positive, in
// increasing order.
func (d *DomainCounts) EachHit(fn func(id int32)) {
	for w, word := range d.Hit {
		for word != 0 {
			b := bits.TrailingZeros64(word)
			word &= word - 1
			fn(int32(w<<6 + b))
		}
	}
}

// PodDomainCounts returns the pods matching q (PodCounts) summed per value
// of key (TopologyValues(key)). The sums are memoized with q's counts and
// kept exact as pods come and go; the first call for a (q, key) pair costs
// O(nodes), later ones O(1). The result is read-only and valid until the
// snapshot is next mutated. It is safe for concurrent use.
func (s *Snapshot) PodDomainCounts(q PodQuery, key string) *DomainCounts {
	tv := s.TopologyValues(key)
	if tv.ByIndex {
		return s.podIndexDomainCounts(q, tv)
	}
	counts, nz := s.PodCountsBits(q)
	var buf [256]byte
	kb := q.appendKey(buf[:0])
	x := &s.podIdx
	x.mu.Lock()
	sl, ok := x.slots[string(kb)]
	if ok {
		if d := sl.domainsOf(tv); d != nil {
			x.mu.Unlock()
			return d
		}
	}
	x.mu.Unlock()
	// Summed without the lock, which other readers (another plugin's
	// PreScore on another worker) take meanwhile.
	nd := domainCountsOf(tv, counts, nz)
	if !ok { // evicted meanwhile by another reader's query: sum, not kept
		return nd
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if cur, ok := x.slots[string(kb)]; !ok || cur != sl {
		return nd
	}
	if d := sl.domainsOf(tv); d != nil { // summed meanwhile by another reader
		return d
	}
	for i, old := range sl.domains {
		if old.Values.Key == key {
			// Numbered before a node changed: replace it.
			ds := slices.Clone(sl.domains)
			ds[i] = nd
			sl.domains = ds
			return nd
		}
	}
	sl.domains = append(slices.Clip(sl.domains), nd)
	return nd
}

// podIndexDomainCounts is PodDomainCounts for a key whose values are the
// nodes themselves (tv.ByIndex: kubernetes.io/hostname on nodes that
// each have their own): the sums are q's counts per node, so the result
// shares the entry's counts and nonZero bitmap rather than copying them
// into arrays of its own (4 bytes a node and a bit, for each query asked
// by such a key).
func (s *Snapshot) podIndexDomainCounts(q PodQuery, tv *api.TopologyValues) *DomainCounts {
	e := s.podCountEntry(q)
	d := e.byIndex.Load()
	if d != nil && d.Values == tv {
		return d
	}
	counts, nz := e.counts, e.nonZeroBitmap()
	if len(counts) != len(tv.Values) || len(nz) != (len(tv.Values)+63)/64 {
		return domainCountsOf(tv, counts, nz) // not this numbering's nodes: summed, not kept
	}
	nd := &DomainCounts{Values: tv, Count: counts, Hit: nz}
	for _, w := range nz {
		nd.NonZero += bits.OnesCount64(w)
	}
	if e.byIndex.CompareAndSwap(d, nd) {
		return nd
	}
	if cur := e.byIndex.Load(); cur != nil && cur.Values == tv { // built meanwhile by another reader
		return cur
	}
	return nd
}

// domainsOf returns the slot's sums by tv's values, nil when it has none
// numbered by tv.
func (sl *podIndexSlot) domainsOf(tv *api.TopologyValues) *DomainCounts {
	for _, d := range sl.domains {
		if d.Values == tv {
			return d
		}
	}
	return nil
}

// domainCountsOf sums per-node counts (pods: none negative) by tv's
// values, marking each value as its sum turns positive, reading the nodes
// whose bit is set in nz (the counts' nonZero bitmap): a query matching
// the pods of a few nodes costs a pass over the bitmap's words, not over
// every node's count.
func domainCountsOf(tv *api.TopologyValues, counts []int32, nz []uint64) *DomainCounts {
	d := newDomainCounts(tv, false)
	dom, sums, hit := tv.Domain[:len(counts)], d.Count, d.Hit
	for w, word := range nz {
		for word != 0 {
			k := w<<6 + bits.TrailingZeros64(word)
			word &= word - 1
			if k >= len(counts) {
				break
			}
			if id, n := dom[k], counts[k]; n > 0 && id >= 0 {
				if sums[id] == 0 {
					hit[id>>6] |= 1 << (id & 63)
					d.NonZero++
				}
				sums[id] += n
			}
		}
	}
	return d
}

// AffinityGroupDomainCounts returns group g's terms (AffinityGroup.Count)
// and weights summed per value of its term's topology key. The sums are
// kept with the group and updated as pods with the term come and go; the
// first call costs O(nodes of g), later ones O(1). g must be a group the
// snapshot returned since its last mutation. The result is read-only and
// valid until the snapshot is next mutated. It is safe for concurrent use.
func (s *Snapshot) AffinityGroupDomainCounts(g *AffinityGroup) *DomainCounts {
	x := &s.podIdx
	// The group's own slot, when this snapshot made it: its sums are
	// read without the lock and the lookup by key. The slot's group
	// and the index's groups change only with the snapshot. The sums'
	// numbering (of the group's key) is checked by its own key, which
	// the numberings of every group with that key share, rather than by
	// the group's term, another object to load.
	if sl := g.slot; sl != nil && sl.x == x && sl.g == g {
		if d := sl.dom.Load(); d != nil && s.currentValues(d.Values, &d.current) {
			return d
		}
	}
	tv := s.TopologyValues(g.Term.TopologyKey)
	x.mu.Lock()
	sl, ok := x.groups[g.key]
	kept := ok && sl.g == g
	if kept {
		if d := sl.dom.Load(); d != nil && d.Values == tv {
			x.mu.Unlock()
			return d
		}
	}
	x.mu.Unlock()
	// Summed without the lock, which other readers take meanwhile.
	d := groupDomainCountsOf(tv, g)
	if !kept {
		return d
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if cur, ok := x.groups[g.key]; !ok || cur != sl || sl.g != g {
		return d
	}
	if d := sl.dom.Load(); d != nil && d.Values == tv { // summed meanwhile by another reader
		return d
	}
	sl.dom.Store(d)
	sl.domOwned = true
	return d
}

// groupDomainCountsOf sums g's per-node counts and weights by tv's
// values; a group of required terms gets no Weight, which would be all
// zeros (a value per node, 8 bytes each, for a key such as
// kubernetes.io/hostname). A group on few nodes for its key's values
// (sparseGroup) gets its sums as Hits alone.
func groupDomainCountsOf(tv *api.TopologyValues, g *AffinityGroup) *DomainCounts {
	weighted := g.Kind == TermPreferredAffinity || g.Kind == TermPreferredAntiAffinity
	if sparseGroup(len(g.Nodes), len(tv.Values)) {
		return sparseGroupDomainCounts(tv, g, weighted)
	}
	d := newDomainCounts(tv, weighted)
	for p, k := range g.Nodes {
		d.add(int(k), g.Count[p], g.Weight[p])
	}
	return d
}

// sparseGroupMost is the most nodes of an affinity group whose sums are
// held as Hits alone, and sparseGroupSpread how many times as many values
// its key must have. The dense arrays of a group of a few pods over
// kubernetes.io/hostname on 5,000 nodes are 20 KB of counts and 40 KB of
// weights of fresh memory, mostly zeros: about 15 µs of page faults on
// the cycle that first asks for them, where a workload of many apps asks
// for a new group's sums in most cycles. Held as Hits, such sums are built
// again after each change to the group (an update would have to keep the
// list sorted), which costs O(n log n) for n nodes: hence the bound.
const (
	sparseGroupMost   = 64
	sparseGroupSpread = 16
)

// sparseGroup reports whether a group on nodes nodes has its sums over a
// key of values values held as Hits alone.
func sparseGroup(nodes, values int) bool {
	return nodes <= sparseGroupMost && nodes*sparseGroupSpread <= values
}

// sparseGroupDomainCounts is groupDomainCountsOf for a sparse group: its
// nodes' counts (and weights, when weighted) summed by value into a list
// in increasing order of value, with Hit marking the values.
func sparseGroupDomainCounts(tv *api.TopologyValues, g *AffinityGroup, weighted bool) *DomainCounts {
	hits := make([]DomainHit, 0, len(g.Nodes))
	for p, k := range g.Nodes {
		if k < 0 || int(k) >= len(tv.Domain) || g.Count[p] <= 0 {
			continue
		}
		id := tv.Domain[k]
		if id < 0 {
			continue
		}
		h := DomainHit{ID: id, Count: g.Count[p]}
		if weighted {
			h.Weight = g.Weight[p]
		}
		hits = append(hits, h)
	}
	slices.SortFunc(hits, func(a, b DomainHit) int { return int(a.ID) - int(b.ID) })
	// Nodes sharing a value (a key with fewer values than nodes) merge.
	out := hits[:0]
	for _, h := range hits {
		if n := len(out); n > 0 && out[n-1].ID == h.ID {
			out[n-1].Count += h.Count
			out[n-1].Weight += h.Weight
			continue
		}
		out = append(out, h)
	}
	d := &DomainCounts{Values: tv, Hit: make([]uint64, (len(tv.Values)+63)/64), NonZero: len(out)}
	for _, h := range out {
		d.Hit[h.ID>>6] |= 1 << (h.ID & 63)
	}
	d.hits.Store(&out)
	return d
}

// domainsAdd adds delta pods on node to the slot's sums (copying them
// first while they are shared with a clone).
func (sl *podIndexSlot) domainsAdd(node int, delta int32) {
	if len(sl.domains) == 0 {
		return
	}
	if !sl.domOwned {
		ds := make([]*DomainCounts, len(sl.domains))
		for i, d := range sl.domains {
			ds[i] = d.clone()
		}
		sl.domains, sl.domOwned = ds, true
	}
	for _, d := range sl.domains {
		d.add(node, delta, 0)
	}
}

// domainAdd adds delta terms of weight on node to the group's sums
// (copying them first while they are shared with a clone), or drops sums
// held as Hits alone.
func (sl *groupSlot) domainAdd(node int32, delta int32, weight int64) {
	d := sl.dom.Load()
	if d == nil {
		return
	}
	if d.Count == nil {
		// Held as Hits: summed again when next asked. A clone sharing
		// them keeps them, unchanged.
		sl.dom.Store(nil)
		return
	}
	if !sl.domOwned {
		d = d.clone()
		sl.dom.Store(d)
		sl.domOwned = true
	}
	d.add(int(node), delta, weight)
}
