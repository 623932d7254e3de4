package scoring

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
)

// This file checks PreScoreAfterAdd (framework.IncrementalPreScorePlugin)
// of PodTopologySpread and InterPodAffinity against PreScore run afresh:
// a random cluster, a pod, then rounds in which replicas of the pod (its
// PodInfo shared, a new name, as WhatIf.Capacity places them) and other
// pods are added to the snapshot on random nodes and a new window of
// scored nodes is drawn, after which the carried state must give what a
// new CycleState with PreScore gives on the same snapshot and window: the
// status (Skip included), ScoreBatch (with and without snapshot indices)
// and Score of every window node, NormalizeScoreBatch and NormalizeScore.

// incrScorePlugin is what the check needs of a score plugin.
type incrScorePlugin interface {
	fw.IncrementalPreScorePlugin
	fw.BatchScorePlugin
	ScoreExtensions() fw.ScoreExtensions
}

// incrWindow draws the nodes of a cycle as the runner passes them: a
// subsequence of the snapshot's nodes from a random start, wrapping.
func incrWindow(t *rapid.T, snap *fw.Snapshot) []*fw.NodeInfo {
	nodes := snap.Nodes()
	start := rapid.IntRange(0, len(nodes)-1).Draw(t, "start")
	var w []*fw.NodeInfo
	for i := range nodes {
		if rapid.IntRange(0, 3).Draw(t, "inWindow") > 0 {
			w = append(w, nodes[(start+i)%len(nodes)])
		}
	}
	return w
}

// incrScores returns the scores of window under state: ScoreBatch with
// and without indices, Score, and both normalizations.
func incrScores(t *rapid.T, pl incrScorePlugin, state *fw.CycleState, pi *fw.PodInfo, window []*fw.NodeInfo) []string {
	ctx := context.Background()
	idx := make([]int32, len(window))
	for i, ni := range window {
		idx[i] = int32(ni.Index())
	}
	batch := make([]int64, len(window))
	if s := pl.ScoreBatch(ctx, state, pi, window, idx, batch); s != nil {
		t.Fatalf("ScoreBatch: %v", s)
	}
	noIdx := make([]int64, len(window))
	if s := pl.ScoreBatch(ctx, state, pi, window, nil, noIdx); s != nil {
		t.Fatalf("ScoreBatch: %v", s)
	}
	batchCheckBounds(t, "window", pl, state, pi, window, idx)
	batchCheckBounds(t, "window", pl, state, pi, window, nil)
	list := make(fw.NodeScoreList, len(window))
	out := make([]string, len(window))
	for i, ni := range window {
		v, s := pl.Score(ctx, state, pi, ni)
		if s != nil {
			t.Fatalf("Score: %v", s)
		}
		if batch[i] != v || noIdx[i] != v {
			// framework.BatchScorePlugin: ScoreBatch is Score's.
			t.Fatalf("node %s: Score %d, ScoreBatch %d (with indices) and %d (without)", ni.Name(), v, batch[i], noIdx[i])
		}
		list[i] = fw.NodeScore{Name: ni.Name(), Score: v}
		out[i] = fmt.Sprintf("%s: %d / batch %d / %d", ni.Name(), v, batch[i], noIdx[i])
	}
	if ext := pl.ScoreExtensions(); ext != nil {
		norm := slices.Clone(batch)
		if b, ok := ext.(fw.BatchScoreExtensions); ok {
			if s := b.NormalizeScoreBatch(ctx, state, pi, window, norm); s != nil {
				t.Fatalf("NormalizeScoreBatch: %v", s)
			}
		}
		if s := ext.NormalizeScore(ctx, state, pi, list); s != nil {
			t.Fatalf("NormalizeScore: %v", s)
		}
		for i := range out {
			out[i] += fmt.Sprintf(" → %d / batch %d", list[i].Score, norm[i])
		}
	}
	return out
}

// incrOutside returns Score (the value or the error) of every snapshot
// node not in window under state.
func incrOutside(pl incrScorePlugin, state *fw.CycleState, pi *fw.PodInfo, window []*fw.NodeInfo) []string {
	var out []string
	for _, ni := range state.Snapshot().Nodes() {
		if slices.Contains(window, ni) {
			continue
		}
		v, s := pl.Score(context.Background(), state, pi, ni)
		out = append(out, fmt.Sprintf("%s: %d %v", ni.Name(), v, s))
	}
	return out
}

