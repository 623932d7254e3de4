package scoring

import (
	"testing"

	"github.com/schedkit/schedkit/config"
)

// Cases of kube's TestBrokenLinearFunction (scores on the 0–10 scale, as
// the helper is given them).
func TestBrokenLinear(t *testing.T) {
	tests := []struct {
		points []ShapePoint
		at     map[int64]int64
	}{
		{points: []ShapePoint{{10, 1}, {90, 9}},
			at: map[int64]int64{-10: 1, 0: 1, 9: 1, 10: 1, 15: 1, 19: 1, 20: 2, 89: 8, 90: 9, 99: 9, 100: 9, 110: 9}},
		{points: []ShapePoint{{0, 2}, {40, 10}, {100, 0}},
			at: map[int64]int64{-10: 2, 0: 2, 20: 6, 30: 8, 40: 10, 70: 5, 100: 0, 110: 0}},
		{points: []ShapePoint{{0, 2}, {40, 2}, {100, 2}},
			at: map[int64]int64{-10: 2, 0: 2, 20: 2, 30: 2, 40: 2, 70: 2, 100: 2, 110: 2}},
	}
	for i, tc := range tests {
		for p, want := range tc.at {
			if got := BrokenLinear(tc.points, p); got != want {
				t.Errorf("case %d: f(%d) = %d, want %d", i, p, got, want)
			}
		}
	}
}

// TestScaleShape: scores 0–10 scale by 10 to 0–100, utilizations stay,
// an empty shape gives none.
func TestScaleShape(t *testing.T) {
	got := ScaleShape([]config.UtilizationShapePoint{{Utilization: 0, Score: 10}, {Utilization: 40, Score: 3}, {Utilization: 100, Score: 0}})
	want := []ShapePoint{{Util: 0, Score: 100}, {Util: 40, Score: 30}, {Util: 100, Score: 0}}
	if len(got) != len(want) {
		t.Fatalf("ScaleShape = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("point %d = %v, want %v", i, got[i], want[i])
		}
	}
	if ScaleShape(nil) != nil {
		t.Error("ScaleShape(nil) is not nil")
	}
}
