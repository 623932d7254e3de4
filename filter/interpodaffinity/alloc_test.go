package interpodaffinity

import (
	"context"
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/internal/st"
)

// TestInterPodAffinityCycleAllocations: a cycle's PreFilter and PreScore
// from the pod index, for a pod that existing pods' required
// anti-affinity selects and that existing pods' terms score, with
// required anti-affinity and preferred affinity of its own, make their
// states in few allocations once the plugin's pools are warm: each state
// with its first slots and buffers, a slot's list of sources, and the
// pod's own terms.
func TestInterPodAffinityCycleAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop items at random")
	}
	snap := ipaBenchCluster(500, true)
	pl := ipaNewScore(t, DefaultInterPodAffinityArgs(), 1)
	pod := fw.MustPodInfo(st.MakePod().Name("incoming").Label("app", "svc8").Label("tier", "x").
		PodAntiAffinityIn("app", "kubernetes.io/hostname", []string{"svc8"}, st.PodAntiAffinityWithRequiredReq).
		PodAffinityIn("app", "topology.kubernetes.io/zone", []string{"batch"}, st.PodAffinityWithPreferredReq).Obj())
	ctx := context.Background()
	state := fw.NewCycleState()
	cycle := func() {
		state.SetSnapshot(snap)
		state.SetAllNodes(true)
		if _, s := pl.PreFilter(ctx, state, pod, snap.Nodes()); !s.IsSuccess() {
			t.Fatalf("PreFilter: %v", s)
		}
		state.SetAllNodes(false)
		if s := pl.PreScore(ctx, state, pod, snap.Nodes()); !s.IsSuccess() {
			t.Fatalf("PreScore: %v", s)
		}
		pre, err := state.Read(ipaPreFilterStateKey)
		if err != nil || pre.(*ipaPreFilterState).existingAnti.n == 0 || pre.(*ipaPreFilterState).dense == nil {
			t.Fatalf("PreFilter left no fast state counting the existing pods' anti-affinity: %v", err)
		}
		if sc, err := ipaReadScoreState(state); err != nil || sc.fast == nil || len(sc.fast.keys) < 2 {
			t.Fatalf("PreScore left no fast state over two keys: %v", err)
		}
		state.Release()
	}
	for range 3 {
		cycle()
	}
	// The two states, a slot's sources for each of the two dense lists,
	// the pod's compiled terms and its terms' pod queries.
	const want = 8
	if got := testing.AllocsPerRun(50, cycle); got > want {
		t.Fatalf("a PreFilter and PreScore cycle allocated %v times, want at most %d", got, want)
	}
}
