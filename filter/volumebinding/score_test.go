package volumebinding

import (
	"testing"

	"github.com/schedkit/schedkit/scoring"
)

// TestVolumeBindingNodeScore is kube-scheduler v1.36.4
// volumebinding/scorer_test.go TestScore, case for case: kube's test
// shape {0: 0, 100: 10} (scaled by 10) and its custom shape given in node
// scores, over the classes hdd and ssd.
func TestVolumeBindingNodeScore(t *testing.T) {
	type scoreCase struct {
		classes []classStorage
		score   int64
	}
	hdd := func(req, capacity int64) classStorage {
		return classStorage{Class: "hdd", Requested: req, Capacity: capacity}
	}
	ssd := func(req, capacity int64) classStorage {
		return classStorage{Class: "ssd", Requested: req, Capacity: capacity}
	}
	two := func(h, s, score int64) scoreCase {
		return scoreCase{[]classStorage{hdd(h, 100), ssd(s, 100)}, score}
	}
	tests := []struct {
		name  string
		shape []scoring.ShapePoint
		cases []scoreCase
	}{
		{"default shape, single class", []scoring.ShapePoint{{Util: 0, Score: 0}, {Util: 100, Score: 100}}, []scoreCase{
			{[]classStorage{hdd(0, 100)}, 0},
			{[]classStorage{hdd(30, 100)}, 30},
			{[]classStorage{hdd(50, 100)}, 50},
			{[]classStorage{hdd(100, 100)}, 100},
		}},
		{"default shape, multiple classes", []scoring.ShapePoint{{Util: 0, Score: 0}, {Util: 100, Score: 100}}, []scoreCase{
			two(0, 0, 0), two(0, 30, 15), two(30, 30, 30), two(30, 60, 45), two(50, 50, 50), two(50, 100, 75), two(100, 100, 100),
		}},
		{"custom shape, multiple classes", []scoring.ShapePoint{{Util: 50, Score: 0}, {Util: 80, Score: 30}, {Util: 100, Score: 50}}, []scoreCase{
			two(0, 0, 0), two(0, 30, 0), two(30, 30, 0), two(30, 60, 5), two(50, 100, 25), two(90, 90, 40), two(100, 100, 50),
		}},
		// Hand-derived from scorer.go: no classes score 0; a zero or
		// exceeded capacity counts as full.
		{"no classes, zero and exceeded capacity", []scoring.ShapePoint{{Util: 0, Score: 0}, {Util: 100, Score: 100}}, []scoreCase{
			{nil, 0},
			{[]classStorage{hdd(1, 0)}, 100},
			{[]classStorage{hdd(101, 100), ssd(0, 100)}, 50},
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
