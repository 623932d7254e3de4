package frameworktest

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/google/go-cmp/cmp"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/fastpath"
	"github.com/schedkit/schedkit/internal/st"
	"pgregory.net/rapid"
)

// checkBatchScore holds the batch score forms, a constant score and the
// normalizers to Score and NormalizeScore over lists (PreScore over the
// same list), and without PreScore state, in chunks of a drawn size; and
// PreScore given the nodes' snapshot indices (CycleState.ScoredIndices)
// to PreScore without them.
func checkBatchScore(t *rapid.T, cov *coverage, pl framework.ScorePlugin, snap *framework.Snapshot, pod *framework.PodInfo, lists []nodeList) {
	chunk := rapid.IntRange(1, 8).Draw(t, "chunk")
	constantEqualsScore(t, cov, "without PreScore", pl, snap, freshState(snap), pod)
	batchScoreEqualsScore(t, cov, "without PreScore", pl, freshState(snap), pod, lists[0].nodes, chunk)
	for _, l := range lists {
		state := freshState(snap)
		if s := preScore(pl, state, pod, l.nodes); !s.IsSuccess() {
			continue
		}
		scoredIndicesChangeNothing(t, pl, snap, state, pod, l)
		constantEqualsScore(t, cov, l.what, pl, snap, state, pod)
		batchScoreEqualsScore(t, cov, l.what, pl, state, pod, l.nodes, chunk)
		checkRange(t, cov, l.what, pl, state, pod, l.nodes)
	}
}

// constantEqualsScore holds a score the plugin reports for every node of
// the snapshot (fastpath.ConstantScorePlugin) to Score on each of them.
func constantEqualsScore(t *rapid.T, cov *coverage, what string, pl framework.ScorePlugin, snap *framework.Snapshot, state *framework.CycleState, pod *framework.PodInfo) {
	cp, ok := pl.(fastpath.ConstantScorePlugin)
	if !ok {
		return
	}
	ctx := context.Background()
	v, ok := cp.ConstantScore(ctx, state, pod)
	if !ok {
		return
	}
	cov.hit(pl, "ConstantScore")
	for _, n := range snap.Nodes() {
		if s, st := pl.Score(ctx, state, pod, n); !st.IsSuccess() || s != v {
			t.Fatalf("%s %s: ConstantScore %d, Score on node %s %d %v", pl.Name(), what, v, n.Name(), s, st)
		}
	}
}

// scoredIndicesChangeNothing runs PreScore over l's nodes again, told
// their snapshot indices as the runner tells them (when every node is
// the snapshot's own), and compares each node's Score, then
// NormalizeScore, with those of state, whose PreScore was not told.
func scoredIndicesChangeNothing(t *rapid.T, pl framework.ScorePlugin, snap *framework.Snapshot, state *framework.CycleState, pod *framework.PodInfo, l nodeList) {
	idx := snapshotIndices(state, l.nodes)
	if idx == nil {
		return
	}
	told := freshState(snap)
	told.SetScoredIndices(idx)
	s := preScore(pl, told, pod, l.nodes)
	told.SetScoredIndices(nil)
	if !s.IsSuccess() {
		t.Fatalf("%s %s: PreScore told the nodes' indices: %v; not told: success", pl.Name(), l.what, s)
	}
	ctx := context.Background()
	want := make(framework.NodeScoreList, len(l.nodes))
	got := make(framework.NodeScoreList, len(l.nodes))
	for i, n := range l.nodes {
		w, ws := pl.Score(ctx, state, pod, n)
		g, gs := pl.Score(ctx, told, pod, n)
		if ws.IsSuccess() != gs.IsSuccess() || w != g {
			t.Fatalf("%s %s node %s: Score after PreScore told the indices %d %v, not told %d %v", pl.Name(), l.what, n.Name(), g, gs, w, ws)
		}
		want[i] = framework.NodeScore{Name: n.Name(), Score: w}
		got[i] = framework.NodeScore{Name: n.Name(), Score: g}
	}
	ext := pl.ScoreExtensions()
	if ext == nil {
		return
	}
	ws, gs := ext.NormalizeScore(ctx, state, pod, want), ext.NormalizeScore(ctx, told, pod, got)
	if ws.IsSuccess() != gs.IsSuccess() || !slices.Equal(want, got) {
		t.Fatalf("%s %s: NormalizeScore after PreScore told the indices %v %v, not told %v %v", pl.Name(), l.what, got, gs, want, ws)
	}
}

