package framework

import (
	"slices"
	"sync"
	"unsafe"

	"github.com/schedkit/schedkit/framework/api"
)

// This file holds the pod index's label classes. A PodQuery looks at three
// things of a pod only: its namespace, its labels and whether it is being
// deleted. Pods equal in those three form a class; the index numbers the
// classes as pods are added (while their objects are fresh in memory) and
// keeps, per node, how many of its pods fall in each class. Building a
// PodCounts entry then matches the query once per class and sums the
// per-node multiplicities, instead of matching every assigned pod's labels
// (a walk over cold memory for every new query). A query that requires a
// label with In matches only the classes carrying one of its values, and
// reads the nodes of those that match from the inverse lists (the nodes
// of each class), built when a query first needs them and then kept.
//
// Complexity (p assigned pods, n nodes, k classes): AddPod/RemovePod
// O(labels·log labels) to name the class plus O(classes on the node),
// and, once the inverse lists are built, O(nodes of the class) when the
// last pod of its class leaves a node; a new PodCounts entry O(k) matches
// + O(n + Σ classes per node), or for a query with an In requirement
// O(candidate classes) matches + O(Σ classes per node over the nodes of
// the matching classes); Clone O(n + k) (the per-node and inverse lists
// are shared copy-on-write); a node removed or put back drops the
// inverse lists (O(n + p) to build again).

// podClasses numbers the classes. It is shared by a snapshot and its clones
// and only grows (a class stays numbered after its last pod leaves), so a
// number means the same class in every snapshot of the family.
type podClasses struct {
	mu   sync.Mutex
	ids  map[string]int32
	reps []*api.Pod // a pod of each class, which stands for it in matches
	// byKey indexes the classes by their value of a label key, for the
	// keys queries have required with In (candidates): a key's
	// index is built when a query first needs it and brought up to the
	// classes added since by each later one, so that only keys queries
	// use cost memory.
	byKey map[string]*classKeyIndex
	// last is the class of the pod id named last, by what decides it:
	// copies of one pod (a template's replicas, a pod and its assumed
	// copy) share their labels map, so the next one's class is known
	// without building its key. Objects in a snapshot are not modified
	// (their maps included), so one labels map means one label set.
	last struct {
		ok          bool
		terminating bool
		namespace   string
		labels      map[string]string // held, so its address is not reused
		id          int32
	}
	// recent are the last classes named by a pod whose labels map was
	// not last's, compared by content: pods of one workload each have a
	// labels map of their own (a DaemonSet's, a stream of replicas), and
	// comparing their few labels costs a tenth of building the class key
	// and looking it up.
	recent     [classRecentN]classRecent
	recentNext int
}

// classRecentN is how many classes podClasses.recent holds.
const classRecentN = 4

// classRecent is one of podClasses.recent: a class's id and what decides
// it, the labels as pairs.
type classRecent struct {
	ok          bool
	terminating bool
	namespace   string
	pairs       []labelPair
	id          int32
}

// id returns the number of p's class, adding the class when new.
func (c *podClasses) id(p *api.Pod) int32 {
	terminating := p.DeletionTimestamp != nil
	c.mu.Lock()
	if l := &c.last; l.ok && l.terminating == terminating && l.namespace == p.Namespace && sameMap(l.labels, p.Labels) {
		id := l.id
		c.mu.Unlock()
		return id
	}
	for i := range c.recent {
		if r := &c.recent[i]; r.ok && r.terminating == terminating && r.namespace == p.Namespace && sameLabels(r.pairs, p.Labels) {
			id := r.id
			c.last.ok, c.last.terminating, c.last.namespace, c.last.labels, c.last.id = true, terminating, p.Namespace, p.Labels, id
			c.mu.Unlock()
			return id
		}
	}
	c.mu.Unlock()
	var buf [256]byte
	key := appendPodClassKey(buf[:0], p)
	c.mu.Lock()
	defer c.mu.Unlock()
	id, ok := c.ids[string(key)] // no allocation for the lookup
	if !ok {
		id = c.addLocked(string(key), p)
	}
	c.last.ok, c.last.terminating, c.last.namespace, c.last.labels, c.last.id = true, terminating, p.Namespace, p.Labels, id
	// The entry replaced gives its pairs' array: no allocation once
	// the four arrays hold a workload's labels.
	r := &c.recent[c.recentNext]
	r.ok, r.terminating, r.namespace, r.id = true, terminating, p.Namespace, id
	r.pairs = appendLabelPairs(r.pairs[:0], p.Labels)
	c.recentNext = (c.recentNext + 1) % classRecentN
	return id
}

