// Package journal records what the changes made inside a fork (a what-if
// branch) overwrote, so that the branch can be undone in O(changes): per
// open fork, the value each key had before the fork first changed it.
// Forks nest; committing a fork hands its saves to the enclosing one
// (which keeps its own older saves), reverting one returns them.
//
// It is the undo log of the scheduler's queue and of the plugins' caches
// (framework.ForkablePlugin). None of its types is safe for concurrent
// use: the owner's lock guards them with the state they journal.
package journal

// Saves holds, per open fork, the first value saved for each key.
type Saves[K comparable, V any] struct {
	levels []map[K]V
}

// Open opens a fork.
func (j *Saves[K, V]) Open() { j.levels = append(j.levels, nil) }

// Depth returns the number of open forks.
func (j *Saves[K, V]) Depth() int { return len(j.levels) }

// Needs reports whether key must be saved before it changes: a fork is
// open and has not saved key yet.
func (j *Saves[K, V]) Needs(key K) bool {
	n := len(j.levels)
	if n == 0 {
		return false
	}
	_, ok := j.levels[n-1][key]
	return !ok
}

// Put saves v for key in the innermost fork (one must be open).
func (j *Saves[K, V]) Put(key K, v V) {
	top := &j.levels[len(j.levels)-1]
	if *top == nil {
		*top = map[K]V{}
	}
	(*top)[key] = v
}

// Commit closes the innermost fork, merging its saves into the enclosing
// fork; a key the enclosing fork saved already keeps that older value.
// Without an open fork it does nothing.
func (j *Saves[K, V]) Commit() {
	n := len(j.levels)
	if n == 0 {
		return
	}
	top := j.levels[n-1]
	j.levels = j.levels[:n-1]
	if n == 1 {
		return
	}
	parent := &j.levels[n-2]
	if *parent == nil {
		*parent = top
		return
	}
	for k, v := range top {
		if _, ok := (*parent)[k]; !ok {
			(*parent)[k] = v
		}
	}
}

// Revert closes the innermost fork and returns its saves (nil without an
// open fork).
func (j *Saves[K, V]) Revert() map[K]V {
	n := len(j.levels)
	if n == 0 {
		return nil
	}
	top := j.levels[n-1]
	j.levels = j.levels[:n-1]
	return top
}

// Map journals the changes of one map: call Save before every write or
// delete of a key, and Revert puts the map back as it was at the fork.
type Map[K comparable, V any] struct {
	s Saves[K, old[V]]
}

type old[V any] struct {
	v   V
	had bool
}

// Open opens a fork.
func (j *Map[K, V]) Open() { j.s.Open() }

// Depth returns the number of open forks.
func (j *Map[K, V]) Depth() int { return j.s.Depth() }

// Save records m[key] (or its absence) before a change, unless no fork is
// open or the innermost fork saved key already; it reports whether it
// saved, i.e. whether this is the fork's first change of key.
func (j *Map[K, V]) Save(m map[K]V, key K) bool {
	if !j.s.Needs(key) {
		return false
	}
	v, had := m[key]
	j.s.Put(key, old[V]{v: v, had: had})
	return true
}

// Set sets m[key] to v, saving the key first.
func (j *Map[K, V]) Set(m map[K]V, key K, v V) {
	j.Save(m, key)
	m[key] = v
}

// Delete deletes key from m, saving it first when m has it.
func (j *Map[K, V]) Delete(m map[K]V, key K) {
	if _, ok := m[key]; ok {
		j.Save(m, key)
		delete(m, key)
	}
}

// Commit closes the innermost fork keeping its changes.
func (j *Map[K, V]) Commit() { j.s.Commit() }

// Revert closes the innermost fork and puts the keys it changed back in m
// (deleting those m did not have); it reports whether there were any.
func (j *Map[K, V]) Revert(m map[K]V) bool {
	saved := j.s.Revert()
	for k, o := range saved {
		if o.had {
			m[k] = o.v
		} else {
			delete(m, k)
		}
	}
	return len(saved) > 0
}
