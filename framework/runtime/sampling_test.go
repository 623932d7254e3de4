package runtime

import (
	"fmt"
	"testing"
)

// TestNumFeasibleNodesToFind: kube-scheduler v1.36's numFeasibleNodesToFind
// (schedule_one.go), worked by hand (kube-scheduler.md §2.2).
func TestNumFeasibleNodesToFind(t *testing.T) {
	for _, tc := range []struct {
		n    int
		pct  int32
		want int
	}{
		{0, 0, 0},
		{99, 0, 99},   // below 100: every node
		{99, 10, 99},  // whatever the percentage
		{100, 0, 100}, // 50 − 100/125 = 50% of 100 = 50 → at least 100
		{200, 0, 100}, // 50 − 200/125 = 49% of 200 = 98 → at least 100
		{1000, 0, 420},
		{5000, 0, 500},
		{6000, 0, 300},  // 50 − 48 = 2% → 5%
		{15000, 0, 750}, // 5%
		{5000, 10, 500},
		{5000, 1, 100},
		{5000, 100, 5000},
	} {
		if got := NumFeasibleNodesToFind(tc.n, tc.pct); got != tc.want {
			t.Errorf("NumFeasibleNodesToFind(%d, %d) = %d, want %d", tc.n, tc.pct, got, tc.want)
		}
	}
}

// NumFeasibleNodesToFind gives the sample a scheduler filters for: with
// the adaptive percentage (0), 42% of 1,000 nodes and 5% of 15,000.
func ExampleNumFeasibleNodesToFind() {
	for _, n := range []int{50, 1000, 5000, 15000} {
		fmt.Println(n, NumFeasibleNodesToFind(n, 0), NumFeasibleNodesToFind(n, 30))
	}
	// Output:
	// 50 50 50
	// 1000 420 300
	// 5000 500 1500
	// 15000 750 4500
}
