package dynamicresources

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/st"
	"pgregory.net/rapid"
)

// draCluster builds nodes n0..n(nodes-1), each with a slice of devices
// gpu0..gpu(devices-1) of driver gpu.example.com, and the class "gpu".
func draCluster(nodes, devices int) ([]*api.Node, []api.StorageObject) {
	var ns []*api.Node
	objs := []api.StorageObject{&api.DeviceClass{
		ObjectMeta: api.ObjectMeta{Name: "gpu"},
		Spec: api.DeviceClassSpec{Selectors: []api.DeviceSelector{{CEL: &api.CELDeviceSelector{
			Expression: `device.driver == "gpu.example.com"`}}}},
	}}
	for i := range nodes {
		name := fmt.Sprintf("n%d", i)
		ns = append(ns, st.MakeNode().Name(name).Capacity(map[string]string{"cpu": "8", "memory": "16Gi", "pods": "110"}).Obj())
		sl := &api.ResourceSlice{ObjectMeta: api.ObjectMeta{Name: name + "-gpus"}}
		sl.Spec.Driver = "gpu.example.com"
		sl.Spec.NodeName = &name
		sl.Spec.Pool = api.ResourcePool{Name: name, Generation: 1, ResourceSliceCount: 1}
		for d := range devices {
			sl.Spec.Devices = append(sl.Spec.Devices, api.Device{Name: fmt.Sprintf("gpu%d", d)})
		}
		objs = append(objs, sl)
	}
	return ns, objs
}

// draClaim is a claim for count devices of class gpu.
func draClaim(name string, count int64) *api.ResourceClaim {
	c := &api.ResourceClaim{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", UID: "uid-" + name}}
	c.Spec.Devices.Requests = []api.DeviceRequest{{Name: "r", Exactly: &api.ExactDeviceRequest{
		DeviceClassName: "gpu", AllocationMode: api.DeviceAllocationModeExactCount, Count: count}}}
	return c
}

// draPod is a pod using the named claims.
func draPod(name string, claims ...string) *api.Pod {
	p := st.MakePod().Namespace("default").Name(name).UID("uid-" + name).Req(map[string]string{"cpu": "100m"}).Obj()
	for _, c := range claims {
		p.Spec.ResourceClaims = append(p.Spec.ResourceClaims, api.PodResourceClaim{Name: c, ResourceClaimName: &c})
	}
	return p
}

// draState is the part of a snapshot DynamicResources changes.
type draSnapState struct {
	Claims   []api.ResourceClaim
	InFlight []api.ResourceClaim
	Devices  map[api.DeviceID]bool
}

func draStateOf(s *framework.Snapshot) draSnapState {
	v := s.DRA()
	out := draSnapState{Devices: map[api.DeviceID]bool{}}
	for _, c := range v.ResourceClaims() {
		out.Claims = append(out.Claims, *c)
	}
	for _, c := range v.InFlightClaims() {
		out.InFlight = append(out.InFlight, *c)
	}
	v.AllocatedDevices(func(id api.DeviceID) { out.Devices[id] = true })
	return out
}

// draCycle runs PreFilter and Filter on every node and returns the state
// and the first feasible node ("" when none).
func draCycle(t rapid.TB, pl *DynamicResources, snap *framework.Snapshot, pod *api.Pod) (*framework.CycleState, *framework.PodInfo, string) {
	pi, err := framework.NewPodInfo(pod)
	if err != nil {
		t.Fatal(err)
	}
	state := framework.NewCycleState()
	state.SetSnapshot(snap)
	ctx := context.Background()
	if _, s := pl.PreFilter(ctx, state, pi, snap.Nodes()); !s.IsSuccess() {
		return state, pi, ""
	}
	for _, ni := range snap.Nodes() {
		if pl.Filter(ctx, state, pi, ni).IsSuccess() {
			return state, pi, ni.Node().Name
		}
	}
	return state, pi, ""
}

func newDRAPlugin(t rapid.TB, snap *framework.Snapshot) *DynamicResources {
	p, err := New(DefaultDynamicResourcesArgs(), st.DRAHandleOf(snap))
	if err != nil {
		t.Fatal(err)
	}
	return p.(*DynamicResources)
}

// TestPropDynamicResourcesReserveUnreserve: after some pods got their
// claims allocated (bound, or left in flight after Reserve), Reserve and
// then Unreserve of one more pod leave the claims, the in-flight
// allocations and the allocated devices exactly as they were.
func TestPropDynamicResourcesReserveUnreserve(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nodes, objs := draCluster(rapid.IntRange(1, 3).Draw(t, "nodes"), rapid.IntRange(1, 3).Draw(t, "devices"))
		nClaims := rapid.IntRange(1, 6).Draw(t, "claims")
		for i := range nClaims {
			objs = append(objs, draClaim(fmt.Sprintf("c%d", i), int64(rapid.IntRange(1, 2).Draw(t, "count"))))
		}
		snap, err := framework.NewSnapshot(nodes, nil, framework.WithStorage(objs...))
		if err != nil {
			t.Fatal(err)
		}
		pl := newDRAPlugin(t, snap)
		ctx := context.Background()
		for i := range nClaims - 1 {
			pod := draPod(fmt.Sprintf("p%d", i), fmt.Sprintf("c%d", i))
			state, pi, node := draCycle(t, pl, snap, pod)
			if node == "" {
				continue
			}
			if !pl.Reserve(ctx, state, pi, node).IsSuccess() {
				t.Fatalf("reserve %s", pod.Name)
			}
			if rapid.Bool().Draw(t, "bind") {
				if s := pl.PreBind(ctx, state, pi, node); !s.IsSuccess() {
					t.Fatalf("prebind %s: %v", pod.Name, s)
				}
			}
		}
		last := fmt.Sprintf("c%d", nClaims-1)
		claims := []string{last}
		if rapid.Bool().Draw(t, "shared") {
			claims = append(claims, "c0")
		}
		before := draStateOf(snap)
		state, pi, node := draCycle(t, pl, snap, draPod("last", claims...))
		if node == "" {
			return
		}
		if !pl.Reserve(ctx, state, pi, node).IsSuccess() {
			t.Fatal("reserve last")
		}
		pl.Unreserve(ctx, state, pi, node)
		if after := draStateOf(snap); !reflect.DeepEqual(before, after) {
			t.Fatalf("state after Reserve+Unreserve differs:\n before %+v\n after  %+v", before, after)
		}
	})
}

