package podtopologyspread

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"reflect"
	"slices"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/fastpath"
	"github.com/schedkit/schedkit/internal/slicepool"
)

const ptsPreFilterStateKey framework.StateKey = "PreFilter" + config.PodTopologySpreadName

// Sentinels of ptsPreFilterState.nodeDom.
const (
	// ptsNoKey: the node lacks the constraint's topology key.
	ptsNoKey int32 = -2
	// ptsNoDomain: the node's value is not one of the domains counted in
	// PreFilter (count 0 unless AddPod/RemovePod created it since).
	ptsNoDomain int32 = -1
	// ptsPending marks a value not yet resolved while PreFilter runs.
	ptsPending int32 = -3
)

// ptsPools recycles a fast PreFilter state's per-domain slices: counts,
// domain values and the value-to-domain numbering.
type ptsPools struct {
	counts slicepool.Pool[int]
	values slicepool.Pool[string]
	domOf  slicepool.Pool[int32]
}

// takeCounts returns a zeroed count slice of n domains, recycled when n is
// large.
func (pl *PodTopologySpread) takeCounts(n int) []int {
	b := pl.pools.counts.Take(n)
	clear(b)
	return b
}

var (
	_ framework.PreFilterPlugin     = (*PodTopologySpread)(nil)
	_ framework.FilterPlugin        = (*PodTopologySpread)(nil)
	_ fastpath.BatchFilterPlugin    = (*PodTopologySpread)(nil)
	_ framework.PreFilterExtensions = (*PodTopologySpread)(nil)

	_ framework.ReleasableStateData = (*ptsPreFilterState)(nil)
)

// ptsPath is one of kube-scheduler's two "critical paths" of a constraint:
// a domain (its index, -1 for none) and its matching-pod count.
type ptsPath struct {
	Domain   int32
	MatchNum int
}

// ptsPaths holds the domain with the fewest matching pods in [0] and a
// domain with at least as many in [1] (not necessarily the second
// smallest once AddPod/RemovePod have run, exactly as in kube-scheduler).
type ptsPaths [2]ptsPath

func ptsNewPaths() ptsPaths {
	return ptsPaths{{Domain: -1, MatchNum: math.MaxInt32}, {Domain: -1, MatchNum: math.MaxInt32}}
}

// update records that domain d now holds num matching pods, with
// kube-scheduler's criticalPaths.update rules.
func (p *ptsPaths) update(d int32, num int) {
	switch d {
	case p[0].Domain:
		p[0].MatchNum = num
	case p[1].Domain:
		p[1].MatchNum = num
	default:
		if num < p[0].MatchNum {
			p[1] = p[0]
			p[0] = ptsPath{Domain: d, MatchNum: num}
		} else if num < p[1].MatchNum {
			p[1] = ptsPath{Domain: d, MatchNum: num}
		}
		return
	}
	if p[0].MatchNum > p[1].MatchNum {
		p[0], p[1] = p[1], p[0]
	}
}

// ptsPreFilterState is what PreFilter computes for Filter. Per constraint c:
// DomainIndex[c] maps each eligible topology value to a domain index,
// DomainValues[c] lists the values by index, Counts[c] the matching pods per
// domain (kube-scheduler's TpValueToMatchNum) and Paths[c] the critical
// paths. nodeDom holds, for node i of PreFilter's list and constraint c, the
// domain index of the node's value at [i*len(Constraints)+c] (or ptsNoKey,
// ptsNoDomain), so that Filter reads slices instead of maps.
//
// Clone copies Counts and Paths; everything else is shared and read-only.
// DomainIndex[c] and DomainValues[c] are replaced, never written, when
// AddPod/RemovePod meet a value that was not a domain.
type ptsPreFilterState struct {
	Constraints  []constraint
	DomainIndex  []map[string]int32
	DomainValues [][]string
	Counts       [][]int
	Paths        []ptsPaths
	// SelfMatch[c] is 1 when the incoming pod matches constraint c's
	// selector, else 0.
	SelfMatch []int

	nodes       []*framework.NodeInfo
	nodeDom     []int32
	baseDomains []int
	snap        *framework.Snapshot
	inclusion   *inclusion
	// nodeSeq is snap's NodeChangeSeq when the state was computed: the
	// inclusion policies read the nodes' taints and labels, which a node
	// update may change while every numbering of the constraints' keys
	// stays.
	nodeSeq uint64

	// Fast mode (PreFilter ran over the snapshot's own node list): tvs[c]
	// numbers constraint c's topology values over the snapshot and
	// domOf[c][id] is the domain index of value id (-1: not a domain); a
	// nil domOf[c] is the identity (every value id is its own domain, the
	// numbering when every node has every key and counts). DomainIndex is
	// then nil and nodes, nodeDom and baseDomains unused.
	tvs   []*api.TopologyValues
	domOf [][]int32

	// pool, when set, takes the large count slices back on Release, and
	// also DomainValues and domOf when pooledDoms is set (they are then
	// the state's own, not the snapshot's TopologyValues).
	pool       *ptsPools
	pooledDoms bool
}