// sameMap reports whether a and b are the same map (not merely equal).
// A map value is a pointer to the map's header: the two are compared,
// without reflect's cost on a path taken for every pod added or removed.
func sameMap(a, b map[string]string) bool {
	return *(*unsafe.Pointer)(unsafe.Pointer(&a)) == *(*unsafe.Pointer)(unsafe.Pointer(&b))
}

// addLocked numbers a new class of key, p its representative.
func (c *podClasses) addLocked(key string, p *api.Pod) int32 {
	if c.ids == nil {
		c.ids = map[string]int32{}
	}
	id := int32(len(c.reps))
	c.ids[key] = id
	c.reps = append(c.reps, p)
	return id
}

// representatives returns the classes' pods (a prefix that later additions
// do not change).
func (c *podClasses) representatives() []*api.Pod {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reps
}

// classKeyIndex lists, per value of one label key, the classes whose
// pods carry the key with that value, for the classes [0, upTo). A list
// only grows, so a list read under podClasses.mu stays valid to read
// after it.
type classKeyIndex struct {
	upTo int
	vals map[string][]int32
}

// keyIndexLocked returns key's index brought up to every class; callers
// hold c.mu.
func (c *podClasses) keyIndexLocked(key string) *classKeyIndex {
	ix := c.byKey[key]
	if ix == nil {
		if c.byKey == nil {
			c.byKey = map[string]*classKeyIndex{}
		}
		ix = &classKeyIndex{vals: map[string][]int32{}}
		c.byKey[key] = ix
	}
	for ; ix.upTo < len(c.reps); ix.upTo++ {
		if v, ok := c.reps[ix.upTo].Labels[key]; ok {
			ix.vals[v] = append(ix.vals[v], int32(ix.upTo))
		}
	}
	return ix
}

// candidates returns the classes' pods and, when m has a term whose
// selector requires a label with In, the classes that can match m: those
// whose pods carry that label with one of the required values (the
// requirement of fewest such classes among m's terms), appended to buf;
// every other class does not match. ok is false when m has no such
// requirement (every class is a candidate).
func (c *podClasses) candidates(m *podMatcher, buf []int32) (reps []*api.Pod, cands []int32, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	reps = c.reps
	if len(m.terms) == 0 {
		return reps, buf, true // matches nothing
	}
	var best [][]int32
	bestN := -1
	for i := range m.terms {
		sel := m.terms[i].sel
		if sel.IsNothing() {
			return reps, buf, true
		}
		sel.InRequirements(func(key string, values []string) bool {
			ix := c.keyIndexLocked(key)
			n := 0
			for _, v := range values {
				n += len(ix.vals[v])
			}
			if bestN < 0 || n < bestN {
				bestN = n
				best = best[:0]
				for _, v := range values {
					if l := ix.vals[v]; len(l) > 0 {
						best = append(best, l)
					}
				}
			}
			return bestN > 0
		})
		if bestN == 0 {
			break
		}
	}
	if bestN < 0 {
		return reps, buf, false
	}
	for _, l := range best {
		buf = append(buf, l...)
	}
	return reps, buf, true
}

// appendPodClassKey appends p's class key: the terminating flag, the
// namespace and the labels in key order, each length-prefixed.
func appendPodClassKey(b []byte, p *api.Pod) []byte {
	if p.DeletionTimestamp != nil {
		b = append(b, 'T')
	} else {
		b = append(b, 'A')
	}
	b = appendStrKey(b, p.Namespace)
	var kb [8]string
	keys := kb[:0]
	for k := range p.Labels {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		b = appendStrKey(b, k)
		b = appendStrKey(b, p.Labels[k])
	}
	return b
}

// podClassCount is a class and how many pods of a node are in it.
type podClassCount struct {
	class int32
	n     int32
}

// classNodeCount is a node and how many pods of a class it holds.
type classNodeCount struct {
	node int32
	n    int32
}

// classesNodeAdded records a node appended to the snapshot (no pods yet).
// The inverse lists need nothing: the node is in none of them.
func (x *podIndex) classesNodeAdded() {
	x.nodeClasses = append(x.nodeClasses, nil)
	x.nodeClassesOwned = append(x.nodeClassesOwned, true)
}

// classesNodeRemoved drops node i's list. The inverse lists, whose later
// nodes would all move down one, are dropped, to be built again when next
// needed.
func (x *podIndex) classesNodeRemoved(i int) {
	x.dropClassNodes()
	if i < len(x.nodeClasses) {
		x.nodeClasses = slices.Delete(slices.Clone(x.nodeClasses), i, i+1)
		x.nodeClassesOwned = slices.Delete(slices.Clone(x.nodeClassesOwned), i, i+1)
	}
}

