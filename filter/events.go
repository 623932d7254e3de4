package filter

import "github.com/schedkit/schedkit/framework"

// Cluster-event constructors shared by the plugins' EventsToRegister.

func nodeEvent(a framework.ActionType) framework.ClusterEvent {
	return framework.ClusterEvent{Resource: framework.ResourceNode, ActionType: a}
}

func podEvent(a framework.ActionType) framework.ClusterEvent {
	return framework.ClusterEvent{Resource: framework.ResourcePod, ActionType: a}
}
