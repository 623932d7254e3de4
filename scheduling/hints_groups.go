package scheduling

import (
	"context"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
)

// Queueing hints of the gang plugins.

var (
	_ framework.EnqueueExtensions = (*GangScheduling)(nil)
	_ framework.EnqueueExtensions = (*Coscheduling)(nil)
)

// EventsToRegister: a pod added (it may complete a gang) and a PodGroup
// added (kube-scheduler v1.36 gangscheduling/gangscheduling.go).
func (pl *GangScheduling) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{Event: framework.ClusterEvent{Resource: framework.ResourcePod, ActionType: framework.Add}, QueueingHintFn: gangPodAdded},
		{Event: framework.ClusterEvent{Resource: framework.ResourcePodGroup, ActionType: framework.Add}, QueueingHintFn: gangGroupAdded},
	}, nil
}

// gangPodAdded: Queue when the added pod is of the pod's scheduling group
// (kube's isSchedulableAfterPodAdded, MatchingSchedulingGroup).
func gangPodAdded(_ *framework.Snapshot, pod *framework.PodInfo, oldObj, newObj any) (framework.QueueingHint, error) {
	_, added, err := framework.EventObjects[framework.PodInfo](oldObj, newObj)
	if err != nil || added == nil {
		return framework.Queue, err
	}
	a, b := pod.Pod, added.Pod
	if a.Namespace == b.Namespace && a.Spec.SchedulingGroup != nil && b.Spec.SchedulingGroup != nil &&
		a.Spec.SchedulingGroup.PodGroupName != nil && b.Spec.SchedulingGroup.PodGroupName != nil &&
		*a.Spec.SchedulingGroup.PodGroupName == *b.Spec.SchedulingGroup.PodGroupName {
		return framework.Queue, nil
	}
	return framework.QueueSkip, nil
}

// gangGroupAdded: Queue when the added PodGroup is the pod's scheduling
// group (kube's isSchedulableAfterPodGroupAdded).
func gangGroupAdded(_ *framework.Snapshot, pod *framework.PodInfo, oldObj, newObj any) (framework.QueueingHint, error) {
	_, g, err := framework.EventObjects[api.WorkloadPodGroup](oldObj, newObj)
	if err != nil || g == nil {
		return framework.Queue, err
	}
	sg := pod.Pod.Spec.SchedulingGroup
	if sg == nil || sg.PodGroupName == nil || pod.Pod.Namespace != g.Namespace || *sg.PodGroupName != g.Name {
		return framework.QueueSkip, nil
	}
	return framework.Queue, nil
}

// EventsToRegister: a pod added, a PodGroup added or updated, each without
// a hint (scheduler-plugins pkg/coscheduling/coscheduling.go).
func (pl *Coscheduling) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{Event: framework.ClusterEvent{Resource: framework.ResourcePod, ActionType: framework.Add}},
		{Event: framework.ClusterEvent{Resource: framework.ResourceCoschedulingPodGroup, ActionType: framework.Add | framework.Update}},
	}, nil
}
