package dynamicresources

import (
	"context"
	"fmt"
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"pgregory.net/rapid"
)

// TestPropKeptFitsFollowChanges: a plugin that keeps each node's answer
// from one cycle to the next gives, after any change to what is
// allocated (a claim allocated a device, deallocated, an allocation in
// flight or ended), to a node, or to the class, the verdicts and scores
// a plugin built afresh gives on every node, for a claim with a
// firstAvailable request too.
func TestPropKeptFitsFollowChanges(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nNodes, nDevices := rapid.IntRange(1, 4).Draw(t, "nodes"), rapid.IntRange(1, 3).Draw(t, "devices")
		nodes, objs := draCluster(nNodes, nDevices)
		const others = 6
		for i := range others {
			objs = append(objs, draClaim(fmt.Sprintf("o%d", i), 1))
		}
		mine := draClaim("mine", int64(rapid.IntRange(1, 2).Draw(t, "count")))
		if rapid.Bool().Draw(t, "firstAvailable") {
			// Two devices where a node has them, else one: the score
			// follows the subrequest each node's answer chose.
			mine.Spec.Devices.Requests = []api.DeviceRequest{{Name: "r", FirstAvailable: []api.DeviceSubRequest{
				{Name: "two", DeviceClassName: "gpu", AllocationMode: api.DeviceAllocationModeExactCount, Count: 2},
				{Name: "one", DeviceClassName: "gpu", AllocationMode: api.DeviceAllocationModeExactCount, Count: 1},
			}}}
		}
		objs = append(objs, mine)
		snap, err := framework.NewSnapshot(nodes, nil, framework.WithStorage(objs...))
		if err != nil {
			t.Fatal(err)
		}
		kept := newDRAPlugin(t, snap)
		// verdicts are each node's Filter verdict and, where it fits, its
		// score (-1 where it does not).
		verdicts := func(pl *DynamicResources) []int64 {
			pi, _ := framework.NewPodInfo(draPod("p", "mine"))
			state := framework.NewCycleState()
			state.SetSnapshot(snap)
			if _, s := pl.PreFilter(context.Background(), state, pi, snap.Nodes()); !s.IsSuccess() {
				t.Fatalf("PreFilter: %v", s)
			}
			out := make([]int64, len(snap.Nodes()))
			for i, ni := range snap.Nodes() {
				out[i] = -1
				if pl.Filter(context.Background(), state, pi, ni).IsSuccess() {
					v, s := pl.Score(context.Background(), state, pi, ni)
					if !s.IsSuccess() {
						t.Fatalf("Score: %v", s)
					}
					out[i] = v
				}
			}
			return out
		}
		allocated := func(name, node string, dev int) *api.ResourceClaim {
			c := draClaim(name, 1)
			c.Status.Allocation = &api.AllocationResult{Devices: api.DeviceAllocationResult{Results: []api.DeviceRequestAllocationResult{{
				Request: "r", Driver: "gpu.example.com", Pool: node, Device: fmt.Sprintf("gpu%d", dev)}}}}
			return c
		}
		set := func(o api.StorageObject) {
			if _, err := snap.SetStorageObject(o); err != nil {
				t.Fatal(err)
			}
		}
		for step := range rapid.IntRange(1, 12).Draw(t, "steps") {
			node := fmt.Sprintf("n%d", rapid.IntRange(0, nNodes-1).Draw(t, "node"))
			other := fmt.Sprintf("o%d", rapid.IntRange(0, others-1).Draw(t, "claim"))
			dev := rapid.IntRange(0, nDevices-1).Draw(t, "device")
			switch op := rapid.IntRange(0, 5).Draw(t, "op"); op {
			case 0:
				set(allocated(other, node, dev))
			case 1:
				set(draClaim(other, 1))
			case 2:
				snap.SetDRAInFlight("uid-"+other, allocated(other, node, dev))
			case 3:
				snap.SetDRAInFlight("uid-"+other, nil)
			case 4:
				// The class asks for another driver, or for the devices again.
				class := &api.DeviceClass{ObjectMeta: api.ObjectMeta{Name: "gpu"}, Spec: api.DeviceClassSpec{Selectors: []api.DeviceSelector{{CEL: &api.CELDeviceSelector{
					Expression: rapid.SampledFrom([]string{`device.driver == "gpu.example.com"`, `device.driver == "other.example.com"`}).Draw(t, "selector")}}}}}
				set(class)
			case 5:
				// Nothing changes.
			}
			want := verdicts(newDRAPlugin(t, snap))
			got := verdicts(kept)
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("step %d: node %d scores %d with kept answers, %d afresh (-1: does not fit)", step, i, got[i], want[i])
				}
			}
		}
	})
}