// batchScoreEqualsScore compares ScoreBatch over nodes, in chunks, with
// Score node by node (the same scores when Score succeeds everywhere, a
// failure when it fails somewhere), ScoreBatchBounds with ScoreBatch, and
// NormalizeScoreBatch with NormalizeScore.
func batchScoreEqualsScore(t *rapid.T, cov *coverage, what string, pl framework.ScorePlugin, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, chunk int) {
	ctx := context.Background()
	if b, ok := pl.(fastpath.BatchScorePlugin); ok {
		cov.hit(pl, "ScoreBatch")
		idx := snapshotIndices(state, nodes)
		for lo := 0; lo < len(nodes); lo += chunk {
			hi := min(lo+chunk, len(nodes))
			out := dirtyScores(hi - lo)
			bs := b.ScoreBatch(ctx, state, pod, nodes[lo:hi], nil, out)
			checkBounds(t, cov, what, pl, state, pod, nodes[lo:hi], nil)
			checkAdd(t, cov, what, pl, state, pod, nodes[lo:hi], nil)
			if idx != nil {
				checkBounds(t, cov, what, pl, state, pod, nodes[lo:hi], idx[lo:hi])
				checkAdd(t, cov, what, pl, state, pod, nodes[lo:hi], idx[lo:hi])
				outIdx := dirtyScores(hi - lo)
				bsIdx := b.ScoreBatch(ctx, state, pod, nodes[lo:hi], idx[lo:hi], outIdx)
				if bsIdx.IsSuccess() != bs.IsSuccess() || bs.IsSuccess() && !slices.Equal(outIdx, out) {
					t.Fatalf("%s %s nodes [%d,%d): ScoreBatch indexed %v %v, unindexed %v %v", pl.Name(), what, lo, hi, outIdx, bsIdx, out, bs)
				}
			}
			var failed *framework.Status
			want := make([]int64, hi-lo)
			for i, n := range nodes[lo:hi] {
				v, s := pl.Score(ctx, state, pod, n)
				if !s.IsSuccess() && failed == nil {
					failed = s
				}
				want[i] = v
			}
			if bs.IsSuccess() != failed.IsSuccess() {
				t.Fatalf("%s %s nodes [%d,%d): ScoreBatch status %v, Score status %v", pl.Name(), what, lo, hi, bs, failed)
			}
			if failed.IsSuccess() && !slices.Equal(out, want) {
				t.Fatalf("%s %s nodes [%d,%d): ScoreBatch %v, Score %v", pl.Name(), what, lo, hi, out, want)
			}
		}
	}
	checkNormalizeBatch(t, cov, what, pl, state, pod, nodes)
}

// dirtyScores returns a buffer of n scores left from another call, each
// different: ScoreBatch and ScoreBatchBounds must set every entry,
// whatever a reused buffer holds.
func dirtyScores(n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = -7 - int64(i)
	}
	return out
}

// checkBounds checks ScoreBatchBounds over nodes, with snapshot indices
// idx (nil: none): ScoreBatch's status and scores and, when it succeeds,
// their least and greatest.
func checkBounds(t *rapid.T, cov *coverage, what string, pl framework.ScorePlugin, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32) {
	b, ok := pl.(fastpath.BoundedBatchScorePlugin)
	if !ok {
		return
	}
	cov.hit(pl, "ScoreBatchBounds")
	ctx := context.Background()
	want := dirtyScores(len(nodes))
	ws := b.ScoreBatch(ctx, state, pod, nodes, idx, want)
	got := dirtyScores(len(nodes))
	lo, hi, gs := b.ScoreBatchBounds(ctx, state, pod, nodes, idx, got)
	if ws.IsSuccess() != gs.IsSuccess() {
		t.Fatalf("%s %s: ScoreBatchBounds status %v, ScoreBatch %v", pl.Name(), what, gs, ws)
	}
	if !ws.IsSuccess() {
		return
	}
	if !slices.Equal(got, want) {
		t.Fatalf("%s %s: ScoreBatchBounds scores %v, ScoreBatch %v", pl.Name(), what, got, want)
	}
	wlo, whi := int64(math.MaxInt64), int64(math.MinInt64)
	for _, v := range want {
		wlo, whi = min(wlo, v), max(whi, v)
	}
	if len(want) == 0 {
		if lo <= hi {
			t.Fatalf("%s %s: ScoreBatchBounds of no node [%d, %d], want lo > hi", pl.Name(), what, lo, hi)
		}
		return
	}
	if lo != wlo || hi != whi {
		t.Fatalf("%s %s: ScoreBatchBounds bounds [%d, %d] of %v, want [%d, %d]", pl.Name(), what, lo, hi, want, wlo, whi)
	}
}

