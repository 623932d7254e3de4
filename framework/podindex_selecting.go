package framework

import (
	"maps"

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
	groups []*AffinityGroup
}

// AffinityGroupsSelecting returns the affinity groups (AffinityGroups)
// whose term selects pod (AffinityTerm.Matches, with the labels of the
// pod's namespace in the snapshot), in AffinityGroups' order. Pods of the
// same namespace and labels get one answer, computed once while the set of
// groups stays the same. The result is read-only and valid until the
// snapshot is next mutated. It is safe for concurrent use.
func (s *Snapshot) AffinityGroupsSelecting(pod *api.Pod) []*AffinityGroup {
	x := &s.podIdx
	h := labelsHash(pod.Namespace, pod.Labels)
	x.mu.Lock()
	all := s.affinityGroupsLocked()
	version := x.groupsVersion
	for _, e := range x.selecting[h] {
		if e.ns == pod.Namespace && maps.Equal(e.labels, pod.Labels) {
			x.mu.Unlock()
			return e.groups
		}
	}
	x.mu.Unlock()

	nsLabels := s.NamespaceLabels(pod.Namespace)
	var out []*AffinityGroup
	for _, g := range all {
		if g.Term.Matches(pod, nsLabels) {
			out = append(out, g)
		}
	}

	x.mu.Lock()
	defer x.mu.Unlock()
	if x.groupsVersion == version { // else the groups changed meanwhile: answer, but do not keep it
		if x.selecting == nil || len(x.selecting) >= selectingMax {
			x.selecting = map[uint64][]selectingEntry{}
		}
		x.selecting[h] = append(x.selecting[h], selectingEntry{ns: pod.Namespace, labels: maps.Clone(pod.Labels), groups: out})
	}
	return out
}

// groupsChangedLocked records a change to the set of affinity groups (or
// to the group objects, replaced on copy-on-write): the list is rebuilt
// and the memoized selections dropped.
func (x *podIndex) groupsChangedLocked() {
	x.groupList = nil
	x.groupsVersion++
	x.selecting = nil
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
