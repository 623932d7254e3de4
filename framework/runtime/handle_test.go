package runtime

import (
	"math/rand/v2"
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
)

// svcFake is every Handle service at once.
type svcFake struct{}

func (svcFake) Get(string) (framework.WaitingPod, bool)                      { return nil, true }
func (svcFake) List() []framework.WaitingPod                                 { return nil }
func (svcFake) Activate([]string)                                            {}
func (svcFake) QueueOrderChanged()                                           {}
func (svcFake) NominatedPodsForNode(string) []*framework.PodInfo             { return []*framework.PodInfo{nil} }
func (svcFake) Snapshot() *framework.Snapshot                                { return framework.MustSnapshot(nil, nil) }
func (svcFake) NodeLoad(string) (*api.NodeLoad, bool)                        { return nil, true }
func (svcFake) Bind(*framework.CycleState, *framework.PodInfo, string) error { return nil }
func (svcFake) BindPodVolumes(*framework.CycleState, string, *api.PodVolumes) error {
	return nil
}
func (svcFake) Forked() bool { return true }
func (svcFake) Evict(*framework.CycleState, *api.Pod, string, []*framework.PodInfo, string) error {
	return nil
}
func (svcFake) AssignedPodAdded(*api.Pod)         {}
func (svcFake) AssignedPodDeleted(*api.Pod)       {}
func (svcFake) NodeMetricUpdated(*api.NodeMetric) {}
func (svcFake) DRA(st *framework.CycleState) framework.DRAManager {
	if st == nil {
		return nil
	}
	return framework.MustSnapshot(nil, nil).DRAManager()
}

// TestHandleServices: the Handle a plugin's factory receives serves what
// the options set, the defaults without them, and draws from WithRand's
// source.
func TestHandleServices(t *testing.T) {
	svc := svcFake{}
	var handlers []framework.ClusterEventHandler
	build := func(opts ...Option) framework.Handle {
		var got framework.Handle
		reg := framework.NewRegistry()
		if err := reg.Register("P", func(_ any, h framework.Handle) (framework.Plugin, error) {
			got = h
			return &fake{name: "P"}, nil
		}); err != nil {
			t.Fatal(err)
		}
		if _, err := NewFramework(reg, framework.Profile{SchedulerName: "s", Filter: []string{"P"}}, opts...); err != nil {
			t.Fatal(err)
		}
		return got
	}
	h := build(WithWaitingPods(svc), WithPodActivator(svc), WithPodNominator(svc), WithSnapshotLister(svc),
		WithBinder(svc), WithEvictor(svc), WithNodeLoads(svc), WithDRAManager(svc.DRA),
		WithClusterEventHandlers(func(h framework.ClusterEventHandler) { handlers = append(handlers, h) }),
		WithRand(rand.New(rand.NewPCG(7, 8))))
	if _, ok := h.WaitingPods().Get("x"); !ok {
		t.Error("WaitingPods is not the option's")
	}
	if len(h.Nominator().NominatedPodsForNode("n")) != 1 || h.SnapshotLister().Snapshot() == nil || !h.Binder().Forked() {
		t.Error("Nominator, SnapshotLister or Binder is not the option's")
	}
	if _, ok := h.NodeLoads().NodeLoad("n"); !ok || h.Evictor() != framework.Evictor(svc) || h.Activator() != framework.PodActivator(svc) {
		t.Error("NodeLoads, Evictor or Activator is not the option's")
	}
	if h.ProfileName() != "s" {
		t.Errorf("ProfileName = %q", h.ProfileName())
	}
	st := framework.NewCycleState()
	own := framework.MustSnapshot(nil, nil)
	st.SetSnapshot(own)
	if m := h.DRAManager(st); m == nil || m.Snapshot() == own {
		t.Error("DRAManager(state) is not the option's")
	}
	h.AddClusterEventHandler(svc)
	if len(handlers) != 1 {
		t.Errorf("handlers = %v", handlers)
	}
	want := rand.New(rand.NewPCG(7, 8))
	for range 5 {
		if got, w := h.PluginsRunner().RandInt32N(1000), want.Int32N(1000); got != w {
			t.Fatalf("RandInt32N = %d, want %d (WithRand's source)", got, w)
		}
	}

	d := build()
	if _, ok := d.WaitingPods().Get("x"); ok || d.SnapshotLister().Snapshot() != nil || d.Binder().Forked() {
		t.Error("defaults are not NewHandle's")
	}
	if m := d.DRAManager(st); m == nil || m.Snapshot() != own {
		t.Error("default DRAManager(state) is not the cycle's snapshot")
	}
	if d.DRAManager(nil) != nil {
		t.Error("default DRAManager(nil) is not nil")
	}
	d.AddClusterEventHandler(svc) // no scheduler: dropped
	if err := d.Evictor().Evict(st, &api.Pod{}, "n", nil, "P"); err == nil {
		t.Error("default Evict succeeded")
	}
}
