package interpodaffinity

import (
	"context"
	"fmt"
	"slices"
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/internal/st"
	"pgregory.net/rapid"
)

// TestInterPodAffinityNormalizeTable: the table NormalizeRange builds
// without a division per entry equals NormalizeScore's float arithmetic
// (kube-scheduler v1.36 interpodaffinity/scoring.go, NormalizeScore:
// int64(MaxNodeScore × (float64(s − min) / float64(max − min)))) at every
// entry, for every span up to 3,000 and some wider ones — among them the
// spans where 100·i/span is an integer the float misses by one (29/100).
func TestInterPodAffinityNormalizeTable(t *testing.T) {
	spans := []int64{4096, 9999, 10000, 65536, 100003}
	for d := int64(0); d <= 3000; d++ {
		spans = append(spans, d)
	}
	for _, d := range spans {
		out := make([]int64, d+1)
		ipaNormalizeTable(out)
		for i, got := range out {
			want := int64(0)
			if d > 0 {
				want = int64(float64(fw.MaxNodeScore) * (float64(i) / float64(d)))
			}
			if got != want {
				t.Fatalf("span %d, entry %d: table %d, NormalizeScore %d", d, i, got, want)
			}
		}
	}
	if got := ipaNormalizeOne(29, 100); got != 28 {
		t.Fatalf("ipaNormalizeOne(29, 100) = %d, want 28 (the float misses the integer)", got)
	}
}

// TestPropInterPodAffinityNormalizeRowMatchesFloat: NormalizeScoreBatch's
// row normalization (a multiplication per node for spans up to
// ipaDivMax, the float formula beyond) gives every node what
// NormalizeScore's float arithmetic (kube-scheduler v1.36
// interpodaffinity/scoring.go) gives, on rows of narrow, wide and huge
// spans with both ends present.
func TestPropInterPodAffinityNormalizeRowMatchesFloat(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		lo := rapid.Int64Range(-1e6, 1e6).Draw(t, "lo")
		span := rapid.SampledFrom([]int64{0, 1, 2, 3, 100, 255, 256, 400, 1000, 12345, ipaDivMax - 1, ipaDivMax, ipaDivMax + 1, 1 << 40}).Draw(t, "span")
		row := []int64{lo, lo + span}
		for _, v := range rapid.SliceOfN(rapid.Int64Range(0, span), 0, 60).Draw(t, "row") {
			row = append(row, lo+v)
		}
		// The values whose exact normalized score is whole (29/100 and
		// the like), where the float may fall short.
		for _, q := range rapid.SliceOfN(rapid.Int64Range(0, 100), 0, 10).Draw(t, "whole") {
			if span%100 == 0 {
				row = append(row, lo+q*(span/100))
			}
		}
		got := append([]int64(nil), row...)
		ipaNormalizeRow(got)
		for i, v := range row {
			want := int64(0)
			if span > 0 {
				want = int64(float64(fw.MaxNodeScore) * (float64(v-lo) / float64(span)))
			}
			if got[i] != want {
				t.Fatalf("raw %d in [%d, %d]: row %d, NormalizeScore %d", v, lo, lo+span, got[i], want)
			}
		}
	})
}

// TestPropInterPodAffinityNormalizeRangeNoTerms: a PreScore state without
// terms (which PreScoreAfterAdd may leave) normalizes nothing, through
// NormalizeRange's table as through NormalizeScore.
func TestPropInterPodAffinityNormalizeRangeNoTerms(t *testing.T) {
	pl, err := New(DefaultInterPodAffinityArgs(), nil)
	if err != nil {
		t.Fatal(err)
	}
	rn := pl.(*InterPodAffinity)
	pod := fw.MustPodInfo(st.MakePod().Name("p").Obj())
	rapid.Check(t, func(t *rapid.T) {
		lo := rapid.Int64Range(-300, 300).Draw(t, "lo")
		row := rapid.SliceOfN(rapid.Int64Range(lo, lo+rapid.Int64Range(0, 1000).Draw(t, "span")), 1, 30).Draw(t, "row")
		lo, hi := slices.Min(row), slices.Max(row)
		state := fw.NewCycleState()
		state.Write(ipaPreScoreStateKey, &ipaPreScoreState{})
		list := make(fw.NodeScoreList, len(row))
		for j, v := range row {
			list[j] = fw.NodeScore{Name: fmt.Sprintf("n%d", j), Score: v}
		}
		if s := rn.NormalizeScore(context.Background(), state, pod, list); !s.IsSuccess() {
			t.Fatalf("NormalizeScore: %v", s)
		}
		table := make([]int64, hi-lo+1)
		if !rn.NormalizeRange(context.Background(), state, pod, lo, table) {
			t.Fatalf("NormalizeRange gives no table")
		}
		for j, v := range row {
			if list[j].Score != v || table[v-lo] != v {
				t.Fatalf("raw %d: NormalizeScore %d, NormalizeRange %d; want it unchanged", v, list[j].Score, table[v-lo])
			}
		}
	})
}
