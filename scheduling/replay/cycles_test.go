package replay

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
)

// TestReplayCycleBound: a replay runs at most Options.MaxCycles
// scheduling cycles, and past them stops with an error naming the bound
// and the option; a negative bound is an error naming the value.
func TestReplayCycleBound(t *testing.T) {
	w := func() *Scenario {
		w := &Scenario{Nodes: []*api.Node{rpNode("n1", "64")}}
		for i := range 10 {
			w.Arrivals = append(w.Arrivals, PodArrival{Pod: scPod(fmt.Sprintf("p%d", i), "1").Obj()})
		}
		return w
	}
	for _, tc := range []struct {
		max  int
		want string // "" runs
	}{
		{10, ""},
		{9, "replay: Replay: the replay ran past 9 scheduling cycles (Options.MaxCycles"},
		{-1, "replay: Replay: Options.MaxCycles=-1: must not be negative"},
	} {
		res, err := Replay(context.Background(), w(), Options{Registry: scRegistry(&scRecorder{}), Profiles: []framework.Profile{rpProfile()}, MaxCycles: tc.max})
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("MaxCycles=%d: %v", tc.max, err)
		case tc.want == "" && res.Cycles != 10:
			t.Errorf("MaxCycles=%d: %d cycles, want 10", tc.max, res.Cycles)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("MaxCycles=%d: %v, want %q", tc.max, err, tc.want)
		}
	}
}

// TestReplayDefaultCycleBound: without MaxCycles a replay may run
// DefaultCyclesPerPod cycles per pod of the scenario (initial and
// arriving), and at least DefaultMaxCycles.
func TestReplayDefaultCycleBound(t *testing.T) {
	pods := func(n int) []*api.Pod { return make([]*api.Pod, n) }
	for _, tc := range []struct {
		w    *Scenario
		want int
	}{
		{&Scenario{}, DefaultMaxCycles},
		{&Scenario{Pods: pods(3), Arrivals: make([]PodArrival, 5)}, DefaultMaxCycles},
		{&Scenario{Arrivals: make([]PodArrival, DefaultMaxCycles/DefaultCyclesPerPod+1)}, DefaultMaxCycles + DefaultCyclesPerPod},
		{&Scenario{Pods: pods(DefaultMaxCycles / DefaultCyclesPerPod), Arrivals: make([]PodArrival, 5)}, DefaultMaxCycles + 5*DefaultCyclesPerPod},
	} {
		if got := (Options{}).maxCycles(tc.w); got != tc.want {
			t.Errorf("default bound %d, want %d", got, tc.want)
		}
	}
	if got := (Options{MaxCycles: 7}).maxCycles(&Scenario{Pods: pods(DefaultMaxCycles)}); got != 7 {
		t.Errorf("MaxCycles=7 gave %d", got)
	}
}
