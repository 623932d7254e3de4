package runtime

import (
	"math/bits"
	"sync"
	"sync/atomic"
	"unsafe"
)

// skipSets are the sets of one extension point's plugins that returned
// Skip in a cycle, each made once: the set CycleState records and its
// names in sorted order (Result.SkippedFilter, SkippedScore). A profile
// has few combinations of skipping plugins, so a cycle's skip set costs no
// allocation, no map insertion and no sort once its combination has been
// seen. Both are shared by every cycle with that combination and are
// read-only.
type skipSets struct {
	names []string // the point's plugins in profile order
	order []int    // indices into names, in name order
	// consumers are the plugins a skip turns off (a skipping PreFilter
	// plugin's Filter, a skipping PreScore plugin's Score), in profile
	// order.
	consumers []string
	// allOn lists every consumer's index (onIn of an empty set).
	allOn []int
	// tracked are indices into names (the PreFilter plugins with
	// extensions) whose presence each set also lists (trackedOnIn);
	// allTracked lists every position in tracked.
	tracked, allTracked []int
	mu                  sync.Mutex
	memo                atomic.Pointer[skipMemo] // copy-on-write
	// last is the memo's combination that memoized found last: a stream
	// of pods skips the same plugins cycle after cycle, and a cycle asks
	// for its set more than once.
	last atomic.Pointer[skipSet]
}

// skipMemo is the combinations made so far, by mask and by their set
// map's address (the set a cycle's state holds is one of these maps, so
// finding its names takes no lookup by name).
type skipMemo struct {
	byMask map[uint64]*skipSet
	bySet  map[uintptr]*skipSet
}

// skipSet is one combination of skipping plugins.
type skipSet struct {
	set    map[string]bool
	sorted []string
	// off[i] reports whether consumer i is turned off (nil: none is).
	off []bool
	// on are the consumers not turned off, by index in profile order.
	on []int
	// trackedOn are the positions in skipSets.tracked of the plugins
	// not in the set.
	trackedOn []int
}

// maxSkipMemo bounds the combinations kept; one more is made afresh each
// time it is met.
const maxSkipMemo = 64

// init readies k for a point whose plugins are names, and whose skips
// turn off the plugins consumers of the same names (both in profile
// order).
func (k *skipSets) init(names, consumers []string) {
	k.names, k.consumers = names, consumers
	k.allOn = make([]int, len(consumers))
	for i := range k.allOn {
		k.allOn[i] = i
	}
	k.order = make([]int, len(names))
	for i := range k.order {
		k.order[i] = i
	}
	// Insertion sort: a point has a handful of plugins.
	for i := 1; i < len(k.order); i++ {
		for j := i; j > 0 && names[k.order[j]] < names[k.order[j-1]]; j-- {
			k.order[j], k.order[j-1] = k.order[j-1], k.order[j]
		}
	}
}

// masked reports whether the point's plugins fit a uint64 mask (bit i for
// plugin i).
func (k *skipSets) masked() bool { return len(k.names) <= 64 }

// of returns the skip set of the plugins whose bits mask sets (the zero
// skipSet for none).
func (k *skipSets) of(mask uint64) skipSet {
	if mask == 0 {
		return skipSet{}
	}
	memo := k.memo.Load()
	if memo != nil {
		if s, ok := memo.byMask[mask]; ok {
			return *s
		}
	}
	n := bits.OnesCount64(mask)
	s := skipSet{set: make(map[string]bool, n), sorted: make([]string, 0, n)}
	for _, i := range k.order {
		if mask&(1<<uint(i)) != 0 {
			s.set[k.names[i]] = true
			s.sorted = append(s.sorted, k.names[i])
		}
	}
	s.off = k.offOf(s.set)
	s.on = unflagged(k.allOn, s.off)
	s.trackedOn = unflagged(k.tracked, k.inOf(s.set))
	k.mu.Lock()
	defer k.mu.Unlock()
	cur := k.memo.Load()
	if cur == nil {
		cur = &skipMemo{}
	}
	if len(cur.byMask) >= maxSkipMemo {
		return s
	}
	if old, ok := cur.byMask[mask]; ok {
		return *old // made by another cycle meanwhile
	}
	next := &skipMemo{byMask: make(map[uint64]*skipSet, 1+len(cur.byMask)), bySet: make(map[uintptr]*skipSet, 1+len(cur.bySet))}
	for m, v := range cur.byMask {
		next.byMask[m] = v
	}
	for p, v := range cur.bySet {
		next.bySet[p] = v
	}
	next.byMask[mask], next.bySet[setAddr(s.set)] = &s, &s
	k.memo.Store(next)
	return s
}

