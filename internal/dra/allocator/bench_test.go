package allocator

import (
	"context"
	"fmt"
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/dra/cel"
	"github.com/schedkit/schedkit/resource"
)

// benchWorld is a node with 8 GPUs of three models, half of the first
// model allocated already, and a claim for count GPUs of one model.
func benchWorld(benchCache *cel.Cache, count int64) (*Allocator, *api.Node, []*api.ResourceClaim, error) {
	models := []string{"a100", "h100", "l4"}
	var devs []api.Device
	state := AllocatedState{Devices: map[DeviceID]struct{}{}}
	for i := range 8 {
		model := models[i%len(models)]
		devs = append(devs, api.Device{
			Name: fmt.Sprintf("gpu%d", i),
			Attributes: map[api.QualifiedName]api.DeviceAttribute{
				"model": {StringValue: ptrTo(model)},
				"index": {IntValue: ptrTo(int64(i))},
			},
			Capacity: map[api.QualifiedName]api.DeviceCapacity{"memory": {Value: resource.MustParse("80Gi")}},
		})
		if model == "h100" && i < 4 {
			state.Devices[DeviceID{"gpu.example.com", "n1", fmt.Sprintf("gpu%d", i)}] = struct{}{}
		}
	}
	slices := []*api.ResourceSlice{{
		ObjectMeta: api.ObjectMeta{Name: "n1-gpus"},
		Spec: api.ResourceSliceSpec{
			Driver:   "gpu.example.com",
			Pool:     api.ResourcePool{Name: "n1", Generation: 1, ResourceSliceCount: 1},
			NodeName: ptrTo("n1"),
			Devices:  devs,
		},
	}}
	classes := classMap{"gpu": {ObjectMeta: api.ObjectMeta{Name: "gpu"}, Spec: api.DeviceClassSpec{
		Selectors: []api.DeviceSelector{{CEL: &api.CELDeviceSelector{Expression: `device.driver == "gpu.example.com"`}}},
	}}}
	claim := &api.ResourceClaim{
		ObjectMeta: api.ObjectMeta{Name: "c", Namespace: "default"},
		Spec: api.ResourceClaimSpec{Devices: api.DeviceClaim{Requests: []api.DeviceRequest{{
			Name: "r",
			Exactly: &api.ExactDeviceRequest{
				DeviceClassName: "gpu",
				Count:           count,
				Selectors:       []api.DeviceSelector{{CEL: &api.CELDeviceSelector{Expression: `device.attributes["gpu.example.com"].model == "h100"`}}},
			},
		}}}},
	}
	a, err := New(DefaultFeatures(framework.DefaultKubeVersion), state, classes, slices, benchCache)
	if err != nil {
		return nil, nil, nil, err
	}
	return a, &api.Node{ObjectMeta: api.ObjectMeta{Name: "n1"}}, []*api.ResourceClaim{claim}, nil
}

// BenchmarkAllocate is one Filter's worth of work: Allocate for one claim
// of 1 or 2 GPUs of one model on a node with 8 GPUs of varied models.
func BenchmarkAllocate(b *testing.B) {
	for _, count := range []int64{1, 2} {
		b.Run(fmt.Sprintf("gpus=%d", count), func(b *testing.B) {
			a, node, claims, err := benchWorld(celCache(b), count)
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				res, err := a.Allocate(ctx, node, claims)
				if err != nil || len(res) != 1 || len(res[0].Devices.Results) != int(count) {
					b.Fatalf("got %v, %v", res, err)
				}
			}
		})
	}
}

// BenchmarkAllocateElsewhere is the Filter of a node without the GPUs
// (another node's slices only): the common case in a large cluster.
func BenchmarkAllocateElsewhere(b *testing.B) {
	a, _, claims, err := benchWorld(celCache(b), 1)
	if err != nil {
		b.Fatal(err)
	}
	node := &api.Node{ObjectMeta: api.ObjectMeta{Name: "n2"}}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		res, err := a.Allocate(ctx, node, claims)
		if err != nil || res != nil {
			b.Fatalf("got %v, %v", res, err)
		}
	}
}

