package framework

import (
	"cmp"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/schedkit/schedkit/framework/api"
)

// This file holds the snapshot's pod index: two memos that let the
// topology plugins (PodTopologySpread, InterPodAffinity) read, in O(nodes)
// slice operations, what kube-scheduler recomputes every cycle by walking
// every assigned pod and matching its labels.
//
//   - PodCounts: for a query (namespaces or a namespace selector, a label
//     selector, optionally excluding terminating pods), the number of
//     matching pods on each node, indexed by NodeInfo.Index. An entry is
//     built on first use by walking the snapshot's pods once, then kept
//     exact by AddPod/AddPodInfo/RemovePod/AddNode/RemoveNode. At most
//     podIndexMaxEntries(n) entries are kept (n nodes: from 1024 on small
//     clusters down to 64, within a fixed memory budget); the least
//     recently used is evicted.
//   - AffinityGroups: the (anti-)affinity terms of the assigned pods,
//     grouped by identity (kind, namespaces, selectors, topology key), each
//     with the nodes whose pods carry it, how many times and with what total
//     weight. Maintained as pods are added and removed.
//   - Both summed per value of a topology key (podindex_domains.go:
//     PodDomainCounts, AffinityGroupDomainCounts), kept with the entry or
//     group once asked; an entry's sums by a key with a value per node
//     (TopologyValues.ByIndex) are its counts themselves, shared.
//
// Complexity (n nodes, p assigned pods, e entries, g groups, k label
// classes):
//   - PodCounts: O(len(key)) for a hit; to build a missing entry, O(k)
//     selector matches (one per label class, podindex_classes.go) and
//     O(n + Σ classes per node) sums, where kube matches all p pods every
//     cycle, or, for a selector that requires a label with In, matches of
//     the classes carrying it and sums over the nodes of those that match;
//     O(e) to evict.
//   - AddPod/RemovePod: naming the pod's label class; finding the entries
//     matching the class, from the class's list (kept per class, brought
//     up to date with the entries added since: one verdict read, or a
//     match for a class newer than the entry, each) or, for a class not
//     met before, matches of the entries listed under its labels by one
//     In requirement and of those with none; +1/−1 on the matching
//     entries' slot and on their per-domain sums; for a pod with affinity
//     terms, O(terms) map updates of the groups (and their sums). For a
//     copy of the last pod added or removed (podShapeMemo) the class and
//     the terms' groups are known.
//   - AddNode/RemoveNode: O(e·n) (every entry gains or loses a slot).
//   - Clone: O(e + g) (the entries and groups are shared copy-on-write: the
//     first write to a shared entry on either side copies that entry, O(n),
//     or that group, O(its nodes)).
//
// Readers (cycles) may run concurrently on one snapshot: the index is
// guarded by its mutex and the slices it hands out are not written until
// the snapshot is mutated, which, as for the rest of the Snapshot, must not
// happen concurrently with readers.

// podIndexBudget bounds the PodCounts memo's counts (bytes), and
// podIndexMinEntries and podIndexMaxEntries its number of entries: pods
// with many distinct selectors (apps, tiers, versions, matchLabelKeys)
// keep their counts across cycles on clusters of any size. The budget
// counts the per-node counts only: an entry's per-domain sums (one per
// topology key asked, 4 bytes a value, plus a bit) add at most as much
// again per key with a value per node (kubernetes.io/hostname), and far
// less for zones.
const (
	podIndexBudget     = 16 << 20
	podIndexMinEntries = 64
	podIndexMaxEntries = 1024
)

// podIndexEntries is the number of PodCounts entries kept for n nodes.
func podIndexEntries(n int) int {
	return max(podIndexMinEntries, min(podIndexMaxEntries, podIndexBudget/(4*max(n, 1))))
}

// PodTerm selects pods: a pod matches when its namespace is listed in
// Namespaces or its namespace's labels (Snapshot.NamespaceLabels) match
// NamespaceSelector, and its labels match Selector. Use NothingSelector for
// "no namespace selector". It mirrors an AffinityTerm without topology key.
type PodTerm struct {
	Namespaces        []string
	NamespaceSelector api.Selector
	Selector          api.Selector
}

// PodTermOf returns the PodTerm of an affinity term (namespaces and
// selectors; the topology key is not part of it).
func PodTermOf(t *AffinityTerm) PodTerm {
	ns := make([]string, 0, len(t.Namespaces))
	for n := range t.Namespaces {
		ns = append(ns, n)
	}
	slices.Sort(ns)
	return PodTerm{Namespaces: ns, NamespaceSelector: t.NamespaceSelector, Selector: t.Selector}
}

// PodQuery selects the pods that match every one of Terms (no terms:
// nothing matches) and, with SkipTerminating, have no deletionTimestamp.
type PodQuery struct {
	Terms           []PodTerm
	SkipTerminating bool
}

// PodCounts returns, for every node of the snapshot (by NodeInfo.Index), the
// number of assigned pods that match q. The slice is memoized across
// cycles and kept exact as pods and nodes are added and removed through the
// Snapshot; it is read-only and valid until the snapshot is next mutated
// (copy what must outlive that). It is safe for concurrent use.
//
// The first call for a query matches it once per label class (pods equal
// in namespace, labels and deletion) and sums per node; later calls
// return the memo (O(1)).
func (s *Snapshot) PodCounts(q PodQuery) []int32 {
	return s.podCountEntry(q).counts
}

