package replay

import (
	"sort"
	"time"

	"github.com/schedkit/schedkit/framework/api"
)

// GangOutcome is what became of one gang of the scenario (a GangArrival)
// in a replay.
type GangOutcome struct {
	// Group is the PodGroup's namespace/name; MinMember its spec.minMember;
	// Pods the number of pods of the scenario naming it.
	Group     string
	MinMember int
	Pods      int
	// Kube is set for kube's PodGroup (a WorkloadGroupArrival): MinMember
	// is then its gang minCount, or 1 for a basic group.
	Kube bool
	// Whole reports that MinMember of its pods were bound at once: from
	// then on the gang runs (its pods start their durations).
	Whole bool
	// Arrival is when the PodGroup was created; Start when the gang became
	// whole (zero when it never did). Wait is Start − Arrival, or, for a
	// gang never whole, the end of the replay − Arrival.
	Arrival, Start time.Time
	Wait           time.Duration
	// MaxBound is the most of its pods bound at one time.
	MaxBound int
	// WastedPodSeconds sums, over its pods, the seconds each was bound
	// while the gang was not whole: resources held by a job that cannot
	// run.
	WastedPodSeconds float64
}

// WastedPodSeconds sums the gangs' WastedPodSeconds.
func (r *Result) WastedPodSeconds() float64 {
	var s float64
	for _, g := range r.Gangs {
		s += g.WastedPodSeconds
	}
	return s
}

// gang tracks one gang through a replay.
type gang struct {
	out     GangOutcome
	boundAt map[*pod]time.Time // members bound now, since when
	wasted  time.Duration
}

// gangs is the replay's gang bookkeeping. A gang's pods run (start their
// durations) only once MinMember of them are bound; until then they hold
// their nodes idle, which is what gang scheduling prevents.
type gangs map[string]*gang

func newGangs(w *Scenario, start time.Time) gangs {
	g := gangs{}
	for _, a := range w.Gangs {
		g[a.Group.Key()] = &gang{out: GangOutcome{Group: a.Group.Key(), MinMember: int(a.Group.Spec.MinMember), Arrival: start.Add(a.At)},
			boundAt: map[*pod]time.Time{}}
	}
	for _, a := range w.WorkloadGroups {
		g[kubeGroupPrefix+a.Group.Key()] = &gang{out: GangOutcome{Group: a.Group.Key(), MinMember: max(1, a.Group.MinCount()), Kube: true,
			Arrival: start.Add(a.At)}, boundAt: map[*pod]time.Time{}}
	}
	return g
}

// join attaches a pod of the scenario to its gang, if it names one (its
// scheduler-plugins gang first, else its kube PodGroup).
func (gs gangs) join(rp *pod) {
	label, kube := gangKeys(rp.pod)
	g := gs[label]
	if g == nil {
		g = gs[kube]
	}
	if g != nil {
		rp.gang = g
		g.out.Pods++
	}
}

// bound records rp bound at t and returns the pods whose run starts now:
// rp alone outside a gang or in a gang already whole, every bound member
// when rp makes its gang whole, none otherwise.
func (gs gangs) bound(rp *pod, t time.Time) []*pod {
	g := rp.gang
	if g == nil {
		return []*pod{rp}
	}
	g.boundAt[rp] = t
	g.out.MaxBound = max(g.out.MaxBound, len(g.boundAt))
	switch {
	case g.out.Whole:
		return []*pod{rp}
	case len(g.boundAt) < g.out.MinMember:
		return nil
	}
	g.out.Whole, g.out.Start, g.out.Wait = true, t, t.Sub(g.out.Arrival)
	started := make([]*pod, 0, len(g.boundAt))
	for p, since := range g.boundAt {
		g.wasted += t.Sub(since)
		started = append(started, p)
	}
	sort.Slice(started, func(i, j int) bool { return started[i].pod.Key() < started[j].pod.Key() })
	return started
}

// unbound records rp leaving its node at t (completed, preempted, evicted).
func (gs gangs) unbound(rp *pod, t time.Time) {
	g := rp.gang
	if g == nil {
		return
	}
	since, ok := g.boundAt[rp]
	if !ok {
		return
	}
	delete(g.boundAt, rp)
	if !g.out.Whole {
		g.wasted += t.Sub(since)
	}
}

// outcomes closes the books at end, sorted by group.
func (gs gangs) outcomes(end time.Time) []GangOutcome {
	out := make([]GangOutcome, 0, len(gs))
	for _, g := range gs {
		o := g.out
		wasted := g.wasted
		if !o.Whole {
			for _, since := range g.boundAt {
				wasted += end.Sub(since)
			}
			o.Wait = max(0, end.Sub(o.Arrival))
		}
		o.WastedPodSeconds = wasted.Seconds()
		out = append(out, o)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Group != out[j].Group {
			return out[i].Group < out[j].Group
		}
		return !out[i].Kube && out[j].Kube
	})
	return out
}

// kubeGroupPrefix prefixes the keys of kube's PodGroups among the gangs (a
// namespace cannot contain ':', so they never meet scheduler-plugins'
// keys).
const kubeGroupPrefix = "k8s:"

// gangKeys returns the keys of the gangs a pod belongs to: its
// scheduler-plugins PodGroup (label) and its kube PodGroup
// (spec.schedulingGroup).
func gangKeys(p *api.Pod) (label, kube string) {
	label = api.PodGroupKey(p)
	if k := api.WorkloadPodGroupKey(p); k != "" {
		kube = kubeGroupPrefix + k
	}
	return label, kube
}
