package api_test

import (
	"testing"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
)

// BenchmarkNewPodInfo measures the per-pod request computation: a pod as a
// manifest gives it (no status), as a running pod's dump gives it (the
// kubelet reports resources equal to the spec), and with a resize in
// flight (status above spec), for one and for three containers, by each
// release's rule.
func BenchmarkNewPodInfo(b *testing.B) {
	req := func(cpu string) resource.List {
		return resource.MustParseList(map[string]string{"cpu": cpu, "memory": "1Gi"})
	}
	pod := func(containers int, status func(i int) *api.ContainerStatus) *api.Pod {
		p := &api.Pod{ObjectMeta: api.ObjectMeta{Name: "p", Namespace: "ns", UID: "p"}}
		for i := range containers {
			name := string(rune('a' + i))
			p.Spec.Containers = append(p.Spec.Containers, api.Container{Name: name, Resources: api.ResourceRequirements{Requests: req("500m")}})
			if cs := status(i); cs != nil {
				cs.Name = name
				p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, *cs)
			}
		}
		return p
	}
	none := func(int) *api.ContainerStatus { return nil }
	steady := func(int) *api.ContainerStatus {
		return &api.ContainerStatus{Resources: &api.ResourceRequirements{Requests: req("500m")}, AllocatedResources: req("500m")}
	}
	resizing := func(int) *api.ContainerStatus {
		return &api.ContainerStatus{Resources: &api.ResourceRequirements{Requests: req("1500m")}, AllocatedResources: req("500m")}
	}
	for _, c := range []struct {
		name string
		pod  *api.Pod
	}{
		{"1c/no-status", pod(1, none)}, {"1c/steady", pod(1, steady)}, {"1c/resizing", pod(1, resizing)},
		{"3c/no-status", pod(3, none)}, {"3c/steady", pod(3, steady)}, {"3c/resizing", pod(3, resizing)},
	} {
		// The default release (v1.37's rule), then v1.36's.
		for _, v := range []fw.KubeVersion{fw.DefaultKubeVersion, fw.KubeV136} {
			name := c.name
			if v != fw.DefaultKubeVersion {
				name = v.String() + "/" + name
			}
			b.Run(name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := v.NewPodInfo(c.pod); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
