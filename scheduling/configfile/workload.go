package configfile

import (
	"slices"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/scheduling"
)

// withWorkloadPlugins is kube-scheduler v1.36's applyFeatureGates for
// the workload gates (apis/config/v1/default_plugins.go): GangScheduling,
// then TopologyPlacementGenerator and PodGroupPodsCount (weight 1), appended
// to the default multiPoint list.
func withWorkloadPlugins(mp []scheduling.WeightedPlugin, f framework.WorkloadFeatures) []scheduling.WeightedPlugin {
	out := slices.Clone(mp)
	if f.GangScheduling {
		out = append(out, scheduling.WeightedPlugin{Name: config.GangSchedulingName})
	}
	if f.TopologyAwareWorkloadScheduling {
		out = append(out, scheduling.WeightedPlugin{Name: config.TopologyPlacementGeneratorName}, scheduling.WeightedPlugin{Name: config.PodGroupPodsCountName, Weight: 1})
	}
	return out
}

// placementPoints sets the profile's placement plugins from the expanded
// lists, with kube-scheduler v1.36's weights (NewFramework's
// getValidScoreWeights over placementScore's enabled plugins followed by
// multiPoint's: the first entry of a plugin that implements placementScore
// gives its weight, absent or 0 meaning 1, and the running total must not
// overflow).
func placementPoints(p *framework.Profile, merged *plugins, lists map[string][]string, isPlacementScore func(string) bool) error {
	p.PlacementGenerate = lists[pointPlacementGenerate]
	p.PlacementScore = lists[pointPlacementScore]
	weights, err := weights("placement score plugins", append(slices.Clone(merged.PlacementScore.Enabled), merged.MultiPoint.Enabled...), isPlacementScore, nil)
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
