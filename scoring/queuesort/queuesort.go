// Package queuesort is kube-scheduler's PrioritySort queue-sort plugin
// (pkg/scheduler/framework/plugins/queuesort) as of v1.37, the default
// release (v1.36 sorts the same): the order in which a scheduler's queue
// hands out its pods.
package queuesort

import (
	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
)

// PrioritySort is kube-scheduler's PrioritySort: higher spec.priority
// first (unset counts as 0), then the pod added to the queue earlier.
type PrioritySort struct{}

var _ framework.QueueSortPlugin = (*PrioritySort)(nil)

// New builds the PrioritySort queue-sort plugin. It takes no args (args
// must be nil), so it is itself a framework.Factory.
func New(args any, _ framework.Handle) (framework.Plugin, error) {
	if err := config.NoArgs(config.PrioritySortName, args); err != nil {
		return nil, err
	}
	return &PrioritySort{}, nil
}

// Name returns "PrioritySort".
func (pl *PrioritySort) Name() string { return config.PrioritySortName }

// Less reports whether a sorts before b: a higher priority, or an equal
// priority and an earlier queue timestamp.
func (pl *PrioritySort) Less(a, b *framework.QueuedPodInfo) bool {
	pa, pb := a.Pod.PriorityValue(), b.Pod.PriorityValue()
	return pa > pb || (pa == pb && a.Timestamp.Before(b.Timestamp))
}
