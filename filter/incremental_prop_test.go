package filter

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
)

// This file checks PreFilterAfterAdd (framework.IncrementalPreFilterPlugin)
// of PodTopologySpread and InterPodAffinity against PreFilter run afresh:
// a random cluster, a pod, then rounds in which replicas of the pod (its
// PodInfo shared, a new name, as WhatIf.Capacity places them) and other
// pods are added to the snapshot on random nodes, after which the carried
// state must give what a new CycleState with PreFilter gives on the same
// snapshot: the status (Skip included), every node's Filter and
// FilterBatch verdict, and the verdicts after a further kube-style AddPod
// (a nominated pod) on clones of both states.

// incrPlugin is what the check needs of a filter plugin.
type incrPlugin interface {
	fw.IncrementalPreFilterPlugin
	fw.BatchFilterPlugin
	PreFilterExtensions() fw.PreFilterExtensions
}

// incrVerdicts returns every snapshot node's Filter and FilterBatch
// verdicts under state.
func incrVerdicts(pl incrPlugin, state *fw.CycleState, pi *fw.PodInfo, snap *fw.Snapshot) []string {
	ctx := context.Background()
	nodes := snap.Nodes()
	idx := make([]int32, len(nodes))
	for i := range idx {
		idx[i] = int32(i)
	}
	batch := make([]*fw.Status, len(nodes))
	pl.FilterBatch(ctx, state, pi, nodes, idx, batch)
	noIdx := make([]*fw.Status, len(nodes))
	pl.FilterBatch(ctx, state, pi, nodes, nil, noIdx)
	out := make([]string, len(nodes))
	for i, ni := range nodes {
		out[i] = fmt.Sprintf("%s: %v / batch %v / %v", ni.Name(), pl.Filter(ctx, state, pi, ni), batch[i], noIdx[i])
	}
	return out
}

// incrCheckPreFilter runs the rounds on snap for the pod tmpl: carried,
// which PreFilter ran on, against a fresh state each round. other draws
// the pods added beside the replicas (and the nominated pod).
func incrCheckPreFilter(t *rapid.T, pl incrPlugin, snap *fw.Snapshot, tmpl *fw.PodInfo, other func(name, node string) *api.Pod) {
	ctx := context.Background()
	if snap.NumNodes() == 0 {
		return
	}
	carried := fw.NewCycleState()
	carried.SetSnapshot(snap)
	if _, s := pl.PreFilter(ctx, carried, tmpl, snap.Nodes()); !s.IsSuccess() && !s.IsSkip() {
		t.Fatalf("PreFilter: %v", s)
	}
	seq := 0
	for round := range rapid.IntRange(1, 6).Draw(t, "rounds") {
		pi, fresh := incrRound(t, pl, snap, carried, tmpl, other, &seq, round)
		if fresh != nil {
			incrCheckAddPod(t, pl, snap, tmpl, pi, fresh, carried, other, round)
		}
	}
}

// incrRound adds replicas of tmpl and other pods to snap, brings carried
// up to date with PreFilterAfterAdd for the next replica, pi, and checks
// it against PreFilter on a fresh state, fresh: the status, then every
// node's verdicts. fresh is nil when PreFilter did not succeed.
func incrRound(t *rapid.T, pl incrPlugin, snap *fw.Snapshot, carried *fw.CycleState, tmpl *fw.PodInfo, other func(name, node string) *api.Pod, seq *int, round int) (pi *fw.PodInfo, fresh *fw.CycleState) {
	ctx := context.Background()
	added := st.DrawAdded(t, snap, tmpl, other, seq)
	*seq++
	pi = st.Replica(tmpl, fmt.Sprintf("r%d", *seq), "")
	got := pl.PreFilterAfterAdd(ctx, carried, pi, added)
	fresh = fw.NewCycleState()
	fresh.SetSnapshot(snap)
	_, want := pl.PreFilter(ctx, fresh, pi, snap.Nodes())
	if !got.Equal(want) {
		t.Fatalf("round %d: PreFilterAfterAdd = %v, PreFilter = %v", round, got, want)
	}
	if !want.IsSuccess() {
		return pi, nil
	}
	if diff := cmp.Diff(incrVerdicts(pl, fresh, pi, snap), incrVerdicts(pl, carried, pi, snap)); diff != "" {
		t.Fatalf("round %d: verdicts differ (-PreFilter +PreFilterAfterAdd):\n%s", round, diff)
	}
	return pi, fresh
}

