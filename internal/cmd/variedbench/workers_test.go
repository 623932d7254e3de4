package main

import (
	"strings"
	"testing"
)

// TestCompareWorkers: the workers command times every timed pod, rounds
// times, each of the three ways, and reports the medians of the blocks'
// ratios; a stream that changes the cluster as it goes is refused.
func TestCompareWorkers(t *testing.T) {
	o := runOptions{workloadOptions: workloadOptions{nodes: 300, seed: defaultSeed, order: orderKube},
		stream: streamVaried, warm: 3, timed: 12, workers: 2, profile: profileDefault, tieSeed: 1}
	for _, sampled := range []bool{false, true} {
		o.sampled = sampled
		res, err := compareWorkers(o, 4, 2)
		if err != nil {
			t.Fatal(err)
		}
		if res.Timed != 12 || res.Rounds != 2 || res.Block != 4 {
			t.Fatalf("sampled %v: timed %d rounds %d block %d, want 12, 2, 4", sampled, res.Timed, res.Rounds, res.Block)
		}
		for name, v := range map[string]float64{"one": res.OneNanos, "many": res.ManyNanos, "split": res.SplitNanos, "ratio": res.Ratio, "floor": res.Floor} {
			if v <= 0 {
				t.Errorf("sampled %v: %s = %v, want a positive time or ratio", sampled, name, v)
			}
		}
	}
	o.stream, o.sampled, o.timed = "SchedulingWithMixedChurn", false, 10
	if _, err := compareWorkers(o, 4, 1); err == nil || !strings.Contains(err.Error(), "changes the cluster") {
		t.Fatalf("a stream with churn: error %v, want one saying it changes the cluster", err)
	}
}

// TestWayOrder: over any six blocks in a row, each way runs once in each
// place and right after each other way twice, so that what a way leaves
// behind (warm caches, spinning helpers) falls on the others alike.
func TestWayOrder(t *testing.T) {
	for first := range 6 {
		var place [3][3]int
		var after [3][3]int
		for i := first; i < first+6; i++ {
			o := wayOrder(i)
			seen := [3]bool{}
			for k, way := range o {
				if seen[way] {
					t.Fatalf("block %d: order %v runs way %d twice", i, o, way)
				}
				seen[way] = true
				place[way][k]++
				if k > 0 {
					after[way][o[k-1]]++
				}
			}
		}
		for a := range 3 {
			for b := range 3 {
				if place[a][b] != 2 {
					t.Errorf("blocks %d–%d: way %d ran %d times in place %d, want 2", first, first+5, a, place[a][b], b)
				}
				if want := 2 * b2i(a != b); after[a][b] != want {
					t.Errorf("blocks %d–%d: way %d ran right after way %d %d times, want %d", first, first+5, a, b, after[a][b], want)
				}
			}
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		xs   []float64
		want float64
	}{{[]float64{3}, 3}, {[]float64{4, 1, 3}, 3}, {[]float64{4, 1, 3, 2}, 2.5}} {
		if got := median(tc.xs); got != tc.want {
			t.Errorf("median(%v) = %v, want %v", tc.xs, got, tc.want)
		}
	}
}
