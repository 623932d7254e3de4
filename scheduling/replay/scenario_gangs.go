package replay

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/schedkit/schedkit/framework/api"
)

// GangArrival is a PodGroup (scheduler-plugins' gang, read by Coscheduling)
// created At an offset from the replay's start. Its pods are ordinary
// arrivals that name it with api.PodGroupLabel; a Replay reports each
// gang's fate in Result.Gangs.
type GangArrival struct {
	At    time.Duration
	Group *api.PodGroup
}

// WorkloadGroupArrival is kube-scheduler v1.36's PodGroup
// (api.WorkloadPodGroup, alpha behind GenericWorkload) created At an
// offset from the replay's start. Its pods are ordinary arrivals that name
// it in spec.schedulingGroup; a Replay reports each group's fate in
// Result.Gangs (with Kube set). The replay's scheduler needs the
// workload features (Options.SchedulerOptions: WithWorkloadFeatures)
// and, for gang semantics, a profile with GangScheduling
// (EnableWorkloadScheduling).
type WorkloadGroupArrival struct {
	At    time.Duration
	Group *api.WorkloadPodGroup
}

// validateGangs checks the gangs: a valid group (minMember ≥ 1, no negative
// timeout; for kube's PodGroups Validate's checks), a non-negative time, no
// duplicate namespace/name.
func (w *Scenario) validateGangs() error {
	kube := map[string]bool{}
	for i, g := range w.WorkloadGroups {
		if g.Group == nil {
			return fmt.Errorf("scenario: workloadGroups[%d]: missing podGroup", i)
		}
		if err := g.Group.Validate(); err != nil {
			return fmt.Errorf("scenario: workloadGroups[%d]: %w", i, err)
		}
		if g.At < 0 {
			return fmt.Errorf("scenario: PodGroup %s: arrival=%v: must not be negative", g.Group.Key(), g.At)
		}
		if kube[g.Group.Key()] {
			return fmt.Errorf("scenario: PodGroup %s: duplicate kube PodGroup", g.Group.Key())
		}
		kube[g.Group.Key()] = true
	}
	seen := map[string]bool{}
	for i, g := range w.Gangs {
		if g.Group == nil {
			return fmt.Errorf("scenario: gangs[%d]: missing podGroup", i)
		}
		if err := g.Group.Validate(); err != nil {
			return fmt.Errorf("scenario: gangs[%d]: %w", i, err)
		}
		if g.At < 0 {
			return fmt.Errorf("scenario: gang %s: arrival=%v: must not be negative", g.Group.Key(), g.At)
		}
		if seen[g.Group.Key()] {
			return fmt.Errorf("scenario: gang %s: duplicate PodGroup", g.Group.Key())
		}
		seen[g.Group.Key()] = true
	}
	return nil
}

// gangEntry is a "gangs" entry of an arrivals file: a PodGroup and its count
// pods (named namePrefix0…, arriving interval apart from arrival, each
// running duration once its gang runs).
type gangEntry struct {
	PodGroup api.PodGroup `json:"podGroup"`
	podGroup
}

// readGang adds a "gangs" entry to w: the PodGroup arrives with the first
// pod; the pods take the group's namespace ("default" when empty) and its
// label. namePrefix defaults to the group's name and "-".
func readGang(raw json.RawMessage, w *Scenario, b *budget) error {
	var g gangEntry
	if err := strict(raw, &g); err != nil {
		return err
	}
	pg := g.PodGroup
	if pg.Namespace == "" {
		pg.Namespace = "default"
	}
	at, err := groupArrivals(w, b, &g.podGroup, pg.Namespace, pg.Name, func(p *api.Pod) {
		labels := make(map[string]string, len(p.Labels)+1)
		for k, v := range p.Labels {
			labels[k] = v
		}
		labels[api.PodGroupLabel] = pg.Name
		p.Labels = labels
	})
	if err != nil {
		return err
	}
	w.Gangs = append(w.Gangs, GangArrival{At: at, Group: &pg})
	return nil
}

// groupArrivals checks a gang entry's count, times and pod namespace and
// adds its pods to w's arrivals: named namePrefix (default the group's
// name and "-") and their index, in namespace ns, arriving interval apart
// from arrival; join makes each pod a member of the group. It returns the
// group's arrival.
func groupArrivals(w *Scenario, b *budget, g *podGroup, ns, name string, join func(*api.Pod)) (time.Duration, error) {
	if err := checkCount(g.Count); err != nil {
		return 0, err
	}
	prefix := g.NamePrefix
	if prefix == "" {
		prefix = name + "-"
	}
	if err := checkTimes(prefix+"*", g.Count, g.Arrival, g.Interval, g.Duration); err != nil {
		return 0, err
	}
	if g.Pod.Namespace != "" && g.Pod.Namespace != ns {
		return 0, fmt.Errorf("pod.metadata.namespace=%q: must be the PodGroup's namespace %q", g.Pod.Namespace, ns)
	}
	if err := b.takeGroup(g.Count, 1, 1); err != nil { // the pods and the PodGroup
		return 0, err
	}
	for i := range g.Count {
		p := g.Pod
		p.Name = fmt.Sprintf("%s%d", prefix, i)
		p.Namespace = ns
		join(&p)
		at := time.Duration(g.Arrival) + time.Duration(i)*time.Duration(g.Interval)
		w.Arrivals = append(w.Arrivals, PodArrival{At: at, Duration: time.Duration(g.Duration), Pod: &p})
	}
	return time.Duration(g.Arrival), nil
}

// workloadGroup is a "workloadGroups" entry of an arrivals file: kube's
// PodGroup and its count pods, as gangEntry.
type workloadGroup struct {
	PodGroup api.WorkloadPodGroup `json:"podGroup"`
	podGroup
}

// readWorkloadGroup adds a "workloadGroups" entry to w: the PodGroup
// arrives with the first pod; the pods take the group's namespace
// ("default" when empty) and name it in spec.schedulingGroup. namePrefix
// defaults to the group's name and "-".
func readWorkloadGroup(raw json.RawMessage, w *Scenario, b *budget) error {
	var g workloadGroup
	if err := strict(raw, &g); err != nil {
		return err
	}
	pg := g.PodGroup
	if pg.Namespace == "" {
		pg.Namespace = "default"
	}
	name := pg.Name
	at, err := groupArrivals(w, b, &g.podGroup, pg.Namespace, name, func(p *api.Pod) {
		p.Spec.SchedulingGroup = &api.PodSchedulingGroup{PodGroupName: &name}
	})
	if err != nil {
		return err
	}
	w.WorkloadGroups = append(w.WorkloadGroups, WorkloadGroupArrival{At: at, Group: &pg})
	return nil
}