// Clone returns a copy whose counts and critical paths AddPod/RemovePod can
// change without affecting s. The copy owns its counts: releasing either
// state does not touch the other's.
func (s *ptsPreFilterState) Clone() framework.StateData {
	if s == nil {
		return nil
	}
	c := *s
	c.Counts = make([][]int, len(s.Counts))
	for i := range s.Counts {
		c.Counts[i] = slices.Clone(s.Counts[i])
	}
	c.Paths = slices.Clone(s.Paths)
	c.DomainIndex = slices.Clone(s.DomainIndex)
	c.DomainValues = slices.Clone(s.DomainValues)
	if s.pooledDoms { // s recycles its arrays on filter.Release: copy them
		for i := range c.DomainValues {
			c.DomainValues[i] = slices.Clone(c.DomainValues[i])
		}
	}
	if s.domOf != nil {
		c.domOf = make([][]int32, len(s.domOf))
		for i := range s.domOf {
			c.domOf[i] = slices.Clone(s.domOf[i])
		}
	}
	return &c
}

// Release hands large count slices back to the plugin's pool
// (framework.ReleasableStateData); the state must not be used afterwards.
func (s *ptsPreFilterState) Release() {
	if s == nil || s.pool == nil {
		return
	}
	for c, counts := range s.Counts {
		s.pool.counts.Put(counts)
		s.Counts[c] = nil
	}
	if s.pooledDoms {
		for c := range s.DomainValues {
			s.pool.values.Put(s.DomainValues[c])
			s.pool.domOf.Put(s.domOf[c])
			s.DomainValues[c], s.domOf[c] = nil, nil
		}
	}
	s.pool = nil
}

// minMatch is the global minimum for constraint c: 0 while there are fewer
// domains than minDomains, else the smallest count.
func (s *ptsPreFilterState) minMatch(c int) int {
	if len(s.Counts[c]) < int(s.Constraints[c].MinDomains) {
		return 0
	}
	return s.Paths[c][0].MatchNum
}

// countOf returns the matching pods of the domain with value v (0 when v is
// not a domain).
func (s *ptsPreFilterState) countOf(c int, v string) int {
	if s.tvs != nil {
		if d := s.findDomain(c, v); d >= 0 {
			return s.Counts[c][d]
		}
		return 0
	}
	if d, ok := s.DomainIndex[c][v]; ok {
		return s.Counts[c][d]
	}
	return 0
}

// findDomain returns the domain index of value v in fast mode, or -1 (a
// linear scan: only nodes outside the snapshot get here).
func (s *ptsPreFilterState) findDomain(c int, v string) int32 {
	for d, dv := range s.DomainValues[c] {
		if dv == v {
			return int32(d)
		}
	}
	return -1
}

// domainOfID returns the domain of value id of constraint c in fast mode
// (-1: not a domain).
func (s *ptsPreFilterState) domainOfID(c int, id int32) int32 {
	if s.domOf[c] == nil {
		return id
	}
	return s.domOf[c][id]
}

// snapIndex returns node's position in the snapshot when it is (a copy
// of) the snapshot's NodeInfo there, with the same Node object, else -1.
func (s *ptsPreFilterState) snapIndex(node *framework.NodeInfo) int {
	i := node.Index()
	if s.snap == nil || i < 0 || i >= s.snap.NumNodes() || s.snap.Nodes()[i].Node() != node.Node() {
		return -1
	}
	return i
}

// domain returns the index of value v, adding a domain with count 0 when v
// is new (kube-scheduler's map insertion in updateWithPod).
func (s *ptsPreFilterState) domain(c int, v string) int32 {
	if s.tvs != nil {
		return s.domainFast(c, -1, v)
	}
	if d, ok := s.DomainIndex[c][v]; ok {
		return d
	}
	d := int32(len(s.Counts[c]))
	idx := make(map[string]int32, len(s.DomainIndex[c])+1)
	for k, i := range s.DomainIndex[c] {
		idx[k] = i
	}
	idx[v] = d
	s.DomainIndex[c] = idx
	s.DomainValues[c] = append(slices.Clip(s.DomainValues[c]), v)
	s.Counts[c] = append(s.Counts[c], 0)
	return d
}

// domainFast is domain in fast mode; id is v's value id in tvs[c] when
// known, else -1.
func (s *ptsPreFilterState) domainFast(c int, id int32, v string) int32 {
	if id < 0 {
		if d := s.findDomain(c, v); d >= 0 {
			return d
		}
		for j, tv := range s.tvs[c].Values {
			if tv == v {
				id = int32(j)
				break
			}
		}
	}
	if id >= 0 {
		if d := s.domainOfID(c, id); d >= 0 {
			return d
		}
	}
	d := int32(len(s.Counts[c]))
	s.DomainValues[c] = append(slices.Clip(s.DomainValues[c]), v)
	s.Counts[c] = append(s.Counts[c], 0)
	if id >= 0 {
		s.domOf[c][id] = d
	}
	return d
}

// row returns the precomputed domain indices of node, or nil when node is
// not the NodeInfo (or a clone of it) that PreFilter saw at its snapshot
// position.
func (s *ptsPreFilterState) row(node *framework.NodeInfo) []int32 {
	if s.snap == nil {
		return nil
	}
	i := s.snap.Index(node.Name())
	if i < 0 || i >= len(s.nodes) || s.nodes[i].Node() != node.Node() {
		return nil
	}
	n := len(s.Constraints)
	return s.nodeDom[i*n : (i+1)*n : (i+1)*n]
}

