package scoring

import (
	"context"
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/internal/st"
	"pgregory.net/rapid"
)

// rangeCheck normalizes row (the scores of nodes) with NormalizeScore and
// through the plugin's NormalizeRange table over the row's bounds, and
// fails when a node's scores differ, or when the table is given though
// NormalizeScore fails. It reports whether the table was given.
func rangeCheck(t *rapid.T, what string, pl fw.ScorePlugin, state *fw.CycleState, pod *fw.PodInfo, nodes []*fw.NodeInfo, row []int64) bool {
	rn, ok := pl.ScoreExtensions().(fw.RangeNormalizer)
	if !ok || len(row) == 0 {
		return false
	}
	lo, hi := row[0], row[0]
	list := make(fw.NodeScoreList, len(row))
	for j, v := range row {
		lo, hi = min(lo, v), max(hi, v)
		list[j] = fw.NodeScore{Name: nodes[j%len(nodes)].Name(), Score: v}
	}
	s := rn.NormalizeScore(context.Background(), state, pod, list)
	table := make([]int64, hi-lo+1)
	if !rn.NormalizeRange(context.Background(), state, pod, lo, table) {
		return false
	}
	if !s.IsSuccess() {
		t.Fatalf("%s %s: NormalizeScore fails (%v) but NormalizeRange gives a table", pl.Name(), what, s)
	}
	for j, v := range row {
		if got := table[v-lo]; got != list[j].Score {
			t.Fatalf("%s %s: raw %d in [%d, %d]: NormalizeRange %d, NormalizeScore %d (row %v)", pl.Name(), what, v, lo, hi, got, list[j].Score, row)
		}
	}
	return true
}

// TestPropNormalizeRangeMatchesNormalizeScore: every score plugin that
// implements framework.RangeNormalizer normalizes through its table as
// NormalizeScore does, on the rows Score gives after PreScore over random
// clusters and on random rows (negative, constant, wide), and gives no
// table where NormalizeScore fails (no PreScore state).
func TestPropNormalizeRangeMatchesNormalizeScore(t *testing.T) {
	tables := map[string]int{}
	rapid.Check(t, func(t *rapid.T) {
		snap, pod, all := st.BatchSnapshot(t)
		lo := rapid.Int64Range(-300, 300).Draw(t, "lo")
		span := rapid.SampledFrom([]int64{0, 1, 2, 7, 100, 1000}).Draw(t, "span")
		// Every score of [lo, lo+span], so that every entry of the table
		// is compared, then a few more.
		random := rapid.SliceOfN(rapid.Int64Range(lo, lo+span), 0, 30).Draw(t, "row")
		for v := lo; v <= lo+span; v++ {
			random = append(random, v)
		}
		for _, pl := range batchScorePlugins(t) {
			if _, ok := pl.ScoreExtensions().(fw.RangeNormalizer); !ok {
				continue
			}
			bare := fw.NewCycleState()
			bare.SetSnapshot(snap)
			rangeCheck(t, "without PreScore", pl, bare, pod, all, random)
			state := fw.NewCycleState()
			state.SetSnapshot(snap)
			if ps, ok := pl.(fw.PreScorePlugin); ok {
				if s := ps.PreScore(context.Background(), state, pod, all); !s.IsSuccess() {
					continue
				}
			}
			row := make([]int64, len(all))
			scored := true
			for j, n := range all {
				v, s := pl.Score(context.Background(), state, pod, n)
				scored = scored && s.IsSuccess()
				row[j] = v
			}
			if scored && rangeCheck(t, "scores", pl, state, pod, all, row) {
				tables[pl.Name()+" scores"]++
			}
			if rangeCheck(t, "random row", pl, state, pod, all, random) {
				tables[pl.Name()+" random"]++
			}
			if _, ok := pl.(*InterPodAffinity); ok {
				// A PreScore state without terms (which PreScoreAfterAdd
				// may leave) normalizes nothing.
				empty := fw.NewCycleState()
				empty.Write(ipaPreScoreStateKey, &ipaPreScoreState{})
				if rangeCheck(t, "random row, no terms", pl, empty, pod, all, random) {
					tables[pl.Name()+" no terms"]++
				}
			}
		}
	})
	for _, name := range []string{"TaintToleration", "NodeAffinity", "InterPodAffinity"} {
		if tables[name+" scores"] == 0 || tables[name+" random"] == 0 || name == "InterPodAffinity" && tables[name+" no terms"] == 0 {
			t.Errorf("%s never gave a table (%v): the property checked nothing", name, tables)
		}
	}
}
