package runtime

import (
	"math"
	"slices"
	"testing"

	"pgregory.net/rapid"

	"github.com/schedkit/schedkit/framework"
)

// TestPropNextStale: nextStale finds the first clear bit of the bitmap
// from k on, below b, as a bit-by-bit search does, wherever k and b fall
// in their words.
func TestPropNextStale(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 300).Draw(t, "n")
		fresh := make([]uint64, (n+63)>>6)
		for i := range fresh {
			switch rapid.IntRange(0, 3).Draw(t, "word") {
			case 0:
				fresh[i] = ^uint64(0)
			case 1:
				fresh[i] = ^uint64(0) &^ (1 << rapid.IntRange(0, 63).Draw(t, "clear"))
			default:
				fresh[i] = rapid.Uint64().Draw(t, "bits")
			}
		}
		b := rapid.IntRange(0, n).Draw(t, "b")
		k := rapid.IntRange(0, b).Draw(t, "k")
		want := k
		for want < b && fresh[want>>6]>>(want&63)&1 != 0 {
			want++
		}
		if got := nextStale(fresh, k, b); got != want {
			t.Fatalf("nextStale(%x, %d, %d) = %d, want %d", fresh, k, b, got, want)
		}
	})
}

// TestPropPositionIn: positionIn finds a snapshot index among the
// indices of a cycle's nodes in evaluation order (increasing from the
// first, wrapping round the end at most once), or reports it absent, as
// a linear search does.
func TestPropPositionIn(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 200).Draw(t, "n")
		first := rapid.IntRange(0, n-1).Draw(t, "first")
		var idx []int32
		for d := range n {
			if d == 0 || rapid.IntRange(0, 3).Draw(t, "in") != 0 {
				idx = append(idx, int32((first+d)%n))
			}
		}
		idx = idx[:rapid.IntRange(1, len(idx)).Draw(t, "len")]
		k := rapid.IntRange(0, n-1).Draw(t, "k")
		if got, want := positionIn(idx, k, n), slices.Index(idx, int32(k)); got != want {
			t.Fatalf("positionIn(%v, %d, %d) = %d, want %d", idx, k, n, got, want)
		}
	})
}

// drawTotal draws a total from a small range (many ties) or anywhere,
// the extremes of int64 included.
func drawTotal(t *rapid.T, spread int64) int64 {
	switch rapid.IntRange(0, 9).Draw(t, "kind") {
	case 0:
		return math.MinInt64
	case 1:
		return math.MaxInt64
	case 2:
		return rapid.Int64().Draw(t, "any")
	}
	return rapid.Int64Range(-spread, spread).Draw(t, "total")
}

// checkRanked fails t unless rk ranked totals as rankTotals does for a
// Top of n: the same best, ties (count and positions) and top.
func checkRanked(t *rapid.T, rk *ranker, totals []int64, n int) {
	keep := max(n, 2)
	ties := make([]int32, len(totals))
	best, cnt, top := rankTotals(totals, make([]rankedPos, 0, keep), keep, ties)
	if rk.best != best || rk.cnt != cnt || !slices.Equal(rk.ties[:rk.cnt], ties[:cnt]) || !slices.Equal(rk.top, top) {
		t.Fatalf("totals %v (n=%d): ranked best %d ties %v top %v, rankTotals %d %v %v",
			totals, n, rk.best, rk.ties[:rk.cnt], rk.top, best, ties[:cnt], top)
	}
}

// TestPropRankerMatchesRankTotals: a ranker fed totals one by one ranks
// them as rankTotals does all at once — best, ties and top — with many
// ties or few, the extremes of int64, and any Top size.
func TestPropRankerMatchesRankTotals(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		spread := rapid.SampledFrom([]int64{0, 2, 1000}).Draw(t, "spread")
		totals := make([]int64, rapid.IntRange(1, 70).Draw(t, "nf"))
		for j := range totals {
			totals[j] = drawTotal(t, spread)
		}
		n := rapid.IntRange(0, 10).Draw(t, "n")
		var rk ranker
		rk.start(n, nil, make([]int32, len(totals)))
		rk.rank(totals)
		checkRanked(t, &rk, totals, n)
	})
}

