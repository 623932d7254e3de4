package configfile

import (
	"fmt"
	"maps"
	"slices"

	"github.com/schedkit/schedkit/framework"
)

// ProfileAs returns a copy of the configuration's profile named name, with
// SchedulerName set to schedulerName. It is for comparing the profiles of
// one configuration over the same workload, whose pods all name one
// scheduler: run one Scheduler per profile, each given
// c.ProfileAs(p.SchedulerName, DefaultSchedulerName). The copy shares no
// list or map with c. A name the configuration lacks is an error listing
// the names it has.
func (c *Configuration) ProfileAs(name, schedulerName string) (framework.Profile, error) {
	var names []string
	for _, p := range c.Profiles {
		if p.SchedulerName != name {
			names = append(names, p.SchedulerName)
			continue
		}
		out := p
		out.SchedulerName = schedulerName
		for _, l := range []*[]string{&out.QueueSort, &out.PreFilter, &out.Filter, &out.PostFilter, &out.PreScore,
			&out.Score, &out.Reserve, &out.Permit, &out.PreBind, &out.Bind, &out.PostBind} {
			*l = slices.Clone(*l)
		}
		out.Weights = maps.Clone(p.Weights)
		out.Args = maps.Clone(p.Args)
		if p.PercentageOfNodesToScore != nil {
			v := *p.PercentageOfNodesToScore
			out.PercentageOfNodesToScore = &v
		}
		return out, nil
	}
	return framework.Profile{}, fmt.Errorf("configfile: configuration has no profile %q (profiles: %q)", name, names)
}
