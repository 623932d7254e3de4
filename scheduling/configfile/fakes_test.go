package configfile

import (
	"context"
	"time"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/scheduling"
)

// Test plugins with chosen extension points, standing in for the
// hypothetical plugins of seed 004 and kube's framework_test.go.

type cfgTBase struct{ name string }

func (p cfgTBase) Name() string { return p.name }

type cfgTQueueSort struct{ cfgTBase }

func (cfgTQueueSort) Less(a, b *framework.QueuedPodInfo) bool { return false }

type cfgTBind struct{ cfgTBase }

func (cfgTBind) Bind(context.Context, *framework.CycleState, *framework.PodInfo, string) *framework.Status {
	return nil
}

type cfgTScore struct{ cfgTBase }

func (cfgTScore) Score(context.Context, *framework.CycleState, *framework.PodInfo, *framework.NodeInfo) (int64, *framework.Status) {
	return 0, nil
}
func (cfgTScore) ScoreExtensions() framework.ScoreExtensions { return nil }

type cfgTPreScoreScore struct{ cfgTScore }

func (cfgTPreScoreScore) PreScore(context.Context, *framework.CycleState, *framework.PodInfo, []*framework.NodeInfo) *framework.Status {
	return nil
}

type cfgTFilterScore struct{ cfgTScore }

func (cfgTFilterScore) Filter(context.Context, *framework.CycleState, *framework.PodInfo, *framework.NodeInfo) *framework.Status {
	return nil
}

// cfgTFour implements preFilter, filter, preScore and score (seed 004's
// MyPlugin).
type cfgTFour struct{ cfgTPreScoreScore }

func (cfgTFour) Filter(context.Context, *framework.CycleState, *framework.PodInfo, *framework.NodeInfo) *framework.Status {
	return nil
}
func (cfgTFour) PreFilter(context.Context, *framework.CycleState, *framework.PodInfo, []*framework.NodeInfo) (*framework.PreFilterResult, *framework.Status) {
	return nil, nil
}
func (cfgTFour) PreFilterExtensions() framework.PreFilterExtensions { return nil }

// cfgTAll implements every extension point (kube's testPlugin).
type cfgTAll struct{ cfgTFour }

func (cfgTAll) Less(a, b *framework.QueuedPodInfo) bool { return false }
func (cfgTAll) PostFilter(context.Context, *framework.CycleState, *framework.PodInfo, *framework.NodeToStatus) (*framework.PostFilterResult, *framework.Status) {
	return nil, nil
}
func (cfgTAll) Reserve(context.Context, *framework.CycleState, *framework.PodInfo, string) *framework.Status {
	return nil
}
func (cfgTAll) Unreserve(context.Context, *framework.CycleState, *framework.PodInfo, string) {}
func (cfgTAll) Permit(context.Context, *framework.CycleState, *framework.PodInfo, string) (*framework.Status, time.Duration) {
	return nil, 0
}
func (cfgTAll) PreBind(context.Context, *framework.CycleState, *framework.PodInfo, string) *framework.Status {
	return nil
}
func (cfgTAll) Bind(context.Context, *framework.CycleState, *framework.PodInfo, string) *framework.Status {
	return nil
}
func (cfgTAll) PostBind(context.Context, *framework.CycleState, *framework.PodInfo, string) {}

// cfgTSpec returns a spec for a fake plugin of the given kind: "queueSort",
// "bind", "score", "preScore+score", "filter+score", "four", "all".
func cfgTSpec(name, kind string) scheduling.PluginSpec {
	b := cfgTBase{name}
	var pl framework.Plugin
	switch kind {
	case "queueSort":
		pl = cfgTQueueSort{b}
	case "bind":
		pl = cfgTBind{b}
	case "score":
		pl = cfgTScore{b}
	case "preScore+score":
		pl = cfgTPreScoreScore{cfgTScore{b}}
	case "filter+score":
		pl = cfgTFilterScore{cfgTScore{b}}
	case "four":
		pl = cfgTFour{cfgTPreScoreScore{cfgTScore{b}}}
	case "all":
		pl = cfgTAll{cfgTFour{cfgTPreScoreScore{cfgTScore{b}}}}
	default:
		panic(kind)
	}
	return scheduling.PluginSpec{Name: name, Factory: func(any, framework.Handle) (framework.Plugin, error) { return pl, nil }}
}
