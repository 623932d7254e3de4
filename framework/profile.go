package framework

import (
	"fmt"
	"slices"
)

// Enable turns the plugin registered as name in reg on at every extension
// point it implements, in one call, as kube-scheduler's multiPoint does:
// it builds the plugin (with p.Args[name], so set args first) to learn
// which plugin interfaces it implements, appends name to each such list of
// p that does not hold it yet (QueueSort, PreFilter, Filter, PostFilter,
// PreScore, Score, Reserve, Permit, PreBind, Bind, PostBind), and, when it
// scores, sets p.Weights[name] to weight (0 means 1, as in Weights).
//
// Errors name the plugin: an unknown name, a failing factory, a weight
// other than 0 for a plugin that does not score, or a second QueueSort
// plugin.
func (p *Profile) Enable(reg *Registry, name string, weight int64) error {
	prefix := fmt.Sprintf("framework: profile %q: Enable(%q)", p.SchedulerName, name)
	if reg == nil {
		return fmt.Errorf("%s: nil registry", prefix)
	}
	fac, ok := reg.Lookup(name)
	if !ok {
		return fmt.Errorf("%s: unknown plugin (registered: %v)", prefix, reg.Names())
	}
	pl, err := fac(p.Args[name], &Framework{clock: RealClock{}, parallelism: 1})
	if err != nil {
		return fmt.Errorf("%s: %w", prefix, err)
	}
	if pl == nil {
		return fmt.Errorf("%s: factory returned nil", prefix)
	}
	_, scores := pl.(ScorePlugin)
	if !scores && weight != 0 {
		return fmt.Errorf("%s: weight %d for a plugin that does not implement Score", prefix, weight)
	}
	if _, ok := pl.(QueueSortPlugin); ok && len(p.QueueSort) > 0 && !slices.Contains(p.QueueSort, name) {
		return fmt.Errorf("%s: QueueSort already has %q and takes one plugin", prefix, p.QueueSort)
	}
	add := func(list *[]string, implements bool) {
		if implements && !slices.Contains(*list, name) {
			*list = append(*list, name)
		}
	}
	_, ok = pl.(QueueSortPlugin)
	add(&p.QueueSort, ok)
	_, ok = pl.(PreFilterPlugin)
	add(&p.PreFilter, ok)
	_, ok = pl.(FilterPlugin)
	add(&p.Filter, ok)
	_, ok = pl.(PostFilterPlugin)
	add(&p.PostFilter, ok)
	_, ok = pl.(PreScorePlugin)
	add(&p.PreScore, ok)
	add(&p.Score, scores)
	_, ok = pl.(ReservePlugin)
	add(&p.Reserve, ok)
	_, ok = pl.(PermitPlugin)
	add(&p.Permit, ok)
	_, ok = pl.(PreBindPlugin)
	add(&p.PreBind, ok)
	_, ok = pl.(BindPlugin)
	add(&p.Bind, ok)
	_, ok = pl.(PostBindPlugin)
	add(&p.PostBind, ok)
	if scores {
		if p.Weights == nil {
			p.Weights = map[string]int64{}
		}
		p.Weights[name] = weight
	}
	return nil
}
