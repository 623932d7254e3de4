package builder_test

import (
	"encoding/json"
	"fmt"

	"github.com/schedkit/schedkit/framework/builder"
)

// A GPU node's devices as its driver publishes them, a DeviceClass per
// GPU model, and a pod whose claim (made from a template) asks for two
// A100s on the same PCIe root, or else one H100.
func Example_dynamicResourceAllocation() {
	const driver = "gpu.nvidia.example.com"
	gpu := func(i int, root string) *builder.DeviceWrapper {
		return builder.MakeDevice(fmt.Sprintf("gpu-%d", i)).StringAttr("model", "A100").IntAttr("index", int64(i)).
			StringAttr("resource.kubernetes.io/pcieRoot", root).Capacity("memory", "80Gi")
	}
	slice := builder.MakeResourceSlice("gpu-node-1", driver).
		Device(gpu(0, "pci0"), gpu(1, "pci0"), gpu(2, "pci1"), gpu(3, "pci1")).Obj()
	a100 := builder.MakeDeviceClass("nvidia-a100").
		Selector(`device.driver == "gpu.nvidia.example.com" && device.attributes["gpu.nvidia.example.com"].model == "A100"`).Obj()
	template := builder.MakeResourceClaimTemplate("a100-pair").Namespace("ml").
		FirstAvailable("gpus", builder.SubRequest("a100s", "nvidia-a100", 2), builder.SubRequest("h100", "nvidia-h100", 1)).
		MatchAttribute("resource.kubernetes.io/pcieRoot").Obj()
	pod := builder.MakePod().Namespace("ml").Name("train").Req(map[string]string{"cpu": "8"}).
		ResourceClaimTemplate("gpus", "a100-pair").Obj()

	fmt.Printf("slice %s: %d devices of %s on node %s\n", slice.Name, len(slice.Spec.Devices), slice.Spec.Driver, *slice.Spec.NodeName)
	fmt.Printf("class %s: %s\n", a100.Name, a100.Spec.Selectors[0].CEL.Expression)
	spec, _ := json.Marshal(template.Spec.Spec)
	fmt.Printf("template %s/%s: %s\n", template.Namespace, template.Name, spec)
	fmt.Printf("pod %s: claim %s from template %s, used by container %s\n", pod.Key(), pod.Spec.ResourceClaims[0].Name,
		*pod.Spec.ResourceClaims[0].ResourceClaimTemplateName, pod.Spec.Containers[0].Name)
	// Output:
	// slice gpu-node-1-gpu.nvidia.example.com: 4 devices of gpu.nvidia.example.com on node gpu-node-1
	// class nvidia-a100: device.driver == "gpu.nvidia.example.com" && device.attributes["gpu.nvidia.example.com"].model == "A100"
	// template ml/a100-pair: {"devices":{"requests":[{"name":"gpus","firstAvailable":[{"name":"a100s","deviceClassName":"nvidia-a100","allocationMode":"ExactCount","count":2},{"name":"h100","deviceClassName":"nvidia-h100","allocationMode":"ExactCount","count":1}]}],"constraints":[{"matchAttribute":"resource.kubernetes.io/pcieRoot"}]}}
	// pod ml/train: claim gpus from template a100-pair, used by container c0
}
