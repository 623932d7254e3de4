package runtime

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/schedkit/schedkit/framework"
)

type filterOnly struct{}

func (filterOnly) Name() string { return "FilterOnly" }
func (filterOnly) Filter(context.Context, *framework.CycleState, *framework.PodInfo, *framework.NodeInfo) *framework.Status {
	return nil
}

type sorter struct{ name string }

func (s sorter) Name() string                          { return s.name }
func (sorter) Less(_, _ *framework.QueuedPodInfo) bool { return false }

func TestProfileEnable(t *testing.T) {
	all := &fake{name: "All"}
	reg := registryOf(all)
	if err := reg.Register("FilterOnly", func(any, framework.Handle) (framework.Plugin, error) { return filterOnly{}, nil }); err != nil {
		t.Fatal(err)
	}
	p := framework.Profile{SchedulerName: "s", Filter: []string{"FilterOnly"}}
	if err := p.Enable(reg, "All", 3); err != nil {
		t.Fatal(err)
	}
	if err := p.Enable(reg, "FilterOnly", 0); err != nil { // already at Filter: unchanged
		t.Fatal(err)
	}
	want := framework.Profile{SchedulerName: "s",
		PreFilter: []string{"All"}, Filter: []string{"FilterOnly", "All"}, PostFilter: []string{"All"},
		PreScore: []string{"All"}, Score: []string{"All"}, Reserve: []string{"All"}, Permit: []string{"All"},
		Bind: []string{"All"}, Weights: map[string]int64{"All": 3}}
	if d := cmp.Diff(want, p); d != "" {
		t.Fatalf("profile (-want +got):\n%s", d)
	}
	if err := p.Enable(reg, "All", 5); err != nil { // again: only the weight changes
		t.Fatal(err)
	}
	want.Weights["All"] = 5
	if d := cmp.Diff(want, p); d != "" {
		t.Fatalf("profile after a second Enable (-want +got):\n%s", d)
	}
	if _, err := NewFramework(reg, p); err != nil {
		t.Fatalf("NewFramework of the enabled profile: %v", err)
	}

	for _, tc := range []struct {
		name, plugin string
		weight       int64
		want         string
	}{
		{"unknown plugin", "Nope", 0, `Enable("Nope"): unknown plugin`},
		{"weight without Score", "FilterOnly", 2, "weight 2 for a plugin that does not implement Score"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var q framework.Profile
			err := q.Enable(reg, tc.plugin, tc.weight)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Enable error = %v, want one containing %q", err, tc.want)
			}
		})
	}
	var q framework.Profile
	if err := q.Enable(nil, "All", 0); err == nil {
		t.Error("Enable with a nil registry succeeded")
	}

	// One QueueSort plugin at most; a failing factory's error is wrapped.
	for _, n := range []string{"SortA", "SortB"} {
		n := n
		if err := reg.Register(n, func(any, framework.Handle) (framework.Plugin, error) { return sorter{n}, nil }); err != nil {
			t.Fatal(err)
		}
	}
	if err := reg.Register("Broken", func(any, framework.Handle) (framework.Plugin, error) { return nil, errors.New("boom") }); err != nil {
		t.Fatal(err)
	}
	var r framework.Profile
	if err := r.Enable(reg, "SortA", 0); err != nil || !cmp.Equal(r.QueueSort, []string{"SortA"}) {
		t.Fatalf("Enable(SortA) = %v, QueueSort %v", err, r.QueueSort)
	}
	if err := r.Enable(reg, "SortB", 0); err == nil || !strings.Contains(err.Error(), `QueueSort already has ["SortA"]`) {
		t.Errorf("second QueueSort plugin: error %v", err)
	}
	if err := r.Enable(reg, "Broken", 0); err == nil || !strings.Contains(err.Error(), `Enable("Broken"): boom`) {
		t.Errorf("failing factory: error %v", err)
	}
}
