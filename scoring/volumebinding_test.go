package scoring

import (
	"testing"

	"github.com/schedkit/schedkit/internal/volumebinding"
)

// TestVolumeBindingNodeScore is kube-scheduler v1.36.4
// volumebinding/scorer_test.go TestScore, case for case: kube's test
// shape {0: 0, 100: 10} (scaled by 10) and its custom shape given in node
// scores, over the classes hdd and ssd.
func TestVolumeBindingNodeScore(t *testing.T) {
	type scoreCase struct {
		classes []volumebinding.ClassStorage
		score   int64
	}
	hdd := func(req, capacity int64) volumebinding.ClassStorage {
		return volumebinding.ClassStorage{Class: "hdd", Requested: req, Capacity: capacity}
	}
	ssd := func(req, capacity int64) volumebinding.ClassStorage {
		return volumebinding.ClassStorage{Class: "ssd", Requested: req, Capacity: capacity}
	}
	two := func(h, s, score int64) scoreCase {
		return scoreCase{[]volumebinding.ClassStorage{hdd(h, 100), ssd(s, 100)}, score}
	}
	tests := []struct {
		name  string
		shape []ShapePoint
		cases []scoreCase
	}{
		{"default shape, single class", []ShapePoint{{0, 0}, {100, 100}}, []scoreCase{
			{[]volumebinding.ClassStorage{hdd(0, 100)}, 0},
			{[]volumebinding.ClassStorage{hdd(30, 100)}, 30},
			{[]volumebinding.ClassStorage{hdd(50, 100)}, 50},
			{[]volumebinding.ClassStorage{hdd(100, 100)}, 100},
		}},
		{"default shape, multiple classes", []ShapePoint{{0, 0}, {100, 100}}, []scoreCase{
			two(0, 0, 0), two(0, 30, 15), two(30, 30, 30), two(30, 60, 45), two(50, 50, 50), two(50, 100, 75), two(100, 100, 100),
		}},
		{"custom shape, multiple classes", []ShapePoint{{50, 0}, {80, 30}, {100, 50}}, []scoreCase{
			two(0, 0, 0), two(0, 30, 0), two(30, 30, 0), two(30, 60, 5), two(50, 100, 25), two(90, 90, 40), two(100, 100, 50),
		}},
		// Hand-derived from scorer.go: no classes score 0; a zero or
		// exceeded capacity counts as full.
		{"no classes, zero and exceeded capacity", []ShapePoint{{0, 0}, {100, 100}}, []scoreCase{
			{nil, 0},
			{[]volumebinding.ClassStorage{hdd(1, 0)}, 100},
			{[]volumebinding.ClassStorage{hdd(101, 100), ssd(0, 100)}, 50},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for i, c := range tt.cases {
				if got := vbNodeScore(tt.shape, c.classes); got != c.score {
					t.Errorf("case %d: score %d, want %d", i, got, c.score)
				}
			}
		})
	}
}