var _ fastpath.IsolatedPreFilterPlugin = (*PodTopologySpread)(nil)

// PreFilterIsolated marks the plugin as one whose PreFilter reads the pod
// and the snapshot alone and writes only its own state.
func (pl *PodTopologySpread) PreFilterIsolated() {}

// PreFilter builds the pod's hard constraints (its own DoNotSchedule
// constraints, or the DoNotSchedule defaults when it has none and a default
// selector exists) and counts, over all nodes, the matching pods of every
// eligible domain. It returns Skip when there is no hard constraint.
func (pl *PodTopologySpread) PreFilter(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	cs, err := buildConstraints(pod.Pod, api.DoNotSchedule, pl.defaults, state.Snapshot())
	if err != nil {
		return nil, framework.AsStatus(fmt.Errorf("podtopologyspread: hard topology spread constraints: %w", err))
	}
	if len(cs) == 0 {
		return nil, framework.NewStatus(framework.Skip)
	}
	snap := state.Snapshot()
	if state.AllNodes() {
		state.Write(ptsPreFilterStateKey, pl.calPreFilterStateFast(pod.Pod, cs, snap))
		return nil, nil
	}
	state.Write(ptsPreFilterStateKey, pl.calPreFilterState(ctx, pod.Pod, cs, nodes, snap))
	return nil, nil
}

// calPreFilterStateFast is calPreFilterState when PreFilter's nodes are the
// snapshot's own list: topology values come from Snapshot.TopologyValues
// and per-node matching counts from the snapshot's pod index, so the cycle
// costs O(nodes) slice reads instead of O(pods) label matches. It numbers
// domains in the same order (first appearance among counted nodes) and
// fills the same exported fields. When every node carries every key and
// counts (no inclusion policy excludes any), that numbering is the
// snapshot's value numbering itself: domOf stays nil (the identity),
// DomainValues[c] shares TopologyValues.Values (clipped: AddPod appends to
// a copy) and the counts are the snapshot's per-domain sums
// (Snapshot.PodDomainCounts), O(values) instead of O(nodes).
func (pl *PodTopologySpread) calPreFilterStateFast(pod *api.Pod, cs []constraint, snap *framework.Snapshot) *ptsPreFilterState {
	nc, n := len(cs), snap.NumNodes()
	s := &ptsPreFilterState{
		Constraints:  cs,
		DomainValues: make([][]string, nc),
		Counts:       make([][]int, nc),
		Paths:        make([]ptsPaths, nc),
		SelfMatch:    make([]int, nc),
		snap:         snap,
		nodeSeq:      snap.NodeChangeSeq(),
		inclusion:    newInclusion(pod, cs),
		tvs:          make([]*api.TopologyValues, nc),
		domOf:        make([][]int32, nc),
	}
	keyed := true // every node carries every key
	for c := range cs {
		tv := snap.TopologyValues(cs[c].TopologyKey)
		s.tvs[c] = tv
		keyed = keyed && tv.Unkeyed == 0
		if cs[c].Selector.Matches(pod.Labels) {
			s.SelfMatch[c] = 1
		}
	}
	// x: the inclusion's bitmaps, nil when every node passes it.
	var x *indexedInclusion
	if !s.inclusion.IncludesAll() {
		if x = s.inclusion.Indexed(snap); x.everyNode(n) {
			x = nil
		}
	}
	all := x == nil
	if all && keyed {
		pl.identityCounts(s, pod.Namespace)
		return s
	}
	perNode := make([][]int32, nc)
	var nzArr [4][]uint64 // a pod's constraints are few: no allocation
	nonZero := nzArr[:0]
	if nc > len(nzArr) {
		nonZero = make([][]uint64, 0, nc)
	}
	nonZero = nonZero[:nc]
	for c := range cs {
		q, ok := selectorQuery(cs[c].Selector, pod.Namespace)
		switch tv := s.tvs[c]; {
		case !ok:
		case tv.ByIndex && len(tv.Values) == n:
			perNode[c] = snap.PodCounts(q) // read in runs (ptsNumberByIndex)
		default:
			perNode[c], nonZero[c] = snap.PodCountsBits(q)
		}
	}
	// The per-domain slices, sized by the values (one per node for
	// kubernetes.io/hostname), come from the plugin's pools and go back on
	// Release.
	s.pool, s.pooledDoms = pl.pools, true
	for c := range cs {
		nv := len(s.tvs[c].Values)
		dom := pl.pools.domOf.Take(nv)
		fillNone(dom)
		s.domOf[c] = dom
		s.DomainValues[c] = pl.pools.values.Take(nv)[:0]
		s.Counts[c] = pl.pools.counts.Take(nv)[:0]
	}
	inc := ptsIncludedNodes(x, keyed, cs, s.tvs, n)
	for c := range cs {
		tv := s.tvs[c]
		if tv.ByIndex && len(tv.Values) == n {
			s.DomainValues[c], s.Counts[c] = ptsNumberByIndex(s.domOf[c], tv.Values, inc[c], perNode[c], n, s.DomainValues[c], s.Counts[c])
			continue
		}
		s.DomainValues[c], s.Counts[c] = ptsNumberDomains(s.domOf[c], tv.Domain, tv.Values, inc[c], perNode[c], nonZero[c], n, s.DomainValues[c], s.Counts[c])
	}
	for c := range cs {
		s.Paths[c] = ptsPathsOf(s.Counts[c])
	}
	return s
}