// podCountEntry returns q's memo entry, building it on first use.
func (s *Snapshot) podCountEntry(q PodQuery) *podCountEntry {
	var buf [256]byte
	kb := q.appendKey(buf[:0])
	x := &s.podIdx
	x.mu.Lock()
	if sl, ok := x.slots[string(kb)]; ok { // no allocation for the lookup
		x.tick++
		sl.lastUse = x.tick
		e := sl.e
		x.mu.Unlock()
		return e
	}
	x.mu.Unlock()

	key := string(kb)
	e := &podCountEntry{m: compilePodQuery(&q), counts: makeWritten[int32](len(s.nodes))}
	nz := make([]uint64, (len(s.nodes)+63)/64)
	e.verdicts = x.countByClasses(&e.m, s.namespaces, e.counts, nz)
	e.nonZero.Store(&nz)

	x.mu.Lock()
	defer x.mu.Unlock()
	x.tick++
	if sl, ok := x.slots[key]; ok { // built concurrently by another reader
		sl.lastUse = x.tick
		return sl.e
	}
	if x.slots == nil {
		x.slots = map[string]*podIndexSlot{}
	}
	if len(x.slots) >= podIndexEntries(len(e.counts)) {
		x.evictLocked()
	}
	x.addSlotLocked(key, &podIndexSlot{e: e, owned: true, lastUse: x.tick})
	return e
}

// PodCountsBits returns PodCounts(q) and the nodes whose count is not
// zero, as a bitmap by snapshot position (bit k&63 of word k>>6 for the
// node at position k; bits past the last node are clear), for loops that
// read the nodes holding matching pods only: O(nodes/64 + such nodes)
// rather than O(nodes). Both are read-only and valid until the snapshot
// is next mutated, and kept together across cycles. It is safe for
// concurrent use.
func (s *Snapshot) PodCountsBits(q PodQuery) ([]int32, []uint64) {
	e := s.podCountEntry(q)
	return e.counts, e.nonZeroBitmap()
}

// nonZeroBitmap returns the entry's nonZero bitmap, building it on first
// use. Readers of a clone's shared entry that build it at once keep the
// first one stored, which noteCount then updates.
func (e *podCountEntry) nonZeroBitmap() []uint64 {
	if nz := e.nonZero.Load(); nz != nil {
		return *nz
	}
	nz := nonZeroBits(e.counts)
	if e.nonZero.CompareAndSwap(nil, &nz) {
		return nz
	}
	return *e.nonZero.Load()
}

// nonZeroBits returns the bitmap of the non-zero entries of counts.
func nonZeroBits(counts []int32) []uint64 {
	nz := make([]uint64, (len(counts)+63)/64)
	for i, c := range counts {
		if c != 0 {
			nz[i>>6] |= 1 << (i & 63)
		}
	}
	return nz
}

// noteCount keeps the entry's bitmap, when built, in step with the count
// of node.
func (e *podCountEntry) noteCount(node int) {
	p := e.nonZero.Load()
	if p == nil {
		return
	}
	w, bit := &(*p)[node>>6], uint64(1)<<(node&63)
	was, now := *w&bit != 0, e.counts[node] != 0
	if now {
		*w |= bit
	} else {
		*w &^= bit
	}
	if d := e.byIndex.Load(); d != nil { // its Hit is this bitmap
		d.changed(was, now)
	}
}

// podCountsCached reports whether q's counts are memoized (for tests and
// diagnostics).
func (s *Snapshot) podCountsCached(q PodQuery) bool {
	s.podIdx.mu.Lock()
	defer s.podIdx.mu.Unlock()
	_, ok := s.podIdx.slots[q.key()]
	return ok
}

// TermKind says which of a pod's affinity term lists a term comes from.
type TermKind uint8

// The four affinity term lists of a pod.
const (
	TermRequiredAffinity TermKind = iota
	TermRequiredAntiAffinity
	TermPreferredAffinity
	TermPreferredAntiAffinity
)

// AffinityGroup is one distinct affinity term (same kind, namespaces,
// namespace selector, label selector and topology key) of the pods assigned
// in a snapshot. Nodes lists the nodes (by NodeInfo.Index, in no particular
// order) whose pods carry the term; Count[k] is how many times the pods of
// Nodes[k] carry it and Weight[k] the sum of those terms' weights (0 for
// required terms). Read-only.
type AffinityGroup struct {
	Kind   TermKind
	Term   *AffinityTerm
	Nodes  []int32
	Count  []int32
	Weight []int64

	key string
	pos map[int32]int32 // node → position in Nodes
	// slot is the slot of the index that made the group, fixed from then
	// on: AffinityGroupDomainCounts finds its sums there without a
	// lookup by key while that index keeps the group.
	slot *groupSlot
}

// AffinityGroups returns the distinct affinity terms of the snapshot's
// assigned pods with their per-node multiplicities (see AffinityGroup), in
// no particular order. The groups are kept exact by the Snapshot's
// mutations (AddPod and RemovePod update them); the result is read-only
// and valid until the snapshot is next mutated. It is safe for concurrent
// use.
func (s *Snapshot) AffinityGroups() []*AffinityGroup {
	x := &s.podIdx
	x.mu.Lock()
	defer x.mu.Unlock()
	return s.affinityGroupsLocked()
}

// affinityGroupsLocked is AffinityGroups with s.podIdx.mu held.
func (s *Snapshot) affinityGroupsLocked() []*AffinityGroup {
	x := &s.podIdx
	if x.groups == nil {
		x.groups = map[string]*groupSlot{}
		for i, ni := range s.nodes {
			for _, pi := range ni.PodsWithAffinity {
				x.updateGroupsLocked(pi, int32(i), 1, nil, nil)
			}
		}
	}
	if x.groupList == nil {
		x.groupList = make([]*AffinityGroup, 0, len(x.groups))
		for _, sl := range x.groups {
			sl.at = int32(len(x.groupList))
			x.groupList = append(x.groupList, sl.g)
		}
	}
	return x.groupList
}

