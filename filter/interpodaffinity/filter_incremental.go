package interpodaffinity

import (
	"context"
	"slices"
	"sync"

	"github.com/schedkit/schedkit/filter"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/fastpath"
)

var _ fastpath.IncrementalPreFilterPlugin = (*InterPodAffinity)(nil)

// PreFilterAfterAdd brings the state PreFilter wrote for a pod sharing
// pod's PodInfo up to date after the pods in added were added to the
// snapshot (fastpath.IncrementalPreFilterPlugin). An added pod changes
// PreFilter's counts only when one of its required anti-affinity terms
// selects the incoming pod, or it matches the incoming pod's required
// affinity terms (all of them) or one of its required anti-affinity terms;
// when no added pod does, the state is kept as it is (O(added × terms);
// a copy of the last pod found to change nothing, of its podShape,
// is not matched again).
// Otherwise the pod is added to the counts (O(terms)) when they are the
// state's own; if they are not (or cannot take it: a clone shares them, a
// node change renumbered the values, the pod claims a key the counts do
// not hold yet), PreFilter runs again — it reads the snapshot's
// per-domain sums, which already hold the added pods (the state's dense
// counts may share them), so it costs O(terms × values/64), not O(pods) —
// and the state it writes takes a copy of those sums as its own (O(values)
// once), so that the next such pods are added to it: the replicas of a
// template whose required anti-affinity selects the template (one per
// node) change the counts every time. The same test decides a skipped
// PreFilter: it skips again unless an added pod's required anti-affinity
// selects the pod.
func (pl *InterPodAffinity) PreFilterAfterAdd(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, added []fastpath.AddedPod) *framework.Status {
	snap := state.Snapshot()
	if snap == nil || pod == nil || pod.Pod == nil {
		return filter.PreFilterAfresh(ctx, state, pl, ipaPreFilterStateKey, pod)
	}
	d, err := state.Read(ipaPreFilterStateKey)
	if err != nil {
		// PreFilter skipped: the pod has no required terms and no pod's
		// required anti-affinity selected it.
		if len(pod.RequiredAffinityTerms) > 0 || len(pod.RequiredAntiAffinityTerms) > 0 {
			return filter.PreFilterAfresh(ctx, state, pl, ipaPreFilterStateKey, pod)
		}
		var nsLabels map[string]string
		for _, a := range added {
			if a.Pod == nil || a.Pod.Pod == nil {
				return filter.PreFilterAfresh(ctx, state, pl, ipaPreFilterStateKey, pod)
			}
			if len(a.Pod.RequiredAntiAffinityTerms) == 0 {
				continue
			}
			if nsLabels == nil {
				nsLabels = snap.NamespaceLabels(pod.Pod.Namespace)
			}
			if ipaSelectsIncoming(a.Pod, pod.Pod, nsLabels) {
				return pl.preFilterOwned(ctx, state, pod)
			}
		}
		return framework.NewStatus(framework.Skip)
	}
	s, ok := d.(*ipaPreFilterState)
	if !ok || s.snap != snap {
		return filter.PreFilterAfresh(ctx, state, pl, ipaPreFilterStateKey, pod)
	}
	for _, a := range added {
		if a.Pod == nil || a.Pod.Pod == nil {
			return filter.PreFilterAfresh(ctx, state, pl, ipaPreFilterStateKey, pod)
		}
		if s.unchanged.Same(a.Pod) {
			continue // a copy of a pod that changed nothing
		}
		if s.countsChangeWith(a.Pod) {
			if !s.addOwned(a) {
				return pl.preFilterOwned(ctx, state, pod)
			}
			continue
		}
		s.unchanged = shapeOf(a.Pod)
	}
	return nil
}

// preFilterOwned runs PreFilter again and gives the state it writes
// counts of its own (ipaPreFilterState.own), so that the next pods that
// change them are added to it (addOwned) instead of running PreFilter
// once more: a template whose replicas' required anti-affinity selects
// the template (one replica per node) changes the counts every time.
func (pl *InterPodAffinity) preFilterOwned(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo) *framework.Status {
	st := filter.PreFilterAfresh(ctx, state, pl, ipaPreFilterStateKey, pod)
	if st.IsSuccess() {
		if s, err := ipaReadState(state); err == nil {
			s.own()
		}
	}
	return st
}

