package filter

import "github.com/schedkit/schedkit/framework"

// NodeEvent is the cluster event of a Node with action a, as a plugin's
// EventsToRegister lists it.
func NodeEvent(a framework.ActionType) framework.ClusterEvent {
	return framework.ClusterEvent{Resource: framework.ResourceNode, ActionType: a}
}

// PodEvent is the cluster event of a Pod with action a, as a plugin's
// EventsToRegister lists it.
func PodEvent(a framework.ActionType) framework.ClusterEvent {
	return framework.ClusterEvent{Resource: framework.ResourcePod, ActionType: a}
}
