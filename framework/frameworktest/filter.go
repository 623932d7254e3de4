package frameworktest

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/google/go-cmp/cmp"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/fastpath"
	"github.com/schedkit/schedkit/internal/st"
	"pgregory.net/rapid"
)

// checkBatchFilter holds FilterBatch and FilterRejects to Filter over
// lists (after PreFilter on the snapshot's nodes), without PreFilter
// state, and after AddPod and RemovePod of one of pods on clones of the
// state.
func checkBatchFilter(t *rapid.T, cov *coverage, pl framework.FilterPlugin, snap *framework.Snapshot, pod *framework.PodInfo, lists []nodeList, pods []*api.Pod) {
	if _, ok := pl.(fastpath.BatchFilterPlugin); !ok {
		return
	}
	all := lists[0].nodes
	batchFilterEqualsFilter(t, cov, "without PreFilter", pl, freshState(snap), pod, all)
	state := freshState(snap)
	if _, s := preFilter(pl, state, pod, all); !s.IsSuccess() {
		return
	}
	for _, l := range lists {
		batchFilterEqualsFilter(t, cov, l.what, pl, state, pod, l.nodes)
	}
	pf, ok := pl.(framework.PreFilterPlugin)
	if !ok || pf.PreFilterExtensions() == nil || len(pods) == 0 {
		return
	}
	ext := pf.PreFilterExtensions()
	p := framework.MustPodInfo(pods[rapid.IntRange(0, len(pods)-1).Draw(t, "changed")])
	ni, _ := snap.Get(p.Pod.Spec.NodeName)
	added := state.Clone()
	if s := ext.AddPod(context.Background(), added, pod, p, ni); !s.IsSuccess() {
		t.Fatalf("%s AddPod: %v", pl.Name(), s)
	}
	batchFilterEqualsFilter(t, cov, "after AddPod", pl, added, pod, all)
	removed := state.Clone()
	if s := ext.RemovePod(context.Background(), removed, pod, p, ni); !s.IsSuccess() {
		t.Fatalf("%s RemovePod: %v", pl.Name(), s)
	}
	batchFilterEqualsFilter(t, cov, "after RemovePod", pl, removed, pod, lists[len(lists)-1].nodes)
}

// checkAllNodesPreFilter holds PreFilter told that its nodes are the
// snapshot's own list (CycleState.AllNodes, as the runner runs it) to
// PreFilter over a copy of the list, told nothing: the same status and
// result, and every node's Filter verdict the same, also after AddPod and
// RemovePod of one of pods on clones of both states. A plugin that bounds
// its result before it runs (fastpath.BoundedPreFilterPlugin) names no
// more nodes than its bound.
func checkAllNodesPreFilter(t *rapid.T, cov *coverage, pl framework.FilterPlugin, snap *framework.Snapshot, pod *framework.PodInfo, pods []*api.Pod) {
	pf, ok := pl.(framework.PreFilterPlugin)
	if !ok {
		return
	}
	ctx := context.Background()
	fast, plain := freshState(snap), freshState(snap)
	plain.SetAllNodes(false)
	fr, fs := pf.PreFilter(ctx, fast, pod, snap.Nodes())
	pr, ps := pf.PreFilter(ctx, plain, pod, slices.Clone(snap.Nodes()))
	cov.hit(pl, "PreFilter over all nodes")
	if fs.Code() != ps.Code() || !fs.IsSkip() && !sameVerdict(fs, ps) || fr.AllNodes() != pr.AllNodes() || !fr.AllNodes() && !maps.Equal(fr.NodeNames, pr.NodeNames) {
		t.Fatalf("%s PreFilter over all nodes: %v %v, over a copy of them: %v %v", pl.Name(), fr, fs, pr, ps)
	}
	if bp, ok := pl.(fastpath.BoundedPreFilterPlugin); ok {
		if bound, ok := bp.PreFilterBound(pod); ok && fs.IsSuccess() && (fr.AllNodes() || len(fr.NodeNames) > bound) {
			t.Fatalf("%s PreFilterBound %d, PreFilter's result %v", pl.Name(), bound, fr)
		}
	}
	if !fs.IsSuccess() {
		return
	}
	same := func(what string, a, b *framework.CycleState) {
		for _, n := range snap.Nodes() {
			if got, want := pl.Filter(ctx, a, pod, n), pl.Filter(ctx, b, pod, n); !sameVerdict(got, want) {
				t.Fatalf("%s %s node %s: Filter %v after PreFilter over all nodes, %v over a copy of them", pl.Name(), what, n.Name(), got, want)
			}
		}
	}
	same("", fast, plain)
	ext := pf.PreFilterExtensions()
	if ext == nil || len(pods) == 0 {
		return
	}
	p := framework.MustPodInfo(pods[rapid.IntRange(0, len(pods)-1).Draw(t, "changedAll")])
	ni, _ := snap.Get(p.Pod.Spec.NodeName)
	fa, pa := fast.Clone(), plain.Clone()
	if a, b := ext.AddPod(ctx, fa, pod, p, ni), ext.AddPod(ctx, pa, pod, p, ni); !sameVerdict(a, b) {
		t.Fatalf("%s AddPod: %v after PreFilter over all nodes, %v over a copy of them", pl.Name(), a, b)
	}
	same("after AddPod", fa, pa)
	fd, pd := fast.Clone(), plain.Clone()
	if a, b := ext.RemovePod(ctx, fd, pod, p, ni), ext.RemovePod(ctx, pd, pod, p, ni); !sameVerdict(a, b) {
		t.Fatalf("%s RemovePod: %v after PreFilter over all nodes, %v over a copy of them", pl.Name(), a, b)
	}
	same("after RemovePod", fd, pd)
}