// BenchmarkNew is the per-cycle cost of building the allocator over a
// cluster of 5,000 nodes with 8 GPUs each: with the slices indexed anew
// (New), which grows with the slices, not with the devices; and from an
// index shared across cycles (NewFromSlices).
func BenchmarkNew(b *testing.B) {
	var slices []*api.ResourceSlice
	for n := range 5000 {
		node := fmt.Sprintf("n%d", n)
		devs := make([]api.Device, 8)
		for i := range devs {
			devs[i] = api.Device{Name: fmt.Sprintf("gpu%d", i), Attributes: map[api.QualifiedName]api.DeviceAttribute{"index": {IntValue: ptrTo(int64(i))}}}
		}
		slices = append(slices, &api.ResourceSlice{
			ObjectMeta: api.ObjectMeta{Name: node + "-gpus"},
			Spec: api.ResourceSliceSpec{
				Driver:   "gpu.example.com",
				Pool:     api.ResourcePool{Name: node, Generation: 1, ResourceSliceCount: 1},
				NodeName: ptrTo(node),
				Devices:  devs,
			},
		})
	}
	cache := celCache(b)
	f := DefaultFeatures(framework.DefaultKubeVersion)
	b.Run("index", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := New(f, AllocatedState{}, classMap{}, slices, cache); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("shared-index", func(b *testing.B) {
		idx, err := IndexSlices(slices, cache)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := NewFromSlices(f, AllocatedState{}, classMap{}, idx); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkAllocateCluster is one pod's DynamicResources Filter over a
// whole cluster (1k, 5k and 15k nodes with 8 GPUs of varied models each):
// an allocator from the shared slice index, then Allocate on every node.
// The pods vary: four claim shapes (1 or 2 GPUs, any model or one model)
// in turn.
func BenchmarkAllocateCluster(b *testing.B) {
	models := []string{"a100", "h100", "l4"}
	shapes := []struct {
		count int64
		expr  string
	}{
		{1, ""},
		{2, `device.attributes["gpu.example.com"].model == "h100"`},
		{1, `device.attributes["gpu.example.com"].model == "l4"`},
		{2, ""},
	}
	var claims [][]*api.ResourceClaim
	for i, s := range shapes {
		req := api.ExactDeviceRequest{DeviceClassName: "gpu", Count: s.count}
		if s.expr != "" {
			req.Selectors = []api.DeviceSelector{{CEL: &api.CELDeviceSelector{Expression: s.expr}}}
		}
		claims = append(claims, []*api.ResourceClaim{{
			ObjectMeta: api.ObjectMeta{Name: fmt.Sprintf("c%d", i), Namespace: "default"},
			Spec:       api.ResourceClaimSpec{Devices: api.DeviceClaim{Requests: []api.DeviceRequest{{Name: "r", Exactly: &req}}}},
		}})
	}
	classes := classMap{"gpu": {ObjectMeta: api.ObjectMeta{Name: "gpu"}, Spec: api.DeviceClassSpec{
		Selectors: []api.DeviceSelector{{CEL: &api.CELDeviceSelector{Expression: `device.driver == "gpu.example.com"`}}},
	}}}
	for _, n := range []int{1000, 5000, 15000} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			var slices []*api.ResourceSlice
			var nodes []*api.Node
			state := AllocatedState{Devices: map[DeviceID]struct{}{}}
			for i := range n {
				name := fmt.Sprintf("n%d", i)
				nodes = append(nodes, &api.Node{ObjectMeta: api.ObjectMeta{Name: name}})
				devs := make([]api.Device, 8)
				for d := range devs {
					devs[d] = api.Device{Name: fmt.Sprintf("gpu%d", d), Attributes: map[api.QualifiedName]api.DeviceAttribute{
						"model": {StringValue: ptrTo(models[(i+d/3)%len(models)])},
					}}
					if (i+d)%3 == 0 {
						state.Devices[DeviceID{"gpu.example.com", name, devs[d].Name}] = struct{}{}
					}
				}
				slices = append(slices, &api.ResourceSlice{
					ObjectMeta: api.ObjectMeta{Name: name + "-gpus"},
					Spec: api.ResourceSliceSpec{
						Driver:   "gpu.example.com",
						Pool:     api.ResourcePool{Name: name, Generation: 1, ResourceSliceCount: 1},
						NodeName: ptrTo(name),
						Devices:  devs,
					},
				})
			}
			idx, err := IndexSlices(slices, celCache(b))
			if err != nil {
				b.Fatal(err)
			}
			f := DefaultFeatures(framework.DefaultKubeVersion)
			ctx := context.Background()
			i := 0
			b.ReportAllocs()
			for b.Loop() {
				a, err := NewFromSlices(f, state, classes, idx)
				if err != nil {
					b.Fatal(err)
				}
				c := claims[i%len(claims)]
				i++
				for _, node := range nodes {
					if _, err := a.Allocate(ctx, node, c); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