// identityCounts fills s in the identity numbering, when every node
// carries every key and counts (the caller checked): each constraint's
// counts are the snapshot's matching pods per value of its key
// (Snapshot.PodDomainCounts, kept across cycles), copied in O(values).
func (pl *PodTopologySpread) identityCounts(s *ptsPreFilterState, ns string) {
	for c, tv := range s.tvs {
		counts := pl.takeCounts(len(tv.Values))
		if q, ok := selectorQuery(s.Constraints[c].Selector, ns); ok {
			for id, n := range s.snap.PodDomainCounts(q, tv.Key).Count {
				counts[id] = int(n)
			}
		}
		s.Counts[c] = counts
		s.DomainValues[c] = slices.Clip(tv.Values)
		s.Paths[c] = ptsPathsOf(counts)
	}
	s.pool = pl.pools
}

// ptsIncludedNodes returns, per constraint, the snapshot nodes that count
// towards it as a bitmap by position (nil: every node): those carrying
// every constraint's key (unless keyed: all do) and, under the
// constraint's inclusion policies (x, the inclusion's bitmaps; nil when
// every node passes them), matching the pod's required node affinity and
// tolerating the node's taints. The bitmaps are read-only (some may be
// the snapshot's memos).
func ptsIncludedNodes(x *indexedInclusion, keyed bool, cs []constraint, tvs []*api.TopologyValues, n int) [][]uint64 {
	words := (n + 63) / 64
	var hasAll, affOK, taintsOK []uint64 // nil: every node
	if !keyed {
		hasAll = make([]uint64, words)
		for w := range hasAll {
			hasAll[w] = ^uint64(0)
		}
		for _, tv := range tvs {
			switch {
			case tv.Unkeyed == 0:
			case tv.Keyed != nil:
				for w := range hasAll {
					hasAll[w] &= tv.Keyed[w]
				}
			default: // a numbering without its bitmap
				for i := range n {
					if tv.Domain[i] < 0 {
						hasAll[i>>6] &^= 1 << (i & 63)
					}
				}
			}
		}
		if rest := n & 63; rest != 0 {
			hasAll[words-1] &= 1<<rest - 1
		}
	}
	if x != nil {
		affOK, taintsOK = x.affBits, x.taintBits
	}
	out := make([][]uint64, len(cs))
	for c := range cs {
		var parts [3][]uint64
		k := 0
		if hasAll != nil {
			parts[k], k = hasAll, k+1
		}
		if affOK != nil && cs[c].NodeAffinityPolicy == api.NodeInclusionPolicyHonor {
			parts[k], k = affOK, k+1
		}
		if taintsOK != nil && cs[c].NodeTaintsPolicy == api.NodeInclusionPolicyHonor {
			parts[k], k = taintsOK, k+1
		}
		switch k {
		case 0:
		case 1:
			out[c] = parts[0]
		default:
			b := slices.Clone(parts[0])
			for _, p := range parts[1:k] {
				for w := range b {
					b[w] &= p[w]
				}
			}
			out[c] = b
		}
	}
	return out
}

// ptsNumberDomains numbers one constraint's domains as kube does, in the
// order their values first appear among the included nodes (inc, nil for
// every node; each carries the key) in snapshot order, and sums the
// matching pods per domain (pn, per node; nil for none). domain and
// values are the key's numbering over the snapshot (TopologyValues) and
// dom maps value ids to domains (all −1 on entry). It appends to dv and
// cnt and returns them. Once every value is a domain, only the included
// nodes with matching pods are read: those of nz, the bitmap of pn's
// non-zero entries (Snapshot.PodCountsBits; nil: every entry is read).
func ptsNumberDomains(dom, domain []int32, values []string, inc []uint64, pn []int32, nz []uint64, n int, dv []string, cnt []int) ([]string, []int) {
	open := len(values)
	words := (n + 63) / 64
	w := 0
	for ; w < words && open > 0; w++ {
		word := ^uint64(0)
		if inc != nil {
			word = inc[w]
		}
		if rest := n - w<<6; rest < 64 {
			word &= 1<<rest - 1
		}
		for word != 0 {
			i := w<<6 + bits.TrailingZeros64(word)
			word &= word - 1
			id := domain[i]
			d := dom[id]
			if d < 0 {
				d = int32(len(cnt))
				dom[id] = d
				dv = append(dv, values[id])
				cnt = append(cnt, 0)
				open--
			}
			if pn != nil {
				cnt[d] += int(pn[i])
			}
		}
	}
	if pn == nil {
		return dv, cnt
	}
	if nz != nil {
		for ; w < words; w++ {
			word := nz[w]
			if inc != nil {
				word &= inc[w]
			}
			for word != 0 {
				i := w<<6 + bits.TrailingZeros64(word)
				word &= word - 1
				cnt[dom[domain[i]]] += int(pn[i])
			}
		}
		return dv, cnt
	}
	for i := w << 6; i < n; i++ {
		if k := pn[i]; k != 0 && (inc == nil || inc[i>>6]&(1<<(i&63)) != 0) {
			cnt[dom[domain[i]]] += int(k)
		}
	}
	return dv, cnt
}