// checkAdd checks ScoreBatchAdd over nodes, with snapshot indices idx
// (nil: none), with a drawn weight onto drawn totals: false when
// ScoreBatch fails or gives a score outside [MinNodeScore, MaxNodeScore]
// (and, when true, the totals plus the weighted scores). A plugin may
// decline scores in range too, but one that declines every batch the
// cases give it fails Run's coverage check.
func checkAdd(t *rapid.T, cov *coverage, what string, pl framework.ScorePlugin, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, idx []int32) {
	a, ok := pl.(fastpath.AddingBatchScorePlugin)
	if !ok || pl.ScoreExtensions() != nil {
		return
	}
	ctx := context.Background()
	scores := make([]int64, len(nodes))
	ws := a.ScoreBatch(ctx, state, pod, nodes, idx, scores)
	inRange := ws.IsSuccess()
	for _, v := range scores {
		inRange = inRange && v >= framework.MinNodeScore && v <= framework.MaxNodeScore
	}
	w := rapid.Int64Range(1, 10).Draw(t, "addWeight")
	totals := make([]int64, len(nodes))
	for i := range totals {
		totals[i] = rapid.Int64Range(-1000, 1000).Draw(t, "addTotal")
	}
	got := slices.Clone(totals)
	out := make([]int64, len(nodes))
	for i := range out {
		out[i] = -7 // scratch: what ScoreBatchAdd finds there must not matter
	}
	added := a.ScoreBatchAdd(ctx, state, pod, nodes, idx, out, w, got)
	if added && !inRange {
		t.Fatalf("%s %s (indexed %v): ScoreBatchAdd adds scores ScoreBatch gives as %v %v", pl.Name(), what, idx != nil, scores, ws)
	}
	if !inRange || !added {
		return
	}
	cov.hit(pl, "ScoreBatchAdd") // what it added is compared below
	for i := range totals {
		if want := totals[i] + w*scores[i]; got[i] != want {
			t.Fatalf("%s %s (indexed %v) node %s: ScoreBatchAdd total %d, want %d + %d·%d", pl.Name(), what, idx != nil, nodes[i].Name(), got[i], totals[i], w, scores[i])
		}
	}
}

// rawScores returns Score of every node, false when it fails on one.
func rawScores(pl framework.ScorePlugin, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo) ([]int64, bool) {
	row := make([]int64, len(nodes))
	for j, n := range nodes {
		v, s := pl.Score(context.Background(), state, pod, n)
		if !s.IsSuccess() {
			return nil, false
		}
		row[j] = v
	}
	return row, true
}

// checkNormalizeBatch compares NormalizeScoreBatch with NormalizeScore on
// the plugin's scores of nodes (when Score succeeds on all of them).
func checkNormalizeBatch(t *rapid.T, cov *coverage, what string, pl framework.ScorePlugin, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo) {
	ext := pl.ScoreExtensions()
	b, ok := ext.(fastpath.BatchScoreExtensions)
	if !ok {
		return
	}
	row, ok := rawScores(pl, state, pod, nodes)
	if !ok {
		return
	}
	cov.hit(pl, "NormalizeScoreBatch")
	list := make(framework.NodeScoreList, len(nodes))
	for j, n := range nodes {
		list[j] = framework.NodeScore{Name: n.Name(), Score: row[j]}
	}
	s1 := ext.NormalizeScore(context.Background(), state, pod, list)
	s2 := b.NormalizeScoreBatch(context.Background(), state, pod, nodes, row)
	if s1.IsSuccess() != s2.IsSuccess() {
		t.Fatalf("%s %s: NormalizeScore %v, NormalizeScoreBatch %v", pl.Name(), what, s1, s2)
	}
	if !s1.IsSuccess() {
		return
	}
	for j := range list {
		if list[j].Score != row[j] {
			t.Fatalf("%s %s node %s: NormalizeScore %d, NormalizeScoreBatch %d", pl.Name(), what, nodes[j].Name(), list[j].Score, row[j])
		}
	}
}