// own replaces the dense counts' sources, the snapshot's per-domain sums
// (read-only, valid until the snapshot changes), by a copy of their sum
// per slot, whose Hit becomes the slot's hit (the same bits: the sums are
// positive where some source is): O(values) once, after which addOwned
// keeps them exact. It leaves a state without dense counts, or whose
// dense counts a clone shares, as it is.
func (s *ipaPreFilterState) own() {
	d := s.dense
	if d == nil || d.cloned.Load() || s.owned {
		return
	}
	for _, slots := range [...][]ipaDenseSlot{d.existing, d.affinity, d.anti} {
		for i := range slots {
			sl := &slots[i]
			if len(sl.sources) == 0 {
				continue
			}
			tv := sl.sources[0].Values
			sum := &framework.DomainCounts{Values: tv, Count: make([]int32, len(tv.Values)), Hit: make([]uint64, len(sl.hit))}
			for _, dc := range sl.sources {
				if dc.Values != tv {
					return // not one numbering: leave the rest shared (owned stays false)
				}
				dc.EachCount(func(id, count int32, _ int64) { sum.Count[id] += count })
			}
			for id, c := range sum.Count {
				if c > 0 {
					sum.Hit[id>>6] |= 1 << (id & 63)
					sum.NonZero++
				}
			}
			if sl.ownHit {
				d.hits.Put(sl.hit)
			}
			sl.hit, sl.ownHit, sl.sources = sum.Hit, false, []*framework.DomainCounts{sum}
		}
	}
	s.owned = true
}

// addOwned adds pod a, just added to the snapshot, to an owned state's
// counts as PreFilter would count it (update's three rules): O(terms).
// It reports false, with the state possibly changed in part, when it
// cannot (the state's counts are not its own or its clone's too, the
// node's values were renumbered, or a key the counts do not hold yet
// would get its first pod); PreFilter must then run again.
func (s *ipaPreFilterState) addOwned(a fastpath.AddedPod) bool {
	d := s.dense
	if !s.owned || d == nil || d.cloned.Load() {
		return false
	}
	k := a.Node.Index()
	p := a.Pod
	changed := false
	for i := range p.RequiredAntiAffinityTerms {
		t := &p.RequiredAntiAffinityTerms[i]
		if !t.Matches(s.pod.Pod, s.nsLabels) {
			continue
		}
		x := slices.Index(s.existingAnti.keys, t.TopologyKey)
		if x < 0 || x >= len(d.existing) {
			return false
		}
		ok, c := s.addOne(&d.existing[x], &s.existingAnti, k)
		if !ok {
			return false
		}
		changed = changed || c
	}
	if ipaMatchesAll(s.affTerms, p.Pod, s.snap) {
		for i := range s.affTerms {
			ok, c := s.addOne(&d.affinity[s.affTerms[i].slot], &s.affinity, k)
			if !ok {
				return false
			}
			changed = changed || c
		}
	}
	for i := range s.antiTerms {
		t := &s.antiTerms[i]
		if !t.Matches(p.Pod, s.snap) {
			continue
		}
		ok, c := s.addOne(&d.anti[t.slot], &s.anti, k)
		if !ok {
			return false
		}
		changed = changed || c
	}
	if changed && d.filled.Load() {
		// The tables' maps are filled from the counts again when next
		// read.
		for _, c := range [...]*ipaCounts{&s.existingAnti, &s.affinity, &s.anti} {
			for _, m := range c.vals {
				clear(m)
			}
		}
		s.filled = &sync.Once{}
		d.filled.Store(false)
	}
	return true
}

// addOne adds a pod on snapshot node k to an owned dense slot of table c
// (nothing when the node lacks the slot's key) and reports whether it
// could (the slot's numbering is the snapshot's current one) and whether
// a count changed.
func (s *ipaPreFilterState) addOne(sl *ipaDenseSlot, c *ipaCounts, k int) (ok, changed bool) {
	if len(sl.sources) != 1 {
		return false, false
	}
	sum := sl.sources[0]
	if s.snap.TopologyValues(sum.Values.Key) != sum.Values || k < 0 || k >= len(sum.Values.Domain) {
		return false, false
	}
	id := sum.Values.Domain[k]
	if id < 0 {
		return true, false
	}
	if sum.Count[id]++; sum.Count[id] == 1 {
		sum.Hit[id>>6] |= 1 << (id & 63)
		sum.NonZero++
		c.n++
	}
	return true, true
}

// ipaSelectsIncoming reports whether one of p's required anti-affinity
// terms selects incoming, whose namespace has labels nsLabels.
func ipaSelectsIncoming(p *framework.PodInfo, incoming *api.Pod, nsLabels map[string]string) bool {
	for i := range p.RequiredAntiAffinityTerms {
		if p.RequiredAntiAffinityTerms[i].Matches(incoming, nsLabels) {
			return true
		}
	}
	return false
}

// countsChangeWith reports whether adding p to some node may change one of
// s's three count tables (update's tests, without the node's keys).
func (s *ipaPreFilterState) countsChangeWith(p *framework.PodInfo) bool {
	if ipaSelectsIncoming(p, s.pod.Pod, s.nsLabels) {
		return true
	}
	if ipaMatchesAll(s.affTerms, p.Pod, s.snap) {
		return true
	}
	for i := range s.antiTerms {
		if s.antiTerms[i].Matches(p.Pod, s.snap) {
			return true
		}
	}
	return false
}
