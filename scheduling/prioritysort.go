package scheduling

import (
	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
)

// PrioritySort is kube-scheduler v1.36's PrioritySort queue-sort plugin:
// higher spec.priority first (unset counts as 0), then the pod added to the
// queue earlier.
type PrioritySort struct{}

var _ framework.QueueSortPlugin = (*PrioritySort)(nil)

// NewPrioritySort builds the plugin (it has no args).
func NewPrioritySort(_ framework.Handle) (framework.Plugin, error) { return &PrioritySort{}, nil }

// Name returns "PrioritySort".
func (pl *PrioritySort) Name() string { return config.PrioritySortName }

// Less reports whether a sorts before b: a higher priority, or an equal
// priority and an earlier queue timestamp.
func (pl *PrioritySort) Less(a, b *framework.QueuedPodInfo) bool {
	pa, pb := a.Pod.PriorityValue(), b.Pod.PriorityValue()
	return pa > pb || (pa == pb && a.Timestamp.Before(b.Timestamp))
}
