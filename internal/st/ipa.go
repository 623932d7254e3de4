package st

import fw "github.com/schedkit/schedkit/framework"

// PodAffinityKind says which list of the pod's affinity a builder term is
// added to, as in kube-scheduler's testing wrappers.
type PodAffinityKind int

// Affinity term kinds.
const (
	PodAffinityWithRequiredReq PodAffinityKind = iota + 1
	PodAffinityWithPreferredReq
	PodAntiAffinityWithRequiredReq
	PodAntiAffinityWithPreferredReq
)

// Labels adds every label of m.
func (w *PodWrapper) Labels(m map[string]string) *PodWrapper {
	for k, v := range m {
		w.Label(k, v)
	}
	return w
}

// PodAffinityTerm adds term to the list kind names; preferred kinds use
// weight. It copies the pod's Affinity before changing it, so wrappers that
// share an Affinity do not affect each other.
func (w *PodWrapper) PodAffinityTerm(kind PodAffinityKind, weight int32, term fw.PodAffinityTerm) *PodWrapper {
	a := &fw.Affinity{}
	if old := w.p.Spec.Affinity; old != nil {
		*a = *old
	}
	switch kind {
	case PodAffinityWithRequiredReq, PodAffinityWithPreferredReq:
		pa := &fw.PodAffinity{}
		if a.PodAffinity != nil {
			*pa = *a.PodAffinity
		}
		if kind == PodAffinityWithRequiredReq {
			pa.RequiredDuringSchedulingIgnoredDuringExecution = append(append([]fw.PodAffinityTerm(nil), pa.RequiredDuringSchedulingIgnoredDuringExecution...), term)
		} else {
			pa.PreferredDuringSchedulingIgnoredDuringExecution = append(append([]fw.WeightedPodAffinityTerm(nil), pa.PreferredDuringSchedulingIgnoredDuringExecution...), fw.WeightedPodAffinityTerm{Weight: weight, PodAffinityTerm: term})
		}
		a.PodAffinity = pa
	case PodAntiAffinityWithRequiredReq, PodAntiAffinityWithPreferredReq:
		pa := &fw.PodAntiAffinity{}
		if a.PodAntiAffinity != nil {
			*pa = *a.PodAntiAffinity
		}
		if kind == PodAntiAffinityWithRequiredReq {
			pa.RequiredDuringSchedulingIgnoredDuringExecution = append(append([]fw.PodAffinityTerm(nil), pa.RequiredDuringSchedulingIgnoredDuringExecution...), term)
		} else {
			pa.PreferredDuringSchedulingIgnoredDuringExecution = append(append([]fw.WeightedPodAffinityTerm(nil), pa.PreferredDuringSchedulingIgnoredDuringExecution...), fw.WeightedPodAffinityTerm{Weight: weight, PodAffinityTerm: term})
		}
		a.PodAntiAffinity = pa
	default:
		panic("st: unknown PodAffinityKind")
	}
	w.p.Spec.Affinity = a
	return w
}

func selectorTerm(topologyKey string, op fw.LabelSelectorOperator, key string, vals []string) fw.PodAffinityTerm {
	return fw.PodAffinityTerm{
		LabelSelector: &fw.LabelSelector{MatchExpressions: []fw.LabelSelectorRequirement{{Key: key, Operator: op, Values: vals}}},
		TopologyKey:   topologyKey,
	}
}

// PodAffinityIn adds a term selecting pods whose labelKey is in vals, in the
// list kind names (weight 1 for preferred kinds, as kube's wrapper).
func (w *PodWrapper) PodAffinityIn(labelKey, topologyKey string, vals []string, kind PodAffinityKind) *PodWrapper {
	return w.PodAffinityTerm(kind, 1, selectorTerm(topologyKey, fw.LabelSelectorOpIn, labelKey, vals))
}

// PodAffinityNotIn adds a term selecting pods whose labelKey is not in vals.
func (w *PodWrapper) PodAffinityNotIn(labelKey, topologyKey string, vals []string, kind PodAffinityKind) *PodWrapper {
	return w.PodAffinityTerm(kind, 1, selectorTerm(topologyKey, fw.LabelSelectorOpNotIn, labelKey, vals))
}

// PodAffinityExists adds a term selecting pods that have labelKey.
func (w *PodWrapper) PodAffinityExists(labelKey, topologyKey string, kind PodAffinityKind) *PodWrapper {
	return w.PodAffinityTerm(kind, 1, selectorTerm(topologyKey, fw.LabelSelectorOpExists, labelKey, nil))
}

// PodAntiAffinityIn is PodAffinityIn for an anti-affinity kind.
func (w *PodWrapper) PodAntiAffinityIn(labelKey, topologyKey string, vals []string, kind PodAffinityKind) *PodWrapper {
	return w.PodAffinityIn(labelKey, topologyKey, vals, kind)
}

// PodAntiAffinityNotIn is PodAffinityNotIn for an anti-affinity kind.
func (w *PodWrapper) PodAntiAffinityNotIn(labelKey, topologyKey string, vals []string, kind PodAffinityKind) *PodWrapper {
	return w.PodAffinityNotIn(labelKey, topologyKey, vals, kind)
}

// PodAntiAffinityExists is PodAffinityExists for an anti-affinity kind.
func (w *PodWrapper) PodAntiAffinityExists(labelKey, topologyKey string, kind PodAffinityKind) *PodWrapper {
	return w.PodAffinityExists(labelKey, topologyKey, kind)
}
