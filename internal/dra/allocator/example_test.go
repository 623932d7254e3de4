package allocator_test

import (
	"context"
	"fmt"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/dra/allocator"
	"github.com/schedkit/schedkit/internal/dra/cel"
)

type classes map[string]*api.DeviceClass

func (c classes) DeviceClass(name string) (*api.DeviceClass, bool) {
	dc, ok := c[name]
	return dc, ok
}

// A claim for two GPUs of one model, on a node with three GPUs of which
// one is in use.
func ExampleAllocator_Allocate() {
	str := func(s string) *string { return &s }
	model := func(m string) map[api.QualifiedName]api.DeviceAttribute {
		return map[api.QualifiedName]api.DeviceAttribute{"model": {StringValue: str(m)}}
	}
	slice := &api.ResourceSlice{
		ObjectMeta: api.ObjectMeta{Name: "n1-gpus"},
		Spec: api.ResourceSliceSpec{
			Driver:   "gpu.example.com",
			Pool:     api.ResourcePool{Name: "n1", Generation: 1, ResourceSliceCount: 1},
			NodeName: str("n1"),
			Devices: []api.Device{
				{Name: "gpu0", Attributes: model("a100")},
				{Name: "gpu1", Attributes: model("h100")},
				{Name: "gpu2", Attributes: model("h100")},
				{Name: "gpu3", Attributes: model("a100")},
			},
		},
	}
	gpu := &api.DeviceClass{ObjectMeta: api.ObjectMeta{Name: "gpu"}, Spec: api.DeviceClassSpec{
		Selectors: []api.DeviceSelector{{CEL: &api.CELDeviceSelector{Expression: `device.driver == "gpu.example.com"`}}},
	}}
	model2 := api.FullyQualifiedName("gpu.example.com/model")
	claim := &api.ResourceClaim{
		ObjectMeta: api.ObjectMeta{Name: "train", Namespace: "default"},
		Spec: api.ResourceClaimSpec{Devices: api.DeviceClaim{
			Requests:    []api.DeviceRequest{{Name: "gpus", Exactly: &api.ExactDeviceRequest{DeviceClassName: "gpu", Count: 2}}},
			Constraints: []api.DeviceConstraint{{MatchAttribute: &model2}},
		}},
	}
	// gpu0 is in use: the first free device is gpu1, an h100, and the
	// next h100 is gpu2.
	state := allocator.AllocatedState{Devices: map[allocator.DeviceID]struct{}{{Driver: "gpu.example.com", Pool: "n1", Device: "gpu0"}: {}}}

	compiler, err := cel.NewCompiler()
	if err != nil {
		panic(err)
	}
	a, err := allocator.New(allocator.DefaultFeatures(framework.DefaultKubeVersion), state,
		classes{"gpu": gpu}, []*api.ResourceSlice{slice}, cel.NewCache(compiler))
	if err != nil {
		panic(err)
	}
	node := &api.Node{ObjectMeta: api.ObjectMeta{Name: "n1"}}
	results, err := a.Allocate(context.Background(), node, []*api.ResourceClaim{claim})
	if err != nil {
		panic(err)
	}
	for _, r := range results[0].Devices.Results {
		fmt.Println(r.Request, r.Pool, r.Device)
	}
	fmt.Println(results[0].NodeSelector.NodeSelectorTerms[0].MatchFields[0].Values)
	// Output:
	// gpus n1 gpu1
	// gpus n1 gpu2
	// [n1]
}