// fillNone sets every entry of dom to −1 (no domain), copying what it has
// set so far over the rest: a few bulk copies instead of a loop over the
// entries.
func fillNone(dom []int32) {
	if len(dom) == 0 {
		return
	}
	dom[0] = -1
	for k := 1; k < len(dom); k *= 2 {
		copy(dom[k:], dom[:k])
	}
}

// ptsNumberByIndex is ptsNumberDomains for a numbering by node position
// (TopologyValues.ByIndex: every node has a value of its own, as for the
// hostname key, and len(values) == n): the domains are the included
// nodes in snapshot order, each counting its own matching pods. It takes
// the included nodes a run of consecutive ones at a time (a run within
// one word of inc), copying their values and counts in bulk.
func ptsNumberByIndex(dom []int32, values []string, inc []uint64, pn []int32, n int, dv []string, cnt []int) ([]string, []int) {
	dom, values = dom[:n], values[:n]
	if pn != nil {
		pn = pn[:n]
	}
	if inc == nil {
		return ptsTakeRun(dom, values, pn, 0, n, dv, cnt)
	}
	for w := 0; w<<6 < n; w++ {
		word := inc[w]
		if rest := n - w<<6; rest < 64 {
			word &= 1<<rest - 1
		}
		for word != 0 {
			lo := bits.TrailingZeros64(word)
			l := bits.TrailingZeros64(^(word >> lo)) // the run's length
			dv, cnt = ptsTakeRun(dom, values, pn, w<<6+lo, w<<6+lo+l, dv, cnt)
			if l == 64 {
				break
			}
			word &^= (1<<l - 1) << lo
		}
	}
	return dv, cnt
}

// ptsTakeRun numbers nodes lo to hi−1 as the next domains (ptsNumberByIndex).
func ptsTakeRun(dom []int32, values []string, pn []int32, lo, hi int, dv []string, cnt []int) ([]string, []int) {
	at := len(cnt)
	ds, d := dom[lo:hi], int32(at)
	for k := range ds {
		ds[k] = d + int32(k)
	}
	dv = append(dv, values[lo:hi]...)
	cnt = slices.Grow(cnt, hi-lo)[:at+hi-lo]
	c := cnt[at:]
	if pn == nil {
		clear(c)
		return dv, cnt
	}
	p := pn[lo:hi]
	p = p[:len(c)]
	for k := range c {
		c[k] = int(p[k])
	}
	return dv, cnt
}

// ptsHasAll reports whether snapshot node i carries every constraint's key.
func ptsHasAll(tvs []*api.TopologyValues, i int) bool {
	for _, tv := range tvs {
		if tv.Domain[i] < 0 {
			return false
		}
	}
	return true
}

// ptsPathsOf returns the critical paths of counts, as kube-scheduler builds
// them: update(d, counts[d]) for every domain in order from empty paths.
func ptsPathsOf(counts []int) ptsPaths {
	// update's default case (d is never one of the paths' domains yet),
	// on locals so that the loop runs in registers; the inner loop skips
	// the counts that change nothing (at least m1) carrying d alone.
	d0, m0, d1, m1 := int32(-1), math.MaxInt32, int32(-1), math.MaxInt32
	for d := 0; d < len(counts); d++ {
		for d < len(counts) && counts[d] >= m1 {
			d++
		}
		if d == len(counts) {
			break
		}
		if num := counts[d]; num < m0 {
			d1, m1 = d0, m0
			d0, m0 = int32(d), num
		} else {
			d1, m1 = int32(d), num
		}
	}
	return ptsPaths{{Domain: d0, MatchNum: m0}, {Domain: d1, MatchNum: m1}}
}