// podIndex is the snapshot's memo; its zero value is empty and usable.
type podIndex struct {
	mu    sync.Mutex
	slots map[string]*podIndexSlot
	tick  uint64
	// evictTicks is evictLocked's scratch.
	evictTicks []uint64

	groups    map[string]*groupSlot // nil until AffinityGroups is first called
	groupList []*AffinityGroup      // nil when it must be rebuilt
	// groupsVersion counts the changes to the set of groups; selecting
	// memoizes AffinityGroupsSelecting for the current set
	// (podindex_selecting.go).
	groupsVersion uint64
	selecting     map[uint64][]selectingEntry
	// selLast is the last answer given, for the labels map (by identity)
	// and namespace it was given for while the groups are those of
	// version: a cycle asks for one pod's answer in PreFilter and again
	// in PreScore.
	selLast struct {
		labels  map[string]string // held, so its address is not reused
		ns      string
		version uint64
		groups  []*AffinityGroup
		ok      bool
	}
	// selRecent are the last answers found or computed, for the label
	// pairs and namespace they were given for while the groups are those
	// of version, checked by lookups before a pod's labels are hashed:
	// the pods of a few workloads in turn (a node's DaemonSets) find
	// their answer without iterating their labels map. selRecentNext is
	// the entry the next answer replaces.
	selRecent     [selRecentN]selRecentEntry
	selRecentNext int
	// selIx indexes the current groups by their selectors for the label
	// sets selecting does not hold, built when such sets are looked for
	// often enough to pay for it: selMisses counts them since the groups
	// last changed, selAvg is a moving average of that count over the
	// last versions of the groups.
	selIx     *groupSelIndex
	selMisses int
	selAvg    float64

	// Label classes (podindex_classes.go): the class numbering, shared
	// by a snapshot's family, and per node (by index) the classes of its
	// pods with their multiplicities; nodeClassesOwned[i] is false while
	// node i's list is shared with a clone.
	classes          *podClasses
	nodeClasses      [][]podClassCount
	nodeClassesOwned []bool
	// classNodes is the inverse of nodeClasses, once a query has needed
	// it (classNodesOK): classNodes[c] lists the nodes holding pods of
	// class c with their multiplicities, each node once, in no order
	// (shorter than the classes when the last have no pods here), so that
	// counting a class's pods reads one list instead of each node's.
	// classNodesOwned[c] is false while list c is shared with a clone;
	// classNodesStale[c] is set when a listed node's multiplicity changed
	// since list c's were last read from the per-node lists (a change
	// marks the list rather than searching it).
	classNodes      [][]classNodeCount
	classNodesOwned []bool
	classNodesStale []bool
	classNodesOK    bool

	// keyMemo holds the group keys of the last terms added or removed
	// (groupSlotLocked); keyMemoNext is the entry the next miss replaces.
	keyMemo     [4]groupKeyMemo
	keyMemoNext int

	// order lists the slots in the order they were added (by serial),
	// the evicted ones among them marked gone until gone reaches half of
	// the list; serial is the next slot's and drops counts the
	// evictions. classSlots[c] holds the slots matching the pods of label
	// class c (matchingSlotsLocked), for at most classSlotsMax classes.
	order      []*podIndexSlot
	gone       int
	serial     uint64
	drops      uint64
	classSlots map[int32]*classSlots
	// anySlots is matchingSlotsLocked's list for a pod of no known class.
	anySlots []*podIndexSlot
	// slotIx indexes the slots by their queries' label requirements, for
	// the classes whose list is built anew; nil until a list is built
	// over slotIndexMin slots or more, and again after order is
	// compacted.
	slotIx *slotSelIndex

	// shape is what the index derived from the last pod added or removed
	// (update), for the next copy of that pod.
	shape podShapeMemo
}

// podShapeMemo remembers, for the last pod added or removed, what the
// index derives from the objects copies of one pod share (a template's
// replicas and their assumed copies share their PodInfo's labels map and
// compiled terms): its label class, and the groups of its affinity terms
// in updateGroupsLocked's order with their weights, valid while the set
// of groups is the one of version groupsVersion (groupsChangedLocked
// counts every group added, removed or replaced). Objects in a snapshot
// are not modified (their maps and slices included), so one labels map
// means one label set and one term slice one list of terms; the memo
// holds them, so their addresses are not reused.
type podShapeMemo struct {
	ok          bool
	labels      map[string]string
	namespace   string
	terminating bool
	reqAff      []AffinityTerm
	reqAnti     []AffinityTerm
	prefAff     []WeightedAffinityTerm
	prefAnti    []WeightedAffinityTerm
	// class is the pod's label class (classOK: named).
	class   int32
	classOK bool
	// groups are the terms' groups (groupsOK: recorded, for
	// groupsVersion).
	groups        []shapeGroup
	groupsOK      bool
	groupsVersion uint64
}

// shapeGroup is one affinity term's group and the term's weight.
type shapeGroup struct {
	sl     *groupSlot
	weight int32
}

// same reports whether pi shares with the memo's pod what the memo
// derives from: namespace, deletion, labels map and term slices.
func (m *podShapeMemo) same(pi *PodInfo) bool {
	p := pi.Pod
	return m.ok && m.namespace == p.Namespace && m.terminating == (p.DeletionTimestamp != nil) && sameMap(m.labels, p.Labels) &&
		sameSlice(m.reqAff, pi.RequiredAffinityTerms) && sameSlice(m.reqAnti, pi.RequiredAntiAffinityTerms) &&
		sameSlice(m.prefAff, pi.PreferredAffinityTerms) && sameSlice(m.prefAnti, pi.PreferredAntiAffinityTerms)
}