// TestPropSumTotals: incScorer.sumTotals adds the cached sums, the
// constant, the looked-up rows (any number of them, through tables that
// may hold scores out of range, with rows that may fall outside their
// table) and the added rows as a plain sum of every score does: the same
// totals, a miss exactly when some row falls outside its table, an
// out-of-range flag exactly when some score added or looked up is out of
// range; and when no row was added after the looked-up ones, the totals
// ranked as rankTotals ranks them, on one worker or in chunks on two.
func TestPropSumTotals(t *testing.T) {
	ranked, rankedShared := 0, 0
	rapid.Check(t, func(t *rapid.T) {
		// 300 nodes thrice: the cases that rank in chunks on two workers
		// need 128 or more feasible nodes, and every run must see some.
		nodes := rapid.SampledFrom([]int{1, 2, 7, 30, 80, 300, 300, 300}).Draw(t, "nodes")
		// clean: no row falls outside its table, no table holds a score
		// out of range, no row is added after the looked-up ones: the
		// passes rank the totals.
		clean := rapid.Bool().Draw(t, "clean")
		spread := rapid.SampledFrom([]int64{0, 3, 300}).Draw(t, "spread") // 0: every sum alike (ties)
		sums := make([]int64, nodes)
		order := make([]int32, nodes)
		for k := range sums {
			sums[k], order[k] = rapid.Int64Range(-spread, spread).Draw(t, "sum"), int32(k)
		}
		var idx []int32 // the feasible nodes, in any order
		for _, k := range rapid.Permutation(order).Draw(t, "order") {
			if len(idx) == 0 || rapid.IntRange(0, 4).Draw(t, "feasible") != 0 {
				idx = append(idx, k)
			}
		}
		nf := len(idx)
		c := rapid.Int64Range(-50, 50).Draw(t, "constant")
		sc := &incScorer{sums: sums}
		want := make([]int64, nf)
		for j, k := range idx {
			want[j] = sums[k] + c
		}
		var wantMiss bool
		var wantBad uint64
		// score draws a score, out of range with probability 1/odds, else
		// one of few values (many ties) or any.
		levels := rapid.SampledFrom([]int64{1, 2, 101}).Draw(t, "levels")
		score := func(label string, odds int) int64 {
			if odds > 0 && rapid.IntRange(1, odds).Draw(t, label+"Out") == 1 {
				return rapid.SampledFrom([]int64{-1, 101, 1000}).Draw(t, label+"OutOfRange")
			}
			return rapid.Int64Range(0, levels-1).Draw(t, label) * (100 / max(levels-1, 1))
		}
		for range rapid.SampledFrom([]int{0, 1, 2, 3, 4, 5}).Draw(t, "looks") {
			lo := rapid.Int64Range(-20, 20).Draw(t, "lo")
			table := make([]int64, rapid.IntRange(1, nf+1).Draw(t, "width"))
			odds := rapid.SampledFrom([]int{0, 0, 0, 6}).Draw(t, "tableOdds") // some tables hold scores out of range
			if clean {
				odds = 0
			}
			for i := range table {
				table[i] = score("norm", odds)
			}
			w := rapid.Int64Range(-3, 5).Draw(t, "weight")
			row := make([]int64, nf)
			miss := -1 // the node whose score falls outside the table
			if !clean && rapid.IntRange(0, 7).Draw(t, "missing") == 0 {
				miss = rapid.IntRange(0, nf-1).Draw(t, "missAt")
				wantMiss = true
			}
			for j := range row {
				i := rapid.IntRange(0, len(table)-1).Draw(t, "at")
				if j == miss {
					i = rapid.SampledFrom([]int{-1, len(table)}).Draw(t, "outside")
				} else {
					wantBad |= scoreBits(table[i])
					want[j] += w * table[i]
				}
				row[j] = lo + int64(i)
			}
			sc.looks = append(sc.looks, lookup{row: row, wt: table, lo: lo, w: w})
		}
		adds := rapid.SampledFrom([]int{0, 0, 1, 2}).Draw(t, "adds")
		if clean {
			adds = 0
		}
		for range adds {
			w := rapid.Int64Range(-3, 5).Draw(t, "addWeight")
			odds := rapid.SampledFrom([]int{0, 0, 20}).Draw(t, "rowOdds")
			row := make([]int64, nf)
			for j := range row {
				row[j] = score("raw", odds)
				wantBad |= scoreBits(row[j])
				want[j] += w * row[j]
			}
			sc.adds = append(sc.adds, lookup{row: row, w: w})
		}
		n := rapid.IntRange(0, 5).Draw(t, "n")
		totals := make([]int64, nf)
		sc.rk.start(n, nil, make([]int32, nf))
		// On two workers with chunks of 64 nodes, the passes over 128 or
		// more run in chunks, each chunk ranking its own totals.
		w, err := newTestWorkers(rapid.IntRange(1, 2).Draw(t, "workers"))
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		f, err := NewFramework(framework.NewRegistry(), framework.Profile{}, WithWorkers(w))
		if err != nil {
			t.Fatal(err)
		}
		miss, bad, isRanked := sc.sumTotals(f, totals, idx, c)
		if miss != wantMiss {
			t.Fatalf("miss %v, want %v", miss, wantMiss)
		}
		if miss {
			return
		}
		if !slices.Equal(totals, want) {
			t.Fatalf("totals %v, want %v", totals, want)
		}
		if (bad&^scoreMask != 0) != (wantBad&^scoreMask != 0) {
			t.Fatalf("out of range %v, want %v", bad&^scoreMask != 0, wantBad&^scoreMask != 0)
		}
		if isRanked != (len(sc.adds) == 0) {
			t.Fatalf("ranked %v with %d rows added after the looked-up ones and %d nodes", isRanked, len(sc.adds), nf)
		}
		if isRanked {
			ranked++
			if pool, _ := f.fused(nf); pool != nil {
				rankedShared++
			}
			checkRanked(t, &sc.rk, totals, n)
		} else if clean && len(sc.adds) > 0 {
			t.Fatalf("%d rows added after the looked-up ones, want none", len(sc.adds))
		}
	})
	if ranked == 0 || rankedShared == 0 {
		t.Fatalf("%d cases left the totals ranked, %d of them ranked in chunks on the workers; want some of each", ranked, rankedShared)
	}
}
