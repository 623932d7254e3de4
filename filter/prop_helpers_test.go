package filter

import (
	"context"
	"fmt"

	"github.com/google/go-cmp/cmp"
	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"pgregory.net/rapid"
)

// Helpers of the plugins' own property tests: the incremental checks of
// InterPodAffinity's fast paths read verdicts and run rounds of added pods
// with them. Every plugin's fast forms are held to Filter by the
// conformance harness (conformance_test.go).

// incrPlugin is what the incremental checks need of a filter plugin.
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
	fresh.SetAllNodes(true)
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