// checkRange normalizes the plugin's scores of nodes, and a drawn row of
// scores (negative, constant, wide), with NormalizeScore and through the
// NormalizeRange table over the row's bounds: the same scores, and no
// table where NormalizeScore fails.
func checkRange(t *rapid.T, cov *coverage, what string, pl framework.ScorePlugin, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo) {
	if _, ok := pl.ScoreExtensions().(fastpath.RangeNormalizer); !ok || len(nodes) == 0 {
		return
	}
	if row, ok := rawScores(pl, state, pod, nodes); ok {
		rangeEqualsNormalize(t, cov, what, pl, state, pod, nodes, row)
	}
	lo := rapid.Int64Range(-300, 300).Draw(t, "rangeLo")
	span := rapid.SampledFrom([]int64{0, 1, 2, 7, 100, 1000}).Draw(t, "rangeSpan")
	// Every score of [lo, lo+span], so that every entry of the table is
	// compared, then a few more.
	random := rapid.SliceOfN(rapid.Int64Range(lo, lo+span), 0, 30).Draw(t, "rangeRow")
	for v := lo; v <= lo+span; v++ {
		random = append(random, v)
	}
	rangeEqualsNormalize(t, cov, what+" (drawn row)", pl, state, pod, nodes, random)
	// Without PreScore state NormalizeScore may fail: no table then.
	rangeEqualsNormalize(t, cov, what+" (without PreScore)", pl, freshState(state.Snapshot()), pod, nodes, random)
}

// rangeEqualsNormalize normalizes row (row[j] the score of
// nodes[j%len(nodes)]) with NormalizeScore and through NormalizeRange.
func rangeEqualsNormalize(t *rapid.T, cov *coverage, what string, pl framework.ScorePlugin, state *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo, row []int64) {
	rn := pl.ScoreExtensions().(fastpath.RangeNormalizer)
	if len(row) == 0 {
		return
	}
	lo, hi := row[0], row[0]
	list := make(framework.NodeScoreList, len(row))
	for j, v := range row {
		lo, hi = min(lo, v), max(hi, v)
		list[j] = framework.NodeScore{Name: nodes[j%len(nodes)].Name(), Score: v}
	}
	s := rn.NormalizeScore(context.Background(), state, pod, list)
	table := make([]int64, hi-lo+1)
	if !rn.NormalizeRange(context.Background(), state, pod, lo, table) {
		return
	}
	cov.hit(pl, "NormalizeRange")
	if !s.IsSuccess() {
		t.Fatalf("%s %s: NormalizeScore fails (%v) but NormalizeRange gives a table", pl.Name(), what, s)
	}
	for j, v := range row {
		if got := table[v-lo]; got != list[j].Score {
			t.Fatalf("%s %s: raw %d in [%d, %d]: NormalizeRange %d, NormalizeScore %d (row %v)", pl.Name(), what, v, lo, hi, got, list[j].Score, row)
		}
	}
}

// window draws the nodes of a cycle as the runner passes them: a
// subsequence of the snapshot's nodes from a random start, wrapping.
func window(t *rapid.T, snap *framework.Snapshot) []*framework.NodeInfo {
	nodes := snap.Nodes()
	start := rapid.IntRange(0, len(nodes)-1).Draw(t, "start")
	var w []*framework.NodeInfo
	for i := range nodes {
		if rapid.IntRange(0, 3).Draw(t, "inWindow") > 0 {
			w = append(w, nodes[(start+i)%len(nodes)])
		}
	}
	return w
}

