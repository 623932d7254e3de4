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
