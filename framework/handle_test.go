package framework_test

import (
	"strings"
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
)

// TestNewHandleDefaults: a handle of no scheduler serves no waiting pods,
// nominations, pod groups, snapshot or loads, a DRA manager only inside a
// cycle (over the cycle's snapshot), and errors naming the pod or node
// from binding and evicting.
func TestNewHandleDefaults(t *testing.T) {
	h := fw.NewHandle(fw.RealClock{}, 3, fw.KubeV136)
	if h.Parallelism() != 3 || h.KubeVersion() != fw.KubeV136 || h.ProfileName() != "" || h.Extenders() != nil {
		t.Fatalf("handle = %d %v %q %v", h.Parallelism(), h.KubeVersion(), h.ProfileName(), h.Extenders())
	}
	if _, ok := h.WaitingPods().Get("ns/p"); ok || len(h.WaitingPods().List()) != 0 {
		t.Error("WaitingPods are not empty")
	}
	if got := h.Nominator().NominatedPodsForNode("n"); got != nil {
		t.Errorf("NominatedPodsForNode = %v", got)
	}
	if h.SnapshotLister().Snapshot() != nil {
		t.Error("SnapshotLister has a snapshot")
	}
	if _, ok := h.NodeLoads().NodeLoad("n"); ok {
		t.Error("NodeLoads has a load")
	}
	pgm := h.PodGroupManager()
	if _, ok := pgm.WorkloadPodGroup("ns", "g"); ok || pgm.Features() != (fw.WorkloadFeatures{}) {
		t.Error("PodGroupManager has a group or features")
	}
	if _, ok := pgm.TrialScheduled(fw.NewCycleState()); ok {
		t.Error("TrialScheduled outside a trial")
	}
	if h.DRAManager(nil) != nil {
		t.Error("DRAManager(nil) is not nil")
	}
	pod := fw.MustPodInfo(builder.MakePod().Namespace("ns").Name("p").Obj())
	for name, err := range map[string]error{
		"Bind":           h.Binder().Bind(nil, pod, "n1"),
		"BindPodVolumes": h.Binder().BindPodVolumes(nil, "n1", &api.PodVolumes{}),
		"Evict":          h.Evictor().Evict(nil, pod.Pod, "n1", nil, "P"),
	} {
		if err == nil || !strings.Contains(err.Error(), `"n1"`) || !strings.HasPrefix(err.Error(), "framework: "+name) {
			t.Errorf("%s = %v, want a framework error naming the node", name, err)
		}
	}
	if h.Binder().Forked() {
		t.Error("Forked without a scheduler")
	}
	r := h.PluginsRunner()
	if st := r.RunFilterPluginsWithNominatedPods(t.Context(), nil, pod, nil, nil); !st.IsSuccess() {
		t.Errorf("RunFilterPluginsWithNominatedPods = %v", st)
	}
	for range 100 {
		if n := r.RandInt32N(7); n < 0 || n >= 7 {
			t.Fatalf("RandInt32N(7) = %d", n)
		}
	}
}

// TestSnapshotDRAManager: the snapshot's DRA manager creates, replaces and
// deletes claims in the snapshot and refuses to create one that exists or
// replace one that does not, with the API server's messages.
func TestSnapshotDRAManager(t *testing.T) {
	snap := fw.MustSnapshot(nil, nil)
	st := fw.NewCycleState()
	st.SetSnapshot(snap)
	m := fw.NewHandle(fw.RealClock{}, 1, fw.DefaultKubeVersion).DRAManager(st)
	if m == nil || m.Snapshot() != snap {
		t.Fatalf("DRAManager(state) = %v, want the cycle's snapshot's", m)
	}
	claim := builder.MakeResourceClaim("c").Namespace("ns").Request("r", "gpu", 1).Obj()
	if err := m.WriteClaim(claim, false); err == nil || err.Error() != `could not find ResourceClaim "ns/c"` {
		t.Errorf("replace missing claim: %v", err)
	}
	if err := m.WriteClaim(claim, true); err != nil {
		t.Fatal(err)
	}
	if got, ok := snap.DRA().ResourceClaim("ns", "c"); !ok || got != claim {
		t.Errorf("claim after create = %v, %v", got, ok)
	}
	if err := m.WriteClaim(claim, true); err == nil || err.Error() != `resourceclaims "c" already exists` {
		t.Errorf("create existing claim: %v", err)
	}
	if err := m.DeleteClaim("ns", "c"); err != nil {
		t.Fatal(err)
	}
	if _, ok := snap.DRA().ResourceClaim("ns", "c"); ok {
		t.Error("claim still there after DeleteClaim")
	}
}

// TestWorkloadFeaturesValidate: the gates' dependencies.
func TestWorkloadFeaturesValidate(t *testing.T) {
	for _, tc := range []struct {
		f    fw.WorkloadFeatures
		want string
	}{
		{fw.WorkloadFeatures{}, ""},
		{fw.WorkloadFeatures{GenericWorkload: true, GangScheduling: true, WorkloadAwarePreemption: true, TopologyAwareWorkloadScheduling: true}, ""},
		{fw.WorkloadFeatures{GangScheduling: true}, "need GenericWorkload"},
		{fw.WorkloadFeatures{TopologyAwareWorkloadScheduling: true}, "need GenericWorkload"},
		{fw.WorkloadFeatures{GenericWorkload: true, WorkloadAwarePreemption: true}, "WorkloadAwarePreemption needs GangScheduling"},
	} {
		err := tc.f.Validate()
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%+v.Validate() = %v, want %q", tc.f, err, tc.want)
		}
	}
}
