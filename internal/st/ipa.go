package st

import (
	"github.com/schedkit/schedkit/framework/api"
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

func selectorTerm(topologyKey string, op api.LabelSelectorOperator, key string, vals []string) api.PodAffinityTerm {
	return api.PodAffinityTerm{
		LabelSelector: &api.LabelSelector{MatchExpressions: []api.LabelSelectorRequirement{{Key: key, Operator: op, Values: vals}}},
		TopologyKey:   topologyKey,
	}
}
