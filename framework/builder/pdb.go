package builder

import (
	"maps"

	"github.com/schedkit/schedkit/framework/api"
)

// PDBWrapper builds a api.PodDisruptionBudget, which DefaultPreemption
// honours; MakePDB starts one.
type PDBWrapper struct{ b api.PodDisruptionBudget }

// MakePDB starts a PodDisruptionBudget named name in namespace "default",
// selecting no pod and allowing no disruption.
func MakePDB(name string) *PDBWrapper {
	return &PDBWrapper{b: api.PodDisruptionBudget{Namespace: "default", Name: name}}
}

// Obj returns the budget.
func (w *PDBWrapper) Obj() *api.PodDisruptionBudget {
	b := w.b
	if s := b.Selector; s != nil {
		c := *s
		c.MatchLabels = maps.Clone(s.MatchLabels)
		b.Selector = &c
	}
	return &b
}

// Namespace sets the namespace.
func (w *PDBWrapper) Namespace(ns string) *PDBWrapper { w.b.Namespace = ns; return w }

// MatchLabel adds k=v to the selector's matchLabels.
func (w *PDBWrapper) MatchLabel(k, v string) *PDBWrapper {
	if w.b.Selector == nil {
		w.b.Selector = &api.LabelSelector{}
	}
	if w.b.Selector.MatchLabels == nil {
		w.b.Selector.MatchLabels = map[string]string{}
	}
	w.b.Selector.MatchLabels[k] = v
	return w
}

// DisruptionsAllowed sets status.disruptionsAllowed.
func (w *PDBWrapper) DisruptionsAllowed(n int32) *PDBWrapper { w.b.DisruptionsAllowed = n; return w }
