package scheduling

import (
	"context"
	"fmt"

	"github.com/schedkit/schedkit/framework"
)

// splitPlugin offers a filter half (package filter) and a score half
// (package scoring) as one plugin under the kube-scheduler name, as
// kube-scheduler's plugins span Filter and Score.
type splitPlugin struct {
	name     string
	filter   framework.FilterPlugin
	preScore framework.PreScorePlugin // nil when the score half has none
	score    framework.ScorePlugin
	forks    []framework.ForkablePlugin // the halves with state of their own
}

// splitPluginWithPreFilter adds the filter half's PreFilter.
type splitPluginWithPreFilter struct {
	*splitPlugin
	preFilter framework.PreFilterPlugin
}

var (
	_ framework.FilterForwarder  = (*splitPlugin)(nil)
	_ framework.EnqueueForwarder = (*splitPlugin)(nil)
	_ framework.SignPlugin       = (*splitPlugin)(nil)
	_ framework.SignCapability   = (*splitPlugin)(nil)
	_ framework.ScoreForwarder   = (*splitPlugin)(nil)
	_ framework.FilterPlugin     = (*splitPlugin)(nil)
	_ framework.PreScorePlugin   = (*splitPlugin)(nil)
	_ framework.ScorePlugin      = (*splitPlugin)(nil)
	_ framework.PreFilterPlugin  = (*splitPluginWithPreFilter)(nil)
	_ framework.ForkablePlugin   = (*splitPlugin)(nil)

	_ framework.PreFilterForwarder = (*splitPluginWithPreFilter)(nil)
	_ framework.PreScoreForwarder  = (*splitPlugin)(nil)
)

// splitPluginWithPlacement adds the score half's placement score
// (NodeResourcesFit's, kube-scheduler v1.36).
type splitPluginWithPlacement struct {
	*splitPluginWithPreFilter
	placement framework.PlacementScorePlugin
}

var _ framework.PlacementScorePlugin = (*splitPluginWithPlacement)(nil)

// compose joins a filter half and a score half that report the same name.
// The result implements PreFilter only when the filter half does, and
// PlacementScore when, besides, the score half does.
func compose(filterHalf, scoreHalf framework.Plugin) (framework.Plugin, error) {
	if filterHalf.Name() != scoreHalf.Name() {
		return nil, fmt.Errorf("scheduling: cannot compose %q with %q", filterHalf.Name(), scoreHalf.Name())
	}
	f, ok := filterHalf.(framework.FilterPlugin)
	if !ok {
		return nil, fmt.Errorf("scheduling: %q filter half does not implement Filter", filterHalf.Name())
	}
	s, ok := scoreHalf.(framework.ScorePlugin)
	if !ok {
		return nil, fmt.Errorf("scheduling: %q score half does not implement Score", scoreHalf.Name())
	}
	sp := &splitPlugin{name: f.Name(), filter: f, score: s}
	sp.preScore, _ = scoreHalf.(framework.PreScorePlugin)
	for _, half := range []framework.Plugin{filterHalf, scoreHalf} {
		if fp, ok := half.(framework.ForkablePlugin); ok {
			sp.forks = append(sp.forks, fp)
		}
	}
	if pf, ok := filterHalf.(framework.PreFilterPlugin); ok {
		withPF := &splitPluginWithPreFilter{splitPlugin: sp, preFilter: pf}
		if ps, ok := scoreHalf.(framework.PlacementScorePlugin); ok {
			return &splitPluginWithPlacement{splitPluginWithPreFilter: withPF, placement: ps}, nil
		}
		return withPF, nil
	}
	return sp, nil
}

func (p *splitPluginWithPlacement) ScorePlacement(ctx context.Context, st *framework.CycleState, g *framework.PodGroupInfo, a *framework.PodGroupAssignments) (int64, *framework.Status) {
	return p.placement.ScorePlacement(ctx, st, g, a)
}

func (p *splitPluginWithPlacement) PlacementScoreExtensions() framework.PlacementScoreExtensions {
	return p.placement.PlacementScoreExtensions()
}

func (p *splitPlugin) Name() string { return p.name }

// Fork, Commit and Revert branch the halves that keep state across cycles
// (framework.ForkablePlugin), in order; Revert in reverse.
func (p *splitPlugin) Fork() {
	for _, f := range p.forks {
		f.Fork()
	}
}

func (p *splitPlugin) Commit() {
	for _, f := range p.forks {
		f.Commit()
	}
}

func (p *splitPlugin) Revert() {
	for i := len(p.forks) - 1; i >= 0; i-- {
		p.forks[i].Revert()
	}
}

func (p *splitPlugin) Filter(ctx context.Context, st *framework.CycleState, pod *framework.PodInfo, n *framework.NodeInfo) *framework.Status {
	return p.filter.Filter(ctx, st, pod, n)
}

// FilterTarget returns the filter half, which the runner calls directly.
func (p *splitPlugin) FilterTarget() framework.FilterPlugin { return p.filter }

// EnqueueTarget returns the filter half, whose rejections (and so whose
// queueing hints) are the plugin's.
func (p *splitPlugin) EnqueueTarget() framework.Plugin { return p.filter }

// CanSignPods reports whether both halves sign pods.
func (p *splitPlugin) CanSignPods() bool {
	_, f := p.filter.(framework.SignPlugin)
	_, s := p.score.(framework.SignPlugin)
	return f && s
}

