// Package gangscheduling is kube-scheduler's GangScheduling plugin
// (pkg/scheduler/framework/plugins/gangscheduling) of its alpha
// workload-aware scheduling, as v1.36 introduced it (schedkit's default
// release is v1.37; its composite pod groups are not modelled): all of a
// gang or none of it. It reads the gang through its handle's
// PodGroupManager and holds and releases pods through its WaitingPods and
// Activator.
package gangscheduling

import (
	"context"
	"fmt"
	"time"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
)

// PermitTimeout is how long GangScheduling holds a gang's pods at Permit
// for the rest of the gang (kube's permitTimeoutDuration; not
// configurable).
const PermitTimeout = 5 * time.Minute

// GangScheduling is kube-scheduler's GangScheduling plugin: all of a gang
// (a api.WorkloadPodGroup with a gang policy, named by the pods'
// spec.schedulingGroup) or none of it.
//
//   - PreEnqueue keeps a pod out of the active queue while its PodGroup does
//     not exist ("waiting for pods's pod group %q to appear in scheduling
//     queue") or the gang has fewer pods than minCount ("waiting for
//     minCount pods from a gang to appear in scheduling queue"), both
//     UnschedulableAndUnresolvable.
//   - Permit holds a placed pod (Wait, "waiting for minCount pods from a
//     gang to be scheduled", for PermitTimeout) until minCount of the gang
//     are placed (assumed or bound), activating the gang's queued pods; the
//     pod that reaches minCount allows every waiting pod of the gang. A
//     missing PodGroup is an Error (retried once it appears). In the pod
//     group cycle's trial it counts the pods placed so far in the trial, as
//     kube's Permit reads the snapshot's pod group state there.
//
// A pod without schedulingGroup, or whose group has a basic policy, passes
// both. It has no Unreserve: a gang that does not gather in time has each
// waiting pod time out on its own. As in kube, the plugin itself is not
// behind a feature gate (a profile may enable it without the GangScheduling
// feature, which only adds it to the default plugins and requeues gated pods
// when a pod is added); without GenericWorkload (the handle's
// PodGroupManager's features: off outside a scheduler) every pod passes
// both, as kube's API server drops spec.schedulingGroup when that gate is
// off.
type GangScheduling struct {
	h framework.Handle
}

var (
	_ framework.PreEnqueuePlugin  = (*GangScheduling)(nil)
	_ framework.PermitPlugin      = (*GangScheduling)(nil)
	_ framework.EnqueueExtensions = (*GangScheduling)(nil)
)

// New builds the plugin. It takes no args (args must be nil), so it is
// itself a framework.Factory; a nil h is a framework that runs on no
// scheduler (framework.NewHandle).
func New(args any, h framework.Handle) (framework.Plugin, error) {
	if err := config.NoArgs(config.GangSchedulingName, args); err != nil {
		return nil, err
	}
	if h == nil {
		h = framework.NewHandle(framework.RealClock{}, 1, framework.DefaultKubeVersion)
	}
	return &GangScheduling{h: h}, nil
}

// Name returns "GangScheduling".
func (pl *GangScheduling) Name() string { return config.GangSchedulingName }

// PreEnqueue gates a pod whose gang is not complete yet; see
// GangScheduling.
func (pl *GangScheduling) PreEnqueue(_ context.Context, pod *api.Pod) *framework.Status {
	if pod.Spec.SchedulingGroup == nil || pod.Spec.SchedulingGroup.PodGroupName == nil {
		return nil
	}
	pgm := pl.h.PodGroupManager()
	if !pgm.Features().GenericWorkload {
		return nil
	}
	name := *pod.Spec.SchedulingGroup.PodGroupName
	g, ok := pgm.WorkloadPodGroup(pod.Namespace, name)
	if !ok { // kube: the lister's NotFound
		return framework.NewStatus(framework.UnschedulableAndUnresolvable, fmt.Sprintf("waiting for pods's pod group %q to appear in scheduling queue", name))
	}
	if g.Spec.SchedulingPolicy.Gang == nil {
		return nil
	}
	if total, _ := pgm.WorkloadPodGroupCounts(pod.Namespace, name); total < g.MinCount() {
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
	pgm := pl.h.PodGroupManager()
	if !pgm.Features().GenericWorkload {
		return nil, 0
	}
	ns, name := pod.Pod.Namespace, *sg.PodGroupName
	g, ok := pgm.WorkloadPodGroup(ns, name)
	if !ok {
		return framework.AsStatus(fmt.Errorf("failed to get podGroup %s/%s: %w", ns, name, errPodGroupNotFound(name))), 0
	}
	if g.Spec.SchedulingPolicy.Gang == nil {
		return nil, 0
	}
	pending, placed := pgm.WorkloadPodGroupPods(ns, name)
	// In the pod group cycle the count is the trial's (kube reads the
	// snapshot's pod group state there, the cache's elsewhere).
	_, scheduled := pgm.WorkloadPodGroupCounts(ns, name)
	if n, ok := pgm.TrialScheduled(state); ok {
		scheduled = n
	}
	if scheduled < g.MinCount() {
		var unscheduled []string
		for _, p := range pending {
			unscheduled = append(unscheduled, p.Key())
		}
		pl.h.Activator().Activate(unscheduled)
		return framework.NewStatus(framework.Wait, "waiting for minCount pods from a gang to be scheduled"), PermitTimeout
	}
	// The placed pods waiting at Permit are assumed (a bound pod no
	// longer waits).
	waiting := pl.h.WaitingPods()
	for _, p := range placed {
		if w, ok := waiting.Get(p.Key()); ok {
			w.Allow(config.GangSchedulingName)
		}
	}
	return nil, 0
}

// errPodGroupNotFound is the PodGroup lister's NotFound error, as
// kube-scheduler's plugins print it.
func errPodGroupNotFound(name string) error {
	return fmt.Errorf("podgroup.scheduling.k8s.io %q not found", name)
}

// EventsToRegister: a pod added (it may complete a gang) and a PodGroup
// added (kube-scheduler v1.36 gangscheduling/gangscheduling.go).
func (pl *GangScheduling) EventsToRegister(context.Context) ([]framework.ClusterEventWithHint, error) {
	return []framework.ClusterEventWithHint{
		{Event: framework.ClusterEvent{Resource: framework.ResourcePod, ActionType: framework.Add}, QueueingHintFn: podAdded},
		{Event: framework.ClusterEvent{Resource: framework.ResourcePodGroup, ActionType: framework.Add}, QueueingHintFn: groupAdded},
	}, nil
}

// podAdded: Queue when the added pod is of the pod's scheduling group
// (kube's isSchedulableAfterPodAdded, MatchingSchedulingGroup).
func podAdded(_ *framework.Snapshot, pod *framework.PodInfo, oldObj, newObj any) (framework.QueueingHint, error) {
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

// groupAdded: Queue when the added PodGroup is the pod's scheduling group
// (kube's isSchedulableAfterPodGroupAdded).
func groupAdded(_ *framework.Snapshot, pod *framework.PodInfo, oldObj, newObj any) (framework.QueueingHint, error) {
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
