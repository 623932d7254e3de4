package framework

import (
	"errors"
	"reflect"
	"runtime"
	"slices"
	"sync/atomic"
	"unsafe"
)

// ErrNotFound is returned by CycleState.Read for a missing key.
var ErrNotFound = errors.New("framework: state key not found")

// StateKey names a value in CycleState. By convention "PreFilter"+plugin
// and "PreScore"+plugin, as in kube-scheduler.
type StateKey string

// StateData is a value stored in CycleState. Clone must return a copy that
// AddPod/RemovePod on the clone cannot affect through the original (shallow
// copies of untouched parts are fine).
type StateData interface {
	Clone() StateData
}

type stateEntry struct {
	key  StateKey
	data StateData
}

// CycleState carries per-cycle data between extension points: PreFilter
// computes once, Filter reads per node. Reads are lock-free (an atomic load
// and a short scan, no map). The values of a state that only gains keys
// (a cycle's plugins each writing their own) live inside the state, and a
// write publishes one more of them, allocating nothing; replacing or
// deleting a key, or a state with more than inlineEntries keys, publishes
// a copied list instead, which later writes extend in place (readers see
// only their list's length). It is safe for concurrent use.
type CycleState struct {
	// inline[:count] are the values while spill is nil: written once
	// each, in order, and published by count.
	inline [inlineEntries]stateEntry
	// head is count, with the bit writing set while a writer holds the
	// state (lock): taking the state, and publishing the count as it is
	// let go, are one atomic instruction each (a mutex beside an atomic
	// count takes three a write, each some twenty cycles).
	head atomic.Uint32
	// keys has the bit keyBit(k) of every key k of inline[:count] (and
	// maybe of others): a key whose bit is clear is new, found so
	// without comparing it with each key held. Held by writers, as the
	// writes.
	keys uint64
	// spill, once set, is the list of values instead of inline, which is
	// then never written again until Release.
	spill atomic.Pointer[[]stateEntry]

	snapshot *Snapshot
	// skipFilter and skipScore are the plugins whose PreFilter or PreScore
	// returned Skip this cycle.
	skipFilter map[string]bool
	skipScore  map[string]bool
	// skipped memoizes SkippedFilters for the current skip set.
	skipped atomic.Pointer[[]skipMemo]
	// scoredNodes is how many nodes PreScore and Score see (ScoredNodes).
	scoredNodes int
	// allNodes: PreFilter's nodes are the snapshot's own list (AllNodes).
	allNodes bool
	// scoredIdx: the snapshot index of each node PreScore is given, while
	// the runner runs PreScore or the score preparers (ScoredIndices).
	scoredIdx []int32
	// plain holds dynamic types (typeWord) that Release found not to be
	// ReleasableStateData, each in one of the two ways of the set its
	// word hashes to (plainSlot), the latest found first; Release skips
	// the check for a value of a type held. It outlives Release: a
	// pooled state's next cycles write values of the same types, and
	// comparing a word costs less than asserting the interface, which
	// the runtime's cache of a call site seeing a dozen types mostly
	// misses (about a hundred instructions a miss). Two ways keep a
	// cycle's dozen types whatever their words: in one, two of them
	// sharing a set (likely among a dozen in 32) would evict each other
	// every cycle.
	plain [32][2]unsafe.Pointer
	// releasable holds, in the same sets, dynamic types that Release
	// found to be ReleasableStateData, each with its type table as one:
	// Release calls their Release through it (asReleasable), without
	// asserting the interface.
	releasable [32][2]releasableType
}

// releasableType is a StateData type table (from) and the
// ReleasableStateData one (to) of the same dynamic type.
type releasableType struct{ from, to unsafe.Pointer }

// inlineEntries is how many values a state holds without allocating:
// more than a default profile's plugins write in a cycle (PreFilter and
// PreScore, 7–13), with the caller's handle.
const inlineEntries = 16

// writing is CycleState.head's bit of a writer holding the state.
const writing = 1 << 31

// NewCycleState returns an empty state.
func NewCycleState() *CycleState { return &CycleState{} }

// lock waits until no other writer holds the state, takes it and
// returns the count. Writes are few and short: a writer that finds the
// state held yields until it is let go.
func (c *CycleState) lock() uint32 {
	for {
		h := c.head.Load()
		if h&writing == 0 && c.head.CompareAndSwap(h, h|writing) {
			return h
		}
		runtime.Gosched()
	}
}

// unlock publishes count n and lets the state go.
func (c *CycleState) unlock(n uint32) { c.head.Store(n) }

// list returns the values as a reader sees them now. A list once returned
// never changes: later writes publish a longer view or another list.
func (c *CycleState) list() []stateEntry {
	if p := c.spill.Load(); p != nil {
		return *p
	}
	return c.inline[:c.head.Load()&^writing]
}