// remember makes pi the memo's pod, with nothing derived yet.
func (m *podShapeMemo) remember(pi *PodInfo) {
	p := pi.Pod
	*m = podShapeMemo{ok: true, labels: p.Labels, namespace: p.Namespace, terminating: p.DeletionTimestamp != nil,
		reqAff: pi.RequiredAffinityTerms, reqAnti: pi.RequiredAntiAffinityTerms,
		prefAff: pi.PreferredAffinityTerms, prefAnti: pi.PreferredAntiAffinityTerms, groups: m.resetGroups()}
}

// resetGroups empties the recorded groups, letting their slots go, and
// returns the list for reuse.
func (m *podShapeMemo) resetGroups() []shapeGroup {
	clear(m.groups)
	return m.groups[:0]
}

// sameSlice reports whether a and b are the same slice: the same length,
// over the same array when not empty.
func sameSlice[T any](a, b []T) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// podIndexSlot is one snapshot's reference to an entry; owned is false
// while the entry is shared with another snapshot (copy on write).
type podIndexSlot struct {
	e     *podCountEntry
	owned bool
	// key is the slot's key in the index, serial its number in the order
	// slots were added (podIndex.order); gone marks a slot evicted, which
	// then holds neither entry nor sums.
	key    string
	serial uint64
	gone   bool
	// domains are e's counts summed per topology domain, one per key
	// asked (podindex_domains.go); domOwned is false while they are
	// shared with a clone.
	domains  []*DomainCounts
	domOwned bool
	// lastUse is the index's tick when the slot was last read: kept with
	// the slot, not the entry, which a clone's slot may share.
	lastUse uint64
}

type podCountEntry struct {
	m      podMatcher
	counts []int32
	// nonZero is the bitmap of the nodes whose count is not zero, built
	// when first asked (PodCountsBits) and kept with the counts from then
	// on; nil until asked and after the nodes are renumbered. Readers of
	// a clone's shared entry may build it concurrently, each the same
	// bitmap.
	nonZero atomic.Pointer[[]uint64]
	// byIndex is what PodDomainCounts returns for a key whose values are
	// the nodes themselves (api.TopologyValues.ByIndex): the counts and
	// the nonZero bitmap as its Count and Hit, shared rather than copied,
	// built when first asked and kept in step by noteCount; nil before,
	// and again once the nodes are renumbered.
	byIndex atomic.Pointer[DomainCounts]
	// verdicts[c] tells whether the pods of label class c match m (1) or
	// not (2), for the classes seen when the entry was built (0: not
	// decided then); read-only.
	verdicts []uint8
}

// matches reports whether pod, of label class c (-1: unknown), matches
// the entry's query.
func (e *podCountEntry) matches(c int32, pod *api.Pod, ns map[string]map[string]string) bool {
	if c >= 0 && int(c) < len(e.verdicts) {
		if v := e.verdicts[c]; v != 0 {
			return v == 1
		}
	}
	return e.m.matches(pod, ns)
}

type groupSlot struct {
	g     *AffinityGroup
	x     *podIndex // the index holding the slot
	owned bool
	// dom is g's counts summed per domain of its topology key, once asked
	// (podindex_domains.go), read without the index's lock; domOwned is
	// false while shared with a clone.
	dom      atomic.Pointer[DomainCounts]
	domOwned bool
	// at is g's position in the index's group list, when the list was
	// last built or g appended to it (groupReplacedLocked checks it).
	at int32
}

// setGroup makes g the slot's group.
func (sl *groupSlot) setGroup(g *AffinityGroup) {
	sl.g = g
	g.slot = sl
}

// classSlots lists the slots matching one label class's pods among the
// slots of serial below upTo, as of drops evictions (gone slots among
// them are dropped when next read).
type classSlots struct {
	upTo  uint64
	drops uint64
	slots []*podIndexSlot
}

// classSlotsMax bounds the label classes whose matching slots the index
// keeps; past it, the lists start over.
const classSlotsMax = 1024

// addSlotLocked adds sl under key, numbering it after every slot so far.
func (x *podIndex) addSlotLocked(key string, sl *podIndexSlot) {
	if x.slots == nil {
		x.slots = map[string]*podIndexSlot{}
	}
	sl.key, sl.serial = key, x.serial
	x.serial++
	x.slots[key] = sl
	x.order = append(x.order, sl)
	if x.slotIx != nil {
		x.slotIx.add(sl)
	}
}

// slotSelIndex lists slots by one In requirement of their query's label
// selectors (the one of fewest values): a query can match only a pod whose
// labels hold that key with one of those values. Queries with no In
// requirement are listed apart, queries that match nothing not at all.
// Evicted slots stay listed, marked gone, until the index is built again.
type slotSelIndex struct {
	byPair map[labelPair][]*podIndexSlot
	rest   []*podIndexSlot
}

// add lists sl.
func (ix *slotSelIndex) add(sl *podIndexSlot) {
	m := &sl.e.m
	if len(m.terms) == 0 {
		return // matches nothing
	}
	var key string
	var vals []string
	for i := range m.terms {
		sel := m.terms[i].sel
		if sel.IsNothing() {
			return
		}
		sel.InRequirements(func(k string, vs []string) bool {
			if vals == nil || len(vs) < len(vals) {
				key, vals = k, vs
			}
			return len(vals) > 1
		})
	}
	if vals == nil {
		ix.rest = append(ix.rest, sl)
		return
	}
	for _, v := range vals {
		p := labelPair{key, v}
		ix.byPair[p] = append(ix.byPair[p], sl)
	}
}

