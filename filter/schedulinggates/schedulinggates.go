// Package schedulinggates is kube-scheduler's SchedulingGates PreEnqueue
// plugin: a pod with scheduling gates waits outside the active queue until
// they are removed. v1.37 (the default release) and v1.36 behave alike.
package schedulinggates

import (
	"context"
	"fmt"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/filter"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
)

// SchedulingGates is kube-scheduler's SchedulingGates PreEnqueue
// plugin: a pod with spec.schedulingGates is UnschedulableAndUnresolvable
// "waiting for scheduling gates: [a b]" and stays out of the active queue
// until its gates are removed.
type SchedulingGates struct{}

var _ framework.PreEnqueuePlugin = SchedulingGates{}

// New builds the plugin (it has no args).
func New(args any, _ framework.Handle) (framework.Plugin, error) {
	if err := config.NoArgs(config.SchedulingGatesName, args); err != nil {
		return nil, err
	}
	return SchedulingGates{}, nil
}

// Name returns "SchedulingGates".
func (SchedulingGates) Name() string { return config.SchedulingGatesName }

// PreEnqueue gates a pod that still has scheduling gates.
func (SchedulingGates) PreEnqueue(_ context.Context, pod *api.Pod) *framework.Status {
	if len(pod.Spec.SchedulingGates) == 0 {
		return nil
	}
	gates := make([]string, len(pod.Spec.SchedulingGates))
	for i, g := range pod.Spec.SchedulingGates {
		gates[i] = g.Name
	}
	return framework.NewStatus(framework.UnschedulableAndUnresolvable, fmt.Sprintf("waiting for scheduling gates: %v", gates))
}

var _ framework.EnqueueExtensions = SchedulingGates{}

// EventsToRegister: the pod's own update removing its last gate
// (schedulinggates/scheduling_gates.go).
func (SchedulingGates) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{Event: filter.PodEvent(framework.UpdatePodSchedulingGatesEliminated), QueueingHintFn: gatesEliminated},
	}, nil
}

// gatesEliminated: Queue when the updated pod is the gated one.
func gatesEliminated(_ *framework.Snapshot, pod *framework.PodInfo, oldObj, newObj any) (framework.QueueingHint, error) {
	_, modified, err := framework.EventObjects[framework.PodInfo](oldObj, newObj)
	if err != nil {
		return framework.Queue, err
	}
	if modified == nil || !framework.SamePod(modified.Pod, pod.Pod) {
		return framework.QueueSkip, nil
	}
	return framework.Queue, nil
}
