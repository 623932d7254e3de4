package scheduling

import (
	"context"
	"fmt"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
)

// DefaultBinderName is kube-scheduler's DefaultBinder plugin name.
const DefaultBinderName = "DefaultBinder"

// DefaultBinder is the Bind plugin of the in-memory cluster, in the place
// of kube-scheduler's DefaultBinder (which posts a pods/binding to the API
// server). Under a Scheduler it binds every pod: the scheduler then
// confirms the assumed pod on its node in the Cluster (kube's
// FinishBinding), whichever Bind plugin bound it. Outside a Scheduler (no
// scheduler in the CycleState) it returns an Error.
type DefaultBinder struct{}

var _ framework.BindPlugin = DefaultBinder{}

// NewDefaultBinder builds the DefaultBinder bind plugin.
// It takes no args (args must be nil), so it is itself a framework.Factory.
func NewDefaultBinder(args any, _ framework.Handle) (framework.Plugin, error) {
	if err := config.NoArgs(DefaultBinderName, args); err != nil {
		return nil, err
	}
	return DefaultBinder{}, nil
}

// Name returns "DefaultBinder".
func (DefaultBinder) Name() string { return DefaultBinderName }

// Bind binds pod to nodeName in the scheduler's cluster.
func (DefaultBinder) Bind(_ context.Context, state *framework.CycleState, pod *framework.PodInfo, nodeName string) *framework.Status {
	if _, ok := handleFrom(state); !ok {
		return framework.AsStatus(fmt.Errorf("DefaultBinder: pod %s: no scheduling.Scheduler in the CycleState", pod.Pod.Key()))
	}
	if pod.Pod.Spec.NodeName != "" && pod.Pod.Spec.NodeName != nodeName {
		return framework.AsStatus(fmt.Errorf("DefaultBinder: pod %s is assumed on node %q, not %q", pod.Pod.Key(), pod.Pod.Spec.NodeName, nodeName))
	}
	return nil
}
