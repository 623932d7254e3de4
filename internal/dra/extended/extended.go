// Package extended builds the device requests of the claim that
// kube-scheduler's DynamicResources makes for a pod's extended resources
// backed by DeviceClasses (extendeddynamicresources.go in kube).
package extended

import (
	"fmt"
	"slices"
	"strings"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
)

// DeviceRequests is kube's createRequestsAndMappings without the
// container mappings: one ExactCount request per container and extended
// resource the node must provide through DRA, named
// container-<index>-request-<index of the resource among the container's
// sorted requests>; init containers that run to completion share the
// largest of their requests and reuse the requests of later long-lived
// containers first.
func DeviceRequests(view framework.DRAView, pod *api.Pod, need map[resource.Name]int64) []api.DeviceRequest {
	containers := slices.Concat(pod.Spec.InitContainers, pod.Spec.Containers)
	nInit := len(pod.Spec.InitContainers)
	var long, short []int
	for i := range containers {
		c := &containers[i]
		sidecar := c.RestartPolicy != nil && *c.RestartPolicy == api.RestartPolicyAlways
		if i < nInit && !sidecar {
			short = append(short, i)
		} else {
			long = append(long, i)
		}
	}
	names := make([]resource.Name, 0, len(need))
	for n := range need {
		names = append(names, n)
	}
	slices.Sort(names)
	var out []api.DeviceRequest
	for _, n := range names {
		class := view.ExtendedResourceClass(n)
		if class == nil {
			continue
		}
		longReqs := make([]*api.DeviceRequest, len(containers))
		for _, i := range long {
			longReqs[i] = containerRequest(i, &containers[i], n, class.Name, nil)
		}
		var maxShort *api.DeviceRequest
		for _, i := range short {
			r := containerRequest(i, &containers[i], n, class.Name, longReqs[i:])
			if r != nil && (maxShort == nil || maxShort.Exactly.Count < r.Exactly.Count) {
				maxShort = r
			}
		}
		if maxShort != nil {
			out = append(out, *maxShort)
		}
		for _, r := range longReqs {
			if r != nil {
				out = append(out, *r)
			}
		}
	}
	slices.SortFunc(out, func(a, b api.DeviceRequest) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// containerRequest is kube's createResourceRequestAndMappings: the
// request container i needs for resource n beyond what the reusable
// requests give it (nil when none).
func containerRequest(i int, c *api.Container, n resource.Name, class string, reusable []*api.DeviceRequest) *api.DeviceRequest {
	q, ok := c.Resources.Requests[n]
	if !ok {
		return nil
	}
	want := q.Value()
	if want == 0 || q.MilliValue()%1000 != 0 {
		return nil
	}
	var sum int64
	for _, r := range reusable {
		if r != nil {
			sum += r.Exactly.Count
			if sum >= want {
				return nil
			}
		}
	}
	keys := make([]string, 0, len(c.Resources.Requests))
	for k := range c.Resources.Requests {
		keys = append(keys, string(k))
	}
	slices.Sort(keys)
	idx := slices.Index(keys, string(n))
	return &api.DeviceRequest{
		Name: fmt.Sprintf("container-%d-request-%d", i, idx),
		Exactly: &api.ExactDeviceRequest{
			DeviceClassName: class,
			AllocationMode:  api.DeviceAllocationModeExactCount,
			Count:           want - sum,
		},
	}
}
