package framework

import (
	"maps"
	"slices"

	"github.com/schedkit/schedkit/framework/api"
)

// This file memoizes which existing pods' affinity terms select an
// incoming pod. InterPodAffinity matches every distinct term of the
// cluster (AffinityGroups) against each incoming pod, in PreFilter and
// again in PreScore; the answer depends only on the pod's namespace and
// labels, which the pods of one workload share, and on the set of terms.

// selectingMax bounds the memo's entries; it starts over when full.
const selectingMax = 256

// selectingEntry is one memoized answer.
type selectingEntry struct {
	ns     string
	labels map[string]string
	// pairs are labels' pairs, so that a pod's labels are compared by
	// lookups rather than by iterating its map.
	pairs  []labelPair
	groups []*AffinityGroup
}

// sameLabels reports whether labels holds exactly the pairs.
func sameLabels(pairs []labelPair, labels map[string]string) bool {
	if len(pairs) != len(labels) {
		return false
	}
	for _, p := range pairs {
		if v, ok := labels[p.k]; !ok || v != p.v {
			return false
		}
	}
	return true
}

// labelPairs returns labels as pairs.
func labelPairs(labels map[string]string) []labelPair {
	return appendLabelPairs(make([]labelPair, 0, len(labels)), labels)
}

// appendLabelPairs appends labels to dst as pairs.
func appendLabelPairs(dst []labelPair, labels map[string]string) []labelPair {
	for k, v := range labels {
		dst = append(dst, labelPair{k, v})
	}
	return dst
}

// AffinityGroupsSelecting returns the affinity groups (AffinityGroups)
// whose term selects pod (AffinityTerm.Matches, with the labels of the
// pod's namespace in the snapshot), in AffinityGroups' order. Pods of the
// same namespace and labels get one answer, computed once while the set of
// groups stays the same. The result is read-only and valid until the
// snapshot is next mutated. It is safe for concurrent use.
func (s *Snapshot) AffinityGroupsSelecting(pod *api.Pod) []*AffinityGroup {
	x := &s.podIdx
	x.mu.Lock()
	all := s.affinityGroupsLocked()
	version := x.groupsVersion
	if l := &x.selLast; l.ok && l.version == version && sameMap(l.labels, pod.Labels) && l.ns == pod.Namespace {
		groups := l.groups
		x.mu.Unlock()
		return groups
	}
	for i := range x.selRecent {
		if r := &x.selRecent[i]; r.ok && r.version == version && r.ns == pod.Namespace && sameLabels(r.pairs, pod.Labels) {
			// Read before the lock goes: another reader may replace
			// the entry then.
			groups := r.groups
			x.setSelLastLocked(pod, groups)
			x.mu.Unlock()
			return groups
		}
	}
	h := labelsHash(pod.Namespace, pod.Labels)
	for _, e := range x.selecting[h] {
		if e.ns == pod.Namespace && sameLabels(e.pairs, pod.Labels) {
			x.setSelLastLocked(pod, e.groups)
			x.noteRecentLocked(e.ns, e.pairs, e.groups)
			x.mu.Unlock()
			return e.groups
		}
	}
	// The index of all's groups costs about as much as matching every
	// group against three label sets: it is built when this version of
	// the groups is expected to meet more (the versions before met four
	// or more on average, or this one has met eight), and never for a
	// version only one label set meets.
	ix := x.selIx
	x.selMisses++
	build := ix == nil && x.selMisses >= 2 && (x.selAvg >= 4 || x.selMisses >= 8)
	x.mu.Unlock()
	if build {
		ix = newGroupSelIndex(all)
	}

	nsLabels := s.NamespaceLabels(pod.Namespace)
	var out []*AffinityGroup
	if ix != nil {
		out = ix.selecting(all, pod, nsLabels)
	} else {
		for _, g := range all {
			if g.Term.Matches(pod, nsLabels) {
				out = append(out, g)
			}
		}
	}

	x.mu.Lock()
	defer x.mu.Unlock()
	if x.groupsVersion == version { // else the groups changed meanwhile: answer, but do not keep it
		if build && x.selIx == nil {
			x.selIx = ix
		}
		if x.selecting == nil || len(x.selecting) >= selectingMax {
			x.selecting = map[uint64][]selectingEntry{}
		}
		pairs := labelPairs(pod.Labels)
		x.selecting[h] = append(x.selecting[h], selectingEntry{ns: pod.Namespace, labels: maps.Clone(pod.Labels), pairs: pairs, groups: out})
		x.setSelLastLocked(pod, out)
		x.noteRecentLocked(pod.Namespace, pairs, out)
	}
	return out
}