// incrAfterAddRound holds PreScoreAfterAdd on carried (pi the next
// replica, added the pods added since) to PreScore on a fresh state: the
// same status and, when it succeeds, the same scores over window. It
// returns the fresh state and whether PreScore succeeded.
func incrAfterAddRound(t *rapid.T, pl incrScorePlugin, snap *fw.Snapshot, carried *fw.CycleState, pi *fw.PodInfo, window []*fw.NodeInfo, added []fw.AddedPod, round int) (*fw.CycleState, bool) {
	ctx := context.Background()
	got := pl.PreScoreAfterAdd(ctx, carried, pi, window, added)
	fresh := fw.NewCycleState()
	fresh.SetSnapshot(snap)
	want := pl.PreScore(ctx, fresh, pi, window)
	if !got.Equal(want) {
		t.Fatalf("round %d: PreScoreAfterAdd = %v, PreScore = %v", round, got, want)
	}
	if !want.IsSuccess() {
		return fresh, false
	}
	if diff := cmp.Diff(incrScores(t, pl, fresh, pi, window), incrScores(t, pl, carried, pi, window)); diff != "" {
		t.Fatalf("round %d: scores differ (-PreScore +PreScoreAfterAdd):\n%s", round, diff)
	}
	return fresh, true
}

// incrCheckPreScore runs the rounds on snap for the pod tmpl: carried,
// which PreScore ran on, against a fresh state each round. other draws
// the pods added beside the replicas. With outside, Score of the snapshot
// nodes outside the window must agree too.
func incrCheckPreScore(t *rapid.T, pl incrScorePlugin, snap *fw.Snapshot, tmpl *fw.PodInfo, other func(name, node string) *api.Pod, outside bool) {
	ctx := context.Background()
	if snap.NumNodes() == 0 {
		return
	}
	carried := fw.NewCycleState()
	carried.SetSnapshot(snap)
	if s := pl.PreScore(ctx, carried, tmpl, incrWindow(t, snap)); !s.IsSuccess() && !s.IsSkip() {
		t.Fatalf("PreScore: %v", s)
	}
	seq := 0
	for round := range rapid.IntRange(1, 6).Draw(t, "rounds") {
		added := st.DrawAdded(t, snap, tmpl, other, &seq)
		seq++
		pi := st.Replica(tmpl, fmt.Sprintf("r%d", seq), "")
		window := incrWindow(t, snap)
		fresh, ok := incrAfterAddRound(t, pl, snap, carried, pi, window, added, round)
		if !ok {
			continue
		}
		if !outside {
			continue
		}
		if diff := cmp.Diff(incrOutside(pl, fresh, pi, window), incrOutside(pl, carried, pi, window)); diff != "" {
			t.Fatalf("round %d: scores outside the window differ (-PreScore +PreScoreAfterAdd):\n%s", round, diff)
		}
	}
}

// PodTopologySpread: soft constraints over zone and hostname (nodes
// lacking keys, ignored when every key is required), system and List
// defaults, inclusion policies with taints and a nodeSelector, pods in
// another namespace and being deleted, several constraints.
func TestPropPodTopologySpreadPreScoreAfterAddMatchesPreScore(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := ptsDrawScoreCase(t)
		pl, err := NewPodTopologySpread(c.args, ptsHandle{rapid.IntRange(1, 3).Draw(t, "parallelism")})
		if err != nil {
			t.Fatal(err)
		}
		snap := fw.MustSnapshot(c.nodes, c.existing, c.opts...)
		other := func(name, node string) *api.Pod {
			w := st.MakePod().Name(name).Node(node)
			if rapid.IntRange(0, 4).Draw(t, "otherNS") == 0 {
				w.Namespace("other")
			}
			if rapid.IntRange(0, 5).Draw(t, "otherTerm") == 0 {
				w.Terminating(st.PtsDeletionTime())
			}
			switch rapid.IntRange(0, 2).Draw(t, "otherApp") {
			case 1:
				w.Label("app", "a")
			case 2:
				w.Label("app", "b")
			}
			return w.Obj()
		}
		incrCheckPreScore(t, pl.(*PodTopologySpread), snap, fw.MustPodInfo(c.pod), other, true)
	})
}

// InterPodAffinity: preferred and required (anti-)affinity of the pod and
// of the existing and added pods in both directions, hardPodAffinityWeight
// 0 and positive, ignorePreferredTermsOfExistingPods, namespace lists and
// selectors, the pod-index path and the reference walk.
func TestPropInterPodAffinityPreScoreAfterAddMatchesPreScore(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := ipaGenScoreCluster(t)
		snap := fw.MustSnapshot(c.nodes, c.pods, fw.WithNamespaces(ipaGenNS...))
		pl, err := NewInterPodAffinity(c.args, ipaScoreHandle{rapid.IntRange(1, 3).Draw(t, "parallelism")})
		if err != nil {
			t.Fatal(err)
		}
		p := pl.(*InterPodAffinity)
		p.reference = rapid.IntRange(0, 3).Draw(t, "reference") == 0
		other := func(name, node string) *api.Pod { return ipaGenScorePod(t, name, node) }
		incrCheckPreScore(t, p, snap, fw.MustPodInfo(c.pod), other, false)
	})
}
