package framework_test

import (
	"fmt"

	fw "github.com/schedkit/schedkit/framework"
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
	fmt.Println("requests:", fw.PodRequests(pod, fw.RequestOptions{}))
	fmt.Println("without overhead:", fw.PodRequests(pod, fw.RequestOptions{ExcludeOverhead: true}))
	cpu, mem := fw.PodNonZeroRequests(pod)
	fmt.Println("non-zero:", cpu, mem)
	fmt.Println("qos:", pod.QOSClass())

	// A pod that requests nothing counts as 100m and 200Mi per container
	// in the non-zero view.
	bestEffort := builder.MakePod().Name("idle").Req(nil).Req(nil).Obj()
	cpu, mem = fw.PodNonZeroRequests(bestEffort)
	fmt.Println("best effort non-zero:", cpu, mem, bestEffort.QOSClass())
	// Output:
	// requests: cpu=1150m,memory=320Mi
	// without overhead: cpu=1100m,memory=320Mi
	// non-zero: 1150 335544320
	// qos: Burstable
	// best effort non-zero: 200 419430400 BestEffort
}

// A snapshot of two nodes in a fixed order, with the pods bound to them;
// pending and finished pods are left out.
func ExampleNewSnapshot() {
	node := func(name string, images ...string) *fw.Node {
		return builder.MakeNode().Name(name).Capacity(map[string]string{"cpu": "4", "memory": "8Gi"}).
			Image(1<<20, images...).Obj()
	}
	pod := func(name, nodeName, cpu string, phase fw.PodPhase) *fw.Pod {
		return builder.MakePod().Name(name).Node(nodeName).Req(map[string]string{"cpu": cpu}).Phase(phase).Obj()
	}
	snap, err := fw.NewSnapshot(
		[]*fw.Node{node("node-b", "nginx:1.27"), node("node-a", "nginx:1.27", "redis:7")},
		[]*fw.Pod{
			pod("web-1", "node-a", "500m", fw.PodRunning),
			pod("web-2", "node-a", "250m", fw.PodRunning),
			pod("batch", "node-b", "2", fw.PodSucceeded), // finished: skipped
			pod("queued", "", "1", fw.PodPending),        // not bound: skipped
			pod("cache", "node-b", "1", fw.PodPending),   // bound, not started yet: counted
		},
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, ni := range snap.Nodes() {
		fmt.Printf("%s: %d pods, requested %dm of %dm cpu, non-zero memory %d\n",
			ni.Name(), len(ni.Pods), ni.Requested.MilliCPU, ni.Allocatable.MilliCPU, ni.NonZeroRequested.Memory)
	}
	fmt.Println("nodes with nginx:1.27:", snap.ImageNumNodes("nginx:1.27"))
	fmt.Println("nodes with redis:7:", snap.ImageNumNodes("redis:7"))

	_, err = fw.NewSnapshot([]*fw.Node{node("node-a")}, []*fw.Pod{pod("lost", "node-z", "1", fw.PodRunning)})
	fmt.Println(err)
	// Output:
	// node-b: 1 pods, requested 1000m of 4000m cpu, non-zero memory 209715200
	// node-a: 2 pods, requested 750m of 4000m cpu, non-zero memory 419430400
	// nodes with nginx:1.27: 2
	// nodes with redis:7: 1
	// framework: snapshot: pod default/lost: node "node-z" not found
}