// windowScores returns the scores of window under state: Score, the batch
// forms with and without indices, and both normalizations. It fails the
// check where a batch form disagrees with Score.
func windowScores(t *rapid.T, cov *coverage, pl framework.ScorePlugin, state *framework.CycleState, pi *framework.PodInfo, window []*framework.NodeInfo) []string {
	ctx := context.Background()
	idx := make([]int32, len(window))
	for i, ni := range window {
		idx[i] = int32(ni.Index())
	}
	out := make([]string, len(window))
	list := make(framework.NodeScoreList, len(window))
	row := make([]int64, len(window))
	for i, ni := range window {
		v, s := pl.Score(ctx, state, pi, ni)
		if !s.IsSuccess() {
			for j, nj := range window {
				v, s := pl.Score(ctx, state, pi, nj)
				out[j] = fmt.Sprintf("%s: %d %v", nj.Name(), v, s)
			}
			return out
		}
		list[i], row[i] = framework.NodeScore{Name: ni.Name(), Score: v}, v
		out[i] = fmt.Sprintf("%s: %d", ni.Name(), v)
	}
	batchScoreEqualsScore(t, cov, "window", pl, state, pi, window, max(1, len(window)))
	checkBounds(t, cov, "window", pl, state, pi, window, idx)
	if ext := pl.ScoreExtensions(); ext != nil {
		if s := ext.NormalizeScore(ctx, state, pi, list); !s.IsSuccess() {
			out = append(out, fmt.Sprintf("NormalizeScore: %v", s))
			return out
		}
		for i := range out {
			out[i] += fmt.Sprintf(" → %d", list[i].Score)
		}
		checkRange(t, cov, "window", pl, state, pi, window)
	}
	return out
}

// outsideScores returns Score (the value or the error) of every snapshot
// node not in window under state.
func outsideScores(pl framework.ScorePlugin, state *framework.CycleState, pi *framework.PodInfo, window []*framework.NodeInfo) []string {
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

// checkIncrementalPreScore runs rounds on snap (the check's own clone):
// replicas of tmpl and other pods are added and a new window of scored
// nodes is drawn; PreScoreAfterAdd brings the carried state up to date
// for the next replica and a fresh PreScore over the same window must give
// the same status and scores.
func checkIncrementalPreScore(t *rapid.T, cov *coverage, pl framework.ScorePlugin, ip fastpath.IncrementalPreScorePlugin, snap *framework.Snapshot, tmpl *framework.PodInfo, other func(name, node string) *api.Pod, everyNode bool) {
	ctx := context.Background()
	carried := freshState(snap)
	ok := ip.PreScore(ctx, carried, tmpl, window(t, snap)).IsSuccess()
	seq := 0
	for round := range rapid.IntRange(1, 6).Draw(t, "rounds") {
		added := st.DrawAdded(t, snap, tmpl, other, &seq)
		seq++
		pi := st.Replica(tmpl, fmt.Sprintf("r%d", seq), "")
		w := window(t, snap)
		fresh := freshState(snap)
		want := ip.PreScore(ctx, fresh, pi, w)
		if !ok {
			// After a Skip or a failure the runner runs PreScore again.
			carried, ok = fresh, want.IsSuccess()
			continue
		}
		got := ip.PreScoreAfterAdd(ctx, carried, pi, w, added)
		if !got.Equal(want) {
			t.Fatalf("%s round %d: PreScoreAfterAdd = %v, PreScore = %v", pl.Name(), round, got, want)
		}
		cov.hit(pl, "PreScoreAfterAdd")
		if !want.IsSuccess() {
			carried, ok = freshState(snap), false
			continue
		}
		if diff := cmp.Diff(windowScores(t, cov, pl, fresh, pi, w), windowScores(t, cov, pl, carried, pi, w)); diff != "" {
			t.Fatalf("%s round %d: scores differ (-PreScore +PreScoreAfterAdd):\n%s", pl.Name(), round, diff)
		}
		if everyNode {
			if diff := cmp.Diff(outsideScores(pl, fresh, pi, w), outsideScores(pl, carried, pi, w)); diff != "" {
				t.Fatalf("%s round %d: scores outside the window differ (-PreScore +PreScoreAfterAdd):\n%s", pl.Name(), round, diff)
			}
		}
	}
}
