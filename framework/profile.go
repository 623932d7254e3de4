package framework

import (
	"fmt"
	"slices"
)

// Enable turns the plugin registered as name in reg on at every extension
// point it implements, in one call, as kube-scheduler's multiPoint does:
// it builds the plugin (with p.Args[name], so set args first) to learn
// which plugin interfaces it implements, appends name to each such list of
// p that does not hold it yet (PreEnqueue, QueueSort, PreFilter, Filter, PostFilter,
// PreScore, Score, Reserve, Permit, PreBind, Bind, PostBind), and, when it
// scores, sets p.Weights[name] to weight (0 is stored as 1, which it
// means in Weights).
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
	scores := implements[ScorePlugin](pl)
	if !scores && weight != 0 {
		return fmt.Errorf("%s: weight %d for a plugin that does not implement Score", prefix, weight)
	}
	if implements[QueueSortPlugin](pl) && len(p.QueueSort) > 0 && !slices.Contains(p.QueueSort, name) {
		return fmt.Errorf("%s: QueueSort already has %q and takes one plugin", prefix, p.QueueSort)
	}
	for _, pt := range []struct {
		list       *[]string
		implements bool
	}{
		{&p.PreEnqueue, implements[PreEnqueuePlugin](pl)},
		{&p.QueueSort, implements[QueueSortPlugin](pl)},
		{&p.PreFilter, implements[PreFilterPlugin](pl)},
		{&p.Filter, implements[FilterPlugin](pl)},
		{&p.PostFilter, implements[PostFilterPlugin](pl)},
		{&p.PreScore, implements[PreScorePlugin](pl)},
		{&p.Score, scores},
		{&p.Reserve, implements[ReservePlugin](pl)},
		{&p.Permit, implements[PermitPlugin](pl)},
		{&p.PreBind, implements[PreBindPlugin](pl)},
		{&p.Bind, implements[BindPlugin](pl)},
		{&p.PostBind, implements[PostBindPlugin](pl)},
	} {
		if pt.implements && !slices.Contains(*pt.list, name) {
			*pt.list = append(*pt.list, name)
		}
	}
	if scores {
		if p.Weights == nil {
			p.Weights = map[string]int64{}
		}
		if weight == 0 {
			weight = 1
		}
		p.Weights[name] = weight
	}
	return nil
}

// implements reports whether pl implements the plugin interface T.
func implements[T Plugin](pl Plugin) bool {
	_, ok := pl.(T)
	return ok
}
