package scheduling

import (
	"slices"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
)

// cfgWithWorkloadPlugins is kube-scheduler v1.36's applyFeatureGates for
// the workload gates (apis/config/v1/default_plugins.go): GangScheduling,
// then TopologyPlacementGenerator and PodGroupPodsCount (weight 1), appended
// to the default multiPoint list.
func cfgWithWorkloadPlugins(mp []WeightedPlugin, f WorkloadFeatures) []WeightedPlugin {
	out := slices.Clone(mp)
	if f.GangScheduling {
		out = append(out, WeightedPlugin{Name: GangSchedulingName})
	}
	if f.TopologyAwareWorkloadScheduling {
		out = append(out, WeightedPlugin{Name: TopologyPlacementGeneratorName}, WeightedPlugin{Name: PodGroupPodsCountName, Weight: 1})
	}
	return out
}

// cfgPlacementPoints sets the profile's placement plugins from the expanded
// lists, with kube-scheduler v1.36's weights (NewFramework's
// getValidScoreWeights over placementScore's enabled plugins followed by
// multiPoint's: the first entry of a plugin that implements placementScore
// gives its weight, absent or 0 meaning 1, and the running total must not
// overflow).
func cfgPlacementPoints(p *framework.Profile, merged *cfgPlugins, lists map[string][]string, isPlacementScore func(string) bool) error {
	p.PlacementGenerate = lists[cfgPointPlacementGenerate]
	p.PlacementScore = lists[cfgPointPlacementScore]
	weights, err := cfgWeights("placement score plugins", append(slices.Clone(merged.PlacementScore.Enabled), merged.MultiPoint.Enabled...), isPlacementScore, nil)
	if err != nil {
		return err
	}
	if len(p.PlacementScore) > 0 {
		p.PlacementWeights = map[string]int64{}
		for _, n := range p.PlacementScore {
			p.PlacementWeights[n] = weights[n]
		}
	}
	return nil
}

// EnableWorkloadScheduling returns p with the plugins kube-scheduler v1.36
// adds to its default multiPoint list for the workload feature gates in f,
// expanded as multiPoint expands them: GangScheduling appended to PreEnqueue
// and Permit (GangScheduling gate); TopologyPlacementGenerator as the
// placementGenerate plugin and, as placementScore plugins,
// NodeResourcesFit (when p scores with it, at its Score weight) then
// PodGroupPodsCount with weight 1 (TopologyAwareWorkloadScheduling). Pass
// the same f to New with WithWorkloadFeatures.
func EnableWorkloadScheduling(p framework.Profile, f WorkloadFeatures) framework.Profile {
	add := func(list []string, name string) []string {
		if slices.Contains(list, name) {
			return list
		}
		return append(slices.Clip(list), name)
	}
	if f.GangScheduling {
		p.PreEnqueue = add(p.PreEnqueue, GangSchedulingName)
		p.Permit = add(p.Permit, GangSchedulingName)
	}
	if f.TopologyAwareWorkloadScheduling {
		p.PlacementGenerate = []string{TopologyPlacementGeneratorName}
		w := map[string]int64{}
		var score []string
		if slices.Contains(p.Score, config.NodeResourcesFitName) {
			score = append(score, config.NodeResourcesFitName)
			w[config.NodeResourcesFitName] = p.Weights[config.NodeResourcesFitName]
		}
		p.PlacementScore = append(score, PodGroupPodsCountName)
		w[PodGroupPodsCountName] = 1
		p.PlacementWeights = w
	}
	return p
}
