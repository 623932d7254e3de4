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