// TestPropDynamicResourcesSnapshotClone: a clone of a snapshot shares its
// DRA objects until either side changes; the changes a scheduling cycle
// makes on the clone (in-flight allocations, allocated and reserved
// claims, deleted claims) leave the original exactly as it was, and the
// clone's derived state (allocated devices) is what a snapshot built from
// its claims has.
func TestPropDynamicResourcesSnapshotClone(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		nodes, objs := draCluster(rapid.IntRange(1, 3).Draw(t, "nodes"), 2)
		nClaims := rapid.IntRange(1, 5).Draw(t, "claims")
		for i := range nClaims {
			objs = append(objs, draClaim(fmt.Sprintf("c%d", i), 1))
		}
		orig, err := framework.NewSnapshot(nodes, nil, framework.WithStorage(objs...))
		if err != nil {
			t.Fatal(err)
		}
		// Some claims allocated in the original first.
		pl := newDRAPlugin(t, orig)
		ctx := context.Background()
		for i := range rapid.IntRange(0, nClaims).Draw(t, "preallocated") {
			state, pi, node := draCycle(t, pl, orig, draPod(fmt.Sprintf("q%d", i), fmt.Sprintf("c%d", i)))
			if node != "" && pl.Reserve(ctx, state, pi, node).IsSuccess() {
				_ = pl.PreBind(ctx, state, pi, node)
			}
		}
		before := draStateOf(orig)
		clone := orig.Clone()
		cpl := newDRAPlugin(t, clone)
		for i := range nClaims {
			state, pi, node := draCycle(t, cpl, clone, draPod(fmt.Sprintf("p%d", i), fmt.Sprintf("c%d", i)))
			if node == "" {
				continue
			}
			if !cpl.Reserve(ctx, state, pi, node).IsSuccess() {
				t.Fatal("reserve")
			}
			if rapid.Bool().Draw(t, "bind") {
				_ = cpl.PreBind(ctx, state, pi, node)
			}
		}
		if rapid.Bool().Draw(t, "delete") {
			_, _ = clone.DeleteStorageObject(api.KindResourceClaim, "default", "c0")
		}
		if after := draStateOf(orig); !reflect.DeepEqual(before, after) {
			t.Fatalf("original changed through its clone:\n before %+v\n after  %+v", before, after)
		}
		// The clone's allocated devices are those of its claims.
		want := map[api.DeviceID]bool{}
		for _, c := range clone.DRA().ResourceClaims() {
			if a := c.Status.Allocation; a != nil {
				for _, r := range a.Devices.Results {
					want[api.DeviceID{Driver: r.Driver, Pool: r.Pool, Device: r.Device}] = true
				}
			}
		}
		if got := draStateOf(clone).Devices; !reflect.DeepEqual(want, got) {
			t.Fatalf("clone's allocated devices %v, want %v", got, want)
		}
	})
}