// setAddr returns the address of set's map, which identifies it while
// the memo keeps it: the map value itself, a pointer (what
// reflect.Value.Pointer returns for a map, without its call).
func setAddr(set map[string]bool) uintptr { return *(*uintptr)(unsafe.Pointer(&set)) }

// memoized returns the memo's combination for set (read-only), when set
// is one of the memo's own maps.
func (k *skipSets) memoized(set map[string]bool) *skipSet {
	addr := setAddr(set)
	if l := k.last.Load(); l != nil && setAddr(l.set) == addr {
		return l
	}
	memo := k.memo.Load()
	if memo == nil {
		return nil
	}
	s := memo.bySet[addr]
	if s != nil {
		k.last.Store(s)
	}
	return s
}

// sortedOf returns the names set holds in sorted order (nil for none),
// read-only.
func (k *skipSets) sortedOf(set map[string]bool) []string {
	if len(set) == 0 {
		return nil
	}
	if s := k.memoized(set); s != nil {
		return s.sorted
	}
	if k.masked() {
		var mask uint64
		n := 0
		for i, name := range k.names {
			if set[name] {
				mask |= 1 << uint(i)
				n++
			}
		}
		if n == len(set) {
			return k.of(mask).sorted
		}
	}
	return sortedKeys(set) // names of another profile's plugins too
}

// offOf returns, for each consumer, whether set turns it off (nil when
// it turns off none).
func (k *skipSets) offOf(set map[string]bool) []bool { return flagsOf(k.consumers, set) }

// inOf returns, for each of the point's plugins, whether set holds it
// (nil when it holds none of them).
func (k *skipSets) inOf(set map[string]bool) []bool { return flagsOf(k.names, set) }

// flagsOf returns, for each of names, whether set holds it (nil when it
// holds none of them).
func flagsOf(names []string, set map[string]bool) []bool {
	var flags []bool
	for i, name := range names {
		if set[name] {
			if flags == nil {
				flags = make([]bool, len(names))
			}
			flags[i] = true
		}
	}
	return flags
}

// unflagged returns the positions j in idx whose flags[idx[j]] is not
// set (every position when flags is nil).
func unflagged(idx []int, flags []bool) []int {
	out := make([]int, 0, len(idx))
	for j, i := range idx {
		if flags == nil || !flags[i] {
			out = append(out, j)
		}
	}
	return out
}

// track makes each set list which of the point's plugins at indices
// idx it leaves out (trackedOnIn); it is called once, after init and
// before the first set is made.
func (k *skipSets) track(idx []int) {
	k.tracked = idx
	k.allTracked = unflagged(idx, nil)
}

// trackedOnIn returns the positions in tracked of the plugins a cycle's
// skip set does not hold, as onIn does for the consumers; read-only.
func (k *skipSets) trackedOnIn(set map[string]bool) []int {
	if len(set) == 0 {
		return k.allTracked
	}
	if s := k.memoized(set); s != nil {
		return s.trackedOn
	}
	return unflagged(k.tracked, k.inOf(set))
}

// onIn returns the consumers a cycle's skip set leaves on, by index in
// profile order: every consumer for an empty set, the memo's list for
// one of its sets; read-only.
func (k *skipSets) onIn(set map[string]bool) []int {
	if len(set) == 0 {
		return k.allOn
	}
	if s := k.memoized(set); s != nil {
		return s.on
	}
	return unflagged(k.allOn, k.offOf(set))
}

// offIn is offOf for a cycle's skip set, read from the memo without a
// lookup by name when set is one of its sets; read-only.
func (k *skipSets) offIn(set map[string]bool) []bool {
	if len(set) == 0 {
		return nil
	}
	if s := k.memoized(set); s != nil {
		return s.off
	}
	return k.offOf(set)
}

// skipCollector gathers the plugins of one extension point that returned
// Skip in a cycle: by bit while the point's plugins fit a mask, by name
// otherwise.
type skipCollector struct {
	k     *skipSets
	mask  uint64
	names map[string]bool
}

// add records that plugin i (named name) returned Skip.
func (c *skipCollector) add(i int, name string) {
	if c.k.masked() {
		c.mask |= 1 << uint(i)
		return
	}
	if c.names == nil {
		c.names = map[string]bool{}
	}
	c.names[name] = true
}

// set returns the skip set for the cycle's state (nil for none): the
// memoized one of the mask, or the names.
func (c *skipCollector) set() map[string]bool {
	if c.k.masked() {
		return c.k.of(c.mask).set
	}
	return c.names
}