// TestFilterCostlyFollowsTheSearches: a pod's Filter is costly when its
// claims were not asked for in the cycle before, or that cycle searched
// many nodes; once a cycle found its answers kept, the next one asking
// the same is not, and one asking something else is again.
func TestFilterCostlyFollowsTheSearches(t *testing.T) {
	nodes, objs := draCluster(100, 2)
	other := draClaim("other", 1)
	other.Spec.Devices.Requests[0].Name = "another"
	objs = append(objs, draClaim("mine", 1), other)
	snap, err := framework.NewSnapshot(nodes, nil, framework.WithStorage(objs...))
	if err != nil {
		t.Fatal(err)
	}
	pl := newDRAPlugin(t, snap)
	cycle := func(claim string) bool {
		pi, _ := framework.NewPodInfo(draPod("p", claim))
		state := framework.NewCycleState()
		state.SetSnapshot(snap)
		if _, s := pl.PreFilter(context.Background(), state, pi, snap.Nodes()); !s.IsSuccess() {
			t.Fatalf("PreFilter: %v", s)
		}
		costly := pl.FilterCostly(state, pi)
		for _, ni := range snap.Nodes() {
			if s := pl.Filter(context.Background(), state, pi, ni); !s.IsSuccess() {
				t.Fatalf("Filter %s: %v", ni.Node().Name, s)
			}
		}
		return costly
	}
	for i, step := range []struct {
		claim string
		want  bool
	}{
		{"mine", true},  // nothing asked before
		{"mine", true},  // the cycle before searched every node
		{"mine", false}, // the cycle before found every answer kept
		{"other", true}, // another request
		{"mine", true},  // the cycle before asked for something else
		{"mine", true},  // ... so it searched every node: a node keeps one answer
		{"mine", false}, // and this one finds them kept
	} {
		if got := cycle(step.claim); got != step.want {
			t.Errorf("cycle %d (%s): costly %v, want %v", i+1, step.claim, got, step.want)
		}
	}
}

// TestFirstAvailableScoreOutsideTheSnapshot: a node outside the cycle's
// snapshot (a NodeInfo of no position) scores through Filter's kept score
// as the snapshot's own NodeInfo of that node does: the subrequest its
// devices allow, 8 − i.
func TestFirstAvailableScoreOutsideTheSnapshot(t *testing.T) {
	nodes, objs := draCluster(2, 1)
	mine := draClaim("mine", 1)
	mine.Spec.Devices.Requests = []api.DeviceRequest{{Name: "r", FirstAvailable: []api.DeviceSubRequest{
		{Name: "two", DeviceClassName: "gpu", AllocationMode: api.DeviceAllocationModeExactCount, Count: 2},
		{Name: "one", DeviceClassName: "gpu", AllocationMode: api.DeviceAllocationModeExactCount, Count: 1},
	}}}
	snap, err := framework.NewSnapshot(nodes, nil, framework.WithStorage(append(objs, mine)...))
	if err != nil {
		t.Fatal(err)
	}
	pl := newDRAPlugin(t, snap)
	pi, _ := framework.NewPodInfo(draPod("p", "mine"))
	state := framework.NewCycleState()
	state.SetSnapshot(snap)
	if _, s := pl.PreFilter(context.Background(), state, pi, snap.Nodes()); !s.IsSuccess() {
		t.Fatalf("PreFilter: %v", s)
	}
	in := snap.Nodes()[0]
	out, err := framework.NewNodeInfo(in.Node())
	if err != nil {
		t.Fatal(err)
	}
	if out.Index() >= 0 {
		t.Fatalf("a NodeInfo outside the snapshot has position %d", out.Index())
	}
	for _, ni := range []*framework.NodeInfo{in, out} {
		if s := pl.Filter(context.Background(), state, pi, ni); !s.IsSuccess() {
			t.Fatalf("Filter (position %d): %v", ni.Index(), s)
		}
		// One device a node: the second subrequest, 8 − 1.
		if v, s := pl.Score(context.Background(), state, pi, ni); !s.IsSuccess() || v != 7 {
			t.Errorf("Score (position %d) = %d, %v; want 7", ni.Index(), v, s)
		}
	}
}
