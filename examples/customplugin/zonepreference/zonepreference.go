// Package zonepreference is a plugin written beside schedkit's own, as
// docs/framework.md walks through: ZonePreference filters out nodes without
// a zone when its args ask for one, and scores nodes by the rank of their
// zone in its args' preference list.
package zonepreference

import (
	"context"
	"fmt"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
)

// Name is the plugin's name in registries and profiles.
const Name = "ZonePreference"

// ReasonNoZone is the filter's reason for a node without a zone label.
const ReasonNoZone = "node(s) had no zone label"

// ZonePreference is the plugin: a Filter and a Score.
type ZonePreference struct {
	args   Args
	rank   map[string]int64 // zone → score
	noZone *framework.Status
}

var (
	_ framework.FilterPlugin = (*ZonePreference)(nil)
	_ framework.ScorePlugin  = (*ZonePreference)(nil)
)

// New builds the plugin from its args (nil: DefaultArgs; an Args or a
// *Args is defaulted and validated); it is a framework.Factory.
func New(args any, _ framework.Handle) (framework.Plugin, error) {
	a, err := config.ArgsFrom(Name, args, DefaultArgs)
	if err != nil {
		return nil, err
	}
	a.SetDefaults()
	if err := a.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", Name, err)
	}
	pl := &ZonePreference{args: a, rank: map[string]int64{},
		noZone: framework.NewStatus(framework.UnschedulableAndUnresolvable, ReasonNoZone)}
	for i, z := range a.Zones {
		pl.rank[z] = framework.MaxNodeScore - framework.MaxNodeScore*int64(i)/int64(len(a.Zones))
	}
	return pl, nil
}

// Name returns "ZonePreference".
func (pl *ZonePreference) Name() string { return Name }

// Filter rejects a node without a zone label when RequireZone is set.
func (pl *ZonePreference) Filter(_ context.Context, _ *framework.CycleState, _ *framework.PodInfo, n *framework.NodeInfo) *framework.Status {
	if _, ok := n.Node().Labels[api.LabelTopologyZone]; !ok && pl.args.RequireZone {
		return pl.noZone
	}
	return nil
}

// Score is the node's zone's rank score (0 outside the listed zones).
func (pl *ZonePreference) Score(_ context.Context, _ *framework.CycleState, _ *framework.PodInfo, n *framework.NodeInfo) (int64, *framework.Status) {
	return pl.rank[n.Node().Labels[api.LabelTopologyZone]], nil
}

// ScoreExtensions returns nil: the scores are already in [0, 100].
func (pl *ZonePreference) ScoreExtensions() framework.ScoreExtensions { return nil }