// incrCheckAddPod adds a nominated pod the kube way to clones of fresh and
// carried (both written for pi) and compares every node's verdicts.
func incrCheckAddPod(t *rapid.T, pl incrPlugin, snap *fw.Snapshot, tmpl, pi *fw.PodInfo, fresh, carried *fw.CycleState, other func(name, node string) *api.Pod, round int) {
	ctx := context.Background()
	nodes := snap.Nodes()
	ni := nodes[rapid.IntRange(0, len(nodes)-1).Draw(t, "nominatedOn")]
	var nominated *fw.PodInfo
	if other != nil && rapid.Bool().Draw(t, "nominatedOther") {
		nominated = fw.MustPodInfo(other("nominated", ni.Name()))
	} else {
		nominated = st.Replica(tmpl, "nominated", ni.Name())
	}
	fc, cc := fresh.Clone(), carried.Clone()
	ext := pl.PreFilterExtensions()
	if s := ext.AddPod(ctx, fc, pi, nominated, ni); !s.IsSuccess() {
		t.Fatalf("AddPod: %v", s)
	}
	if s := ext.AddPod(ctx, cc, pi, nominated, ni); !s.IsSuccess() {
		t.Fatalf("AddPod: %v", s)
	}
	if diff := cmp.Diff(incrVerdicts(pl, fc, pi, snap), incrVerdicts(pl, cc, pi, snap)); diff != "" {
		t.Fatalf("round %d: verdicts after AddPod differ (-PreFilter +PreFilterAfterAdd):\n%s", round, diff)
	}
}

// PodTopologySpread: hard constraints over zone, rack and hostname (nodes
// lacking keys), minDomains, inclusion policies, taints, selectors that do
// and do not match the pod itself, pods in other namespaces and being
// deleted.
func TestPropPodTopologySpreadPreFilterAfterAddMatchesPreFilter(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := ptsDrawCluster(t, true)
		if rapid.IntRange(0, 4).Draw(t, "noConstraints") == 0 {
			c.pod.Spec.TopologySpreadConstraints = nil // Skip
		}
		pl, err := NewPodTopologySpread(ptsListArgs, ptsHandleOf(rapid.IntRange(1, 3).Draw(t, "parallelism")))
		if err != nil {
			t.Fatal(err)
		}
		snap := fw.MustSnapshot(c.nodes, c.existing)
		other := func(name, node string) *api.Pod {
			w := ptsDrawLabels(t, st.MakePod().Name(name).Node(node), "added")
			if rapid.IntRange(0, 3).Draw(t, "otherNS") == 0 {
				w.Namespace("other")
			}
			return w.Obj()
		}
		incrCheckPreFilter(t, pl.(*PodTopologySpread), snap, fw.MustPodInfo(c.pod), other)
	})
}

// InterPodAffinity: required affinity and anti-affinity of the pod and of
// the existing and added pods (Skip turning into a state when a replica
// with required anti-affinity selects the pod), over zone, host, rack and
// a key no node has, with namespace lists and selectors.
func TestPropInterPodAffinityPreFilterAfterAddMatchesPreFilter(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := ipaGenCluster(t)
		for range 2 { // more pods with required terms of their own
			if c.pod.Spec.Affinity == nil {
				c.pod = ipaGenPod(t, "incoming", "", 2)
			}
		}
		snap := fw.MustSnapshot(c.nodes, c.pods, fw.WithNamespaces(ipaGenNamespaces...))
		other := func(name, node string) *api.Pod { return ipaGenPod(t, name, node, 2) }
		incrCheckPreFilter(t, ipaNewFilter(t, rapid.IntRange(1, 3).Draw(t, "parallelism")), snap, fw.MustPodInfo(c.pod), other)
	})
}
