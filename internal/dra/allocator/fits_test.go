package allocator

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
)

// backtrackingWorld is one node of 128 devices that share the attribute
// "model", a class for them, and a claim of two requests whose devices
// must have distinct models: no pair fits, and the search tries them all
// (one step for each device of the first request) before it gives up.
func backtrackingWorld() (*api.Node, []*api.ResourceSlice, classMap, *api.ResourceClaim) {
	node := &api.Node{ObjectMeta: api.ObjectMeta{Name: "n0"}}
	name := "n0"
	sl := &api.ResourceSlice{ObjectMeta: api.ObjectMeta{Name: "n0-gpus"}}
	sl.Spec.Driver, sl.Spec.NodeName = "gpu.example.com", &name
	sl.Spec.Pool = api.ResourcePool{Name: "n0", Generation: 1, ResourceSliceCount: 1}
	model := "a"
	for d := range 128 {
		sl.Spec.Devices = append(sl.Spec.Devices, api.Device{Name: fmt.Sprintf("gpu%d", d),
			Attributes: map[api.QualifiedName]api.DeviceAttribute{"model": {StringValue: &model}}})
	}
	class := &api.DeviceClass{ObjectMeta: api.ObjectMeta{Name: "gpu"}}
	attr := api.FullyQualifiedName("gpu.example.com/model")
	claim := &api.ResourceClaim{ObjectMeta: api.ObjectMeta{Name: "c", Namespace: "default", UID: "uid-c"}}
	for _, r := range []string{"a", "b"} {
		claim.Spec.Devices.Requests = append(claim.Spec.Devices.Requests, api.DeviceRequest{Name: r,
			Exactly: &api.ExactDeviceRequest{DeviceClassName: "gpu", AllocationMode: api.DeviceAllocationModeExactCount, Count: 1}})
	}
	claim.Spec.Devices.Constraints = []api.DeviceConstraint{{DistinctAttribute: &attr}}
	return node, []*api.ResourceSlice{sl}, classesOf([]*api.DeviceClass{class}), claim
}

// TestFitsTimeout: a search that runs past Fits' timeout fails with the
// error Allocate gives under a context whose deadline passed, and without
// a timeout, or with one it does not reach, it gives Allocate's verdict.
func TestFitsTimeout(t *testing.T) {
	node, slices, classes, claim := backtrackingWorld()
	a, err := New(DefaultFeatures(framework.DefaultKubeVersion), AllocatedState{}, classes, slices, celCache(t))
	if err != nil {
		t.Fatal(err)
	}
	claims := []*api.ResourceClaim{claim}
	ctx := context.Background()
	got, err := a.Allocate(ctx, node, claims)
	if err != nil || got != nil {
		t.Fatalf("Allocate = %v, %v; want no allocation and no error", got, err)
	}
	for _, timeout := range []time.Duration{0, time.Hour} {
		if fits, err := a.Fits(ctx, timeout, node, claims); fits || err != nil {
			t.Errorf("timeout %v: Fits = %v, %v; want false, nil", timeout, fits, err)
		}
	}

	expired, cancel := context.WithDeadline(ctx, time.Now().Add(-time.Second))
	defer cancel()
	_, want := a.Allocate(expired, node, claims)
	if !errors.Is(want, context.DeadlineExceeded) {
		t.Fatalf("Allocate past its deadline: %v", want)
	}
	fits, err := a.Fits(ctx, time.Nanosecond, node, claims)
	if fits || !errors.Is(err, context.DeadlineExceeded) || err.Error() != want.Error() {
		t.Errorf("Fits with a timeout of 1ns = %v, %v; want %v", fits, err, want)
	}
}

// TestFitsKeyedDoneContext: an answer kept for a node is not given under
// a context already done: the search's error is, as without the answer.
func TestFitsKeyedDoneContext(t *testing.T) {
	node := &api.Node{ObjectMeta: api.ObjectMeta{Name: "n0"}}
	name := "n0"
	sl := &api.ResourceSlice{ObjectMeta: api.ObjectMeta{Name: "n0-gpus"}}
	sl.Spec.Driver, sl.Spec.NodeName = "gpu.example.com", &name
	sl.Spec.Pool = api.ResourcePool{Name: "n0", Generation: 1, ResourceSliceCount: 1}
	sl.Spec.Devices = []api.Device{{Name: "gpu0"}}
	claim := &api.ResourceClaim{ObjectMeta: api.ObjectMeta{Name: "c", Namespace: "default", UID: "uid-c"}}
	claim.Spec.Devices.Requests = []api.DeviceRequest{{Name: "r",
		Exactly: &api.ExactDeviceRequest{DeviceClassName: "gpu", AllocationMode: api.DeviceAllocationModeExactCount, Count: 1}}}
	snap, err := framework.NewSnapshot([]*api.Node{node}, nil, framework.WithStorage(sl))
	if err != nil {
		t.Fatal(err)
	}
	view := snap.DRA()
	state := AllocatedState{Versions: &view}
	a, err := New(DefaultFeatures(framework.DefaultKubeVersion), state, classesOf([]*api.DeviceClass{{ObjectMeta: api.ObjectMeta{Name: "gpu"}}}),
		[]*api.ResourceSlice{sl}, celCache(t))
	if err != nil {
		t.Fatal(err)
	}
	claims := []*api.ResourceClaim{claim}
	if fits, err := a.FitsKeyed(context.Background(), 0, node, claims, "k"); !fits || err != nil {
		t.Fatalf("FitsKeyed = %v, %v; want true", fits, err)
	}
	if fits, err := a.FitsKeyed(context.Background(), 0, node, claims, "k"); !fits || err != nil || a.Searched() != 1 {
		t.Fatalf("FitsKeyed again = %v, %v after %d searches; want true from the kept answer", fits, err, a.Searched())
	}
	done, cancel := context.WithCancel(context.Background())
	cancel()
	if fits, err := a.FitsKeyed(done, 0, node, claims, "k"); fits || !errors.Is(err, context.Canceled) {
		t.Errorf("FitsKeyed under a done context = %v, %v; want the search's error", fits, err)
	}
}

