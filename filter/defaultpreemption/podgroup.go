package defaultpreemption

import (
	"sort"
	"time"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
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

// SelectPodGroupVictims is DefaultPreemption's PodGroupPostFilter victim
// selection (kube's PodGroupEvaluator.selectVictimsOnDomain) for kube's
// PodGroup pg, whose pods are preemptor, with the whole cluster snap as the
// domain (snap is left with the chosen victims removed): the group's pods
// must not forbid preemption (preemptionPolicy Never), the potential
// victims are the units of lower priority than the group's (spec.priority,
// 0 when unset): each pod on snap's nodes, except that the pods of a
// PodGroup with disruptionMode PodGroup form one unit at that group's
// priority; the group must fit without all of them (fits runs the pod
// group algorithm on snap), and then each is given back, most important
// first (higher priority, a PodGroup before a pod, for pods the earlier
// start, for groups the larger then the earlier start) and PDB violators
// before the others, unless the group no longer fits. It returns the pods
// to evict, unit by unit, most important unit first.
func (pl *DefaultPreemption) SelectPodGroupVictims(pg *api.WorkloadPodGroup, preemptor []*api.Pod, snap *framework.Snapshot, fits func() *framework.Status) ([]*framework.PodInfo, *framework.Status) {
	evict, st := pgSelectVictims(pl.pgVictims(snap), pg.PriorityValue(), preemptor, snap, fits)
	if !st.IsSuccess() {
		return nil, st
	}
	var out []*framework.PodInfo
	for _, v := range evict {
		out = append(out, v.pods...)
	}
	return out, nil
}

// pgSelectVictims is SelectPodGroupVictims over the victim units all, for a
// group of the given priority. It returns the units to evict, most
// important first.
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
func (pl *DefaultPreemption) pgVictims(snap *framework.Snapshot) []*pgVictim {
	pgm := pl.h.PodGroupManager()
	var out []*pgVictim
	groups := map[string]*pgVictim{}
	for _, ni := range snap.Nodes() {
		for _, pi := range ni.Pods {
			var pg *api.WorkloadPodGroup
			if key := api.WorkloadPodGroupKey(pi.Pod); key != "" {
				if g, ok := pgm.WorkloadPodGroup(pi.Pod.Namespace, *pi.Pod.Spec.SchedulingGroup.PodGroupName); ok &&
					g.Spec.DisruptionMode != nil && *g.Spec.DisruptionMode == api.DisruptionModePodGroup {
					pg = g
				}
			}
			start := pl.startTime(pi.Pod)
			if pg == nil {
				out = append(out, &pgVictim{pods: []*framework.PodInfo{pi}, priority: pi.PriorityValue(), earliest: start,
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

// podGroupGate is PostFilter's prologue for a pod of a kube PodGroup in
// kube-scheduler v1.36, with the workload features of the handle's
// PodGroupManager: with TopologyAwareWorkloadScheduling, a pod whose
// PodGroup is missing or has scheduling constraints does not preempt
// (preemption would run once per placement); with WorkloadAwarePreemption
// no pod of a group preempts on its own (the group preempts as a whole).
// nil lets preemption run.
func (pl *DefaultPreemption) podGroupGate(pod *api.Pod) *framework.Status {
	if pod.Spec.SchedulingGroup == nil || pod.Spec.SchedulingGroup.PodGroupName == nil {
		return nil
	}
	pgm := pl.h.PodGroupManager()
	f := pgm.Features()
	if f.TopologyAwareWorkloadScheduling {
		pg, ok := pgm.WorkloadPodGroup(pod.Namespace, *pod.Spec.SchedulingGroup.PodGroupName)
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
