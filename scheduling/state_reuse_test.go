package scheduling

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

// stateProbe records the cycle state each pod's cycle runs on and checks
// that a state reaches PreFilter empty and keeps what the cycle wrote
// until the pod's binding: PreFilter writes the pod's name under the
// probe's key, PreBind reads it back. Permit makes a pod labelled
// "wait-probe" wait.
type stateProbe struct {
	states map[string]*framework.CycleState
	errs   []string
}

const probeKey framework.StateKey = "StateProbe"

type probeData string

func (d probeData) Clone() framework.StateData { return d }

func (p *stateProbe) Name() string { return "StateProbe" }

func (p *stateProbe) PreFilter(_ context.Context, state *framework.CycleState, pod *framework.PodInfo, _ []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	if d, err := state.Read(probeKey); err == nil {
		p.errs = append(p.errs, fmt.Sprintf("pod %s: its state holds %v from another cycle", pod.Pod.Name, d))
	}
	p.states[pod.Pod.Name] = state
	state.Write(probeKey, probeData(pod.Pod.Name))
	return nil, nil
}

func (p *stateProbe) PreFilterExtensions() framework.PreFilterExtensions { return nil }

func (p *stateProbe) Permit(_ context.Context, _ *framework.CycleState, pod *framework.PodInfo, _ string) (*framework.Status, time.Duration) {
	if _, ok := pod.Pod.Labels["wait-probe"]; ok {
		return framework.NewStatus(framework.Wait), time.Hour
	}
	return nil, 0
}

func (p *stateProbe) PreBind(_ context.Context, state *framework.CycleState, pod *framework.PodInfo, _ string) *framework.Status {
	if d, err := state.Read(probeKey); err != nil || d != probeData(pod.Pod.Name) {
		p.errs = append(p.errs, fmt.Sprintf("pod %s: at PreBind its state holds %v (%v)", pod.Pod.Name, d, err))
	}
	return nil
}

// TestCycleStateReusedAfterBinding: a cycle whose binding ran on the
// scheduler's lock hands its released state to the next cycle, which finds
// it empty; the state of a pod waiting at Permit is not handed out while
// it waits, and keeps the cycle's values until the pod's binding, after
// which the next cycle reuses it.
func TestCycleStateReusedAfterBinding(t *testing.T) {
	ctx := context.Background()
	probe := &stateProbe{states: map[string]*framework.CycleState{}}
	reg := scRegistry(&scRecorder{})
	if err := reg.Register(probe.Name(), func(any, framework.Handle) (framework.Plugin, error) { return probe, nil }); err != nil {
		t.Fatal(err)
	}
	prof := scProfile("")
	prof.PreFilter = []string{probe.Name()}
	prof.Permit = []string{probe.Name()}
	prof.PreBind = []string{probe.Name()}
	c, err := cluster.NewFrom(scNodes("8"), nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(c, reg, []framework.Profile{prof}, WithClock(framework.NewFakeClock(scT0)), WithSeed(1))
	if err != nil {
		t.Fatal(err)
	}
	schedule := func(want Outcome) {
		t.Helper()
		d, ok := s.ScheduleOne(ctx)
		if !ok || d.Outcome != want {
			t.Fatalf("decision %+v, %v; want %s", d, ok, want)
		}
	}
	for _, p := range []string{"p1", "p2"} {
		if err := s.AddPod(scPod(p, "1").Obj()); err != nil {
			t.Fatal(err)
		}
		schedule(OutcomeScheduled)
	}
	if probe.states["p2"] != probe.states["p1"] {
		t.Errorf("p2's cycle got a new state; want p1's, released by its binding")
	}
	if err := s.AddPod(scPod("w", "1").Label("wait-probe", "").Obj()); err != nil {
		t.Fatal(err)
	}
	schedule(OutcomeWaiting)
	if err := s.AddPod(scPod("p3", "1").Obj()); err != nil {
		t.Fatal(err)
	}
	schedule(OutcomeScheduled)
	if probe.states["p3"] == probe.states["w"] {
		t.Errorf("p3's cycle got the state of pod w, which waits at Permit")
	}
	wp, ok := s.WaitingPod("default", "w")
	if !ok {
		t.Fatal("pod w is not waiting")
	}
	wp.Allow(probe.Name())
	if n := s.ProcessBindings(ctx); n != 1 {
		t.Fatalf("ProcessBindings = %d, want 1", n)
	}
	if err := s.AddPod(scPod("p4", "1").Obj()); err != nil {
		t.Fatal(err)
	}
	schedule(OutcomeScheduled)
	if probe.states["p4"] != probe.states["w"] {
		t.Errorf("p4's cycle did not get the state pod w's binding released")
	}
	for _, e := range probe.errs {
		t.Error(e)
	}
}