// slotIndexMin is the fewest slots a class's list is built from through
// slotIx rather than by matching every slot.
const slotIndexMin = 64

// slotIndexLocked returns slotIx, built over the live slots when missing.
func (x *podIndex) slotIndexLocked() *slotSelIndex {
	if x.slotIx == nil {
		ix := &slotSelIndex{byPair: make(map[labelPair][]*podIndexSlot, len(x.slots))}
		for _, sl := range x.order {
			if !sl.gone {
				ix.add(sl)
			}
		}
		x.slotIx = ix
	}
	return x.slotIx
}

// dropSlotsLocked empties the index's entries.
func (x *podIndex) dropSlotsLocked() {
	x.slots = nil
	for _, sl := range x.order {
		sl.gone, sl.e, sl.domains = true, nil, nil
	}
	x.order, x.gone = nil, 0
	x.drops++
	clear(x.classSlots)
	x.slotIx = nil
}

// evictLocked drops the least recently used eighth of the entries (at
// least one), so that one pass over them serves the next misses too: a
// stream of pods that each bring a query of their own would otherwise
// scan every entry on each miss once the memo is full.
func (x *podIndex) evictLocked() {
	n := len(x.slots)
	if n == 0 {
		return
	}
	ticks := x.evictTicks[:0]
	for _, sl := range x.slots {
		ticks = append(ticks, sl.lastUse)
	}
	slices.Sort(ticks)
	x.evictTicks = ticks
	// Every entry used at or before the cut goes: an eighth, or a few
	// more where entries a fork shares were last used at one tick.
	cut := ticks[max(n/evictShare, 1)-1]
	for key, sl := range x.slots {
		if sl.lastUse > cut {
			continue
		}
		delete(x.slots, key)
		sl.gone, sl.e, sl.domains = true, nil, nil
		x.drops++
		x.gone++
	}
	if x.gone > len(x.order)/2 {
		x.order = slices.DeleteFunc(x.order, func(sl *podIndexSlot) bool { return sl.gone })
		x.gone = 0
		x.slotIx = nil // built again, without the gone slots, when next needed
	}
}

// evictShare is the share of the entries one eviction drops: one in
// evictShare.
const evictShare = 8

// forkFrom makes x (empty, of a new clone) share src's entries and groups;
// both sides copy an entry or group before their first write to it.
func (x *podIndex) forkFrom(src *podIndex) {
	src.mu.Lock()
	defer src.mu.Unlock()
	x.classesForkFrom(src)
	x.tick = src.tick
	x.serial = src.serial
	if len(src.slots) > 0 {
		x.slots = make(map[string]*podIndexSlot, len(src.slots))
		x.order = make([]*podIndexSlot, 0, len(src.slots))
		for _, sl := range src.order {
			if sl.gone {
				continue
			}
			sl.owned, sl.domOwned = false, false
			c := &podIndexSlot{e: sl.e, domains: sl.domains, key: sl.key, serial: sl.serial, lastUse: sl.lastUse}
			x.slots[sl.key] = c
			x.order = append(x.order, c)
		}
	}
	if src.groups != nil {
		x.groups = make(map[string]*groupSlot, len(src.groups))
		for k, sl := range src.groups {
			sl.owned, sl.domOwned = false, false
			c := &groupSlot{g: sl.g, x: x}
			c.dom.Store(sl.dom.Load())
			x.groups[k] = c
		}
	}
}

// podAdded and podRemoved keep the memo exact when pi joins or leaves the
// node at index node.
func (x *podIndex) podAdded(pi *PodInfo, node int, ns map[string]map[string]string) {
	x.update(pi, node, 1, ns)
}

func (x *podIndex) podRemoved(pi *PodInfo, node int, ns map[string]map[string]string) {
	x.update(pi, node, -1, ns)
}