// TestDynamicResourcesTwoPodsOneCycle: two pods whose claims each want
// the only device, the second scheduled while the first's allocation is
// in flight (Reserve done, PreBind not yet), never get the same device.
func TestDynamicResourcesTwoPodsOneCycle(t *testing.T) {
	nodes, objs := draCluster(1, 1)
	objs = append(objs, draClaim("a", 1), draClaim("b", 1))
	snap, err := framework.NewSnapshot(nodes, nil, framework.WithStorage(objs...))
	if err != nil {
		t.Fatal(err)
	}
	pl := newDRAPlugin(t, snap)
	ctx := context.Background()
	state, pi, node := draCycle(t, pl, snap, draPod("pa", "a"))
	if node != "n0" || !pl.Reserve(ctx, state, pi, node).IsSuccess() {
		t.Fatalf("first pod: node %q", node)
	}
	_, _, node2 := draCycle(t, pl, snap, draPod("pb", "b"))
	if node2 != "" {
		t.Fatalf("second pod fits on %s while the only device is in flight", node2)
	}
	pl.Unreserve(ctx, state, pi, node)
	if _, _, node2 = draCycle(t, pl, snap, draPod("pb", "b")); node2 != "n0" {
		t.Fatalf("after Unreserve the second pod fits on %q, want n0", node2)
	}
}

// BenchmarkDynamicResourcesCycle: one pod with a one-device claim through
// PreFilter and Filter on 1,000 and 5,000 nodes of 8 devices each. In
// the searched cases the pods take turns between two claims that ask
// for the device under different request names, so that no node's
// answer is kept from the cycle before (every node is searched); in the
// kept case every cycle asks what the one before asked. The
// firstAvailable case asks for the device through a firstAvailable
// request, whose chosen subrequest each node's answer records for Score.
func BenchmarkDynamicResourcesCycle(b *testing.B) {
	for _, tc := range []struct {
		name           string
		n              int
		firstAvailable bool
		kept           bool
	}{
		{"nodes=1000/searched", 1000, false, false}, {"nodes=5000/searched", 5000, false, false},
		{"nodes=5000/kept", 5000, false, true}, {"nodes=1000/firstAvailable", 1000, true, false},
	} {
		b.Run(tc.name, func(b *testing.B) {
			nodes, objs := draCluster(tc.n, 8)
			claims := []*api.ResourceClaim{draClaim("c0", 1), draClaim("c1", 1)}
			claims[1].Spec.Devices.Requests[0].Name = "other"
			if tc.firstAvailable {
				for _, c := range claims {
					// Each claim keeps its request's name, so that the
					// two ask differently and every cycle searches.
					c.Spec.Devices.Requests = []api.DeviceRequest{{Name: c.Spec.Devices.Requests[0].Name, FirstAvailable: []api.DeviceSubRequest{{
						Name: "one", DeviceClassName: "gpu", AllocationMode: api.DeviceAllocationModeExactCount, Count: 1}}}}
				}
			}
			objs = append(objs, claims[0], claims[1])
			snap, err := framework.NewSnapshot(nodes, nil, framework.WithStorage(objs...))
			if err != nil {
				b.Fatal(err)
			}
			benchDRACycles(b, newDRAPlugin(b, snap), snap, draPod("p0", "c0"), draPod("p1", "c1"), tc.kept)
		})
	}
}