// setSelLastLocked makes groups the last answer, for pod's labels map and
// namespace with the current groups.
func (x *podIndex) setSelLastLocked(pod *api.Pod, groups []*AffinityGroup) {
	l := &x.selLast
	l.labels, l.ns, l.version, l.groups, l.ok = pod.Labels, pod.Namespace, x.groupsVersion, groups, true
}

// selRecentN is how many recent answers AffinityGroupsSelecting checks
// before it hashes a pod's labels.
const selRecentN = 4

// selRecentEntry is one recent answer of AffinityGroupsSelecting.
type selRecentEntry struct {
	ns      string
	pairs   []labelPair
	groups  []*AffinityGroup
	version uint64
	ok      bool
}

// noteRecentLocked makes groups, the answer for the label pairs in
// namespace ns with the current groups, one of the recent answers.
func (x *podIndex) noteRecentLocked(ns string, pairs []labelPair, groups []*AffinityGroup) {
	x.selRecent[x.selRecentNext] = selRecentEntry{ns: ns, pairs: pairs, groups: groups, version: x.groupsVersion, ok: true}
	x.selRecentNext = (x.selRecentNext + 1) % selRecentN
}

// groupsChangedLocked records a change to the set of affinity groups (or
// to the group objects, replaced on copy-on-write): the list is rebuilt
// and the memoized selections dropped.
func (x *podIndex) groupsChangedLocked() {
	x.groupList = nil
	x.groupsVersion++
	x.selecting = nil
	x.selAvg = 0.75*x.selAvg + 0.25*float64(min(x.selMisses, 64))
	x.selIx, x.selMisses = nil, 0
}

// groupReplacedLocked records that slot sl's group, old, was replaced by
// a copy of its own (sl.g: copy-on-write after a clone). The groups and
// their terms are the same: the list keeps its order with the copy in
// old's place, and the selection index, which lists positions in it,
// stays, so that a clone's first updates, one group at a time, do not
// make every pod after them match every group in full. The memoized
// answers, which hold the group objects, are dropped.
func (x *podIndex) groupReplacedLocked(sl *groupSlot, old *AffinityGroup) {
	x.groupsVersion++
	x.selecting = nil
	if x.groupList == nil {
		x.selIx = nil // an index lists positions of a list built before
		return
	}
	if i := int(sl.at); i < len(x.groupList) && x.groupList[i] == old {
		x.groupList[i] = sl.g
		return
	}
	x.groupList, x.selIx = nil, nil // not found where listed: built again when asked
}

// selIndexTail is how many groups created since the selection index was
// built are matched in full before it is built again.
const selIndexTail = 64

// groupCreatedLocked records a new group g: it joins the end of the
// group list, when built, and the memoized selections of the label sets
// its term selects (ns holds the namespaces' labels), which stay valid,
// so that pods of a workload met before find their answer after another
// workload's first pod brought a term of its own. The version moves, so
// that an answer computed meanwhile is not kept; the index stays, the
// groups past its end matched in full, until selIndexTail of them.
func (x *podIndex) groupCreatedLocked(g *AffinityGroup, ns map[string]map[string]string) {
	x.groupsVersion++
	if x.groupList == nil {
		x.selIx = nil
		return // the list and the selections are built again when asked
	}
	g.slot.at = int32(len(x.groupList))
	x.groupList = append(x.groupList, g)
	if ix := x.selIx; ix != nil && len(x.groupList)-ix.n > selIndexTail {
		x.selIx = nil // built again when asked
	}
	for _, list := range x.selecting {
		for i := range list {
			e := &list[i]
			pod := api.Pod{ObjectMeta: api.ObjectMeta{Namespace: e.ns, Labels: e.labels}}
			if g.Term.Matches(&pod, ns[e.ns]) {
				e.groups = append(slices.Clip(e.groups), g) // callers may hold the old answer
			}
		}
	}
}

