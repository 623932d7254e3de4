package allocator

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
	"pgregory.net/rapid"
)

// propWorld is a random cluster: GPUs of two models on two nodes (some
// local, some network-attached), shared NICs, devices already allocated,
// and claims asking for them in various ways.
type propWorld struct {
	nodes   []*api.Node
	slices  []*api.ResourceSlice
	classes []*api.DeviceClass
	state   AllocatedState
	claims  []*api.ResourceClaim
}

func ptrTo[T any](v T) *T { return &v }

func drawWorld(t *rapid.T) *propWorld {
	w := &propWorld{}
	for _, n := range []string{"n1", "n2"} {
		w.nodes = append(w.nodes, &api.Node{ObjectMeta: api.ObjectMeta{Name: n}})
	}
	models := []string{"a100", "h100"}
	drawDevices := func(prefix string, n int) []api.Device {
		var ds []api.Device
		for i := range n {
			d := api.Device{
				Name: fmt.Sprintf("%s%d", prefix, i),
				Attributes: map[api.QualifiedName]api.DeviceAttribute{
					"model": {StringValue: ptrTo(rapid.SampledFrom(models).Draw(t, "model"))},
					"index": {IntValue: ptrTo(int64(rapid.IntRange(0, 3).Draw(t, "index")))},
				},
			}
			if rapid.IntRange(0, 5).Draw(t, "taint") == 0 {
				d.Taints = []api.DeviceTaint{{Key: "broken", Effect: api.DeviceTaintEffectNoSchedule}}
			}
			ds = append(ds, d)
		}
		return ds
	}
	for _, n := range []string{"n1", "n2"} {
		nSlices := rapid.IntRange(1, 2).Draw(t, "slices")
		for s := range nSlices {
			w.slices = append(w.slices, &api.ResourceSlice{
				ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("%s-gpus-%d", n, s)},
				Spec: api.ResourceSliceSpec{
					Driver:   "gpu.example.com",
					Pool:     api.ResourcePool{Name: n, Generation: 1, ResourceSliceCount: int64(nSlices)},
					NodeName: ptrTo(n),
					Devices:  drawDevices(fmt.Sprintf("s%dgpu", s), rapid.IntRange(0, 4).Draw(t, "devices")),
				},
			})
		}
	}
	w.slices = append(w.slices, &api.ResourceSlice{
		ObjectMeta: api.ObjectMeta{Name: "fabric"},
		Spec: api.ResourceSliceSpec{
			Driver:   "gpu.example.com",
			Pool:     api.ResourcePool{Name: "fabric", Generation: 1, ResourceSliceCount: 1},
			AllNodes: ptrTo(true),
			Devices:  drawDevices("fgpu", rapid.IntRange(0, 3).Draw(t, "fabric")),
		},
	})
	nic := api.Device{
		Name:                     "nic0",
		AllowMultipleAllocations: ptrTo(true),
		Capacity: map[api.QualifiedName]api.DeviceCapacity{
			"bandwidth": {Value: resource.MustParse("10G"), RequestPolicy: &api.CapacityRequestPolicy{
				Default:    ptrTo(resource.MustParse("1G")),
				ValidRange: &api.CapacityRequestPolicyRange{Min: ptrTo(resource.MustParse("1G")), Step: ptrTo(resource.MustParse("1G"))},
			}},
		},
	}
	w.slices = append(w.slices, &api.ResourceSlice{
		ObjectMeta: api.ObjectMeta{Name: "n1-nic"},
		Spec: api.ResourceSliceSpec{
			Driver:   "nic.example.com",
			Pool:     api.ResourcePool{Name: "n1-nic", Generation: 1, ResourceSliceCount: 1},
			NodeName: ptrTo("n1"),
			Devices:  []api.Device{nic},
		},
	})
	w.classes = []*api.DeviceClass{
		{ObjectMeta: api.ObjectMeta{Name: "gpu"}, Spec: api.DeviceClassSpec{Selectors: []api.DeviceSelector{{CEL: &api.CELDeviceSelector{Expression: `device.driver == "gpu.example.com"`}}}}},
		{ObjectMeta: api.ObjectMeta{Name: "nic"}, Spec: api.DeviceClassSpec{Selectors: []api.DeviceSelector{{CEL: &api.CELDeviceSelector{Expression: `device.driver == "nic.example.com"`}}}}},
	}
	// Some devices are allocated already.
	for _, s := range w.slices {
		for _, d := range s.Spec.Devices {
			if d.AllowMultipleAllocations == nil && rapid.IntRange(0, 3).Draw(t, "allocated") == 0 {
				if w.state.Devices == nil {
					w.state.Devices = make(map[DeviceID]struct{})
				}
				w.state.Devices[DeviceID{s.Spec.Driver, s.Spec.Pool.Name, d.Name}] = struct{}{}
			}
		}
	}
	nClaims := rapid.IntRange(1, 3).Draw(t, "claims")
	for c := range nClaims {
		claim := &api.ResourceClaim{ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("c%d", c), Namespace: "default", UID: fmt.Sprintf("uid-%d", c)}}
		nReqs := rapid.IntRange(1, 2).Draw(t, "requests")
		for r := range nReqs {
			req := api.DeviceRequest{Name: fmt.Sprintf("r%d", r)}
			exact := &api.ExactDeviceRequest{DeviceClassName: "gpu", Count: int64(rapid.IntRange(1, 3).Draw(t, "count"))}
			switch rapid.IntRange(0, 6).Draw(t, "kind") {
			case 0:
				exact.AllocationMode = api.DeviceAllocationModeAll
				exact.Count = 0
			case 1:
				exact.AdminAccess = ptrTo(true)
			case 2:
				exact.Selectors = []api.DeviceSelector{{CEL: &api.CELDeviceSelector{Expression: `device.attributes["gpu.example.com"].model == "h100"`}}}
			case 3:
				exact.DeviceClassName = "nic"
				exact.Count = 1
				exact.Capacity = &api.CapacityRequirements{Requests: map[api.QualifiedName]resource.Quantity{
					"bandwidth": resource.MustParse(rapid.SampledFrom([]string{"1G", "3G", "4500M"}).Draw(t, "bw")),
				}}
			case 4:
				exact.Tolerations = []api.DeviceToleration{{Key: "broken", Operator: api.DeviceTolerationOpExists}}
			case 5:
				req.FirstAvailable = []api.DeviceSubRequest{
					{Name: "big", DeviceClassName: "gpu", Count: exact.Count + 1},
					{Name: "small", DeviceClassName: "gpu", Count: 1},
				}
				exact = nil
			}
			req.Exactly = exact
			claim.Spec.Devices.Requests = append(claim.Spec.Devices.Requests, req)
		}
		switch rapid.IntRange(0, 3).Draw(t, "constraint") {
		case 0:
			claim.Spec.Devices.Constraints = []api.DeviceConstraint{{MatchAttribute: ptrTo(api.FullyQualifiedName("gpu.example.com/model"))}}
		case 1:
			claim.Spec.Devices.Constraints = []api.DeviceConstraint{{DistinctAttribute: ptrTo(api.FullyQualifiedName("gpu.example.com/index"))}}
		}
		w.claims = append(w.claims, claim)
	}
	return w
}

