package api_test

import (
	"fmt"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
)

// A pod with a container, a sidecar and a plain init container that starts
// after the sidecar, plus runtime overhead. Steady state: container + sidecar
// = 600m / 320Mi. While the init container runs, the sidecar runs too:
// 1 + 100m = 1100m, 128Mi + 64Mi = 192Mi. The per-resource maximum is
// 1100m / 320Mi; the overhead adds 50m.
func ExamplePodRequests() {
	pod := builder.MakePod().Name("web").
		Req(map[string]string{"cpu": "500m", "memory": "256Mi"}).
		SidecarReq(map[string]string{"cpu": "100m", "memory": "64Mi"}).
		InitReq(map[string]string{"cpu": "1", "memory": "128Mi"}).
		Overhead(map[string]string{"cpu": "50m"}).Obj()
	fmt.Println("requests:", api.PodRequests(pod, api.RequestOptions{}))
	fmt.Println("without overhead:", api.PodRequests(pod, api.RequestOptions{ExcludeOverhead: true}))
	cpu, mem := api.PodNonZeroRequests(pod)
	fmt.Println("non-zero:", cpu, mem)
	fmt.Println("qos:", pod.QOSClass())

	// A pod that requests nothing counts as 100m and 200Mi per container
	// in the non-zero view.
	bestEffort := builder.MakePod().Name("idle").Req(nil).Req(nil).Obj()
	cpu, mem = api.PodNonZeroRequests(bestEffort)
	fmt.Println("best effort non-zero:", cpu, mem, bestEffort.QOSClass())
	// Output:
	// requests: cpu=1150m,memory=320Mi
	// without overhead: cpu=1100m,memory=320Mi
	// non-zero: 1150 335544320
	// qos: Burstable
	// best effort non-zero: 200 419430400 BestEffort
}