func (x *podIndex) update(pi *PodInfo, node int, delta int32, ns map[string]map[string]string) {
	if pi == nil || node < 0 {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	m := &x.shape
	if !m.same(pi) {
		m.remember(pi)
	}
	class := int32(-1)
	if node < len(x.nodeClasses) {
		if !m.classOK {
			m.class, m.classOK = x.classID(pi.Pod), true
		}
		class = m.class
		x.classesAdd(class, node, delta)
	}
	for _, sl := range x.matchingSlotsLocked(class, pi.Pod, ns) {
		if !sl.owned {
			e := &podCountEntry{m: sl.e.m, counts: slices.Clone(sl.e.counts), verdicts: sl.e.verdicts}
			if nz := sl.e.nonZero.Load(); nz != nil {
				c := slices.Clone(*nz)
				e.nonZero.Store(&c)
			}
			sl.e, sl.owned = e, true
		}
		sl.e.counts[node] += delta
		sl.e.noteCount(node)
		sl.domainsAdd(node, delta)
	}
	if pi.HasAffinity() {
		// The groups are kept from the first pod with affinity on, while
		// the pod is in cache, rather than built by a walk over every
		// pod on first use.
		if x.groups == nil {
			x.groups = map[string]*groupSlot{}
		}
		if m.groupsOK && m.groupsVersion == x.groupsVersion {
			// A copy of the last pod: its terms' groups are known.
			kept := true
			for _, g := range m.groups {
				kept = x.groupApplyLocked(g.sl, int32(node), delta, g.weight) && kept
			}
			// Applying may replace a shared group (copy on write), which
			// bumps the version; the slots stay while none was removed.
			m.groupsVersion, m.groupsOK = x.groupsVersion, kept
		} else {
			m.groups = m.resetGroups()
			m.groupsOK = x.updateGroupsLocked(pi, int32(node), delta, &m.groups, ns)
			m.groupsVersion = x.groupsVersion
		}
	}
}

// matchingSlotsLocked returns the slots whose entries match pod, of label
// class c (-1: unknown). Whether an entry matches a pod depends only on
// the pod's class (namespace, labels, deletion: what a PodQuery reads;
// namespace labels are fixed with the snapshot), so the index keeps each
// class's list and brings it up to date when next asked: the slots added
// since are matched (from the entry's verdicts when it has one for the
// class), the evicted ones dropped. Pods of the classes seen before then
// cost O(matching slots + slots added since), not O(slots); a list built
// anew, or behind by slotIndexMin slots or more, matches only the slots
// slotIx lists under the pod's labels and those it lists apart.
func (x *podIndex) matchingSlotsLocked(c int32, pod *api.Pod, ns map[string]map[string]string) []*podIndexSlot {
	if len(x.slots) == 0 {
		return nil // no query asked: nothing to keep lists for
	}
	if c < 0 {
		clear(x.anySlots) // let evicted slots go
		x.anySlots = x.anySlots[:0]
		for _, sl := range x.order {
			if !sl.gone && sl.e.matches(c, pod, ns) {
				x.anySlots = append(x.anySlots, sl)
			}
		}
		return x.anySlots
	}
	l := x.classSlots[c]
	if l == nil {
		if x.classSlots == nil {
			x.classSlots = map[int32]*classSlots{}
		} else if len(x.classSlots) >= classSlotsMax {
			clear(x.classSlots)
		}
		l = &classSlots{drops: x.drops}
		x.classSlots[c] = l
	}
	if l.drops != x.drops {
		l.slots = slices.DeleteFunc(l.slots, func(sl *podIndexSlot) bool { return sl.gone })
		l.drops = x.drops
	}
	if l.upTo == x.serial {
		return l.slots
	}
	i, _ := slices.BinarySearchFunc(x.order, l.upTo, func(sl *podIndexSlot, t uint64) int { return cmp.Compare(sl.serial, t) })
	if len(x.order)-i < slotIndexMin {
		for _, sl := range x.order[i:] {
			if !sl.gone && sl.e.matches(c, pod, ns) {
				l.slots = append(l.slots, sl)
			}
		}
		l.upTo = x.serial
		return l.slots
	}
	// Built anew from the candidates: each slot is listed once at most
	// under a pod's labels (under one key, which the pod holds once).
	ix := x.slotIndexLocked()
	clear(l.slots)
	l.slots = l.slots[:0]
	add := func(cands []*podIndexSlot) {
		for _, sl := range cands {
			if !sl.gone && sl.e.matches(c, pod, ns) {
				l.slots = append(l.slots, sl)
			}
		}
	}
	add(ix.rest)
	for k, v := range pod.Labels {
		add(ix.byPair[labelPair{k, v}])
	}
	l.upTo = x.serial
	return l.slots
}

// nodeAdded appends a slot (0) to every entry for a node appended at the
// end of the snapshot.
func (x *podIndex) nodeAdded() {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.classesNodeAdded()
	for _, sl := range x.slots {
		sl.domains = nil // renumbered: rebuilt when next asked
		if !sl.owned {
			sl.e = &podCountEntry{m: sl.e.m, counts: append(slices.Clip(sl.e.counts), 0), verdicts: sl.e.verdicts}
			sl.owned = true
			continue
		}
		sl.e.counts = append(sl.e.counts, 0)
		sl.e.nonZero.Store(nil)
		sl.e.byIndex.Store(nil)
	}
}

// nodeRemoved drops the slot of the node at index i (whose pods left with
// it) and renumbers the later nodes, in the entries and the groups.
func (x *podIndex) nodeRemoved(i int) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.classesNodeRemoved(i)
	for _, sl := range x.slots {
		sl.domains = nil // renumbered: rebuilt when next asked
		if !sl.owned {
			c := make([]int32, 0, len(sl.e.counts)-1)
			c = append(append(c, sl.e.counts[:i]...), sl.e.counts[i+1:]...)
			sl.e = &podCountEntry{m: sl.e.m, counts: c, verdicts: sl.e.verdicts}
			sl.owned = true
			continue
		}
		sl.e.counts = slices.Delete(sl.e.counts, i, i+1)
		sl.e.nonZero.Store(nil)
		sl.e.byIndex.Store(nil)
	}
	if x.groups == nil {
		return
	}
	for k, sl := range x.groups {
		sl.dom.Store(nil)
		g := sl.g
		if len(g.Nodes) == 0 {
			continue
		}
		ng := &AffinityGroup{Kind: g.Kind, Term: g.Term, key: g.key, pos: make(map[int32]int32, len(g.Nodes))}
		for j, n := range g.Nodes {
			switch {
			case int(n) == i:
				continue
			case int(n) > i:
				n--
			}
			ng.pos[n] = int32(len(ng.Nodes))
			ng.Nodes = append(ng.Nodes, n)
			ng.Count = append(ng.Count, g.Count[j])
			ng.Weight = append(ng.Weight, g.Weight[j])
		}
		if len(ng.Nodes) == 0 {
			delete(x.groups, k)
			continue
		}
		sl.setGroup(ng)
		sl.owned = true
	}
	x.groupsChangedLocked()
}