// batchFilterEqualsFilter compares FilterBatch (and FilterRejects, where
// the plugin offers it) over nodes with Filter node by node, with the
// nodes' snapshot indices (when they are the snapshot's own) and without.
func batchFilterEqualsFilter(t *rapid.T, cov *coverage, what string, pl framework.FilterPlugin, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo) {
	b, ok := pl.(fastpath.BatchFilterPlugin)
	if !ok {
		return
	}
	ctx := context.Background()
	idxs := [][]int32{nil}
	if idx := snapshotIndices(state, nodes); idx != nil {
		idxs = append(idxs, idx)
	}
	cov.hit(pl, "FilterBatch")
	for _, idx := range idxs {
		out := make([]*framework.Status, len(nodes))
		b.FilterBatch(ctx, state, pod, nodes, idx, out)
		for i, n := range nodes {
			want := pl.Filter(ctx, state, pod, n)
			if !sameVerdict(out[i], want) {
				t.Fatalf("%s %s (indexed %v) node %s: FilterBatch %v, Filter %v", pl.Name(), what, idx != nil, n.Name(), out[i], want)
			}
		}
		r, ok := pl.(fastpath.RejectingFilterPlugin)
		if !ok {
			continue
		}
		cov.hit(pl, "FilterRejects")
		// After an entry already in the list, one entry per rejected
		// node, in increasing order, with Filter's status.
		head := fastpath.NodeRejection{Node: -1}
		rejected := r.FilterRejects(ctx, state, pod, nodes, idx, []fastpath.NodeRejection{head})
		if len(rejected) == 0 || rejected[0] != head {
			t.Fatalf("%s %s (indexed %v): FilterRejects dropped the entries before its own", pl.Name(), what, idx != nil)
		}
		rejected = rejected[1:]
		for i, n := range nodes {
			want := pl.Filter(ctx, state, pod, n)
			var got *framework.Status
			if len(rejected) > 0 && int(rejected[0].Node) == i {
				got, rejected = rejected[0].Status, rejected[1:]
				if got.IsSuccess() {
					t.Fatalf("%s %s (indexed %v) node %s: FilterRejects lists a success", pl.Name(), what, idx != nil, n.Name())
				}
			}
			if !sameVerdict(got, want) {
				t.Fatalf("%s %s (indexed %v) node %s: FilterRejects %v, Filter %v", pl.Name(), what, idx != nil, n.Name(), got, want)
			}
		}
		if len(rejected) > 0 {
			t.Fatalf("%s %s (indexed %v): FilterRejects lists nodes out of order or twice: %v", pl.Name(), what, idx != nil, rejected)
		}
		deferredEqualsRejects(t, cov, what, pl, state, pod, nodes, idx)
	}
}