// Read returns the value stored under key, or ErrNotFound.
func (c *CycleState) Read(key StateKey) (StateData, error) {
	for _, e := range c.list() {
		if e.key == key {
			return e.data, nil
		}
	}
	return nil, ErrNotFound
}

// Write stores val under key, replacing any previous value.
func (c *CycleState) Write(key StateKey, val StateData) {
	h := c.lock()
	if c.spill.Load() == nil {
		// The common write: a new key while the values fit inline.
		n, b := int(h), keyBit(key)
		if n < inlineEntries && (c.keys&b == 0 || !hasKey(c.inline[:n], key)) {
			c.inline[n] = stateEntry{key, val}
			c.keys |= b
			c.unlock(h + 1)
			return
		}
	}
	defer c.unlock(h)
	// Here the key is written before, or the values spilled, or the
	// inline array is full.
	old := c.list()
	if c.spill.Load() != nil && !hasKey(old, key) {
		// A new key goes after the list's end, in place when its array
		// has room: a reader of the current list sees only its length,
		// and no entry it can see changes. The array grows by doubling,
		// so a state's writes copy it a few times, not once per write.
		next := append(old, stateEntry{key, val})
		c.spill.Store(&next)
		return
	}
	next := make([]stateEntry, 0, max(2*len(old), 4))
	for _, e := range old {
		if e.key != key {
			next = append(next, e)
		}
	}
	next = append(next, stateEntry{key, val})
	c.spill.Store(&next)
}

// keyBit is key's bit in CycleState.keys, from its length and two of its
// bytes: equal keys have the same bit, and a profile's dozen keys, of
// different lengths and endings, mostly different ones.
func keyBit(key StateKey) uint64 {
	if len(key) == 0 {
		return 1
	}
	return 1 << ((uint(len(key))*7 + uint(key[len(key)-1])*3 + uint(key[len(key)/2])) & 63)
}

// hasKey reports whether list holds key.
func hasKey(list []stateEntry, key StateKey) bool {
	for i := range list {
		if list[i].key == key {
			return true
		}
	}
	return false
}

// Delete removes key.
func (c *CycleState) Delete(key StateKey) {
	defer c.unlock(c.lock())
	old := c.list()
	if !slices.ContainsFunc(old, func(e stateEntry) bool { return e.key == key }) {
		return
	}
	next := make([]stateEntry, 0, len(old))
	for _, e := range old {
		if e.key != key {
			next = append(next, e)
		}
	}
	c.spill.Store(&next)
}

// ReleasableStateData is StateData holding buffers that its plugin reuses
// from cycle to cycle (large per-node arrays, which would otherwise be
// allocated every cycle). Release hands them back; it is called by
// CycleState.Release, after which the value must not be used. A value's
// Clone must not share the released buffers.
type ReleasableStateData interface {
	StateData
	Release()
}

// Release ends the state's life: the values implementing
// ReleasableStateData release their buffers and the state is emptied
// (values, snapshot, skip sets), ready for another cycle. Call it only
// when neither the state nor any value read from it is used again.
// Schedule releases the states it creates itself (a nil state);
// a caller that passes its own state may release it once the pod's cycle
// (including Reserve, Permit, PostFilter and binding) is over.
func (c *CycleState) Release() {
	// Nothing else uses the state: it is emptied without taking it,
	// and a word already zero is not stored again (each atomic store is
	// a locked instruction).
	list := c.list()
	n := c.head.Load() &^ writing
	if c.spill.Load() != nil {
		c.spill.Store(nil)
	}
	if n != 0 {
		c.head.Store(0)
	}
	c.keys = 0
	for _, e := range list {
		w := typeWord(e.data)
		k := plainSlot(w)
		if p := &c.plain[k]; p[0] == w || p[1] == w {
			continue // a nil value matches an empty way: nothing to release
		}
		if rt := &c.releasable[k]; w != nil && (rt[0].from == w || rt[1].from == w) {
			to := rt[0].to
			if rt[0].from != w {
				to = rt[1].to
			}
			asReleasable(e.data, to).Release()
			continue
		}
		if r, ok := e.data.(ReleasableStateData); ok {
			rt := &c.releasable[k]
			rt[1], rt[0] = rt[0], releasableType{from: w, to: *(*unsafe.Pointer)(unsafe.Pointer(&r))}
			r.Release()
		} else {
			p := &c.plain[k]
			p[1], p[0] = p[0], w
		}
	}
	// Nothing reads the state any more. The entries are cleared field
	// by field: clear on the slice calls the runtime's bulk clear of
	// pointers, which costs more than a few stores.
	for i := range c.inline[:n] {
		e := &c.inline[i]
		e.key, e.data = "", nil
	}
	c.snapshot, c.skipFilter, c.skipScore = nil, nil, nil
	if c.skipped.Load() != nil {
		c.skipped.Store(nil)
	}
	c.scoredNodes, c.allNodes, c.scoredIdx = 0, false, nil
}

