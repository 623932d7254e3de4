package synth

import (
	"fmt"
	"slices"
	"strings"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/filter/noderesources"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/scheduling"
)

// scored is a comparison profile: the default profile scored by plugin
// with args (nil: the plugin's defaults).
type scored struct {
	name, plugin string
	args         any
}

func fitArgs(t noderesources.ScoringStrategyType) noderesources.NodeResourcesFitArgs {
	return noderesources.NodeResourcesFitArgs{ScoringStrategy: &noderesources.ScoringStrategy{Type: t, Resources: config.DefaultResourceSpecs()}}
}

// comparisons returns the comparison profiles, in the order ProfileNames
// lists them.
func comparisons() []scored {
	return []scored{
		{"LeastAllocated", config.NodeResourcesFitName, fitArgs(noderesources.LeastAllocated)},
		{"MostAllocated", config.NodeResourcesFitName, fitArgs(noderesources.MostAllocated)},
		{"BalancedAllocation", config.NodeResourcesBalancedAllocationName, nil},
		{"LoadAware", config.LoadAwareSchedulingName, nil},
		{"TargetLoadPacking", config.TargetLoadPackingName, nil},
		{"LoadVariationRiskBalancing", config.LoadVariationRiskBalancingName, nil},
	}
}

// ProfileNames lists the comparison profiles Profile builds: the default
// profile scored by NodeResourcesFit LeastAllocated, NodeResourcesFit
// MostAllocated, NodeResourcesBalancedAllocation, Koordinator's
// LoadAwareScheduling (which also filters, on its usage thresholds, and
// reserves), or scheduler-plugins' Trimaran TargetLoadPacking or
// LoadVariationRiskBalancing (which read the nodes' NodeLoads, AddLoads).
func ProfileNames() []string {
	cs := comparisons()
	out := make([]string, len(cs))
	for i, s := range cs {
		out[i] = s.name
	}
	return out
}

// Profile returns the comparison profile name of kube-scheduler release v
// and a default registry of its own: kube-scheduler's default profile
// (scheduling.DefaultProfileFor: every PreFilter and Filter,
// DefaultPreemption, the binder, and the scores of soft constraints —
// TaintToleration, NodeAffinity, PodTopologySpread, InterPodAffinity,
// ImageLocality) with its resource scores (NodeResourcesFit and
// NodeResourcesBalancedAllocation) replaced by the named strategy's
// plugin, weight 1, enabled at every extension point it implements
// (framework.Profile.Enable). An unknown name is an error listing the
// known ones.
func Profile(name string, v framework.KubeVersion) (*framework.Registry, framework.Profile, error) {
	cs := comparisons()
	i := slices.IndexFunc(cs, func(s scored) bool { return s.name == name })
	if i < 0 {
		return nil, framework.Profile{}, fmt.Errorf("synth: profile %q: unknown (known: %s)", name, strings.Join(ProfileNames(), ", "))
	}
	s := cs[i]
	reg := scheduling.NewDefaultRegistry()
	p := scheduling.DefaultProfileFor(v)
	resourceScores := []string{config.NodeResourcesFitName, config.NodeResourcesBalancedAllocationName}
	isResourceScore := func(n string) bool { return slices.Contains(resourceScores, n) }
	p.PreScore = slices.DeleteFunc(p.PreScore, isResourceScore)
	p.Score = slices.DeleteFunc(p.Score, isResourceScore)
	for _, n := range resourceScores {
		delete(p.Weights, n)
	}
	if s.args != nil {
		p.Args = map[string]any{s.plugin: s.args}
	}
	if err := p.Enable(reg, s.plugin, 1); err != nil {
		return nil, framework.Profile{}, fmt.Errorf("synth: profile %s: %w", s.name, err)
	}
	return reg, p, nil
}