// benchDRACycles runs PreFilter and Filter on every node, each cycle for
// pod a, or for a and b in turn unless kept.
func benchDRACycles(b *testing.B, pl *DynamicResources, snap *framework.Snapshot, a, other *api.Pod, kept bool) {
	pa, _ := framework.NewPodInfo(a)
	pb, _ := framework.NewPodInfo(other)
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		pi := pa
		if !kept && i%2 == 1 {
			pi = pb
		}
		i++
		state := framework.NewCycleState()
		state.SetSnapshot(snap)
		if _, s := pl.PreFilter(ctx, state, pi, snap.Nodes()); !s.IsSuccess() {
			b.Fatal(s)
		}
		for _, ni := range snap.Nodes() {
			if s := pl.Filter(ctx, state, pi, ni); !s.IsSuccess() {
				b.Fatal(s)
			}
		}
	}
}

// BenchmarkDynamicResourcesNoClaims: a pod without claims through
// PreFilter (which skips Filter) and the batch score of 1,000 nodes.
func BenchmarkDynamicResourcesNoClaims(b *testing.B) {
	nodes, objs := draCluster(1000, 8)
	snap, err := framework.NewSnapshot(nodes, nil, framework.WithStorage(objs...))
	if err != nil {
		b.Fatal(err)
	}
	pl := newDRAPlugin(b, snap)
	pi, _ := framework.NewPodInfo(st.MakePod().Namespace("default").Name("p").Req(map[string]string{"cpu": "1"}).Obj())
	ctx := context.Background()
	state := framework.NewCycleState()
	state.SetSnapshot(snap)
	out := make([]int64, len(snap.Nodes()))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, s := pl.PreFilter(ctx, state, pi, nil); !s.IsSkip() {
			b.Fatal(s)
		}
		if lo, hi, s := pl.ScoreBatchBounds(ctx, state, pi, snap.Nodes(), nil, out); !s.IsSuccess() || lo != 0 || hi != 0 {
			b.Fatal(lo, hi, s)
		}
	}
}

// TestDynamicResourcesConcurrentFilter: Filter on many nodes at once (as
// the runner's parallel loop calls it) passes every node that fits, and
// each of them can then be reserved with devices of its own.
func TestDynamicResourcesConcurrentFilter(t *testing.T) {
	nodes, objs := draCluster(64, 2)
	objs = append(objs, draClaim("c", 2))
	snap, err := framework.NewSnapshot(nodes, nil, framework.WithStorage(objs...))
	if err != nil {
		t.Fatal(err)
	}
	pl := newDRAPlugin(t, snap)
	pi, _ := framework.NewPodInfo(draPod("p", "c"))
	ctx := context.Background()
	state := framework.NewCycleState()
	state.SetSnapshot(snap)
	if _, s := pl.PreFilter(ctx, state, pi, snap.Nodes()); !s.IsSuccess() {
		t.Fatal(s)
	}
	all := snap.Nodes()
	got := make([]*framework.Status, len(all))
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := w; i < len(all); i += 4 {
				got[i] = pl.Filter(ctx, state, pi, all[i])
			}
		})
	}
	wg.Wait()
	for i, s := range got {
		if !s.IsSuccess() {
			t.Fatalf("node %d: %v", i, s)
		}
		if sc, st := pl.Score(ctx, state, pi, all[i]); sc != 0 || !st.IsSuccess() {
			t.Fatalf("node %d: score %d %v", i, sc, st)
		}
	}
	// Any node Filter passed can be reserved, with devices of its own.
	for i, ni := range all {
		name := ni.Node().Name
		if st := pl.Reserve(ctx, state, pi, name); !st.IsSuccess() {
			t.Fatalf("node %d: Reserve: %v", i, st)
		}
		inFlight := snap.DRA().InFlight("uid-c")
		if inFlight == nil || inFlight.Status.Allocation == nil {
			t.Fatalf("node %d: no allocation in flight after Reserve", i)
		}
		a := inFlight.Status.Allocation
		if sel := a.NodeSelector; sel == nil || len(sel.NodeSelectorTerms) != 1 || sel.NodeSelectorTerms[0].MatchFields[0].Values[0] != name {
			t.Fatalf("node %d: allocation for nodes %+v, want %s", i, sel, name)
		}
		for _, r := range a.Devices.Results {
			if r.Pool != name {
				t.Fatalf("node %d: device %s/%s of another node", i, r.Pool, r.Device)
			}
		}
		pl.Unreserve(ctx, state, pi, name)
		readDRAStateOrFail(t, state).info[0].allocation = nil
	}
}

// readDRAStateOrFail is the cycle's DynamicResources state.
func readDRAStateOrFail(t *testing.T, cs *framework.CycleState) *draState {
	s, err := readDRAState(cs)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