// plainSlot is the set of CycleState.plain for the type word w: its
// top bits after a multiplication by 2⁶⁴/φ, which spreads the words of
// type tables laid out side by side.
func plainSlot(w unsafe.Pointer) uint64 { return uint64(uintptr(w)) * 0x9e3779b97f4a7c15 >> 59 }

// typeWord is the identity of d's dynamic type as StateData (the first
// word of the interface value, its type table); nil for a nil d.
func typeWord(d StateData) unsafe.Pointer { return *(*unsafe.Pointer)(unsafe.Pointer(&d)) }

// asReleasable is d as a ReleasableStateData whose type table for d's
// dynamic type is to (the type word of an earlier value of that type
// asserted to be one): the interface value of to and d's data word.
func asReleasable(d StateData, to unsafe.Pointer) ReleasableStateData {
	var r ReleasableStateData
	w := (*[2]unsafe.Pointer)(unsafe.Pointer(&r))
	w[0], w[1] = to, (*[2]unsafe.Pointer)(unsafe.Pointer(&d))[1]
	return r
}

// Snapshot returns the snapshot of the cycle (set by the runner).
func (c *CycleState) Snapshot() *Snapshot { return c.snapshot }

// SetSnapshot sets the cycle's snapshot; the runner calls it.
func (c *CycleState) SetSnapshot(s *Snapshot) { c.snapshot = s }

// AllNodes reports whether the nodes PreFilter is given are the
// snapshot's own list, whole and in snapshot order (Snapshot.Nodes): a
// plugin may then read the snapshot's indexes by node position
// (PodCounts, TopologyValues) instead of walking the nodes.
// RunPreFilterPlugins sets it while it runs the plugins; a caller that
// runs a PreFilter plugin itself over Snapshot.Nodes sets it with
// SetAllNodes, and leaves it unset for any other list.
func (c *CycleState) AllNodes() bool { return c.allNodes }

// SetAllNodes records whether PreFilter's nodes are the snapshot's own
// list (AllNodes).
func (c *CycleState) SetAllNodes(all bool) { c.allNodes = all }

// ScoredNodes is the number of nodes the cycle's PreScore and Score
// plugins see, set by RunPreScorePlugins (0 before, or when the plugins run
// outside a cycle), for a plugin choosing between per-cycle work over the
// cluster and per-node work. Score and ScoreBatch get only nodes PreScore
// was given, so a ScoreBatch of ScoredNodes nodes has all of them.
func (c *CycleState) ScoredNodes() int { return c.scoredNodes }

// ScoredIndices returns, while the runner runs the PreScore plugins or
// the score preparers (fastpath.ScorePreparer), the
// snapshot index it knows for each node they are given: nodes[j] should
// be Snapshot().Nodes()[ScoredIndices()[j]], so that a plugin reads the
// snapshot's per-node indexes (TopologyValues, PodCounts) without finding
// each node. A plugin that relies on it checks that entry against the
// node (a pointer comparison). It is nil at any other time, and when the
// runner does not know the indices (a filtering extender returned other
// NodeInfos than it was given).
func (c *CycleState) ScoredIndices() []int32 { return c.scoredIdx }

// SetScoredIndices sets ScoredIndices; the runner calls it around the
// PreScore step and the score preparers (nil afterwards).
func (c *CycleState) SetScoredIndices(idx []int32) { c.scoredIdx = idx }

// SkipFilter reports whether plugin's Filter is skipped this cycle.
func (c *CycleState) SkipFilter(plugin string) bool { return c.skipFilter[plugin] }

// SkipScore reports whether plugin's Score is skipped this cycle.
func (c *CycleState) SkipScore(plugin string) bool { return c.skipScore[plugin] }

// SetScoredNodes sets ScoredNodes; the runner calls it before PreScore.
func (c *CycleState) SetScoredNodes(n int) { c.scoredNodes = n }

// SetSkipFilterPlugins records the plugins whose PreFilter returned Skip:
// their Filter does not run this cycle. The runner calls it. The state
// keeps skip itself, not a copy: the runner gives cycles with the same
// skipping plugins one map, which readers must not change.
func (c *CycleState) SetSkipFilterPlugins(skip map[string]bool) {
	c.skipFilter = skip
	if c.skipped.Load() != nil {
		c.skipped.Store(nil)
	}
}

// skipMemo is SkippedFilters' answer for one list of names.
type skipMemo struct {
	names []string
	flags []bool
}