// TestSharedIndexCapacityPerFeatures: allocators of different features
// sharing one index each get the capacity verdict of an index of their
// own, where the index keeps a request's verdict on a device: a capacity
// of 1250m in steps of 500m takes a whole device under v1.37 without
// fractional ranges (its value rounds to whole units) and not with them.
func TestSharedIndexCapacityPerFeatures(t *testing.T) {
	dev := gpu("gpu0")
	step := resource.MustParse("500m")
	dev.Capacity = map[api.QualifiedName]api.DeviceCapacity{"mem": {
		Value:         resource.MustParse("1250m"),
		RequestPolicy: &api.CapacityRequestPolicy{ValidRange: &api.CapacityRequestPolicyRange{Step: &step}},
	}}
	slices := []*api.ResourceSlice{gpuSlice("n1", "n1", dev)}
	classes := classesOf([]*api.DeviceClass{gpuClass()})
	claims := []*api.ResourceClaim{claimOf(exactly("r", 1))}
	whole := DefaultFeatures(framework.KubeV137)
	fractional := whole
	fractional.FractionalCapacityRange = true
	old := DefaultFeatures(framework.KubeV136)

	fresh := func(f Features) bool {
		a, err := New(f, AllocatedState{}, classes, slices, celCache(t))
		if err != nil {
			t.Fatal(err)
		}
		fits, err := a.Fits(context.Background(), 0, n1, claims)
		if err != nil {
			t.Fatal(err)
		}
		return fits
	}
	if fresh(whole) == fresh(fractional) {
		t.Fatalf("the device fits alike with and without fractional ranges (%v): the case tests nothing", fresh(whole))
	}
	idx, err := IndexSlices(slices, celCache(t))
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range []Features{whole, fractional, old, fractional, whole, old} {
		a, err := NewFromSlices(f, AllocatedState{}, classes, idx)
		if err != nil {
			t.Fatal(err)
		}
		got, err := a.Fits(context.Background(), 0, n1, claims)
		if want := fresh(f); err != nil || got != want {
			t.Errorf("allocator %d (fractional %v, release %v) on the shared index: Fits = %v, %v; want %v", i, f.FractionalCapacityRange, f.Release, got, err, want)
		}
	}
}

// TestNodeSlotFollowsItsNode: a slot that served one node gives another
// node's answer when asked about it, a node object's replacement the
// new object's, and another index its own: in each case the answer of
// an allocator asked without a slot.
func TestNodeSlotFollowsItsNode(t *testing.T) {
	two := gpuSlice("n1", "n1", gpu("gpu0"), gpu("gpu1"))
	one := gpuSlice("n2", "n2", gpu("gpu0"))
	classes := classesOf([]*api.DeviceClass{gpuClass()})
	claims := []*api.ResourceClaim{claimOf(exactly("r", 2))}
	f := DefaultFeatures(framework.DefaultKubeVersion)
	n2 := &api.Node{ObjectMeta: api.ObjectMeta{Name: "n2"}}
	renamed := &api.Node{ObjectMeta: api.ObjectMeta{Name: "n2"}}
	lone := gpuSlice("n1", "n1", gpu("gpu0"))

	index := func(slices ...*api.ResourceSlice) *Slices {
		x, err := IndexSlices(slices, celCache(t))
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	first := index(two, one)
	// The same slice objects in another index: n1's node object is the
	// same, its pools are another index's.
	again := index(two, one)
	var slot NodeSlot
	for i, tc := range []struct {
		index *Slices
		node  *api.Node
	}{
		{first, n1},
		{first, n2},
		{first, n1},
		{index(two, gpuSlice("n2", "n2", gpu("gpu0"), gpu("gpu1"))), n2},
		{index(two, gpuSlice("n2", "n2", gpu("gpu0"), gpu("gpu1"))), renamed},
		{again, renamed},
		{index(lone), n1},
		{first, n1},
	} {
		a, err := New(f, AllocatedState{}, classes, tc.index.all, celCache(t))
		if err != nil {
			t.Fatal(err)
		}
		want, err := a.Fits(context.Background(), 0, tc.node, claims)
		if err != nil {
			t.Fatal(err)
		}
		b, err := NewFromSlices(f, AllocatedState{}, classes, tc.index)
		if err != nil {
			t.Fatal(err)
		}
		// The slot is asked twice: once filled, once read.
		for range 2 {
			got, _, err := b.FitsChoosing(context.Background(), 0, &slot, tc.node, claims, "", nil)
			if err != nil || got != want {
				t.Errorf("case %d, node %s: FitsChoosing through the slot = %v, %v; want %v", i, tc.node.Name, got, err, want)
			}
		}
	}
}
