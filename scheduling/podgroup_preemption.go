package scheduling

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/scheduling/internal/queue"
)

// pgVictim is kube-scheduler v1.36's preemption victim unit
// (framework/preemption/types.go victim): one pod, or every pod on the
// cluster's nodes of a PodGroup whose disruptionMode is PodGroup.
type pgVictim struct {
	pods     []*framework.PodInfo
	priority int32
	// group is kube's IsPodGroup: the (first) pod names a PodGroup, even
	// one that is disrupted pod by pod.
	group    bool
	earliest time.Time
}

// podGroupPreempt is kube-scheduler v1.36's workload-aware preemption
// (KEP-5710, alpha behind WorkloadAwarePreemption): runWorkloadAwarePreemption
// (schedule_one_podgroup.go) and DefaultPreemption's PodGroupPostFilter
// (framework/preemption/podgrouppreemption.go), for a group the pod group
// algorithm found unschedulable. The whole cluster is the domain:
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
	dp, ok := pl.(*DefaultPreemption)
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
	evict, st := pgSelectVictims(s.pgVictims(dp, snap), pg.PriorityValue(), pods, snap, fits)
	if !st.IsSuccess() {
		return st, nil
	}
	// kube's Executor.PreemptPod for each victim pod.
	why := "preempted by PodGroup " + pg.Key()
	var keys []string
	for _, v := range evict {
		for _, pi := range v.pods {
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
	}
	return nil, keys
}

// pgSelectVictims is kube's PodGroupEvaluator.selectVictimsOnDomain over
// snap (which it leaves with the chosen victims removed): the group's pods
// must not forbid preemption, the potential victims are the units of lower
// priority than the group's, the group must fit without all of them
// (fits), and then each is given back, most important first and PDB
// violators before the others, unless the group no longer fits. It
// returns the units to evict, most important first.
func pgSelectVictims(all []*pgVictim, priority int32, preemptor []*api.Pod, snap *framework.Snapshot, fits func() *framework.Status) ([]*pgVictim, *framework.Status) {
	for _, p := range preemptor {
		if pp := p.Spec.PreemptionPolicy; pp != nil && *pp == api.PreemptNever {
			return nil, framework.NewStatus(framework.Unschedulable, "not eligible due to preemptionPolicy=Never.")
		}
	}
	var potential []*pgVictim
	for _, v := range all {
		if v.priority < priority {
			potential = append(potential, v)
		}
	}
	if len(potential) == 0 {
		return nil, framework.NewStatus(framework.UnschedulableAndUnresolvable, "No preemption victims found for incoming preemptor")
	}
	remove := func(v *pgVictim) error {
		for _, pi := range v.pods {
			if err := snap.RemovePod(pi.Pod); err != nil {
				return err
			}
		}
		return nil
	}
	for _, v := range potential {
		if err := remove(v); err != nil {
			return nil, framework.AsStatus(err)
		}
	}
	if st := fits(); !st.IsSuccess() {
		return nil, st
	}
	sort.SliceStable(potential, func(i, j int) bool { return pgMoreImportant(potential[i], potential[j]) })
	violating, nonViolating := pgSplitByPDB(potential, preemptCompilePDBs(snap.DisruptionBudgets))
	var evict []*pgVictim
	for _, list := range [][]*pgVictim{violating, nonViolating} {
		for _, v := range list {
			for _, pi := range v.pods {
				if _, err := snap.AddPodInfo(pi, framework.PodAdd{}); err != nil {
					return nil, framework.AsStatus(err)
				}
			}
			if fits().IsSuccess() {
				continue
			}
			if err := remove(v); err != nil {
				return nil, framework.AsStatus(err)
			}
			evict = append(evict, v)
		}
	}
	sort.SliceStable(evict, func(i, j int) bool { return pgMoreImportant(evict[i], evict[j]) })
	return evict, nil
}

