package scheduling

import (
	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/scoring/trimaran"
)

// trimaranPlugins are scheduler-plugins' Trimaran score plugins reading the
// scheduler's NodeLoads (their handle's). TargetLoadPacking also implements PostBind (it
// remembers recent bindings the metrics do not show yet): enable it there
// too.
func trimaranPlugins() []PluginSpec {
	return []PluginSpec{
		{Name: config.TargetLoadPackingName, DefaultArgs: anyOf(trimaran.DefaultTargetLoadPackingArgs),
			Factory: trimaran.NewTargetLoadPacking, Points: []string{PointPreScore, PointScore, PointPostBind}},
		{Name: config.LoadVariationRiskBalancingName, DefaultArgs: anyOf(trimaran.DefaultLoadVariationRiskBalancingArgs),
			Factory: trimaran.NewLoadVariationRiskBalancing, Points: []string{PointPreScore, PointScore}},
	}
}

// UpdateNodeLoad records a node's measured load (for the Trimaran
// plugins). It is a cluster event (ResourceNodeLoad) that only the plugins
// registering it, or plugins without queueing hints, retry pods on.
func (s *Scheduler) UpdateNodeLoad(l *api.NodeLoad) error { return s.updateNodeLoad(nil, l) }

func (s *Scheduler) updateNodeLoad(f *Fork, l *api.NodeLoad) error {
	ev := framework.ClusterEvent{Resource: framework.ResourceNodeLoad, ActionType: framework.Update}
	return s.clusterEvent(f, "UpdateNodeLoad", ev, func() (old, cur any, err error) { return nil, l, s.cluster.UpdateNodeLoad(l) })
}

// workloadPlugins are the plugins DefaultPlugins offers beyond
// kube-scheduler's defaults and LoadAwareScheduling.
func workloadPlugins() []PluginSpec {
	return append(trimaranPlugins(), coschedulingPlugins()...)
}
