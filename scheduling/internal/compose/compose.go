// Package compose joins a plugin's filter half (package filter) and score
// half (package scoring) into one plugin under its kube-scheduler name.
package compose

import (
	"context"
	"fmt"

	"github.com/schedkit/schedkit/framework"
)

// Split offers a filter half (package filter) and a score half
// (package scoring) as one plugin under the kube-scheduler name, as
// kube-scheduler's plugins span Filter and Score.
type Split struct {
	name     string
	filter   framework.FilterPlugin
	preScore framework.PreScorePlugin // nil when the score half has none
	score    framework.ScorePlugin
	forks    []framework.ForkablePlugin // the halves with state of their own
}

// SplitWithPreFilter is a Split with the filter half's PreFilter.
type SplitWithPreFilter struct {
	*Split
	preFilter framework.PreFilterPlugin
}

var (
	_ framework.FilterForwarder  = (*Split)(nil)
	_ framework.EnqueueForwarder = (*Split)(nil)
	_ framework.SignPlugin       = (*Split)(nil)
	_ framework.SignCapability   = (*Split)(nil)
	_ framework.ScoreForwarder   = (*Split)(nil)
	_ framework.FilterPlugin     = (*Split)(nil)
	_ framework.PreScorePlugin   = (*Split)(nil)
	_ framework.ScorePlugin      = (*Split)(nil)
	_ framework.PreFilterPlugin  = (*SplitWithPreFilter)(nil)
	_ framework.ForkablePlugin   = (*Split)(nil)

	_ framework.PreFilterForwarder = (*SplitWithPreFilter)(nil)
	_ framework.PreScoreForwarder  = (*Split)(nil)
)

// SplitWithPlacement is a SplitWithPreFilter with the score half's placement score
// (NodeResourcesFit's, kube-scheduler v1.36).
type SplitWithPlacement struct {
	*SplitWithPreFilter
	placement framework.PlacementScorePlugin
}

var _ framework.PlacementScorePlugin = (*SplitWithPlacement)(nil)

// New joins a filter half and a score half that report the same name.
// The result implements PreFilter only when the filter half does, and
// PlacementScore when, besides, the score half does.
func New(filterHalf, scoreHalf framework.Plugin) (framework.Plugin, error) {
	if filterHalf.Name() != scoreHalf.Name() {
		return nil, fmt.Errorf("compose: cannot compose %q with %q", filterHalf.Name(), scoreHalf.Name())
	}
	f, ok := filterHalf.(framework.FilterPlugin)
	if !ok {
		return nil, fmt.Errorf("compose: %q filter half does not implement Filter", filterHalf.Name())
	}
	s, ok := scoreHalf.(framework.ScorePlugin)
	if !ok {
		return nil, fmt.Errorf("compose: %q score half does not implement Score", scoreHalf.Name())
	}
	sp := &Split{name: f.Name(), filter: f, score: s}
	sp.preScore, _ = scoreHalf.(framework.PreScorePlugin)
	for _, half := range []framework.Plugin{filterHalf, scoreHalf} {
		if fp, ok := half.(framework.ForkablePlugin); ok {
			sp.forks = append(sp.forks, fp)
		}
	}
	if pf, ok := filterHalf.(framework.PreFilterPlugin); ok {
		withPF := &SplitWithPreFilter{Split: sp, preFilter: pf}
		if ps, ok := scoreHalf.(framework.PlacementScorePlugin); ok {
			return &SplitWithPlacement{SplitWithPreFilter: withPF, placement: ps}, nil
		}
		return withPF, nil
	}
	return sp, nil
}

func (p *SplitWithPlacement) ScorePlacement(ctx context.Context, st *framework.CycleState, g *framework.PodGroupInfo, a *framework.PodGroupAssignments) (int64, *framework.Status) {
	return p.placement.ScorePlacement(ctx, st, g, a)
}

func (p *SplitWithPlacement) PlacementScoreExtensions() framework.PlacementScoreExtensions {
	return p.placement.PlacementScoreExtensions()
}

func (p *Split) Name() string { return p.name }

// Fork, Commit and Revert branch the halves that keep state across cycles
// (framework.ForkablePlugin), in order; Revert in reverse.
func (p *Split) Fork() {
	for _, f := range p.forks {
		f.Fork()
	}
}

func (p *Split) Commit() {
	for _, f := range p.forks {
		f.Commit()
	}
}

func (p *Split) Revert() {
	for i := len(p.forks) - 1; i >= 0; i-- {
		p.forks[i].Revert()
	}
}

func (p *Split) Filter(ctx context.Context, st *framework.CycleState, pod *framework.PodInfo, n *framework.NodeInfo) *framework.Status {
	return p.filter.Filter(ctx, st, pod, n)
}

// FilterTarget returns the filter half, which the runner calls directly.
func (p *Split) FilterTarget() framework.FilterPlugin { return p.filter }

// EnqueueTarget returns the filter half, whose rejections (and so whose
// queueing hints) are the plugin's.
func (p *Split) EnqueueTarget() framework.Plugin { return p.filter }

// CanSignPods reports whether both halves sign pods.
func (p *Split) CanSignPods() bool {
	_, f := p.filter.(framework.SignPlugin)
	_, s := p.score.(framework.SignPlugin)
	return f && s
}

// SignPod joins the halves' signature fragments.
func (p *Split) SignPod(ctx context.Context, pod *framework.PodInfo) ([]framework.SignFragment, *framework.Status) {
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
func (p *Split) RefusesSign(pod *framework.PodInfo) bool {
	for _, half := range []framework.Plugin{p.filter, p.score} {
		if r, ok := half.(framework.SignRefuser); ok && r.RefusesSign(pod) {
			return true
		}
	}
	return false
}

// ScoreTarget returns the score half, which the runner calls directly.
func (p *Split) ScoreTarget() framework.ScorePlugin { return p.score }

func (p *Split) PreScore(ctx context.Context, st *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo) *framework.Status {
	if p.preScore == nil {
		return nil
	}
	return p.preScore.PreScore(ctx, st, pod, nodes)
}

func (p *Split) Score(ctx context.Context, st *framework.CycleState, pod *framework.PodInfo, n *framework.NodeInfo) (int64, *framework.Status) {
	return p.score.Score(ctx, st, pod, n)
}

func (p *Split) ScoreExtensions() framework.ScoreExtensions { return p.score.ScoreExtensions() }

func (p *SplitWithPreFilter) PreFilter(ctx context.Context, st *framework.CycleState, pod *framework.PodInfo, nodes []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	return p.preFilter.PreFilter(ctx, st, pod, nodes)
}

func (p *SplitWithPreFilter) PreFilterExtensions() framework.PreFilterExtensions {
	return p.preFilter.PreFilterExtensions()
}

// PreFilterTarget returns the filter half, whose PreFilter this is.
func (p *SplitWithPreFilter) PreFilterTarget() framework.PreFilterPlugin { return p.preFilter }

// PreScoreTarget returns the score half's PreScore (nil when it has none).
func (p *Split) PreScoreTarget() framework.PreScorePlugin { return p.preScore }

// HasPreScore reports whether the score half has a PreScore.
func (p *Split) HasPreScore() bool { return p.preScore != nil }

// Halves returns the filter half and the score half.
func (p *Split) Halves() (framework.FilterPlugin, framework.ScorePlugin) { return p.filter, p.score }