// pgVictims is kube's newDomainForWorkloadPreemption: the victim units of
// every pod on snap's nodes, in node order (kube: map order).
func (s *Scheduler) pgVictims(dp *DefaultPreemption, snap *framework.Snapshot) []*pgVictim {
	var out []*pgVictim
	groups := map[string]*pgVictim{}
	for _, ni := range snap.Nodes() {
		for _, pi := range ni.Pods {
			var pg *api.WorkloadPodGroup
			if key := api.WorkloadPodGroupKey(pi.Pod); key != "" {
				if g, ok := s.cluster.WorkloadPodGroup(pi.Pod.Namespace, *pi.Pod.Spec.SchedulingGroup.PodGroupName); ok &&
					g.Spec.DisruptionMode != nil && *g.Spec.DisruptionMode == api.DisruptionModePodGroup {
					pg = g
				}
			}
			start := dp.startTime(pi.Pod)
			if pg == nil {
				out = append(out, &pgVictim{pods: []*framework.PodInfo{pi}, priority: pi.Pod.PriorityValue(), earliest: start,
					group: pi.Pod.Spec.SchedulingGroup != nil})
				continue
			}
			if v := groups[pg.Key()]; v != nil {
				v.pods = append(v.pods, pi)
				if start.Before(v.earliest) {
					v.earliest = start
				}
				continue
			}
			v := &pgVictim{pods: []*framework.PodInfo{pi}, priority: pg.PriorityValue(), group: true, earliest: start}
			groups[pg.Key()] = v
			out = append(out, v)
		}
	}
	return out
}

// pgMoreImportant is kube's moreImportantVictim: higher priority; then a
// PodGroup before a pod; pods by earlier start; groups by more pods, then
// earlier start.
func pgMoreImportant(a, b *pgVictim) bool {
	if a.priority != b.priority {
		return a.priority > b.priority
	}
	if a.group != b.group {
		return a.group
	}
	if !a.group {
		return a.earliest.Before(b.earliest)
	}
	if len(a.pods) != len(b.pods) {
		return len(a.pods) > len(b.pods)
	}
	return a.earliest.Before(b.earliest)
}

// pgSplitByPDB is kube's filterVictimsWithPDBViolation over victim units:
// a unit violates when one of its pods does, a pod when some PDB of its
// namespace matching it (and not listing it as disrupted) has its budget
// taken below zero; the checks of a unit stop at its first violating pod,
// and a pod's at its first exhausted PDB.
func pgSplitByPDB(victims []*pgVictim, pdbs []preemptPDB) (violating, nonViolating []*pgVictim) {
	allowed := make([]int32, len(pdbs))
	for i, p := range pdbs {
		allowed[i] = p.allowed
	}
	podViolates := func(p *api.Pod) bool {
		if len(p.Labels) == 0 {
			return false
		}
		for i, pdb := range pdbs {
			if pdb.namespace != p.Namespace || !pdb.sel.Matches(p.Labels) {
				continue
			}
			if _, done := pdb.disrupted[p.Name]; done {
				continue
			}
			allowed[i]--
			if allowed[i] < 0 {
				return true
			}
		}
		return false
	}
	for _, v := range victims {
		bad := false
		for _, pi := range v.pods {
			if podViolates(pi.Pod) {
				bad = true
				break
			}
		}
		if bad {
			violating = append(violating, v)
		} else {
			nonViolating = append(nonViolating, v)
		}
	}
	return violating, nonViolating
}

// podGroupPreemptionGate is DefaultPreemption's PostFilter prologue for a
// pod of a kube PodGroup in kube-scheduler v1.36: with
// TopologyAwareWorkloadScheduling, a pod whose PodGroup is missing or has
// scheduling constraints does not preempt (preemption would run once per
// placement); with WorkloadAwarePreemption no pod of a group preempts on
// its own (the group preempts as a whole). nil lets preemption run.
func (s *Scheduler) podGroupPreemptionGate(pod *api.Pod) *framework.Status {
	if pod.Spec.SchedulingGroup == nil || pod.Spec.SchedulingGroup.PodGroupName == nil {
		return nil
	}
	f := s.workload.features
	if f.TopologyAwareWorkloadScheduling {
		pg, ok := s.cluster.WorkloadPodGroup(pod.Namespace, *pod.Spec.SchedulingGroup.PodGroupName)
		if !ok {
			return framework.NewStatus(framework.Unschedulable, "preemption: pod group for pod not found")
		}
		if pg.Spec.SchedulingConstraints != nil {
			return framework.NewStatus(framework.Unschedulable, "preemption: not eligible due to placement-based pod group scheduling limitation")
		}
	}
	if f.WorkloadAwarePreemption {
		return framework.NewStatus(framework.Unschedulable, "preemption: not eligible due to workload aware preemption enabled")
	}
	return nil
}

// errPodGroupNotFound is the PodGroup lister's NotFound error, as
// kube-scheduler prints it.
func errPodGroupNotFound(name string) error {
	return fmt.Errorf("podgroup.scheduling.k8s.io %q not found", name)
}