// classesNodeInserted inserts an empty list for a node put back at
// index i.
func (x *podIndex) classesNodeInserted(i int) {
	x.dropClassNodes()
	if i <= len(x.nodeClasses) {
		x.nodeClasses = insertCopy(x.nodeClasses, i, nil)
		x.nodeClassesOwned = insertCopy(x.nodeClassesOwned, i, true)
	}
}

// classID returns the number of p's class, adding the class when new;
// callers hold x.mu.
func (x *podIndex) classID(p *api.Pod) int32 {
	if x.classes == nil {
		x.classes = &podClasses{}
	}
	return x.classes.id(p)
}

// classesAdd adds delta pods of class id on node (< len(x.nodeClasses));
// callers hold x.mu.
func (x *podIndex) classesAdd(id int32, node int, delta int32) {
	list := x.nodeClasses[node]
	if !x.nodeClassesOwned[node] {
		list = slices.Clone(list)
		x.nodeClassesOwned[node] = true
	}
	k := slices.IndexFunc(list, func(cc podClassCount) bool { return cc.class == id })
	switch {
	case k >= 0:
		list[k].n += delta
		if list[k].n <= 0 {
			list = slices.Delete(list, k, k+1)
			x.classNodesRemove(id, node)
		} else {
			x.classNodesCountChanged(id)
		}
	case delta > 0:
		list = append(list, podClassCount{class: id, n: delta})
		x.classNodesAdd(id, node, delta)
	}
	x.nodeClasses[node] = list
}

// classNodesLocked returns the inverse lists (classNodes), building them
// from the per-node lists when no query has needed them since they were
// last dropped; callers hold x.mu.
func (x *podIndex) classNodesLocked() [][]classNodeCount {
	if x.classNodesOK {
		return x.classNodes
	}
	var lists [][]classNodeCount
	for i, l := range x.nodeClasses {
		for _, cc := range l {
			if int(cc.class) >= len(lists) {
				lists = append(lists, make([][]classNodeCount, int(cc.class)+1-len(lists))...)
			}
			lists[cc.class] = append(lists[cc.class], classNodeCount{node: int32(i), n: cc.n})
		}
	}
	x.classNodes, x.classNodesOwned, x.classNodesOK = lists, make([]bool, len(lists)), true
	x.classNodesStale = make([]bool, len(lists))
	for c := range x.classNodesOwned {
		x.classNodesOwned[c] = true
	}
	return lists
}

// classNodesList returns class id's inverse list, copied first when it is
// shared with a clone, for a change; callers hold x.mu and checked
// classNodesOK.
func (x *podIndex) classNodesList(id int32) []classNodeCount {
	if int(id) >= len(x.classNodes) {
		n := int(id) + 1 - len(x.classNodes)
		x.classNodes = append(x.classNodes, make([][]classNodeCount, n)...)
		x.classNodesOwned = append(x.classNodesOwned, make([]bool, n)...)
		x.classNodesStale = append(x.classNodesStale, make([]bool, n)...)
	}
	if !x.classNodesOwned[id] {
		x.classNodes[id] = slices.Clone(x.classNodes[id])
		x.classNodesOwned[id] = true
	}
	return x.classNodes[id]
}

// classNodesAdd records that node holds n pods of class id (it held
// none).
func (x *podIndex) classNodesAdd(id int32, node int, n int32) {
	if x.classNodesOK {
		l := x.classNodesList(id) // may grow x.classNodes
		x.classNodes[id] = append(l, classNodeCount{node: int32(node), n: n})
	}
}

// classNodesCountChanged records that a node listed for class id holds
// another number of its pods: the list's multiplicities are read again
// from the per-node lists when a query next needs them
// (classNodesFresh), rather than the list searched for the node on every
// such change.
func (x *podIndex) classNodesCountChanged(id int32) {
	if x.classNodesOK && int(id) < len(x.classNodesStale) {
		x.classNodesStale[id] = true
	}
}

// classNodesFresh returns class id's inverse list with its multiplicities
// as the per-node lists have them, replacing a stale list by a new one
// (readers holding the old one keep it unchanged); callers hold x.mu and
// checked classNodesOK.
func (x *podIndex) classNodesFresh(id int32) []classNodeCount {
	if int(id) >= len(x.classNodes) {
		return nil
	}
	l := x.classNodes[id]
	if !x.classNodesStale[id] {
		return l
	}
	fresh := make([]classNodeCount, len(l))
	for k, e := range l {
		fresh[k] = classNodeCount{node: e.node}
		list := x.nodeClasses[e.node]
		if j := slices.IndexFunc(list, func(cc podClassCount) bool { return cc.class == id }); j >= 0 {
			fresh[k].n = list[j].n
		}
	}
	x.classNodes[id], x.classNodesOwned[id], x.classNodesStale[id] = fresh, true, false
	return fresh
}

