package scheduling

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/schedkit/schedkit/framework"
)

// GangArrival is a PodGroup (scheduler-plugins' gang, read by Coscheduling)
// created At an offset from the replay's start. Its pods are ordinary
// arrivals that name it with framework.PodGroupLabel; a Replay reports each
// gang's fate in ReplayResult.Gangs.
type GangArrival struct {
	At    time.Duration
	Group *framework.PodGroup
}

// validateGangs checks the gangs: a valid group (minMember ≥ 1, no negative
// timeout), a non-negative time, no duplicate namespace/name.
func (w *Workload) validateGangs() error {
	seen := map[string]bool{}
	for i, g := range w.Gangs {
		if g.Group == nil {
			return fmt.Errorf("workload: gangs[%d]: missing podGroup", i)
		}
		if err := g.Group.Validate(); err != nil {
			return fmt.Errorf("workload: gangs[%d]: %w", i, err)
		}
		if g.At < 0 {
			return fmt.Errorf("workload: gang %s: arrival=%v: must not be negative", g.Group.Key(), g.At)
		}
		if seen[g.Group.Key()] {
			return fmt.Errorf("workload: gang %s: duplicate PodGroup", g.Group.Key())
		}
		seen[g.Group.Key()] = true
	}
	return nil
}

// wlGang is a "gangs" entry of a workload file: a PodGroup and its count
// pods (named namePrefix0…, arriving interval apart from arrival, each
// running duration once its gang runs).
type wlGang struct {
	PodGroup framework.PodGroup `json:"podGroup"`
	wlPodGroup
}

// readGang adds a "gangs" entry to w: the PodGroup arrives with the first
// pod; the pods take the group's namespace ("default" when empty) and its
// label. namePrefix defaults to the group's name and "-".
func readGang(raw json.RawMessage, w *Workload) error {
	var g wlGang
	if err := wlStrict(raw, &g); err != nil {
		return err
	}
	pg := g.PodGroup
	if pg.Namespace == "" {
		pg.Namespace = "default"
	}
	if g.Count < 0 {
		return fmt.Errorf("count=%d: must not be negative", g.Count)
	}
	prefix := g.NamePrefix
	if prefix == "" {
		prefix = pg.Name + "-"
	}
	if err := wlCheckTimes(prefix+"*", g.Arrival, g.Interval, g.Duration); err != nil {
		return err
	}
	if g.Pod.Namespace != "" && g.Pod.Namespace != pg.Namespace {
		return fmt.Errorf("pod.metadata.namespace=%q: must be the PodGroup's namespace %q", g.Pod.Namespace, pg.Namespace)
	}
	w.Gangs = append(w.Gangs, GangArrival{At: time.Duration(g.Arrival), Group: &pg})
	for i := range g.Count {
		p := g.Pod
		p.Name = fmt.Sprintf("%s%d", prefix, i)
		p.Namespace = pg.Namespace
		labels := make(map[string]string, len(p.Labels)+1)
		for k, v := range p.Labels {
			labels[k] = v
		}
		labels[framework.PodGroupLabel] = pg.Name
		p.Labels = labels
		at := time.Duration(g.Arrival) + time.Duration(i)*time.Duration(g.Interval)
		w.Arrivals = append(w.Arrivals, PodArrival{At: at, Duration: time.Duration(g.Duration), Pod: &p})
	}
	return nil
}