// groupSelIndex lists a list of groups by one In requirement of each
// group's label selector (the one of fewest values): a group can select
// only a pod whose labels hold that key with one of those values. Groups
// whose selector has no In requirement are listed apart, and groups whose
// selector selects nothing not at all.
type groupSelIndex struct {
	// n is the number of groups indexed: the groups appended to the list
	// since (groupCreatedLocked) are matched in full.
	n int
	// byPair numbers the label pairs the requirements name; pair p's
	// groups are list[start[p]:start[p+1]], positions in the list.
	byPair map[labelPair]int32
	start  []int32
	list   []int32
	rest   []int32
}

// labelPair is a label's key and value.
type labelPair struct{ k, v string }

// newGroupSelIndex indexes all, with one map insertion per label pair
// and no allocation per group.
func newGroupSelIndex(all []*AffinityGroup) *groupSelIndex {
	ix := &groupSelIndex{n: len(all), byPair: make(map[labelPair]int32, len(all))}
	type ref struct{ pair, group int32 }
	refs := make([]ref, 0, len(all))
	var count []int32
	for i, g := range all {
		sel := g.Term.Selector
		if sel.IsNothing() {
			continue
		}
		var key string
		var vals []string
		sel.InRequirements(func(k string, vs []string) bool {
			if vals == nil || len(vs) < len(vals) {
				key, vals = k, vs
			}
			return len(vals) > 1
		})
		if vals == nil {
			ix.rest = append(ix.rest, int32(i))
			continue
		}
		for _, v := range vals {
			p, ok := ix.byPair[labelPair{key, v}]
			if !ok {
				p = int32(len(count))
				ix.byPair[labelPair{key, v}] = p
				count = append(count, 0)
			}
			count[p]++
			refs = append(refs, ref{p, int32(i)})
		}
	}
	ix.start = make([]int32, len(count)+1)
	for p, c := range count {
		ix.start[p+1] = ix.start[p] + c
	}
	ix.list = make([]int32, len(refs))
	next := count[:0] // reused: the next free place of each pair
	next = append(next, ix.start[:len(ix.start)-1]...)
	for _, r := range refs { // in group order: each pair's list is sorted
		ix.list[next[r.pair]] = r.group
		next[r.pair]++
	}
	return ix
}

// selecting returns the groups of all (the list ix indexes) whose term
// selects pod, in the list's order: those listed under one of the pod's
// labels or apart, matched in full.
func (ix *groupSelIndex) selecting(all []*AffinityGroup, pod *api.Pod, nsLabels map[string]string) []*AffinityGroup {
	var buf [64]int32
	cands := append(buf[:0], ix.rest...)
	for k, v := range pod.Labels {
		if p, ok := ix.byPair[labelPair{k, v}]; ok {
			cands = append(cands, ix.list[ix.start[p]:ix.start[p+1]]...)
		}
	}
	for i := ix.n; i < len(all); i++ {
		cands = append(cands, int32(i))
	}
	slices.Sort(cands)
	var out []*AffinityGroup
	for i, c := range cands {
		if i > 0 && c == cands[i-1] {
			continue
		}
		if g := all[c]; g.Term.Matches(pod, nsLabels) {
			out = append(out, g)
		}
	}
	return out
}

// labelsHash hashes a namespace and a label set, whatever the map's
// order (FNV-1a per label, summed).
func labelsHash(ns string, labels map[string]string) uint64 {
	h := fnvString(fnvOffset, ns)
	for k, v := range labels {
		h += fnvString(fnvString(fnvOffset, k)*fnvPrime, v) // k and v apart: {"ab": ""} ≠ {"a": "b"}
	}
	return h
}

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func fnvString(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * fnvPrime
	}
	return h
}