func (pl *PodTopologySpread) calPreFilterState(ctx context.Context, pod *api.Pod, cs []constraint, nodes []*framework.NodeInfo, snap *framework.Snapshot) *ptsPreFilterState {
	nc, n := len(cs), len(nodes)
	s := &ptsPreFilterState{
		Constraints:  cs,
		DomainIndex:  make([]map[string]int32, nc),
		DomainValues: make([][]string, nc),
		Counts:       make([][]int, nc),
		Paths:        make([]ptsPaths, nc),
		SelfMatch:    make([]int, nc),
		nodes:        nodes,
		nodeDom:      make([]int32, n*nc),
		baseDomains:  make([]int, nc),
		snap:         snap,
		inclusion:    newInclusion(pod, cs),
	}
	for c := range cs {
		hint := 0
		if cs[c].IsHostname() {
			hint = n
		}
		s.DomainIndex[c] = make(map[string]int32, hint)
		if cs[c].Selector.Matches(pod.Labels) {
			s.SelfMatch[c] = 1
		}
	}
	// Pass 1, in node order: which (node, constraint) pairs count, and the
	// domain index of each counted value (domains numbered by first
	// appearance, so the result does not depend on map order).
	eligible := make([]bool, n*nc)
	pending := false
	vals := make([]string, nc)
	for i, ni := range nodes {
		node := ni.Node()
		row := s.nodeDom[i*nc : (i+1)*nc]
		all := true
		for c := range cs {
			v, ok := node.Labels[cs[c].TopologyKey]
			if !ok {
				row[c] = ptsNoKey
				all = false
				continue
			}
			vals[c] = v
			row[c] = ptsPending
		}
		if !all {
			pending = true
			continue
		}
		verdict := s.inclusion.Eval(node)
		for c := range cs {
			if !verdict.Includes(&cs[c]) {
				pending = true
				continue
			}
			d, ok := s.DomainIndex[c][vals[c]]
			if !ok {
				d = int32(len(s.DomainValues[c]))
				s.DomainIndex[c][vals[c]] = d
				s.DomainValues[c] = append(s.DomainValues[c], vals[c])
			}
			row[c] = d
			eligible[i*nc+c] = true
		}
	}
	// Pass 2: nodes that do not count still need the domain of their value
	// for Filter.
	if pending {
		for i, ni := range nodes {
			row := s.nodeDom[i*nc : (i+1)*nc]
			for c := range cs {
				if row[c] != ptsPending {
					continue
				}
				row[c] = ptsNoDomain
				if d, ok := s.DomainIndex[c][ni.Node().Labels[cs[c].TopologyKey]]; ok {
					row[c] = d
				}
			}
		}
	}
	// Pass 3, in parallel: count the matching pods of every counted pair,
	// once per distinct selector (default constraints all share one).
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
	perNode := make([]int32, n*nc)
	pl.parallelizer().Until(ctx, n, func(i int) {
		row := perNode[i*nc : (i+1)*nc]
		done := uint64(0) // bit o: row[o] holds the count of selector o
		for c := range cs {
			if !eligible[i*nc+c] {
				continue
			}
			if o := same[c]; o < 64 && done&(1<<o) != 0 {
				row[c] = row[o]
				continue
			}
			row[c] = int32(countMatching(nodes[i].Pods, &cs[c].Selector, pod.Namespace))
			if c < 64 {
				done |= 1 << c
			}
		}
	}, config.PodTopologySpreadName)
	for c := range cs {
		s.Counts[c] = make([]int, len(s.DomainValues[c]))
		s.baseDomains[c] = len(s.DomainValues[c])
	}
	for i := range n {
		for c := range cs {
			if eligible[i*nc+c] {
				s.Counts[c][s.nodeDom[i*nc+c]] += int(perNode[i*nc+c])
			}
		}
	}
	for c := range cs {
		s.Paths[c] = ptsNewPaths()
		for d, num := range s.Counts[c] {
			s.Paths[c].update(int32(d), num)
		}
	}
	return s
}

// PreFilterExtensions returns the plugin: it updates its state for added and
// removed pods.
func (pl *PodTopologySpread) PreFilterExtensions() framework.PreFilterExtensions { return pl }

// AddPod counts podToAdd, placed on node, in the PreFilter state (for
// nominated pods and preemption dry runs).
func (pl *PodTopologySpread) AddPod(_ context.Context, state *framework.CycleState, podToSchedule, podToAdd *framework.PodInfo, node *framework.NodeInfo) *framework.Status {
	s, err := ptsReadPreFilterState(state)
	if err != nil {
		return framework.AsStatus(err)
	}
	s.updateWithPod(podToAdd.Pod, podToSchedule.Pod, node, 1)
	return nil
}

// RemovePod uncounts podToRemove, placed on node, in the PreFilter state.
func (pl *PodTopologySpread) RemovePod(_ context.Context, state *framework.CycleState, podToSchedule, podToRemove *framework.PodInfo, node *framework.NodeInfo) *framework.Status {
	s, err := ptsReadPreFilterState(state)
	if err != nil {
		return framework.AsStatus(err)
	}
	s.updateWithPod(podToRemove.Pod, podToSchedule.Pod, node, -1)
	return nil
}

// updateWithPod applies kube-scheduler's updateWithPod: a pod in the
// incoming pod's namespace, on a node carrying every topology key, changes
// the count of each constraint whose selector it matches and whose
// inclusion policies admit the node. (Like kube-scheduler, it does not look
// at the pod's deletionTimestamp nor at an empty selector.)
func (s *ptsPreFilterState) updateWithPod(updated, preemptor *api.Pod, ni *framework.NodeInfo, delta int) {
	if s == nil || updated.Namespace != preemptor.Namespace || ni == nil || ni.Node() == nil {
		return
	}
	node := ni.Node()
	if !hasAllKeys(node.Labels, s.Constraints) {
		return
	}
	var verdict nodeVerdict
	evaluated := false
	for c := range s.Constraints {
		tc := &s.Constraints[c]
		if !tc.Selector.Matches(updated.Labels) {
			continue
		}
		if !evaluated {
			verdict, evaluated = s.inclusion.Eval(node), true
		}
		if !verdict.Includes(tc) {
			continue
		}
		var d int32
		if s.tvs != nil {
			id := int32(-1)
			if i := s.snapIndex(ni); i >= 0 {
				id = s.tvs[c].Domain[i]
			}
			d = s.domainFast(c, id, node.Labels[tc.TopologyKey])
		} else {
			d = s.domain(c, node.Labels[tc.TopologyKey])
		}
		s.Counts[c][d] += delta
		s.Paths[c].update(d, s.Counts[c][d])
	}
}

var errPTSNoPreFilterState = errors.New(`podtopologyspread: reading "` + string(ptsPreFilterStateKey) + `" from cycle state: not found (PreFilter did not run)`)

