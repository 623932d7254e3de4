package builder

import (
	"github.com/schedkit/schedkit/framework/api"
)

// PodGroupWrapper builds a api.PodGroup, scheduler-plugins' PodGroup
// that Coscheduling places all or nothing; MakePodGroup starts one.
type PodGroupWrapper struct {
	g   api.PodGroup
	err error // the first malformed quantity
}

// MakePodGroup starts the PodGroup name in namespace "default" whose
// minMember pods must be placed together. A pod joins it with the label
// api.PodGroupLabel in the same namespace:
// MakePod().Label(api.PodGroupLabel, name).
func MakePodGroup(name string, minMember int32) *PodGroupWrapper {
	w := &PodGroupWrapper{}
	w.g.Name, w.g.Namespace, w.g.Spec.MinMember = name, "default", minMember
	return w
}

// Build returns the PodGroup, or the first malformed quantity given to the
// wrapper as an error naming the group, the field and the value.
func (w *PodGroupWrapper) Build() (*api.PodGroup, error) {
	if w.err != nil {
		return nil, w.err
	}
	g := w.g
	g.Spec.MinResources = g.Spec.MinResources.Clone()
	if t := g.Spec.ScheduleTimeoutSeconds; t != nil {
		v := *t
		g.Spec.ScheduleTimeoutSeconds = &v
	}
	return &g, nil
}

// Obj returns the PodGroup. It panics when a quantity given to the wrapper
// was malformed (Build returns the error instead).
func (w *PodGroupWrapper) Obj() *api.PodGroup { return must(w.Build()) }

// Namespace sets metadata.namespace (the namespace of the group's pods).
func (w *PodGroupWrapper) Namespace(ns string) *PodGroupWrapper { w.g.Namespace = ns; return w }

// MinResources sets spec.minResources: what must be free in the cluster
// before any pod of the group is placed.
func (w *PodGroupWrapper) MinResources(m map[string]string) *PodGroupWrapper {
	w.g.Spec.MinResources = parse(&w.err, "PodGroup", w.g.Name, "spec.minResources", m)
	return w
}

// ScheduleTimeout sets spec.scheduleTimeoutSeconds: how long placed pods
// wait at Permit for the rest of the group.
func (w *PodGroupWrapper) ScheduleTimeout(seconds int32) *PodGroupWrapper {
	w.g.Spec.ScheduleTimeoutSeconds = &seconds
	return w
}