// SignPod joins the halves' signature fragments.
func (p *splitPlugin) SignPod(ctx context.Context, pod *framework.PodInfo) ([]framework.SignFragment, *framework.Status) {
	var out []framework.SignFragment
	for _, half := range []framework.Plugin{p.filter, p.score} {
		s, ok := half.(framework.SignPlugin)
		if !ok {
			return nil, framework.NewStatus(framework.Unschedulable, fmt.Sprintf("%s: its %T half does not sign pods", p.name, half))
		}
		fr, st := s.SignPod(ctx, pod)
		if !st.IsSuccess() {
			return nil, st
		}
		out = append(out, fr...)
	}
	return out, nil
}

// RefusesSign reports whether SignPod refuses pod: a half that is a
// framework.SignRefuser refuses it (a half that does not sign makes the
// plugin unable to sign, so the profile never asks).
func (p *splitPlugin) RefusesSign(pod *framework.PodInfo) bool {
	for _, half := range []framework.Plugin{p.filter, p.score} {
		if r, ok := half.(framework.SignRefuser); ok && r.RefusesSign(pod) {
			return true
		}
	}
	return false
}

// ScoreTarget returns the score half, which the runner calls directly.
func (p *splitPlugin) ScoreTarget() framework.ScorePlugin { return p.score }

func (p *splitPlugin) PreScore(ctx context.Context, st *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo) *framework.Status {
	if p.preScore == nil {
		return nil
	}
	return p.preScore.PreScore(ctx, st, pod, nodes)
}

func (p *splitPlugin) Score(ctx context.Context, st *framework.CycleState, pod *framework.PodInfo, n *framework.NodeInfo) (int64, *framework.Status) {
	return p.score.Score(ctx, st, pod, n)
}

func (p *splitPlugin) ScoreExtensions() framework.ScoreExtensions { return p.score.ScoreExtensions() }

func (p *splitPluginWithPreFilter) PreFilter(ctx context.Context, st *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	return p.preFilter.PreFilter(ctx, st, pod, nodes)
}

func (p *splitPluginWithPreFilter) PreFilterExtensions() framework.PreFilterExtensions {
	return p.preFilter.PreFilterExtensions()
}

// PreFilterTarget returns the filter half, whose PreFilter this is.
func (p *splitPluginWithPreFilter) PreFilterTarget() framework.PreFilterPlugin { return p.preFilter }

// PreScoreTarget returns the score half's PreScore (nil when it has none).
func (p *splitPlugin) PreScoreTarget() framework.PreScorePlugin { return p.preScore }

// Extension point names, as kube-scheduler's configuration spells them.
const (
	PointQueueSort  = "queueSort"
	PointPreFilter  = "preFilter"
	PointFilter     = "filter"
	PointPostFilter = "postFilter"
	PointPreScore   = "preScore"
	PointScore      = "score"
	PointReserve    = "reserve"
	PointPermit     = "permit"
	PointPreBind    = "preBind"
	PointBind       = "bind"
	PointPostBind   = "postBind"
)

var allPoints = [...]string{PointQueueSort, PointPreFilter, PointFilter, PointPostFilter, PointPreScore, PointScore,
	PointReserve, PointPermit, PointPreBind, PointBind, PointPostBind}

// AllPoints lists the extension points in kube-scheduler's order (a new
// slice on every call).
func AllPoints() []string { return append([]string(nil), allPoints[:]...) }

// ExtensionPoints lists, in kube-scheduler's order, the extension points pl
// implements. A composed plugin reports the points its halves implement.
func ExtensionPoints(pl framework.Plugin) []string {
	var out []string
	has := func(point string) bool {
		switch point {
		case PointQueueSort:
			_, ok := pl.(framework.QueueSortPlugin)
			return ok
		case PointPreFilter:
			_, ok := pl.(framework.PreFilterPlugin)
			return ok
		case PointFilter:
			_, ok := pl.(framework.FilterPlugin)
			return ok
		case PointPostFilter:
			_, ok := pl.(framework.PostFilterPlugin)
			return ok
		case PointPreScore:
			if sp, ok := splitOf(pl); ok {
				return sp.preScore != nil
			}
			_, ok := pl.(framework.PreScorePlugin)
			return ok
		case PointScore:
			_, ok := pl.(framework.ScorePlugin)
			return ok
		case PointReserve:
			_, ok := pl.(framework.ReservePlugin)
			return ok
		case PointPermit:
			_, ok := pl.(framework.PermitPlugin)
			return ok
		case PointPreBind:
			_, ok := pl.(framework.PreBindPlugin)
			return ok
		case PointBind:
			_, ok := pl.(framework.BindPlugin)
			return ok
		case PointPostBind:
			_, ok := pl.(framework.PostBindPlugin)
			return ok
		}
		return false
	}
	for _, p := range allPoints {
		if has(p) {
			out = append(out, p)
		}
	}
	return out
}

func splitOf(pl framework.Plugin) (*splitPlugin, bool) {
	switch v := pl.(type) {
	case *splitPlugin:
		return v, true
	case *splitPluginWithPreFilter:
		return v.splitPlugin, true
	case *splitPluginWithPlacement:
		return v.splitPlugin, true
	case *volumeBindingPlugin:
		return v.splitPlugin, true
	}
	return nil, false
}
