package scheduling

import (
	"slices"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
)

// EnableWorkloadScheduling returns p with the plugins kube-scheduler v1.36
// adds to its default multiPoint list for the workload feature gates in f,
// expanded as multiPoint expands them: GangScheduling appended to PreEnqueue
// and Permit (GangScheduling gate); TopologyPlacementGenerator as the
// placementGenerate plugin and, as placementScore plugins,
// NodeResourcesFit (when p scores with it, at its Score weight) then
// PodGroupPodsCount with weight 1 (TopologyAwareWorkloadScheduling). Pass
// the same f to New with WithWorkloadFeatures.
func EnableWorkloadScheduling(p framework.Profile, f framework.WorkloadFeatures) framework.Profile {
	add := func(list []string, name string) []string {
		if slices.Contains(list, name) {
			return list
		}
		return append(slices.Clip(list), name)
	}
	if f.GangScheduling {
		p.PreEnqueue = add(p.PreEnqueue, config.GangSchedulingName)
		p.Permit = add(p.Permit, config.GangSchedulingName)
	}
	if f.TopologyAwareWorkloadScheduling {
		p.PlacementGenerate = []string{config.TopologyPlacementGeneratorName}
		w := map[string]int64{}
		var score []string
		if slices.Contains(p.Score, config.NodeResourcesFitName) {
			score = append(score, config.NodeResourcesFitName)
			w[config.NodeResourcesFitName] = p.Weights[config.NodeResourcesFitName]
		}
		p.PlacementScore = append(score, config.PodGroupPodsCountName)
		w[config.PodGroupPodsCountName] = 1
		p.PlacementWeights = w
	}
	return p
}

// WithWorkloadFeatures turns on kube-scheduler v1.36's alpha workload
// features (default: all off), which the plugins read through their
// handle's PodGroupManager. A profile may enable GangScheduling without
// them, as kube's configuration may (see gangscheduling.GangScheduling).
func WithWorkloadFeatures(f framework.WorkloadFeatures) Option {
	return func(s *Scheduler) { s.workload.features = f }
}