func mustJSON(t interface{ Fatal(...any) }, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// stateJSON renders an AllocatedState deterministically.
func stateJSON(t *rapid.T, s AllocatedState) string {
	devs := make(map[string]bool)
	for id := range s.Devices {
		devs[id.String()] = true
	}
	shares := make(map[string]bool)
	for id := range s.SharedDevices {
		shares[id.String()+"/"+id.ShareID] = true
	}
	caps := make(map[string]map[api.QualifiedName]resource.Quantity)
	for id, c := range s.ConsumedCapacity {
		caps[id.String()] = c
	}
	return mustJSON(t, []any{devs, shares, caps})
}

// TestPropAllocation checks on random clusters that an allocation never
// gives a device (other than a share of a shared device, or with admin
// access) twice, neither across the claims nor when it is allocated
// already; that Allocate leaves its inputs as they were; and that the same
// inputs give the same answer, from the same allocator, from a fresh one,
// and from one sharing its slice index with another allocator.
func TestPropAllocation(t *testing.T) {
	cache := celCache(t)
	features := DefaultFeatures(framework.DefaultKubeVersion)
	rapid.Check(t, func(t *rapid.T) {
		w := drawWorld(t)
		before := mustJSON(t, []any{w.nodes, w.slices, w.classes, w.claims}) + stateJSON(t, w.state)
		// The allocator shares its index with one that ran first without
		// any allocated device: what the index keeps must not depend on
		// the allocated state.
		idx, err := IndexSlices(w.slices, cache)
		if err != nil {
			t.Fatal(err)
		}
		warm, err := NewFromSlices(features, AllocatedState{}, classesOf(w.classes), idx)
		if err != nil {
			t.Fatal(err)
		}
		for _, node := range w.nodes {
			_, _ = warm.Allocate(context.Background(), node, w.claims)
		}
		a, err := NewFromSlices(features, w.state, classesOf(w.classes), idx)
		if err != nil {
			t.Fatal(err)
		}
		for _, node := range w.nodes {
			got, err := a.Allocate(context.Background(), node, w.claims)
			// Fits gives Allocate's verdict and error without the results.
			fits, ferr := a.Fits(context.Background(), 0, node, w.claims)
			if fmt.Sprint(ferr) != fmt.Sprint(err) || fits != (err == nil && got != nil) {
				t.Fatalf("node %s: Fits = %v, %v; Allocate = %d results, %v", node.Name, fits, ferr, len(got), err)
			}
			// FitsChoosing tells the subrequest Allocate's results use
			// for each firstAvailable request.
			if _, chosen, _ := a.FitsChoosing(context.Background(), 0, nil, node, w.claims, "", nil); got != nil {
				var want []int
				for ci, c := range w.claims {
					for _, req := range c.Spec.Devices.Requests {
						for si, sub := range req.FirstAvailable {
							if slices.ContainsFunc(got[ci].Devices.Results, func(r api.DeviceRequestAllocationResult) bool {
								return r.Request == req.Name+"/"+sub.Name
							}) {
								want = append(want, si)
							}
						}
					}
				}
				if !slices.Equal(chosen, want) {
					t.Fatalf("node %s: FitsChoosing chose subrequests %v; Allocate's results use %v", node.Name, chosen, want)
				}
			}
			if err != nil {
				// Errors (such as an "All" request whose devices break a
				// constraint) are answers too, and must be repeatable.
				if _, err2 := a.Allocate(context.Background(), node, w.claims); err2 == nil || err2.Error() != err.Error() {
					t.Fatalf("node %s: %v, then %v", node.Name, err, err2)
				}
				continue
			}
			if got != nil && len(got) != len(w.claims) {
				t.Fatalf("node %s: %d results for %d claims", node.Name, len(got), len(w.claims))
			}
			used := make(map[DeviceID]string)
			for ci, res := range got {
				for _, r := range res.Devices.Results {
					if r.ShareID != nil || deref(r.AdminAccess) {
						continue
					}
					id := DeviceID{r.Driver, r.Pool, r.Device}
					if _, ok := w.state.Devices[id]; ok {
						t.Fatalf("node %s: claim %d got %s, which is allocated already", node.Name, ci, id)
					}
					if prev, ok := used[id]; ok {
						t.Fatalf("node %s: %s given twice (%s and claim %d request %s)", node.Name, id, prev, ci, r.Request)
					}
					used[id] = fmt.Sprintf("claim %d request %s", ci, r.Request)
				}
			}
			// The same inputs give the same answer, from this allocator
			// and from a fresh one.
			again, err := a.Allocate(context.Background(), node, w.claims)
			if err != nil {
				t.Fatal(err)
			}
			fresh, err := New(features, w.state, classesOf(w.classes), w.slices, cache)
			if err != nil {
				t.Fatal(err)
			}
			third, err := fresh.Allocate(context.Background(), node, w.claims)
			if err != nil {
				t.Fatal(err)
			}
			first := mustJSON(t, got)
			if s := mustJSON(t, again); s != first {
				t.Fatalf("node %s: second call differs:\n%s\n%s", node.Name, first, s)
			}
			if s := mustJSON(t, third); s != first {
				t.Fatalf("node %s: fresh allocator differs:\n%s\n%s", node.Name, first, s)
			}
		}
		if after := mustJSON(t, []any{w.nodes, w.slices, w.classes, w.claims}) + stateJSON(t, w.state); after != before {
			t.Fatalf("inputs changed:\n%s\n%s", before, after)
		}
	})
}
