package estimator

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/resource"
)

func TestNearestRank(t *testing.T) {
	s := []int64{50, 10, 40, 20, 30}
	for _, tt := range []struct {
		p    int
		want int64
	}{{1, 10}, {20, 10}, {21, 20}, {50, 30}, {90, 50}, {100, 50}} {
		if got := NearestRank(s, tt.p); got != tt.want {
			t.Errorf("NearestRank(p%d) = %d, want %d", tt.p, got, tt.want)
		}
	}
	if NearestRank(nil, 50) != 0 {
		t.Error("empty samples")
	}
	if s[0] != 50 {
		t.Error("samples modified")
	}
}

func TestMemoryHistory(t *testing.T) {
	if _, err := NewMemoryHistory(0); err == nil || err.Error() != "memory history: window=0: must be at least 1" {
		t.Errorf("window 0: %v", err)
	}
	h, _ := NewMemoryHistory(3)
	for _, v := range []int64{1, 2, 3, 4} {
		if err := h.Record("k", map[resource.Name]int64{resource.CPU: v}); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff([]int64{2, 3, 4}, h.Samples("k", resource.CPU)); diff != "" {
		t.Errorf("window (-want +got):\n%s", diff)
	}
	if err := h.Record("k", map[resource.Name]int64{resource.CPU: 5, resource.Memory: -1}); err == nil ||
		err.Error() != `memory history: k: usage["memory"]=-1: must not be negative` {
		t.Errorf("negative sample: %v", err)
	}
	if diff := cmp.Diff([]int64{2, 3, 4}, h.Samples("k", resource.CPU)); diff != "" {
		t.Errorf("a rejected record must change nothing (-want +got):\n%s", diff)
	}
}

func TestHistoryEstimator(t *testing.T) {
	h, _ := NewMemoryHistory(100)
	owner := func(w *st.PodWrapper) *api.Pod { return w.Owner("", "ReplicaSet", "web-1").Obj() }
	for _, v := range []int64{100, 200, 300, 400, 500, 600, 700, 800, 900, 1000} {
		_ = h.Record("default/ReplicaSet/web-1", map[resource.Name]int64{resource.CPU: v})
	}
	reg := NewRegistry()
	if err := reg.Register(HistoryEstimatorName, HistoryFactory(HistoryOptions{History: h, Percentile: 90, MinSamples: 5, HeadroomPercent: 10})); err != nil {
		t.Fatal(err)
	}
	e, err := reg.New(HistoryEstimatorName, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if e.Name() != HistoryEstimatorName {
		t.Errorf("Name = %q", e.Name())
	}
	tests := []struct {
		name string
		pod  *api.Pod
		want map[resource.Name]int64
	}{
		{
			// p90 of 100..1000 = 900; +10% = 990; memory has no history: default estimate (200Mi).
			name: "replica of a workload with history",
			pod:  owner(st.MakePod().Name("web-1-abc").Req(map[string]string{"cpu": "2"})),
			want: map[resource.Name]int64{resource.CPU: 990, resource.Memory: mi200},
		},
		{
			name: "history estimate capped at the limit",
			pod:  owner(st.MakePod().Name("web-1-def").Lim(map[string]string{"cpu": "500m"}, map[string]string{"cpu": "500m"})),
			want: map[resource.Name]int64{resource.CPU: 500, resource.Memory: mi200},
		},
		{
			name: "pod without history: the default estimator's",
			pod:  st.MakePod().Name("lonely").Req(map[string]string{"cpu": "2"}).Obj(),
			want: map[resource.Name]int64{resource.CPU: 1700, resource.Memory: mi200},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := e.EstimatePod(tt.pod)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("EstimatePod (-want +got):\n%s", diff)
			}
		})
	}
	node := st.MakeNode().Name("n").Capacity(map[string]string{"cpu": "4"}).Obj()
	if l, _ := e.EstimateNode(node); !l.Equal(node.Status.Allocatable) {
		t.Errorf("EstimateNode = %v", l)
	}
	// Too few samples keep the fallback.
	few, _ := NewHistoryEstimator(HistoryOptions{History: h, Percentile: 50, MinSamples: 11, Fallback: mustDefault(t, Options{})})
	if got, _ := few.EstimatePod(owner(st.MakePod().Name("x").Req(map[string]string{"cpu": "2"}))); got[resource.CPU] != 1700 {
		t.Errorf("MinSamples not honoured: %v", got)
	}
	for _, tt := range []struct {
		o    HistoryOptions
		want string
	}{
		{HistoryOptions{Percentile: 50, MinSamples: 1, Fallback: few}, "history: nil"},
		{HistoryOptions{History: h, Percentile: 50, MinSamples: 1}, "fallback: nil"},
		{HistoryOptions{History: h, Percentile: 0, MinSamples: 1, Fallback: few}, "percentile=0: must be within [1,100]"},
		{HistoryOptions{History: h, Percentile: 50, MinSamples: 0, Fallback: few}, "minSamples=0: must be at least 1"},
		{HistoryOptions{History: h, Percentile: 50, MinSamples: 1, HeadroomPercent: -1, Fallback: few}, "headroomPercent=-1: must not be negative"},
	} {
		if _, err := NewHistoryEstimator(tt.o); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("NewHistoryEstimator error = %v, want %q", err, tt.want)
		}
	}
	if k := ControllerKey(st.MakePod().Name("solo").Obj()); k != "default/solo" {
		t.Errorf("ControllerKey = %q", k)
	}
}