// nodeRestored inserts an empty slot for a node put back at index i (the
// later nodes move up one), in the entries and the groups, then adds its
// pods as podAdded does: the counts are what they were before the node's
// removal (nodeRemoved).
func (x *podIndex) nodeRestored(i int, pods []*PodInfo, ns map[string]map[string]string) {
	x.mu.Lock()
	x.classesNodeInserted(i)
	for _, sl := range x.slots {
		sl.domains = nil // renumbered: rebuilt when next asked
		if !sl.owned {
			sl.e = &podCountEntry{m: sl.e.m, counts: insertCopy(sl.e.counts, i, 0), verdicts: sl.e.verdicts}
			sl.owned = true
			continue
		}
		sl.e.counts = slices.Insert(sl.e.counts, i, 0)
		sl.e.nonZero.Store(nil)
		sl.e.byIndex.Store(nil)
	}
	for _, sl := range x.groups {
		sl.dom.Store(nil)
		g := sl.g
		ng := &AffinityGroup{Kind: g.Kind, Term: g.Term, key: g.key, pos: make(map[int32]int32, len(g.Nodes)),
			Nodes: make([]int32, len(g.Nodes)), Count: slices.Clone(g.Count), Weight: slices.Clone(g.Weight)}
		for j, n := range g.Nodes {
			if int(n) >= i {
				n++
			}
			ng.Nodes[j], ng.pos[n] = n, int32(j)
		}
		sl.setGroup(ng)
		sl.owned = true
	}
	if x.groups != nil {
		x.groupsChangedLocked()
	}
	x.mu.Unlock()
	for _, pi := range pods {
		x.update(pi, i, 1, ns)
	}
}

// updateGroupsLocked adds (delta 1) or removes (delta −1) the affinity
// terms of pi on node. With rec not nil, it appends each term's group and
// weight to *rec and reports whether every group it updated is still in
// the index (none was missing or emptied and removed). ns holds the
// namespaces' labels, for the memoized selections a new group joins.
func (x *podIndex) updateGroupsLocked(pi *PodInfo, node int32, delta int32, rec *[]shapeGroup, ns map[string]map[string]string) bool {
	kept := true
	add := func(kind TermKind, t *AffinityTerm, weight int32) {
		sl := x.groupAddLocked(kind, t, weight, node, delta, ns)
		kept = kept && sl != nil
		if rec != nil {
			*rec = append(*rec, shapeGroup{sl: sl, weight: weight})
		}
	}
	for i := range pi.RequiredAffinityTerms {
		add(TermRequiredAffinity, &pi.RequiredAffinityTerms[i], 0)
	}
	for i := range pi.RequiredAntiAffinityTerms {
		add(TermRequiredAntiAffinity, &pi.RequiredAntiAffinityTerms[i], 0)
	}
	for i := range pi.PreferredAffinityTerms {
		t := &pi.PreferredAffinityTerms[i]
		add(TermPreferredAffinity, &t.AffinityTerm, t.Weight)
	}
	for i := range pi.PreferredAntiAffinityTerms {
		t := &pi.PreferredAntiAffinityTerms[i]
		add(TermPreferredAntiAffinity, &t.AffinityTerm, t.Weight)
	}
	return kept
}

// groupKeyMemo remembers the group keys of the last few terms seen by
// identity: copies of one pod (a template's replicas, a pod and its
// assumed copy) share their PodInfo's compiled terms, and a compiled term
// is never modified, so its key is known without being built again.
type groupKeyMemo struct {
	term *AffinityTerm // held, so its address is not reused
	kind TermKind
	key  string
}

// groupSlotLocked returns the group of term t of kind (nil when there is
// none) and its key ("" when there is none and the key was not built
// before). Keys are memoized by the term's identity; a miss builds the
// key on the stack and allocates it only for a new group.
func (x *podIndex) groupSlotLocked(kind TermKind, t *AffinityTerm) (*groupSlot, string) {
	for i := range x.keyMemo {
		if m := &x.keyMemo[i]; m.term == t && m.kind == kind {
			return x.groups[m.key], m.key
		}
	}
	var buf [160]byte
	b := append(buf[:0], byte('0'+kind))
	b = appendStrKey(b, t.TopologyKey)
	if len(t.Namespaces) == 1 { // the common case, without sorting
		b = appendKeyLen(append(b, '['), 1) // as appendPodTermKey writes it
		for n := range t.Namespaces {
			b = appendStrKey(b, n)
		}
		b = t.NamespaceSelector.AppendKey(b)
		b = t.Selector.AppendKey(b)
	} else {
		b = appendPodTermKey(b, PodTermOf(t))
	}
	sl, ok := x.groups[string(b)] // no allocation for the lookup
	if !ok {
		return nil, string(b)
	}
	x.keyMemo[x.keyMemoNext] = groupKeyMemo{term: t, kind: kind, key: sl.g.key}
	x.keyMemoNext = (x.keyMemoNext + 1) % len(x.keyMemo)
	return sl, sl.g.key
}

// groupAddLocked adds delta terms t of kind and weight on node to their
// group, creating it, and returns the group's slot, or nil when it has
// none afterwards (a removal from a missing group, or the group's last).
// ns holds the namespaces' labels (groupCreatedLocked).
func (x *podIndex) groupAddLocked(kind TermKind, t *AffinityTerm, weight int32, node int32, delta int32, ns map[string]map[string]string) *groupSlot {
	sl, key := x.groupSlotLocked(kind, t)
	if sl == nil {
		if delta < 0 {
			return nil
		}
		sl = &groupSlot{x: x, owned: true}
		sl.setGroup(&AffinityGroup{Kind: kind, Term: t, key: key, pos: map[int32]int32{}})
		x.groups[key] = sl
		x.groupCreatedLocked(sl.g, ns)
	}
	if !x.groupApplyLocked(sl, node, delta, weight) {
		return nil
	}
	return sl
}

