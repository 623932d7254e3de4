package framework

import (
	"fmt"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
)

func testNode(name string, milliCPU int64) *api.Node {
	return &api.Node{
		ObjectMeta: api.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/hostname": name}},
		Status: api.NodeStatus{Allocatable: resource.List{
			resource.CPU:  resource.NewMilliQuantity(milliCPU, resource.DecimalSI),
			resource.Pods: resource.NewQuantity(110, resource.DecimalSI),
		}},
	}
}

func testNodes(n int) []*api.Node {
	out := make([]*api.Node, n)
	for i := range out {
		out[i] = testNode(fmt.Sprintf("n%d", i), 1000*int64(i+1))
	}
	return out
}

func testPod(name string) *PodInfo {
	return MustPodInfo(&api.Pod{ObjectMeta: api.ObjectMeta{Name: name, Namespace: "default", UID: name}})
}
