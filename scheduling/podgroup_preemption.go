package scheduling

import (
	"context"
	"fmt"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/filter/defaultpreemption"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/scheduling/internal/queue"
)

// podGroupPreempt is kube-scheduler v1.36's workload-aware preemption
// (KEP-5710, alpha behind WorkloadAwarePreemption): runWorkloadAwarePreemption
// (schedule_one_podgroup.go) with DefaultPreemption's PodGroupPostFilter
// (framework/preemption/podgrouppreemption.go: the plugin's
// SelectPodGroupVictims), for a group the pod group algorithm found
// unschedulable. The whole cluster is the domain:
//
//   - the profile must have DefaultPreemption, and the PodGroup must exist
//     and have no topology constraint;
//   - the group's priority is its spec.priority (0 when unset); a member
//     with preemptionPolicy Never makes the group ineligible;
//   - the victims are units of lower priority than the group: each pod of
//     the cluster, except that the pods of a PodGroup with disruptionMode
//     PodGroup form one unit at that group's priority;
//   - with every victim removed the group algorithm (without PostFilter)
//     must find the group feasible; then victims are given back one by one,
//     most important first (higher priority, a PodGroup before a pod, for
//     pods the earlier start, for groups the larger then the earlier
//     start), those whose eviction would violate a PodDisruptionBudget
//     before the others, and each one the group still fits without is
//     spared;
//   - the remaining victims are evicted at once, as DefaultPreemption
//     evicts (a victim held at Permit is rejected instead).
//
// Success means the group's pods go back to the queue to wait for the
// preemption (kube's waitingOnPreemption); it returns the evicted pods.
func (s *Scheduler) podGroupPreempt(ctx context.Context, prof *profile, group *framework.PodGroupInfo, members []*queue.QueuedPod) (*framework.Status, []string) {
	pl, _ := prof.fw.Plugin(config.DefaultPreemptionName)
	dp, ok := pl.(*defaultpreemption.DefaultPreemption)
	if !ok {
		return framework.NewStatus(framework.Unschedulable, "default preemption plugin is not registered, workload aware preemption is disabled"), nil
	}
	pg, ok := s.cluster.WorkloadPodGroup(group.Namespace, group.Name)
	if !ok {
		return framework.AsStatus(fmt.Errorf("failed to get pod group object: %w", errPodGroupNotFound(group.Name))), nil
	}
	if c := pg.Spec.SchedulingConstraints; c != nil && len(c.Topology) > 0 {
		return framework.NewStatus(framework.Unschedulable, "workload aware preemption is not supported for pod groups with scheduling constraints"), nil
	}
	snap := s.cluster.Snapshot().Clone()
	pods := make([]*api.Pod, len(members))
	for i, m := range members {
		pods[i] = m.Pod
	}
	fits := func() *framework.Status {
		return s.podGroupAlgorithm(ctx, prof, group, members, snap, true).status
	}
	evict, st := dp.SelectPodGroupVictims(pg, pods, snap, fits)
	if !st.IsSuccess() {
		return st, nil
	}
	// kube's Executor.PreemptPod for each victim pod.
	why := "preempted by PodGroup " + pg.Key()
	var keys []string
	for _, pi := range evict {
		if pi.Pod.DeletionTimestamp != nil {
			continue
		}
		key := pi.Pod.Key()
		keys = append(keys, key)
		if w, ok := s.waiting.get(key); ok {
			w.Reject(dp.Name(), "preempted")
			continue
		}
		_ = s.deletePodLocked(pi.Pod.Namespace, pi.Pod.Name, why)
		s.setReason(key, why)
	}
	return nil, keys
}

// errPodGroupNotFound is the PodGroup lister's NotFound error, as
// kube-scheduler prints it.
func errPodGroupNotFound(name string) error {
	return fmt.Errorf("podgroup.scheduling.k8s.io %q not found", name)
}