// classNodesRemove records that node holds no pods of class id any more:
// a walk of the class's list, which a class loses a node from only when
// the last of its pods there leaves.
func (x *podIndex) classNodesRemove(id int32, node int) {
	if !x.classNodesOK {
		return
	}
	l := x.classNodesList(id)
	if k := slices.IndexFunc(l, func(e classNodeCount) bool { return int(e.node) == node }); k >= 0 {
		l[k] = l[len(l)-1]
		x.classNodes[id] = l[:len(l)-1]
	}
}

// dropClassNodes drops the inverse lists (the nodes were renumbered).
func (x *podIndex) dropClassNodes() {
	x.classNodes, x.classNodesOwned, x.classNodesStale, x.classNodesOK = nil, nil, nil, false
}

// classesForkFrom shares src's classes and per-node lists with x (a new
// clone's index); both sides copy a node's list before changing it.
func (x *podIndex) classesForkFrom(src *podIndex) {
	x.classes = src.classes
	x.nodeClasses = slices.Clone(src.nodeClasses)
	x.nodeClassesOwned = make([]bool, len(src.nodeClasses))
	clear(src.nodeClassesOwned)
	x.classNodesOK = src.classNodesOK
	if src.classNodesOK {
		x.classNodes = slices.Clone(src.classNodes)
		x.classNodesOwned = make([]bool, len(src.classNodes))
		x.classNodesStale = slices.Clone(src.classNodesStale)
		clear(src.classNodesOwned)
	}
}

// countByClasses sets counts[i] (all zero on entry) to the number of pods
// on node i that match m, matching m once per class, and returns the
// verdicts by class (1 match, 2 not, 0 for a class on no node, not
// decided). When m requires a label with In, only the classes carrying it
// can match (podClasses.candidates), and the nodes holding those that do
// are read from the inverse lists (classNodesLocked); otherwise every
// node's classes are. When nz is not nil (all clear on entry, a bit a
// node), it sets the bits of the nodes whose count is not zero: the
// entry's nonZero bitmap, without a pass over every node's count.
func (x *podIndex) countByClasses(m *podMatcher, ns map[string]map[string]string, counts []int32, nz []uint64) []uint8 {
	x.mu.Lock()
	lists := x.nodeClasses
	var reps []*api.Pod
	var cands []int32
	indexed := false
	if x.classes != nil {
		reps, cands, indexed = x.classes.candidates(m, nil)
	}
	x.mu.Unlock()
	// verdict[c]: 0 not evaluated yet, 1 matches, 2 does not.
	verdict := make([]uint8, len(reps))
	if indexed {
		// Only the candidates can match: the others are decided at once.
		for c := range verdict {
			verdict[c] = 2
		}
		matched := cands[:0]
		for _, c := range cands {
			// A class is listed once per value it carries of the
			// requirement's, which may repeat a value: each is
			// matched, and summed, once.
			if int(c) < len(reps) && verdict[c] != 1 && m.matches(reps[c], ns) {
				verdict[c] = 1
				matched = append(matched, c)
			}
		}
		if len(matched) == 0 {
			return verdict // no pod matches (a new workload's own labels, say)
		}
		// The nodes that hold the matching classes, rather than every
		// node: a query matching a workload or two reads their pods.
		// Their lists are taken under the lock: a stale one is replaced
		// meanwhile.
		var buf [8][]classNodeCount
		inv := buf[:0]
		x.mu.Lock()
		x.classNodesLocked()
		for _, c := range matched {
			if l := x.classNodesFresh(c); len(l) > 0 { // else no pod of the class here
				inv = append(inv, l)
			}
		}
		x.mu.Unlock()
		for _, l := range inv {
			for _, e := range l {
				if k := e.node; int(k) < len(counts) {
					counts[k] += e.n
					if nz != nil && counts[k] != 0 {
						nz[k>>6] |= 1 << (k & 63)
					}
				}
			}
		}
		return verdict
	}
	for i, list := range lists[:len(counts)] {
		var c int32
		for _, cc := range list {
			v := verdict[cc.class]
			if v == 0 {
				v = 2
				if m.matches(reps[cc.class], ns) {
					v = 1
				}
				verdict[cc.class] = v
			}
			if v == 1 {
				c += cc.n
			}
		}
		counts[i] = c
		if nz != nil && c != 0 {
			nz[i>>6] |= 1 << (i & 63)
		}
	}
	return verdict
}
