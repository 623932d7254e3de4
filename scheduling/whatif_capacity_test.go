package scheduling

import (
	"context"
	"testing"
	"time"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/internal/st"
)

// wcReleaser writes, in PreFilter, a state value that counts its releases;
// its Permit makes pods labelled wait=yes wait.
type wcReleaser struct{ released *int }

type wcReleasable struct{ released *int }

func (d wcReleasable) Clone() framework.StateData { return d }
func (d wcReleasable) Release()                   { *d.released++ }

func (wcReleaser) Name() string { return "WcReleaser" }

func (p wcReleaser) PreFilter(_ context.Context, state *framework.CycleState, _ *framework.PodInfo, _ []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	state.Write("WcReleaser", wcReleasable(p))
	return nil, nil
}

func (wcReleaser) PreFilterExtensions() framework.PreFilterExtensions { return nil }

func (wcReleaser) Permit(_ context.Context, _ *framework.CycleState, pod *framework.PodInfo, _ string) (*framework.Status, time.Duration) {
	if pod.Pod.Labels["wait"] == "yes" {
		return framework.NewStatus(framework.Wait), time.Minute
	}
	return nil, 0
}

// TestForkReleasesStateOfBindingThatDidNotWait: inside a fork, a pod bound
// straight after its cycle releases its cycle state (what-if questions
// then recycle the plugins' buffers), while a pod held at Permit keeps
// it: Revert may make it wait again with that state.
func TestForkReleasesStateOfBindingThatDidNotWait(t *testing.T) {
	released := 0
	reg := NewDefaultRegistry()
	if err := reg.Register("WcReleaser", func(any, framework.Handle) (framework.Plugin, error) { return wcReleaser{&released}, nil }); err != nil {
		t.Fatal(err)
	}
	prof := DefaultProfile()
	prof.PreFilter = append(prof.PreFilter, "WcReleaser")
	prof.Permit = append(prof.Permit, "WcReleaser")
	c, err := NewClusterFrom([]*framework.Node{st.MakeNode().Name("n1").Capacity(map[string]string{"cpu": "4", "memory": "8Gi", "pods": "10"}).Obj()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(c, reg, []framework.Profile{prof}, WithClock(framework.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	held := st.MakePod().Name("held").Namespace("default").Label("wait", "yes").Req(map[string]string{"cpu": "1"}).Obj()
	if d, err := s.SchedulePod(ctx, held); err != nil || d.Outcome != OutcomeWaiting {
		t.Fatalf("held: %v %+v", err, d)
	}
	s.Fork()
	w, _ := s.WaitingPod("default", "held")
	w.Allow("WcReleaser")
	if n := s.ProcessBindings(ctx); n != 1 || released != 0 {
		t.Fatalf("held bound in the fork: %d bindings, %d releases; want 1, 0", n, released)
	}
	p := st.MakePod().Name("p").Namespace("default").Req(map[string]string{"cpu": "1"}).Obj()
	if d, err := s.SchedulePod(ctx, p); err != nil || d.Outcome != OutcomeScheduled {
		t.Fatalf("p: %v %+v", err, d)
	}
	if released != 1 {
		t.Fatalf("%d releases after a binding that did not wait, want 1", released)
	}
	if err := s.Revert(); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.WaitingPod("default", "held"); !ok {
		t.Fatal("held no longer waits after the Revert")
	}
}
