package noderesources

import (
	"context"

	"github.com/schedkit/schedkit/filter"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/resource"
)

var _ framework.EnqueueExtensions = (*NodeResourcesFit)(nil)

// EventsToRegister: a placed pod deleted or scaled down, a node added or
// its allocatable changed (noderesources/fit.go; InPlacePodVerticalScaling
// is GA, so scale-downs count).
func (pl *NodeResourcesFit) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{Event: filter.PodEvent(framework.Delete | framework.UpdatePodScaleDown), QueueingHintFn: pl.afterPodEvent},
		{Event: filter.NodeEvent(framework.Add | framework.UpdateNodeAllocatable), QueueingHintFn: pl.afterNodeChange},
	}, nil
}

// afterPodEvent: Queue when a placed (or nominated) pod was deleted, or
// when the rejected pod itself, or a placed pod, lowered a request the
// rejected pod makes (isSchedulableAfterPodEvent).
func (pl *NodeResourcesFit) afterPodEvent(_ *framework.Snapshot, pod *framework.PodInfo, oldObj, newObj any) (framework.QueueingHint, error) {
	original, modified, err := framework.EventObjects[framework.PodInfo](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if modified == nil {
		if original.Pod.Spec.NodeName == "" && original.Pod.Status.NominatedNodeName == "" {
			return framework.QueueSkip, nil
		}
		return framework.Queue, nil
	}
	if framework.SamePod(modified.Pod, pod.Pod) {
		return framework.Queue, nil
	}
	if modified.Pod.Spec.NodeName == "" || original == nil {
		return framework.QueueSkip, nil
	}
	if scaledDownFor(&pod.Requests, &original.Requests, &modified.Requests) {
		return framework.Queue, nil
	}
	return framework.QueueSkip, nil
}

// scaledDownFor reports whether some resource want requests went down from
// before to after (isSchedulableAfterPodScaleDown).
func scaledDownFor(want, before, after *resource.Vector) bool {
	if want.MilliCPU != 0 && before.MilliCPU > after.MilliCPU ||
		want.Memory != 0 && before.Memory > after.Memory ||
		want.EphemeralStorage != 0 && before.EphemeralStorage > after.EphemeralStorage {
		return true
	}
	for _, sc := range want.Scalars {
		if sc.Value != 0 && before.Get(sc.Name) > after.Get(sc.Name) {
			return true
		}
	}
	return false
}

// afterNodeChange: Queue when the pod fits the node's allocatable on its
// own, and the node was added or a resource the pod needs (or its pod
// count) went up (isSchedulableAfterNodeChange). Ignored resources are not
// ignored here, as in kube's isFit.
func (pl *NodeResourcesFit) afterNodeChange(_ *framework.Snapshot, pod *framework.PodInfo, oldObj, newObj any) (framework.QueueingHint, error) {
	oldNode, newNode, err := framework.EventObjects[api.Node](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	alloc := resource.VectorFrom(newNode.Status.Allocatable)
	req := pod.SpecRequests() // isFit: computePodResourceRequest, the spec alone
	if !fitsAlone(req, &alloc) {
		return framework.QueueSkip, nil
	}
	if oldNode == nil {
		return framework.Queue, nil
	}
	before := resource.VectorFrom(oldNode.Status.Allocatable)
	if requestedIncreased(req, &before, &alloc) {
		return framework.Queue, nil
	}
	return framework.QueueSkip, nil
}

// fitsAlone reports whether a pod with requests req fits an empty node of
// allocatable alloc (kube's isFit: one pod, every positive request).
func fitsAlone(req, alloc *resource.Vector) bool {
	if 1 > alloc.Pods {
		return false
	}
	if req.MilliCPU > 0 && req.MilliCPU > alloc.MilliCPU || req.Memory > 0 && req.Memory > alloc.Memory ||
		req.EphemeralStorage > 0 && req.EphemeralStorage > alloc.EphemeralStorage {
		return false
	}
	for _, sc := range req.Scalars {
		if sc.Value > 0 && sc.Value > alloc.Get(sc.Name) {
			return false
		}
	}
	return true
}

// requestedIncreased is kube's haveAnyRequestedResourcesIncreased: the pod
// count went up, or a resource the pod requests did.
func requestedIncreased(req, before, after *resource.Vector) bool {
	if after.Pods > before.Pods {
		return true
	}
	if req.MilliCPU > 0 && after.MilliCPU > before.MilliCPU || req.Memory > 0 && after.Memory > before.Memory ||
		req.EphemeralStorage > 0 && after.EphemeralStorage > before.EphemeralStorage {
		return true
	}
	for _, sc := range req.Scalars {
		if sc.Value != 0 && after.Get(sc.Name) > before.Get(sc.Name) {
			return true
		}
	}
	return false
}
