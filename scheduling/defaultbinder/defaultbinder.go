// Package defaultbinder is kube-scheduler's DefaultBinder bind plugin
// (pkg/scheduler/framework/plugins/defaultbinder) for schedkit's
// scheduler, as of v1.37, the default release (v1.36 binds the same): where
// kube's posts a pods/binding to the API server, this one hands the
// binding to its handle's Binder, a scheduling.Scheduler's cluster.
package defaultbinder

import (
	"context"
	"fmt"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
)

// DefaultBinder binds every pod through its handle's Binder
// (framework.Handle.Binder): under a scheduling.Scheduler the scheduler
// then confirms the assumed pod on its node in its cluster (kube's
// FinishBinding), whichever Bind plugin bound it. Without a scheduler the
// Binder refuses, and Bind returns an Error.
type DefaultBinder struct{ h framework.Handle }

var _ framework.BindPlugin = (*DefaultBinder)(nil)

// New builds the DefaultBinder bind plugin. It takes no args (args must be
// nil), so it is itself a framework.Factory.
func New(args any, h framework.Handle) (framework.Plugin, error) {
	if err := config.NoArgs(config.DefaultBinderName, args); err != nil {
		return nil, err
	}
	return &DefaultBinder{h: h}, nil
}

// Name returns "DefaultBinder".
func (*DefaultBinder) Name() string { return config.DefaultBinderName }

// Bind binds pod to nodeName through the handle's Binder; a pod assumed on
// another node is an Error.
func (pl *DefaultBinder) Bind(_ context.Context, state *framework.CycleState, pod *framework.PodInfo, nodeName string) *framework.Status {
	if pl.h == nil {
		return framework.AsStatus(fmt.Errorf("defaultbinder: pod %s: no handle to bind through", pod.Pod.Key()))
	}
	if err := pl.h.Binder().Bind(state, pod, nodeName); err != nil {
		return framework.AsStatus(fmt.Errorf("defaultbinder: %w", err))
	}
	if pod.Pod.Spec.NodeName != "" && pod.Pod.Spec.NodeName != nodeName {
		return framework.AsStatus(fmt.Errorf("defaultbinder: pod %s is assumed on node %q, not %q", pod.Pod.Key(), pod.Pod.Spec.NodeName, nodeName))
	}
	return nil
}