func ptsReadPreFilterState(state *framework.CycleState) (*ptsPreFilterState, error) {
	d, err := state.Read(ptsPreFilterStateKey)
	if err != nil {
		return nil, errPTSNoPreFilterState
	}
	s, ok := d.(*ptsPreFilterState)
	if !ok {
		return nil, fmt.Errorf("podtopologyspread: cycle state %q holds %T, want PodTopologySpread's PreFilter state", ptsPreFilterStateKey, d)
	}
	return s, nil
}

// Filter checks the node against every hard constraint, in order: a node
// without the constraint's topology key is UnschedulableAndUnresolvable
// (ErrReasonNodeLabelNotMatch); a node where
// count(node's domain) + selfMatch − minMatch > maxSkew is Unschedulable
// (ErrReasonConstraintsNotMatch). minMatch is 0 while fewer
// domains than minDomains exist. It does not allocate.
func (pl *PodTopologySpread) Filter(_ context.Context, state *framework.CycleState, _ *framework.PodInfo, node *framework.NodeInfo) *framework.Status {
	s, err := ptsReadPreFilterState(state)
	if err != nil {
		return framework.AsStatus(err)
	}
	if len(s.Constraints) == 0 {
		return nil
	}
	if node == nil || node.Node() == nil {
		return framework.AsStatus(errors.New("podtopologyspread: node not found"))
	}
	if s.tvs != nil {
		if i := s.snapIndex(node); i >= 0 {
			for c := range s.Constraints {
				id := s.tvs[c].Domain[i]
				if id < 0 {
					return pl.missingLabel
				}
				var count int
				if d := s.domainOfID(c, id); d >= 0 {
					count = s.Counts[c][d]
				}
				if count+s.SelfMatch[c]-s.minMatch(c) > int(s.Constraints[c].MaxSkew) {
					return pl.notMatch
				}
			}
			return nil
		}
	}
	row := s.row(node)
	labels := node.Node().Labels
	for c := range s.Constraints {
		tc := &s.Constraints[c]
		var count int
		if row != nil {
			switch d := row[c]; {
			case d >= 0:
				count = s.Counts[c][d]
			case d == ptsNoKey:
				return pl.missingLabel
			case len(s.Counts[c]) != s.baseDomains[c]:
				// AddPod/RemovePod created domains since PreFilter.
				count = s.countOf(c, labels[tc.TopologyKey])
			}
		} else {
			v, ok := labels[tc.TopologyKey]
			if !ok {
				return pl.missingLabel
			}
			count = s.countOf(c, v)
		}
		if count+s.SelfMatch[c]-s.minMatch(c) > int(tc.MaxSkew) {
			return pl.notMatch
		}
	}
	return nil
}

// ptsHoisted is what FilterBatch reads of a constraint in fast mode.
type ptsHoisted struct {
	dom    []int32 // value id by snapshot index
	domOf  []int32 // domain by value id (nil: the identity)
	counts []int
	limit  int // a domain holding more matching pods is rejected
}

// count returns the matching pods of the domain of value id (0 when the
// value is not a domain).
func (h *ptsHoisted) count(id int32) int {
	if h.domOf == nil {
		return h.counts[id]
	}
	if d := h.domOf[id]; d >= 0 {
		return h.counts[d]
	}
	return 0
}

// ptsBatchMax bounds the constraints FilterBatch hoists (more take Filter).
const ptsBatchMax = 8

// ptsBatch is what FilterBatch and FilterRejects read of the cycle's state
// once per call in fast mode: each constraint hoisted (the first n of
// buf), the snapshot's nodes, and whether idx gives the nodes' snapshot
// positions.
type ptsBatch struct {
	buf       [ptsBatchMax]ptsHoisted
	n         int
	snapNodes []*framework.NodeInfo
	useIdx    bool
	// values is the number of values of the only constraint's key, 0 with
	// several constraints.
	values int
}

// batchOf fills b for a call over nodes of snapshot positions idx (or
// nil); false when the call must take Filter node by node (no fast-mode
// state, or more constraints than ptsBatchMax).
func (pl *PodTopologySpread) batchOf(state *framework.CycleState, idx []int32, b *ptsBatch) bool {
	s, err := ptsReadPreFilterState(state)
	if err != nil {
		return false
	}
	nc := len(s.Constraints)
	if nc == 0 || nc > ptsBatchMax || s.tvs == nil {
		return false
	}
	b.n = nc
	for c := range nc {
		b.buf[c] = ptsHoisted{dom: s.tvs[c].Domain, domOf: s.domOf[c], counts: s.Counts[c],
			limit: int(s.Constraints[c].MaxSkew) + s.minMatch(c) - s.SelfMatch[c]}
	}
	b.snapNodes = s.snap.Nodes()
	b.useIdx = idx != nil && state.Snapshot() == s.snap // the runner's indices: no NodeInfo to read
	if nc == 1 {
		b.values = len(s.tvs[0].Values)
	}
	return true
}

// tabulated reports whether a call reads each node's verdict from a table
// by value (valueVerdicts): the runner's indices, and one constraint whose
// key has at most ptsVerdictsMax values.
func (b *ptsBatch) tabulated() bool {
	return b.useIdx && b.values > 0 && b.values <= ptsVerdictsMax
}

