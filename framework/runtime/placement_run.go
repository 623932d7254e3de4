package runtime

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/schedkit/schedkit/framework"
)

// placementPlugins are a profile's placementGenerate and placementScore
// plugins (the latter with their weights).
type placementPlugins struct {
	generate []framework.PlacementGeneratePlugin
	score    []framework.PlacementScorePlugin
	weights  []int64
}

// buildPlacement instantiates the profile's placement plugins with get and
// checks them as kube-scheduler v1.36's NewFramework does: at most one
// placementGenerate plugin, every placementScore plugin weighted (0 means
// 1), no weight for a plugin that is not a placementScore plugin of the
// profile, and weights whose total could leave int64 refused.
func (f *Framework) buildPlacement(p framework.Profile, get func(point, name string) (framework.Plugin, error), prefix string) error {
	var err error
	if f.placement.generate, err = collect[framework.PlacementGeneratePlugin]("PlacementGenerate", p.PlacementGenerate, get, prefix); err != nil {
		return err
	}
	if len(f.placement.generate) > 1 {
		return fmt.Errorf("%s: PlacementGenerate: at most one plugin is allowed, got %v", prefix, p.PlacementGenerate)
	}
	if f.placement.score, err = collect[framework.PlacementScorePlugin]("PlacementScore", p.PlacementScore, get, prefix); err != nil {
		return err
	}
	for name, w := range p.PlacementWeights {
		if !slices.Contains(p.PlacementScore, name) {
			return fmt.Errorf("%s: placement weight %d for plugin %q, which is not a PlacementScore plugin of the profile", prefix, w, name)
		}
	}
	var hi, lo int64
	for _, pl := range f.placement.score {
		w, ok := p.PlacementWeights[pl.Name()]
		if !ok {
			return fmt.Errorf("%s: PlacementScore plugin %q has no weight", prefix, pl.Name())
		}
		if w == 0 {
			w = 1
		}
		if (w > 0 && w > (framework.MaxTotalScore-hi)/framework.MaxNodeScore) || (w < 0 && w < (math.MinInt64-lo)/framework.MaxNodeScore) {
			return fmt.Errorf("%s: PlacementScore plugin %q: weight %d makes the total score overflow int64", prefix, pl.Name(), w)
		}
		if w > 0 {
			hi += w * framework.MaxNodeScore
		} else {
			lo += w * framework.MaxNodeScore
		}
		f.placement.weights = append(f.placement.weights, w)
	}
	return nil
}

// HasPlacementScorePlugins reports whether the profile has PlacementScore
// plugins.
func (f *Framework) HasPlacementScorePlugins() bool { return len(f.placement.score) > 0 }

// PlacementScoreWeight returns the effective weight of a PlacementScore
// plugin (0 if absent).
func (f *Framework) PlacementScoreWeight(name string) int64 {
	for i, pl := range f.placement.score {
		if pl.Name() == name {
			return f.placement.weights[i]
		}
	}
	return 0
}

// RunPlacementGeneratePlugins is kube-scheduler v1.36's
// RunPlacementGeneratePlugins: without a placementGenerate plugin the only
// placement is nodes; otherwise the plugin's placements within nodes. A
// failure carries the plugin's name; no placement at all is Unschedulable
// "no feasible placements found".
func (f *Framework) RunPlacementGeneratePlugins(ctx context.Context, state *framework.CycleState, group *framework.PodGroupInfo, nodes []*framework.NodeInfo) ([]*framework.Placement, *framework.Status) {
	parent := &framework.Placement{Nodes: nodes}
	if len(f.placement.generate) == 0 {
		return []*framework.Placement{parent}, nil
	}
	pl := f.placement.generate[0]
	out, s := pl.GeneratePlacements(ctx, state, group, parent)
	if !s.IsSuccess() {
		return nil, s.WithPlugin(pl.Name())
	}
	if len(out) == 0 {
		return nil, framework.NewStatus(framework.Unschedulable, "no feasible placements found").WithPlugin(pl.Name())
	}
	return out, nil
}

// RunPlacementScorePlugins is kube-scheduler v1.36's
// RunPlacementScorePlugins: every placementScore plugin scores every
// placement's assignments, its NormalizePlacementScore (when it has one)
// maps them, each normalized score must lie within [MinNodeScore,
// MaxNodeScore], and the weighted scores are summed per placement. It
// returns the totals in the order of assignments; errors name the plugin as
// kube does.
func (f *Framework) RunPlacementScorePlugins(ctx context.Context, state *framework.CycleState, group *framework.PodGroupInfo, assignments []*framework.PodGroupAssignments) ([]int64, *framework.Status) {
	scores := make([][]framework.PlacementScore, len(f.placement.score))
	for k := range f.placement.score {
		scores[k] = make([]framework.PlacementScore, len(assignments))
	}
	for i, a := range assignments {
		for k, pl := range f.placement.score {
			v, s := pl.ScorePlacement(ctx, state, group, a)
			if !s.IsSuccess() {
				return nil, framework.AsStatus(fmt.Errorf("running PlacementScore plugins: plugin %q failed with: %w", pl.Name(), s.ErrOrCode()))
			}
			scores[k][i] = framework.PlacementScore{Placement: a.Placement, Score: v}
		}
	}
	for k, pl := range f.placement.score {
		ext := pl.PlacementScoreExtensions()
		if ext == nil {
			continue
		}
		if s := ext.NormalizePlacementScore(ctx, state, group, scores[k]); !s.IsSuccess() {
			return nil, framework.AsStatus(fmt.Errorf("running NormalizePlacementScore on PlacementScore plugins: plugin %q failed with: %w", pl.Name(), s.ErrOrCode()))
		}
	}
	totals := make([]int64, len(assignments))
	for i := range assignments {
		for k, pl := range f.placement.score {
			v := scores[k][i].Score
			if v > framework.MaxNodeScore || v < framework.MinNodeScore {
				return nil, framework.AsStatus(fmt.Errorf("applying score defaultWeights on PlacementScore plugins: plugin %q returns an invalid score %d, it should in the range of [%d, %d] after normalizing",
					pl.Name(), v, framework.MinNodeScore, framework.MaxNodeScore))
			}
			totals[i] += v * f.placement.weights[k]
		}
	}
	return totals, nil
}

// inPlacement resolves a placement's nodes by name in snap (the snapshot's
// current NodeInfo of each; names it lacks are left out), in order.
func inPlacement(snap *framework.Snapshot, nodes []*framework.NodeInfo) []*framework.NodeInfo {
	out := make([]*framework.NodeInfo, 0, len(nodes))
	for _, ni := range nodes {
		if cur, ok := snap.Get(ni.Name()); ok {
			out = append(out, cur)
		}
	}
	return out
}