// deferredEqualsRejects compares FilterRejectsDeferred, where the plugin
// offers it, with FilterRejects: the same nodes, each with
// FilterRejects' status or with none, and then RejectionStatuses gives
// it, asked for those nodes alone, for each alone, and over every node
// in order, the other entries holding a status it must leave as it is
// (a node another filter rejected first). The room after the list holds
// a stale status, which must not survive.
func deferredEqualsRejects(t *rapid.T, cov *coverage, what string, pl framework.FilterPlugin, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32) {
	d, ok := pl.(fastpath.DeferringRejectingFilterPlugin)
	if !ok {
		return
	}
	ctx := context.Background()
	want := d.FilterRejects(ctx, state, pod, nodes, idx, nil)
	stale := framework.NewStatus(framework.Unschedulable, "stale")
	room := make([]fastpath.NodeRejection, len(nodes)+1)
	for i := range room {
		room[i] = fastpath.NodeRejection{Node: -1, Status: stale}
	}
	got := d.FilterRejectsDeferred(ctx, state, pod, nodes, idx, room[:1])
	if got[0].Node != -1 {
		t.Fatalf("%s %s (indexed %v): FilterRejectsDeferred dropped the entries before its own", pl.Name(), what, idx != nil)
	}
	got = got[1:]
	if len(got) != len(want) {
		t.Fatalf("%s %s (indexed %v): FilterRejectsDeferred lists %d nodes, FilterRejects %d", pl.Name(), what, idx != nil, len(got), len(want))
	}
	// left: the entries listed without a status; window: every node's
	// entry, nil for those, the status given or another filter's for the
	// rest.
	var left []int
	var askNodes []*framework.NodeInfo
	var askIdx []int32
	other := framework.NewStatus(framework.Unschedulable, "another filter")
	window := make([]*framework.Status, len(nodes))
	for i := range window {
		window[i] = other
	}
	for k, x := range got {
		if x.Node != want[k].Node {
			t.Fatalf("%s %s (indexed %v): FilterRejectsDeferred lists node %d where FilterRejects lists %d", pl.Name(), what, idx != nil, x.Node, want[k].Node)
		}
		window[x.Node] = x.Status
		if x.Status != nil {
			if !sameVerdict(x.Status, want[k].Status) {
				t.Fatalf("%s %s (indexed %v) node %s: FilterRejectsDeferred's status %v, FilterRejects' %v", pl.Name(), what, idx != nil, nodes[x.Node].Name(), x.Status, want[k].Status)
			}
			continue
		}
		left = append(left, k)
		askNodes = append(askNodes, nodes[x.Node])
		if idx != nil {
			askIdx = append(askIdx, idx[x.Node])
		}
	}
	if len(left) == 0 {
		return
	}
	cov.hit(pl, "FilterRejectsDeferred")
	all := make([]*framework.Status, len(left))
	d.RejectionStatuses(ctx, state, pod, askNodes, askIdx, all)
	before := slices.Clone(window)
	d.RejectionStatuses(ctx, state, pod, nodes, idx, window)
	for i, st := range before {
		if st != nil && window[i] != st {
			t.Fatalf("%s %s (indexed %v) node %s: RejectionStatuses over every node replaced the status %v with %v", pl.Name(), what, idx != nil, nodes[i].Name(), st, window[i])
		}
	}
	for i, k := range left {
		w, x := want[k].Status, got[k].Node
		name := nodes[x].Name()
		if !sameVerdict(all[i], w) {
			t.Fatalf("%s %s (indexed %v) node %s: RejectionStatuses over %d nodes gives %v, FilterRejects %v", pl.Name(), what, idx != nil, name, len(left), all[i], w)
		}
		if !sameVerdict(window[x], w) {
			t.Fatalf("%s %s (indexed %v) node %s: RejectionStatuses over every node gives %v, FilterRejects %v", pl.Name(), what, idx != nil, name, window[x], w)
		}
		one := []*framework.Status{nil}
		var oneIdx []int32
		if idx != nil {
			oneIdx = askIdx[i : i+1]
		}
		d.RejectionStatuses(ctx, state, pod, askNodes[i:i+1], oneIdx, one)
		if !sameVerdict(one[0], w) {
			t.Fatalf("%s %s (indexed %v) node %s: RejectionStatuses of the node alone gives %v, FilterRejects %v", pl.Name(), what, idx != nil, name, one[0], w)
		}
	}
}