// position returns the snapshot position of node (not the runner's: b's
// useIdx is false), or −1 when node is not the snapshot's.
func (b *ptsBatch) position(node *framework.NodeInfo) int {
	if node == nil || node.Node() == nil {
		return -1
	}
	if k := node.Index(); k >= 0 && k < len(b.snapNodes) && b.snapNodes[k].Node() == node.Node() {
		return k
	}
	return -1
}

// verdict is Filter's status for the snapshot node at position k (nil:
// it passes).
func (pl *PodTopologySpread) verdict(cs []ptsHoisted, k int) *framework.Status {
	for c := range cs {
		h := &cs[c]
		id := h.dom[k]
		if id < 0 {
			return pl.missingLabel
		}
		if h.count(id) > h.limit {
			return pl.notMatch
		}
	}
	return nil
}

// rejectsOne appends the rejections of one constraint h over the snapshot
// nodes idx (FilterRejects' commonest case, the constraint's slices read
// into locals once, and the list grown once so that the loop calls
// nothing).
func (pl *PodTopologySpread) rejectsOne(h *ptsHoisted, idx []int32, rejected []fastpath.NodeRejection) []fastpath.NodeRejection {
	dom, domOf, counts, limit := h.dom, h.domOf, h.counts, h.limit
	at := len(rejected)
	rejected = slices.Grow(rejected, len(idx))
	out, n := rejected[at:at+len(idx)], 0
	for i, k := range idx {
		id := dom[k]
		st := pl.missingLabel
		if id >= 0 {
			d, count := id, 0
			if domOf != nil {
				d = domOf[id]
			}
			if d >= 0 {
				count = counts[d]
			}
			if count <= limit {
				continue
			}
			st = pl.notMatch
		}
		out[n] = fastpath.NodeRejection{Node: int32(i), Status: st}
		n++
	}
	return rejected[:at+n]
}

// FilterBatch is Filter over nodes (fastpath.BatchFilterPlugin), by way
// of FilterRejects.
func (pl *PodTopologySpread) FilterBatch(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32, out []*framework.Status) {
	fastpath.FilterBatchFromRejects(ctx, pl, state, pod, nodes, idx, out)
}

var _ fastpath.TrustedRejectingFilterPlugin = (*PodTopologySpread)(nil)

// FilterRejects is Filter over nodes listing the rejected ones
// (fastpath.RejectingFilterPlugin). In fast mode each constraint's slices
// and its bound maxSkew + minMatch − selfMatch are read once, so a
// snapshot node costs a few slice reads per constraint; any other node
// takes Filter.
func (pl *PodTopologySpread) FilterRejects(ctx context.Context, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32, rejected []fastpath.NodeRejection) []fastpath.NodeRejection {
	var b ptsBatch
	if !pl.batchOf(state, idx, &b) {
		for i, n := range nodes {
			if st := pl.Filter(ctx, state, pod, n); !st.IsSuccess() {
				rejected = append(rejected, fastpath.NodeRejection{Node: int32(i), Status: st})
			}
		}
		return rejected
	}
	cs := b.buf[:b.n]
	switch {
	case b.tabulated():
		var buf [ptsVerdictsMax + 1]*framework.Status
		verdicts, dom := pl.valueVerdicts(&cs[0], b.values, buf[:]), cs[0].dom
		for i, k := range idx[:len(nodes)] {
			if v := verdicts[dom[k]+1]; v != nil {
				rejected = append(rejected, fastpath.NodeRejection{Node: int32(i), Status: v})
			}
		}
	case b.useIdx && len(cs) == 1:
		rejected = pl.rejectsOne(&cs[0], idx[:len(nodes)], rejected)
	case b.useIdx:
		for i, k := range idx[:len(nodes)] {
			if st := pl.verdict(cs, int(k)); st != nil {
				rejected = append(rejected, fastpath.NodeRejection{Node: int32(i), Status: st})
			}
		}
	default:
		for i, node := range nodes {
			var st *framework.Status
			if k := b.position(node); k >= 0 {
				st = pl.verdict(cs, k)
			} else if st = pl.Filter(ctx, state, pod, node); st.IsSuccess() {
				st = nil
			}
			if st != nil {
				rejected = append(rejected, fastpath.NodeRejection{Node: int32(i), Status: st})
			}
		}
	}
	return rejected
}

// RejectionsTrusted marks FilterRejects as keeping its contract on every
// input (fastpath.TrustedRejectingFilterPlugin).
func (pl *PodTopologySpread) RejectionsTrusted() {}

// ptsVerdictsMax bounds the values valueVerdicts tabulates.
const ptsVerdictsMax = 256

// valueVerdicts is Filter's status for each value of the only constraint
// h, whose key has values ids, in buf (len at least values+1): slot id+1
// for value id, slot 0 for a node without the key; nil where a node
// passes. A node's verdict is then one table read.
func (pl *PodTopologySpread) valueVerdicts(h *ptsHoisted, values int, buf []*framework.Status) []*framework.Status {
	verdicts := buf[:values+1]
	verdicts[0] = pl.missingLabel
	for id := range int32(values) {
		if h.count(id) > h.limit {
			verdicts[id+1] = pl.notMatch
		}
	}
	return verdicts
}
