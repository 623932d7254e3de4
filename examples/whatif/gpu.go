package main

import (
	"context"
	_ "embed"
	"fmt"
	"time"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/scheduling/whatif"
)

//go:embed testdata/gpu-cluster.json.gz
var sampleGPUCluster []byte

// The device questions of the GPU demo (-gpu), asked on the GPU sample
// with pods and a claim template built with framework/builder.
const (
	// gpuNamespace is the sample's namespace of GPU workloads.
	gpuNamespace = "ml"
	// pairTemplate is the sample's claim template of two A100s on one
	// PCIe root (the resource.kubernetes.io/pcieRoot attribute).
	pairTemplate = "a100-pair"
	// fallbackTemplate is the claim template the demo adds: two H100s,
	// or else two A100s (a firstAvailable request).
	fallbackTemplate = "h100-or-a100-pair"
)

// acceleratorToleration tolerates the sample's GPU-node taint.
var acceleratorToleration = api.Toleration{Key: "example.com/accelerator", Operator: api.TolerationOpExists}

// finetunePod is a replica of a fine-tuning job: two A100s on one PCIe
// root, through the sample's claim template.
func finetunePod() *api.Pod {
	return builder.MakePod().Name("finetune").Namespace(gpuNamespace).Label("app", "finetune").
		Req(map[string]string{"cpu": "16", "memory": "128Gi"}).Toleration(acceleratorToleration).
		ResourceClaimTemplate("gpus", pairTemplate).Obj()
}

// fallbackClaimTemplate asks for two H100s, or two A100s when no node has
// two H100s free.
func fallbackClaimTemplate() *api.ResourceClaimTemplate {
	return builder.MakeResourceClaimTemplate(fallbackTemplate).Namespace(gpuNamespace).
		FirstAvailable("gpus", builder.SubRequest("h100", "nvidia-h100", 2), builder.SubRequest("a100", "nvidia-a100", 2)).Obj()
}

// trainPod is a training pod whose claim comes from fallbackClaimTemplate.
func trainPod() *api.Pod {
	return builder.MakePod().Name("train-rl").Namespace(gpuNamespace).Label("app", "train-rl").
		Req(map[string]string{"cpu": "16", "memory": "96Gi"}).Toleration(acceleratorToleration).
		ResourceClaimTemplate("gpus", fallbackTemplate).Obj()
}

// gpuDemo asks the GPU sample's device questions: how many more
// fine-tuning pods of two A100s fit, and where a pod asking for two H100s
// or else two A100s would go and why not elsewhere.
func (s *session) gpuDemo(ctx context.Context) error {
	pod := finetunePod()
	fmt.Fprintf(s.diag, "\n== capacity of Pod %s: two A100s on one PCIe root each (claim template %s/%s) ==\n", pod.Key(), gpuNamespace, pairTemplate)
	start := time.Now()
	ans, err := s.whatif.Capacity(ctx, pod, whatif.CapacityOptions{})
	if err != nil {
		return err
	}
	fmt.Fprintf(s.diag, "(answered in %s: %d scheduling cycles)\n", since(start), capacityCycles(ans))
	if err := s.capacityAnswer(ans); err != nil {
		return err
	}

	tmpl := fallbackClaimTemplate()
	if err := s.whatif.Scheduler().AddStorageObject(tmpl); err != nil {
		return err
	}
	pod = trainPod()
	fmt.Fprintf(s.diag, "\n== place Pod %s: two H100s, else two A100s (claim template %s/%s, firstAvailable) ==\n", pod.Key(), gpuNamespace, fallbackTemplate)
	start = time.Now()
	placed, err := s.whatif.Place(ctx, pod)
	if err != nil {
		return err
	}
	fmt.Fprintf(s.diag, "(answered in %s)\n", since(start))
	return s.placeAnswer(placed)
}
