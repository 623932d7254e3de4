package queuesort

import (
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/internal/st"
)

func psQueued(name string, prio *int32, ts time.Time) *fw.QueuedPodInfo {
	w := st.MakePod().Name(name)
	if prio != nil {
		w = w.Priority(*prio)
	}
	return &fw.QueuedPodInfo{PodInfo: fw.MustPodInfo(w.Obj()), Timestamp: ts}
}

// Cases of kube-scheduler v1.36 queuesort/priority_sort_test.go (TestLess).
func TestPrioritySortLess(t *testing.T) {
	low, high := int32(10), int32(100)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	t1 := t0.Add(time.Second)
	tests := []struct {
		name string
		a, b *fw.QueuedPodInfo
		want bool
	}{
		{"p1.priority less than p2.priority", psQueued("p1", &low, t0), psQueued("p2", &high, t0), false},
		{"p1.priority greater than p2.priority", psQueued("p1", &high, t0), psQueued("p2", &low, t0), true},
		{"equal priority, p1 added to the queue earlier", psQueued("p1", &high, t0), psQueued("p2", &high, t1), true},
		{"equal priority, p2 added to the queue earlier", psQueued("p1", &high, t1), psQueued("p2", &high, t0), false},
		{"equal priority and timestamp", psQueued("p1", &high, t0), psQueued("p2", &high, t0), false},
		{"unset priority counts as 0", psQueued("p1", nil, t0), psQueued("p2", &low, t1), false},
	}
	pl, _ := New(nil, nil)
	qs := pl.(fw.QueueSortPlugin)
	for _, tc := range tests {
		if got := qs.Less(tc.a, tc.b); got != tc.want {
			t.Errorf("%s: Less = %v, want %v", tc.name, got, tc.want)
		}
	}
	if pl.Name() != "PrioritySort" {
		t.Errorf("Name = %q", pl.Name())
	}
}

// TestPropPrioritySortOrder: sorting with Less yields non-increasing
// priorities, and non-decreasing timestamps within a priority.
func TestPropPrioritySortOrder(t *testing.T) {
	pl, _ := New(nil, nil)
	qs := pl.(fw.QueueSortPlugin)
	rapid.Check(t, func(rt *rapid.T) {
		n := rapid.IntRange(0, 20).Draw(rt, "n")
		t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		pods := make([]*fw.QueuedPodInfo, n)
		for i := range n {
			p := rapid.Int32Range(-3, 3).Draw(rt, "prio")
			pods[i] = psQueued("p", &p, t0.Add(time.Duration(rapid.IntRange(0, 5).Draw(rt, "ts"))*time.Second))
		}
		slices.SortStableFunc(pods, func(a, b *fw.QueuedPodInfo) int {
			if qs.Less(a, b) {
				return -1
			}
			if qs.Less(b, a) {
				return 1
			}
			return 0
		})
		for i := 1; i < n; i++ {
			a, b := pods[i-1], pods[i]
			pa, pb := a.Pod.PriorityValue(), b.Pod.PriorityValue()
			if pa < pb || (pa == pb && a.Timestamp.After(b.Timestamp)) {
				rt.Fatalf("out of order at %d: (%d,%v) before (%d,%v)", i, pa, a.Timestamp, pb, b.Timestamp)
			}
		}
	})
}