// SkippedFilters reports, for each of names, whether SkipFilter does, or
// nil when it does for none of them. The answer for the same names slice
// is worked out once per skip set, so a runner asking per node or per pod
// does not look each plugin up by name. The result is read-only.
func (c *CycleState) SkippedFilters(names []string) []bool {
	if len(c.skipFilter) == 0 || len(names) == 0 {
		return nil
	}
	memo := c.skipped.Load()
	if memo != nil {
		for _, m := range *memo {
			if len(m.names) == len(names) && &m.names[0] == &names[0] {
				return m.flags
			}
		}
	}
	flags := make([]bool, len(names))
	any := false
	for i, n := range names {
		flags[i] = c.skipFilter[n]
		any = any || flags[i]
	}
	if !any {
		flags = nil
	}
	var next []skipMemo
	if memo != nil {
		next = append(next, *memo...)
	}
	next = append(next, skipMemo{names, flags})
	c.skipped.CompareAndSwap(memo, &next)
	return flags
}

// SkipFilterPlugins returns the set SetSkipFilterPlugins recorded
// (read-only).
func (c *CycleState) SkipFilterPlugins() map[string]bool { return c.skipFilter }

// SetSkipScorePlugins records the plugins whose PreScore returned Skip:
// their Score does not run this cycle. The runner calls it. The state
// keeps skip itself, as SetSkipFilterPlugins does.
func (c *CycleState) SetSkipScorePlugins(skip map[string]bool) { c.skipScore = skip }

// SkipScorePlugins returns the set SetSkipScorePlugins recorded
// (read-only).
func (c *CycleState) SkipScorePlugins() map[string]bool { return c.skipScore }

// ReleaseReplacedBy runs f (a plugin's PreFilter or PreScore run again on
// the state) and then releases the values that f replaced and the state no
// longer holds, as the end of a cycle releases its state: a plugin that
// recycles its buffers (ReleasableStateData) gets them back instead of
// allocating new ones every cycle. A value still held, or one that cannot
// be compared with the value now under its key, is kept.
func (c *CycleState) ReleaseReplacedBy(f func()) {
	before := c.list()
	f()
	cur := c.list()
	if len(before) == 0 || len(cur) == len(before) && &cur[0] == &before[0] {
		return
	}
	for _, old := range before {
		r, ok := old.data.(ReleasableStateData)
		if !ok {
			continue
		}
		held := false
		for _, e := range cur {
			if e.key != old.key {
				continue
			}
			if t := reflect.TypeOf(e.data); t == reflect.TypeOf(old.data) {
				held = !t.Comparable() || e.data == old.data
			}
			break
		}
		if !held {
			r.Release()
		}
	}
}

// Clone copies the state: every value is Cloned; the skip sets and the
// snapshot are shared, as in kube-scheduler.
func (c *CycleState) Clone() *CycleState {
	if c == nil {
		return nil
	}
	n := &CycleState{snapshot: c.snapshot, skipFilter: c.skipFilter, skipScore: c.skipScore, scoredNodes: c.scoredNodes, allNodes: c.allNodes}
	n.skipped.Store(c.skipped.Load())
	list := c.list()
	if len(list) > inlineEntries {
		next := make([]stateEntry, len(list))
		for i, e := range list {
			next[i] = stateEntry{e.key, e.data.Clone()}
		}
		n.spill.Store(&next)
		return n
	}
	for i, e := range list {
		n.inline[i] = stateEntry{e.key, e.data.Clone()}
		n.keys |= keyBit(e.key)
	}
	n.head.Store(uint32(len(list)))
	return n
}

// CloneInto makes dst a copy of c, as Clone does, reusing dst's memory,
// and returns dst. dst must be a copy nobody else holds or reads (a dry
// run's scratch state): its previous values are dropped without being
// released, as a copy's never are.
func (c *CycleState) CloneInto(dst *CycleState) *CycleState {
	if c == nil {
		return nil
	}
	dst.snapshot, dst.skipFilter, dst.skipScore, dst.scoredNodes, dst.allNodes = c.snapshot, c.skipFilter, c.skipScore, c.scoredNodes, c.allNodes
	dst.scoredIdx = nil
	dst.skipped.Store(c.skipped.Load())
	old := int(dst.head.Load() &^ writing)
	list := c.list()
	if len(list) > inlineEntries {
		next := make([]stateEntry, len(list))
		for i, e := range list {
			next[i] = stateEntry{e.key, e.data.Clone()}
		}
		clear(dst.inline[:old])
		dst.head.Store(0)
		dst.keys = 0
		dst.spill.Store(&next)
		return dst
	}
	dst.spill.Store(nil)
	dst.keys = 0
	for i, e := range list {
		dst.inline[i] = stateEntry{e.key, e.data.Clone()}
		dst.keys |= keyBit(e.key)
	}
	if old > len(list) {
		clear(dst.inline[len(list):old])
	}
	dst.head.Store(uint32(len(list)))
	return dst
}
