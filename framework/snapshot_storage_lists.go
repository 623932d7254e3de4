package framework

import (
	"cmp"
	"slices"

	"github.com/schedkit/schedkit/framework/api"
)

// sortedLists holds lists of storage objects, each sorted by key (namespace,
// then name) and found under a list key (a volume's class, an attachment's
// node). A change is logged, O(1), and the log merged into the lists when a
// reader next asks (Snapshot.storageLists): k changes then a read cost
// O(k log k) plus one copy of each list they touch, where a list rebuilt per
// change made loading n objects of one list O(n²). A merge builds a new
// slice for each list it changes, so lists handed to readers are never
// written.
type sortedLists[T api.StorageObject] struct {
	lists cowMap[string, []T]
	log   []listChange[T]
}

// listChange puts obj under key in a list, or with put false removes the
// key's object from it; seq is its position in the log.
type listChange[T api.StorageObject] struct {
	list string
	key  nsName
	obj  T
	put  bool
	seq  int
}

func (l *sortedLists[T]) put(list string, key nsName, o T) {
	l.log = append(l.log, listChange[T]{list: list, key: key, obj: o, put: true, seq: len(l.log)})
}

func (l *sortedLists[T]) remove(list string, key nsName) {
	l.log = append(l.log, listChange[T]{list: list, key: key, seq: len(l.log)})
}

func compareKeys(a, b nsName) int {
	return cmp.Or(cmp.Compare(a.ns, b.ns), cmp.Compare(a.name, b.name))
}

// listKey is the key an object is sorted by in its list.
func listKey[T api.StorageObject](o T) nsName {
	_, ns, name := api.StorageObjectKey(o)
	return nsName{ns, name}
}

// merge applies the logged changes, in order, to the lists.
func (l *sortedLists[T]) merge() {
	if len(l.log) == 0 {
		return
	}
	// Of the changes to one key, the last logged sorts last.
	slices.SortFunc(l.log, func(a, b listChange[T]) int {
		return cmp.Or(cmp.Compare(a.list, b.list), compareKeys(a.key, b.key), cmp.Compare(a.seq, b.seq))
	})
	for rest := l.log; len(rest) > 0; {
		n := 1
		for n < len(rest) && rest[n].list == rest[0].list {
			n++
		}
		l.apply(rest[0].list, rest[:n])
		rest = rest[n:]
	}
	clear(l.log) // drop the objects
	l.log = l.log[:0]
}

// apply merges changes (sorted by key) into one list, as a new slice.
func (l *sortedLists[T]) apply(list string, changes []listChange[T]) {
	old := l.lists.m[list]
	out := make([]T, 0, len(old)+len(changes))
	at := 0 // old[:at] is done
	for i, c := range changes {
		if i+1 < len(changes) && changes[i+1].key == c.key {
			continue // a later change to the key wins
		}
		j, found := slices.BinarySearchFunc(old[at:], c.key, func(e T, k nsName) int { return compareKeys(listKey(e), k) })
		out = append(out, old[at:at+j]...)
		at += j
		if found {
			at++
		}
		if c.put {
			out = append(out, c.obj)
		}
	}
	out = append(out, old[at:]...)
	if len(out) == 0 {
		l.lists.del(list)
		return
	}
	l.lists.set(list, out)
}

// storageLists returns the storage index with every logged list change
// merged. Concurrent readers of one snapshot are safe: the first merges
// under storageMu while the others wait; once merged, a read costs one
// atomic load.
func (s *Snapshot) storageLists() *storageIndex {
	if s.storageDirty.Load() {
		s.mergeStorageLists()
	}
	return &s.storage
}

func (s *Snapshot) mergeStorageLists() {
	s.storageMu.Lock()
	defer s.storageMu.Unlock()
	if s.storageDirty.Load() {
		s.storage.merge()
		s.storageDirty.Store(false)
	}
}
