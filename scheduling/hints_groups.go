package scheduling

import (
	"context"

	"github.com/schedkit/schedkit/framework"
)

// Queueing hints of Coscheduling.

var _ framework.EnqueueExtensions = (*Coscheduling)(nil)

// EventsToRegister: a pod added, a PodGroup added or updated, each without
// a hint (scheduler-plugins pkg/coscheduling/coscheduling.go).
func (pl *Coscheduling) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{Event: framework.ClusterEvent{Resource: framework.ResourcePod, ActionType: framework.Add}},
		{Event: framework.ClusterEvent{Resource: framework.ResourceCoschedulingPodGroup, ActionType: framework.Add | framework.Update}},
	}, nil
}
