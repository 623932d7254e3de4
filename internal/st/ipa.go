package st

import (
	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/builder"
)

// PodAffinityKind is builder.PodAffinityKind.
type PodAffinityKind = builder.PodAffinityKind

// Affinity term kinds (builder's).
const (
	PodAffinityWithRequiredReq      = builder.PodAffinityWithRequiredReq
	PodAffinityWithPreferredReq     = builder.PodAffinityWithPreferredReq
	PodAntiAffinityWithRequiredReq  = builder.PodAntiAffinityWithRequiredReq
	PodAntiAffinityWithPreferredReq = builder.PodAntiAffinityWithPreferredReq
)

func selectorTerm(topologyKey string, op fw.LabelSelectorOperator, key string, vals []string) fw.PodAffinityTerm {
	return fw.PodAffinityTerm{
		LabelSelector: &fw.LabelSelector{MatchExpressions: []fw.LabelSelectorRequirement{{Key: key, Operator: op, Values: vals}}},
		TopologyKey:   topologyKey,
	}
}