// groupApplyLocked adds delta terms of weight on node to the group of
// slot sl (in x.groups) and reports whether the group is still there
// (false when it lost its last term and was removed).
func (x *podIndex) groupApplyLocked(sl *groupSlot, node int32, delta int32, weight int32) bool {
	if !sl.owned {
		g := sl.g
		sl.setGroup(&AffinityGroup{Kind: g.Kind, Term: g.Term, key: g.key,
			Nodes: slices.Clone(g.Nodes), Count: slices.Clone(g.Count), Weight: slices.Clone(g.Weight), pos: make(map[int32]int32, len(g.pos))})
		for n, p := range g.pos {
			sl.g.pos[n] = p
		}
		sl.owned = true
		x.groupReplacedLocked(sl, g)
	}
	g := sl.g
	p, ok := g.pos[node]
	if !ok {
		if delta < 0 {
			return true
		}
		p = int32(len(g.Nodes))
		g.pos[node] = p
		g.Nodes = append(g.Nodes, node)
		g.Count = append(g.Count, 0)
		g.Weight = append(g.Weight, 0)
	}
	g.Count[p] += delta
	g.Weight[p] += int64(delta) * int64(weight)
	sl.domainAdd(node, delta, int64(delta)*int64(weight))
	if g.Count[p] > 0 {
		return true
	}
	// The node no longer carries the term: swap-remove it.
	last := int32(len(g.Nodes) - 1)
	if p != last {
		moved := g.Nodes[last]
		g.Nodes[p], g.Count[p], g.Weight[p] = moved, g.Count[last], g.Weight[last]
		g.pos[moved] = p
	}
	g.Nodes, g.Count, g.Weight = g.Nodes[:last], g.Count[:last], g.Weight[:last]
	delete(g.pos, node)
	if len(g.Nodes) == 0 {
		delete(x.groups, g.key)
		x.groupsChangedLocked()
		return false
	}
	return true
}

// podMatcher is a compiled PodQuery.
type podMatcher struct {
	terms           []podTermMatcher
	skipTerminating bool
}

type podTermMatcher struct {
	// oneNS is the only listed namespace when single (the common case).
	oneNS  string
	single bool
	ns     map[string]struct{}
	nsSel  api.Selector
	sel    api.Selector
}

func compilePodQuery(q *PodQuery) podMatcher {
	m := podMatcher{terms: make([]podTermMatcher, len(q.Terms)), skipTerminating: q.SkipTerminating}
	for i := range q.Terms {
		t := &q.Terms[i]
		tm := podTermMatcher{nsSel: t.NamespaceSelector, sel: t.Selector}
		if len(t.Namespaces) == 1 {
			tm.oneNS, tm.single = t.Namespaces[0], true
		} else if len(t.Namespaces) > 1 {
			tm.ns = make(map[string]struct{}, len(t.Namespaces))
			for _, n := range t.Namespaces {
				tm.ns[n] = struct{}{}
			}
		}
		m.terms[i] = tm
	}
	return m
}

// matches reports whether pod matches every term (false without terms);
// ns gives the namespaces' labels.
func (m *podMatcher) matches(pod *api.Pod, ns map[string]map[string]string) bool {
	if len(m.terms) == 0 || m.skipTerminating && pod.DeletionTimestamp != nil {
		return false
	}
	for i := range m.terms {
		t := &m.terms[i]
		var listed bool
		if t.single {
			listed = pod.Namespace == t.oneNS
		} else if t.ns != nil {
			_, listed = t.ns[pod.Namespace]
		}
		if !listed && (t.nsSel.IsNothing() || !t.nsSel.Matches(ns[pod.Namespace])) {
			return false
		}
		if !t.sel.Matches(pod.Labels) {
			return false
		}
	}
	return true
}

// key is q's canonical memo key: equal queries give equal keys (namespace
// lists are sorted; selectors keep their requirement order, so equivalent
// selectors written differently only cost a second entry).
func (q *PodQuery) key() string { return string(q.appendKey(nil)) }

// appendKey appends q's key (see key) to b.
func (q *PodQuery) appendKey(b []byte) []byte {
	if q.SkipTerminating {
		b = append(b, 'T')
	} else {
		b = append(b, 'A')
	}
	b = appendKeyLen(b, len(q.Terms))
	for i := range q.Terms {
		b = appendPodTermKey(b, q.Terms[i])
	}
	return b
}

func appendPodTermKey(b []byte, t PodTerm) []byte {
	ns := t.Namespaces
	if !podIndexSortedUnique(ns) {
		ns = slices.Clone(ns)
		slices.Sort(ns)
		ns = slices.Compact(ns)
	}
	b = append(b, '[')
	b = appendKeyLen(b, len(ns))
	for _, n := range ns {
		b = appendStrKey(b, n)
	}
	b = t.NamespaceSelector.AppendKey(b)
	return t.Selector.AppendKey(b)
}

func podIndexSortedUnique(ns []string) bool {
	for i := 1; i < len(ns); i++ {
		if ns[i-1] >= ns[i] {
			return false
		}
	}
	return true
}

// appendStrKey appends s length-prefixed, so that concatenations are
// unambiguous.
func appendStrKey(b []byte, s string) []byte {
	return append(appendKeyLen(b, len(s)), s...)
}

// appendKeyLen appends n as four bytes (big-endian): keys only need to be
// unambiguous, and this is cheaper than decimal digits.
func appendKeyLen(b []byte, n int) []byte {
	return append(b, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
}
