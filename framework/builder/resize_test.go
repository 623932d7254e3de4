package builder_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/framework/builder"
	"github.com/schedkit/schedkit/resource"
)

// The status builders write the fields of a resize in flight: a regular
// container's status goes to containerStatuses, an init container's (one
// added before) to initContainerStatuses; StatusReq and StatusAllocated
// share one entry per container; pod-level status and the resize
// conditions as kube writes them.
func TestPodStatusResourcesFields(t *testing.T) {
	l := resource.MustParseList
	type m = map[string]string
	got := builder.MakePod().Name("p").PodReq(m{"cpu": "2"}).Req(m{"cpu": "1"}).SidecarReq(m{"cpu": "100m"}).
		StatusReq("c0", m{"cpu": "1500m"}).StatusAllocated("c0", m{"cpu": "1"}).StatusReq("s0", m{"cpu": "200m"}).
		StatusReq("c0", m{"cpu": "2"}).StatusPodReq(m{"cpu": "3"}).StatusPodAllocated(m{"cpu": "2"}).
		ResizePending(api.PodReasonDeferred).ResizeInProgress().Obj()
	want := api.PodStatus{
		Conditions: []api.PodCondition{
			{Type: api.PodResizePending, Status: api.ConditionTrue, Reason: api.PodReasonDeferred},
			{Type: api.PodResizeInProgress, Status: api.ConditionTrue},
		},
		ContainerStatuses:     []api.ContainerStatus{{Name: "c0", Resources: &api.ResourceRequirements{Requests: l(m{"cpu": "2"})}, AllocatedResources: l(m{"cpu": "1"})}},
		InitContainerStatuses: []api.ContainerStatus{{Name: "s0", Resources: &api.ResourceRequirements{Requests: l(m{"cpu": "200m"})}}},
		Resources:             &api.ResourceRequirements{Requests: l(m{"cpu": "3"})},
		AllocatedResources:    l(m{"cpu": "2"}),
	}
	if diff := cmp.Diff(want, got.Status, cmpQuantity); diff != "" {
		t.Errorf("status (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(&api.ResourceRequirements{Requests: l(m{"cpu": "2"})}, got.Spec.Resources, cmpQuantity); diff != "" {
		t.Errorf("spec.resources (-want +got):\n%s", diff)
	}
}

// A pod built before a status call keeps its status: the wrapper edits a
// copy of the entry.
func TestPodStatusResourcesIndependent(t *testing.T) {
	type m = map[string]string
	w := builder.MakePod().Name("p").Req(m{"cpu": "1"}).StatusReq("c0", m{"cpu": "2"})
	first := w.Obj()
	w.StatusReq("c0", m{"cpu": "3"}).StatusAllocated("c0", m{"cpu": "3"})
	second := w.Obj()
	if q := first.Status.ContainerStatuses[0].Resources.Requests[resource.CPU]; q.MilliValue() != 2000 || first.Status.ContainerStatuses[0].AllocatedResources != nil {
		t.Errorf("first pod's status changed: %+v", first.Status.ContainerStatuses[0])
	}
	if q := second.Status.ContainerStatuses[0].Resources.Requests[resource.CPU]; q.MilliValue() != 3000 {
		t.Errorf("second pod's status %+v, want cpu 3", second.Status.ContainerStatuses[0])
	}
}

// A malformed status quantity is a Build error naming the pod, the
// container and the field.
func TestPodStatusResourcesMalformed(t *testing.T) {
	type m = map[string]string
	for _, tc := range []struct {
		w    *builder.PodWrapper
		want string
	}{
		{builder.MakePod().Name("p").Req(nil).StatusReq("c0", m{"cpu": "lots"}), "status of container c0 resources.requests"},
		{builder.MakePod().Name("p").Req(nil).StatusAllocated("c0", m{"cpu": "lots"}), "status of container c0 allocatedResources"},
		{builder.MakePod().Name("p").StatusPodReq(m{"cpu": "lots"}), "status.resources.requests"},
		{builder.MakePod().Name("p").StatusPodAllocated(m{"cpu": "lots"}), "status.allocatedResources"},
		{builder.MakePod().Name("p").PodReq(m{"cpu": "lots"}), "spec.resources.requests"},
	} {
		_, err := tc.w.Build()
		if err == nil || !strings.Contains(err.Error(), `pod "p"`) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), `"lots"`) {
			t.Errorf("Build error %v, want one naming pod \"p\", %s and \"lots\"", err, tc.want)
		}
	}
}
