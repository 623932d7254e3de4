package scheduling

import (
	"context"
	"fmt"
	"time"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/scheduling/cluster"
)

// GangSchedulingName is the name of kube-scheduler v1.36's GangScheduling
// plugin (pkg/scheduler/framework/plugins/gangscheduling).
const GangSchedulingName = "GangScheduling"

// GangSchedulingPermitTimeout is how long GangScheduling holds a gang's
// pods at Permit for the rest of the gang (kube's permitTimeoutDuration; not
// configurable).
const GangSchedulingPermitTimeout = 5 * time.Minute

// WithWorkloadFeatures turns on kube-scheduler v1.36's alpha workload
// features (default: all off). A profile may enable GangScheduling without
// them, as kube's configuration may: see GangScheduling.
func WithWorkloadFeatures(f framework.WorkloadFeatures) Option {
	return func(s *Scheduler) { s.workload.features = f }
}

// GangScheduling is kube-scheduler v1.36's GangScheduling plugin: all of a
// gang (a api.WorkloadPodGroup with a gang policy, named by the pods'
// spec.schedulingGroup) or none of it.
//
//   - PreEnqueue keeps a pod out of the active queue while its PodGroup does
//     not exist ("waiting for pods's pod group %q to appear in scheduling
//     queue") or the gang has fewer pods than minCount ("waiting for
//     minCount pods from a gang to appear in scheduling queue"), both
//     UnschedulableAndUnresolvable.
//   - Permit holds a placed pod (Wait, "waiting for minCount pods from a
//     gang to be scheduled", for GangSchedulingPermitTimeout) until minCount
//     of the gang are placed (assumed or bound), activating the gang's
//     queued pods; the pod that reaches minCount allows every waiting pod of
//     the gang. A missing PodGroup is an Error (retried once it appears).
//     In the pod group cycle's trial it counts the pods placed so far in
//     the trial, as kube's Permit reads the snapshot's pod group state there.
//
// A pod without schedulingGroup, or whose group has a basic policy, passes
// both. It has no Unreserve: a gang that does not gather in time has each
// waiting pod time out on its own. As in kube, the plugin itself is not
// behind a feature gate (a profile may enable it without the GangScheduling
// feature, which only adds it to the default plugins and requeues gated pods
// when a pod is added); without GenericWorkload every pod passes both, as
// kube's API server drops spec.schedulingGroup when that gate is off.
type GangScheduling struct {
	s *Scheduler
}

var (
	_ framework.PreEnqueuePlugin = (*GangScheduling)(nil)
	_ framework.PermitPlugin     = (*GangScheduling)(nil)
)

// NewGangScheduling builds the plugin (it has no args).
func NewGangScheduling(args any, _ framework.Handle) (framework.Plugin, error) {
	if args != nil {
		return nil, fmt.Errorf("%s: takes no args, got %T", GangSchedulingName, args)
	}
	return &GangScheduling{}, nil
}

// Name returns "GangScheduling".
func (pl *GangScheduling) Name() string { return GangSchedulingName }

// attach binds the plugin to its scheduler.
func (pl *GangScheduling) attach(s *Scheduler) error {
	pl.s = s
	return nil
}

// PreEnqueue gates a pod whose gang is not complete yet; see
// GangScheduling.
func (pl *GangScheduling) PreEnqueue(_ context.Context, pod *api.Pod) *framework.Status {
	if pod.Spec.SchedulingGroup == nil || pod.Spec.SchedulingGroup.PodGroupName == nil {
		return nil
	}
	if pl.s == nil {
		return framework.AsStatus(fmt.Errorf("%s: PreEnqueue of pod %s outside a Scheduler", GangSchedulingName, pod.Key()))
	}
	if !pl.s.workload.features.GenericWorkload {
		return nil
	}
	name := *pod.Spec.SchedulingGroup.PodGroupName
	g, ok := pl.s.cluster.WorkloadPodGroup(pod.Namespace, name)
	if !ok { // kube: the lister's NotFound
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, fmt.Sprintf("waiting for pods's pod group %q to appear in scheduling queue", name))
	}
	if g.Spec.SchedulingPolicy.Gang == nil {
		return nil
	}
	if total, _ := pl.s.cluster.WorkloadPodGroupCounts(pod.Namespace, name); total < g.MinCount() {
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, "waiting for minCount pods from a gang to appear in scheduling queue")
	}
	return nil
}

// Permit holds the pod until its gang reaches minCount; see GangScheduling.
func (pl *GangScheduling) Permit(_ context.Context, state *framework.CycleState, pod *framework.PodInfo, _ string) (*framework.Status, time.Duration) {
	sg := pod.Pod.Spec.SchedulingGroup
	if sg == nil || sg.PodGroupName == nil {
		return nil, 0
	}
	s, ok := SchedulerFromCycleState(state)
	if !ok {
		return framework.AsStatus(fmt.Errorf("%s: Permit of pod %s: no scheduling.Scheduler in the CycleState", GangSchedulingName, pod.Pod.Key())), 0
	}
	if !s.workload.features.GenericWorkload {
		return nil, 0
	}
	ns, name := pod.Pod.Namespace, *sg.PodGroupName
	g, ok := s.cluster.WorkloadPodGroup(ns, name)
	if !ok {
		return framework.AsStatus(fmt.Errorf("failed to get podGroup %s/%s: %w", ns, name, errPodGroupNotFound(name))), 0
	}
	if g.Spec.SchedulingPolicy.Gang == nil {
		return nil, 0
	}
	members := s.cluster.WorkloadPodGroupMembers(ns, name)
	// In the pod group cycle the count is the trial's (kube reads the
	// snapshot's pod group state there, the cache's elsewhere).
	_, scheduled := s.cluster.WorkloadPodGroupCounts(ns, name)
	if t, ok := pgTrialFrom(state); ok {
		scheduled = t.scheduled
	}
	if scheduled < g.MinCount() {
		var unscheduled []string
		for _, r := range members {
			if r.State == cluster.StatePending {
				unscheduled = append(unscheduled, r.Pod.Key())
			}
		}
		s.queue.Activate(unscheduled)
		return framework.NewStatus(framework.Wait, "waiting for minCount pods from a gang to be scheduled"), GangSchedulingPermitTimeout
	}
	for _, r := range members {
		if r.State != cluster.StateAssumed {
			continue
		}
		if w, ok := s.waiting.get(r.Pod.Key()); ok {
			w.Allow(GangSchedulingName)
		}
	}
	return nil, 0
}

// errPodGroupNotFound is the PodGroup lister's NotFound error, as
// kube-scheduler's plugins print it.
func errPodGroupNotFound(name string) error {
	return fmt.Errorf("podgroup.scheduling.k8s.io %q not found", name)
}
