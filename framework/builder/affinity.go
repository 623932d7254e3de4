package builder

import (
	"fmt"

	"github.com/schedkit/schedkit/framework/api"
)

// RequiredNodeAffinity sets spec.affinity.nodeAffinity.required to terms
// (a node must match one of them), keeping preferred terms already set.
func (w *PodWrapper) RequiredNodeAffinity(terms ...api.NodeSelectorTerm) *PodWrapper {
	na := w.nodeAffinity()
	na.RequiredDuringSchedulingIgnoredDuringExecution = &api.NodeSelector{NodeSelectorTerms: terms}
	return w
}

// PreferredNodeAffinity adds a preferred node affinity term with weight.
func (w *PodWrapper) PreferredNodeAffinity(weight int32, term api.NodeSelectorTerm) *PodWrapper {
	na := w.nodeAffinity()
	na.PreferredDuringSchedulingIgnoredDuringExecution = append(clip(na.PreferredDuringSchedulingIgnoredDuringExecution),
		api.PreferredSchedulingTerm{Weight: weight, Preference: term})
	return w
}

// nodeAffinity returns the pod's node affinity for writing: a copy of the
// Affinity and NodeAffinity set before (which pods already built share).
func (w *PodWrapper) nodeAffinity() *api.NodeAffinity {
	a := &api.Affinity{}
	if old := w.p.Spec.Affinity; old != nil {
		*a = *old
	}
	na := &api.NodeAffinity{}
	if a.NodeAffinity != nil {
		*na = *a.NodeAffinity
	}
	a.NodeAffinity = na
	w.p.Spec.Affinity = a
	return na
}

// LabelIn returns a node selector term requiring node label key to have
// one of values.
func LabelIn(key string, values ...string) api.NodeSelectorTerm {
	return api.NodeSelectorTerm{MatchExpressions: []api.NodeSelectorRequirement{{Key: key, Operator: api.NodeSelectorOpIn, Values: values}}}
}

// NameIn returns a node selector term requiring the node's metadata.name
// to be one of names.
func NameIn(names ...string) api.NodeSelectorTerm {
	return api.NodeSelectorTerm{MatchFields: []api.NodeSelectorRequirement{{Key: "metadata.name", Operator: api.NodeSelectorOpIn, Values: names}}}
}

// PodAffinityKind says which list of the pod's affinity a term goes to; the
// names are kube-scheduler's testing wrappers'.
type PodAffinityKind int

// Pod affinity term kinds.
const (
	// PodAffinityWithRequiredReq: podAffinity.required.
	PodAffinityWithRequiredReq PodAffinityKind = iota + 1
	// PodAffinityWithPreferredReq: podAffinity.preferred.
	PodAffinityWithPreferredReq
	// PodAntiAffinityWithRequiredReq: podAntiAffinity.required.
	PodAntiAffinityWithRequiredReq
	// PodAntiAffinityWithPreferredReq: podAntiAffinity.preferred.
	PodAntiAffinityWithPreferredReq
)

// PodAffinityTerm adds term to the list kind names; preferred kinds carry
// weight. An unknown kind is recorded as the wrapper's error (see Build).
func (w *PodWrapper) PodAffinityTerm(kind PodAffinityKind, weight int32, term api.PodAffinityTerm) *PodWrapper {
	a := &api.Affinity{}
	if old := w.p.Spec.Affinity; old != nil {
		*a = *old
	}
	switch kind {
	case PodAffinityWithRequiredReq, PodAffinityWithPreferredReq:
		pa := &api.PodAffinity{}
		if a.PodAffinity != nil {
			*pa = *a.PodAffinity
		}
		if kind == PodAffinityWithRequiredReq {
			pa.RequiredDuringSchedulingIgnoredDuringExecution = append(clip(pa.RequiredDuringSchedulingIgnoredDuringExecution), term)
		} else {
			pa.PreferredDuringSchedulingIgnoredDuringExecution = append(clip(pa.PreferredDuringSchedulingIgnoredDuringExecution), api.WeightedPodAffinityTerm{Weight: weight, PodAffinityTerm: term})
		}
		a.PodAffinity = pa
	case PodAntiAffinityWithRequiredReq, PodAntiAffinityWithPreferredReq:
		pa := &api.PodAntiAffinity{}
		if a.PodAntiAffinity != nil {
			*pa = *a.PodAntiAffinity
		}
		if kind == PodAntiAffinityWithRequiredReq {
			pa.RequiredDuringSchedulingIgnoredDuringExecution = append(clip(pa.RequiredDuringSchedulingIgnoredDuringExecution), term)
		} else {
			pa.PreferredDuringSchedulingIgnoredDuringExecution = append(clip(pa.PreferredDuringSchedulingIgnoredDuringExecution), api.WeightedPodAffinityTerm{Weight: weight, PodAffinityTerm: term})
		}
		a.PodAntiAffinity = pa
	default:
		if w.err == nil {
			w.err = fmt.Errorf("builder: pod %q: PodAffinityTerm: unknown PodAffinityKind %d", w.p.Name, kind)
		}
		return w
	}
	w.p.Spec.Affinity = a
	return w
}

func selectorTerm(topologyKey string, op api.LabelSelectorOperator, key string, vals []string) api.PodAffinityTerm {
	return api.PodAffinityTerm{
		LabelSelector: &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: key, Operator: op, Values: vals}}},
		TopologyKey:   topologyKey,
	}
}

// PodAffinityIn adds a term over topologyKey selecting pods whose label
// labelKey is one of vals, to the list kind names (weight 1 for preferred
// kinds, as kube's wrapper).
func (w *PodWrapper) PodAffinityIn(labelKey, topologyKey string, vals []string, kind PodAffinityKind) *PodWrapper {
	return w.PodAffinityTerm(kind, 1, selectorTerm(topologyKey, api.LabelSelectorOpIn, labelKey, vals))
}

// PodAffinityNotIn adds a term selecting pods whose label labelKey is not
// one of vals.
func (w *PodWrapper) PodAffinityNotIn(labelKey, topologyKey string, vals []string, kind PodAffinityKind) *PodWrapper {
	return w.PodAffinityTerm(kind, 1, selectorTerm(topologyKey, api.LabelSelectorOpNotIn, labelKey, vals))
}

// PodAffinityExists adds a term selecting pods that have label labelKey.
func (w *PodWrapper) PodAffinityExists(labelKey, topologyKey string, kind PodAffinityKind) *PodWrapper {
	return w.PodAffinityTerm(kind, 1, selectorTerm(topologyKey, api.LabelSelectorOpExists, labelKey, nil))
}

// PodAntiAffinityIn is PodAffinityIn, named for an anti-affinity kind.
func (w *PodWrapper) PodAntiAffinityIn(labelKey, topologyKey string, vals []string, kind PodAffinityKind) *PodWrapper {
	return w.PodAffinityIn(labelKey, topologyKey, vals, kind)
}

// PodAntiAffinityNotIn is PodAffinityNotIn, named for an anti-affinity kind.
func (w *PodWrapper) PodAntiAffinityNotIn(labelKey, topologyKey string, vals []string, kind PodAffinityKind) *PodWrapper {
	return w.PodAffinityNotIn(labelKey, topologyKey, vals, kind)
}

// PodAntiAffinityExists is PodAffinityExists, named for an anti-affinity
// kind.
func (w *PodWrapper) PodAntiAffinityExists(labelKey, topologyKey string, kind PodAffinityKind) *PodWrapper {
	return w.PodAffinityExists(labelKey, topologyKey, kind)
}