// verdicts returns every snapshot node's Filter verdict under state, and
// those of the batch forms with and without snapshot indices.
func verdicts(pl framework.FilterPlugin, state *framework.CycleState, pod *framework.PodInfo, snap *framework.Snapshot) []string {
	ctx := context.Background()
	nodes := snap.Nodes()
	idx := make([]int32, len(nodes))
	for i := range idx {
		idx[i] = int32(i)
	}
	out := make([]string, len(nodes))
	for i, ni := range nodes {
		out[i] = fmt.Sprintf("%s: %v", ni.Name(), pl.Filter(ctx, state, pod, ni))
	}
	if b, ok := pl.(fastpath.BatchFilterPlugin); ok {
		batch := make([]*framework.Status, len(nodes))
		b.FilterBatch(ctx, state, pod, nodes, idx, batch)
		noIdx := make([]*framework.Status, len(nodes))
		b.FilterBatch(ctx, state, pod, nodes, nil, noIdx)
		for i := range out {
			out[i] += fmt.Sprintf(" / batch %v / %v", batch[i], noIdx[i])
		}
	}
	return out
}

// checkIncrementalPreFilter runs rounds on snap (the check's own clone):
// replicas of pod and other pods are added, PreFilterAfterAdd brings the
// carried state up to date for the next replica, and a fresh PreFilter
// must give the same status and verdicts, also after a nominated pod is
// added to clones of both states.
func checkIncrementalPreFilter(t *rapid.T, cov *coverage, pl framework.FilterPlugin, ip fastpath.IncrementalPreFilterPlugin, snap *framework.Snapshot, tmpl *framework.PodInfo, other func(name, node string) *api.Pod) {
	ctx := context.Background()
	carried := freshState(snap)
	usable := func(res *framework.PreFilterResult, s *framework.Status) bool {
		// PreFilterAfterAdd is used only after all nodes or Skip.
		return (s.IsSuccess() || s.IsSkip()) && res.AllNodes()
	}
	ok := usable(ip.PreFilter(ctx, carried, tmpl, snap.Nodes()))
	seq := 0
	for round := range rapid.IntRange(1, 6).Draw(t, "rounds") {
		added := st.DrawAdded(t, snap, tmpl, other, &seq)
		seq++
		pi := st.Replica(tmpl, fmt.Sprintf("r%d", seq), "")
		fresh := freshState(snap)
		res, want := ip.PreFilter(ctx, fresh, pi, snap.Nodes())
		if !ok {
			// The runner runs PreFilter again.
			carried, ok = fresh, usable(res, want)
			continue
		}
		got := ip.PreFilterAfterAdd(ctx, carried, pi, added)
		if !got.Equal(want) {
			t.Fatalf("%s round %d: PreFilterAfterAdd = %v, PreFilter = %v", pl.Name(), round, got, want)
		}
		cov.hit(pl, "PreFilterAfterAdd")
		if !usable(res, want) {
			carried, ok = freshState(snap), false
			continue
		}
		if !want.IsSuccess() {
			continue
		}
		if diff := cmp.Diff(verdicts(pl, fresh, pi, snap), verdicts(pl, carried, pi, snap)); diff != "" {
			t.Fatalf("%s round %d: verdicts differ (-PreFilter +PreFilterAfterAdd):\n%s", pl.Name(), round, diff)
		}
		ext := ip.PreFilterExtensions()
		if ext == nil {
			continue
		}
		nodes := snap.Nodes()
		ni := nodes[rapid.IntRange(0, len(nodes)-1).Draw(t, "nominatedOn")]
		var nominated *framework.PodInfo
		if other != nil && rapid.Bool().Draw(t, "nominatedOther") {
			nominated = framework.MustPodInfo(other("nominated", ni.Name()))
		} else {
			nominated = st.Replica(tmpl, "nominated", ni.Name())
		}
		fc, cc := fresh.Clone(), carried.Clone()
		if s := ext.AddPod(ctx, fc, pi, nominated, ni); !s.IsSuccess() {
			t.Fatalf("%s AddPod: %v", pl.Name(), s)
		}
		if s := ext.AddPod(ctx, cc, pi, nominated, ni); !s.IsSuccess() {
			t.Fatalf("%s AddPod: %v", pl.Name(), s)
		}
		if diff := cmp.Diff(verdicts(pl, fc, pi, snap), verdicts(pl, cc, pi, snap)); diff != "" {
			t.Fatalf("%s round %d: verdicts after AddPod differ (-PreFilter +PreFilterAfterAdd):\n%s", pl.Name(), round, diff)
		}
	}
}
