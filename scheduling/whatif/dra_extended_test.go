package whatif_test

import (
	"context"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/internal/st"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/kubeload"
	"github.com/schedkit/schedkit/scheduling/whatif"
)

// extendedGPUDump is a dump with one node (4 cpu) whose two GPUs DRA hands
// out, and the DeviceClass that backs the extended resource
// example.com/gpu with them.
const extendedGPUDump = `
apiVersion: v1
kind: Node
metadata: {name: n1}
status:
  allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec:
  extendedResourceName: example.com/gpu
  selectors:
  - cel: {expression: device.driver == "gpu.example.com"}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: n1-gpus}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: n1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
  - name: gpu-1
`

// TestCapacityDRABackedExtendedResource: read from a dump, a DeviceClass
// backing example.com/gpu lets a pod that asks for example.com/gpu: 1
// (no claim) onto a node that does not advertise the resource, as in kube
// v1.36 and v1.37 (DRAExtendedResource on in both): the node takes as
// many replicas as it has GPUs, each allocated one through the claim
// DynamicResources makes, and the next replica fails in DynamicResources,
// not NodeResourcesFit.
func TestCapacityDRABackedExtendedResource(t *testing.T) {
	for _, v := range framework.KubeVersions() {
		t.Run(v.String(), func(t *testing.T) {
			l := kubeload.NewLoader(kubeload.Options{})
			if err := l.ReadBytes([]byte(extendedGPUDump), "dump"); err != nil {
				t.Fatal(err)
			}
			d, err := l.Dump()
			if err != nil {
				t.Fatal(err)
			}
			if n := d.DRA.DeviceClasses[0].Spec.ExtendedResourceName; n == nil || *n != "example.com/gpu" {
				t.Fatalf("extendedResourceName read as %v", n)
			}
			c, err := d.Cluster()
			if err != nil {
				t.Fatal(err)
			}
			w, err := whatif.New(c, scheduling.NewDefaultRegistry(), []framework.Profile{scheduling.DefaultProfileFor(v)}, scheduling.WithKubeVersion(v))
			if err != nil {
				t.Fatal(err)
			}
			tmpl := st.MakePod().Namespace("default").Name("job").Req(map[string]string{"cpu": "1", "example.com/gpu": "1"}).Obj()
			ans, err := w.Capacity(context.Background(), tmpl, whatif.CapacityOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if ans.Replicas != 2 {
				t.Fatalf("%d replicas, want 2 (one per GPU); stop: %v", ans.Replicas, ans.FitError)
			}
			if ans.FitError == nil || strings.Contains(ans.FitError.Error(), "Insufficient example.com/gpu") ||
				!strings.Contains(ans.FitError.Error(), "cannot allocate all claims") {
				t.Errorf("third replica's failure %v, want DynamicResources' alone", ans.FitError)
			}
		})
	}
}
