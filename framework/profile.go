package framework

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Enable turns the plugin registered as name in reg on at every extension
// point it implements, in one call, as kube-scheduler's multiPoint does:
// it builds the plugin (with p.Args[name], so set args first, and a
// handle of p.KubeVersion) to learn
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
	v := p.KubeVersion
	if v.IsZero() {
		v = DefaultKubeVersion
	}
	pl, err := fac(p.Args[name], NewHandle(RealClock{}, 1, v))
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

// Disable turns the plugin registered as name off at the extension points
// named in points, or at every extension point when none is named, as a
// disabled list of kube-scheduler's configuration does (a multiPoint
// disabled list, without points): name leaves each such list of p, the
// other plugins keep their order, and the name "*" turns off every plugin
// at those points. Leaving Score drops the plugin's entry in p.Weights, and
// leaving PlacementScore its entry in p.PlacementWeights; p.Args is kept.
// A plugin not enabled at a point is left alone there, as kube accepts
// disabling a plugin nothing enabled.
//
// Points are named as a configuration file names them (preEnqueue,
// queueSort, preFilter, filter, postFilter, preScore, score, reserve,
// permit, preBind, bind, postBind, placementGenerate, placementScore: the
// values of scheduling.PointFilter and its siblings) or as Profile's
// fields (PreEnqueue, Filter, ...). An empty name or an unknown point is an
// error, and p is then unchanged.
func (p *Profile) Disable(name string, points ...string) error {
	prefix := fmt.Sprintf("framework: profile %q: Disable(%q)", p.SchedulerName, name)
	if name == "" {
		return fmt.Errorf("%s: empty plugin name", prefix)
	}
	all := p.points()
	lists := make([]profilePoint, 0, len(all))
	for _, pt := range points {
		i := slices.IndexFunc(all, func(x profilePoint) bool { return pt == x.name || pt == x.field })
		if i < 0 {
			known := make([]string, len(all))
			for j, x := range all {
				known[j] = x.name
			}
			return fmt.Errorf("%s: unknown extension point %q (known: %s)", prefix, pt, strings.Join(known, ", "))
		}
		lists = append(lists, all[i])
	}
	if len(points) == 0 {
		lists = all
	}
	for _, pt := range lists {
		// A new list, not the old one's array: copies of the profile
		// share it.
		var kept, gone []string
		for _, n := range *pt.list {
			if name == "*" || n == name {
				gone = append(gone, n)
			} else {
				kept = append(kept, n)
			}
		}
		if len(gone) > 0 {
			*pt.list = kept
		}
		if pt.weights != nil && *pt.weights != nil {
			if name != "*" {
				gone = append(gone, name)
			}
			if len(gone) > 0 {
				*pt.weights = maps.Clone(*pt.weights)
			}
			for _, n := range gone {
				delete(*pt.weights, n)
			}
		}
	}
	return nil
}

// profilePoint is one extension point's plugin list of a Profile, with
// its name in a configuration file, its field name, and the weights of
// the plugins there (Score and PlacementScore).
type profilePoint struct {
	name, field string
	list        *[]string
	weights     *map[string]int64
}

// points lists p's extension points in kube-scheduler's order.
func (p *Profile) points() []profilePoint {
	return []profilePoint{
		{"preEnqueue", "PreEnqueue", &p.PreEnqueue, nil},
		{"queueSort", "QueueSort", &p.QueueSort, nil},
		{"preFilter", "PreFilter", &p.PreFilter, nil},
		{"filter", "Filter", &p.Filter, nil},
		{"postFilter", "PostFilter", &p.PostFilter, nil},
		{"preScore", "PreScore", &p.PreScore, nil},
		{"score", "Score", &p.Score, &p.Weights},
		{"reserve", "Reserve", &p.Reserve, nil},
		{"permit", "Permit", &p.Permit, nil},
		{"preBind", "PreBind", &p.PreBind, nil},
		{"bind", "Bind", &p.Bind, nil},
		{"postBind", "PostBind", &p.PostBind, nil},
		{"placementGenerate", "PlacementGenerate", &p.PlacementGenerate, nil},
		{"placementScore", "PlacementScore", &p.PlacementScore, &p.PlacementWeights},
	}
}

// Profile is a resolved scheduling profile: the ordered plugins of every
// extension point, the weight of each score plugin and each plugin's args.
// (Configuration files with enabled/disabled/multiPoint sets resolve to a
// Profile.)
type Profile struct {
	// SchedulerName selects the profile (pod.spec.schedulerName).
	SchedulerName string

	// KubeVersion is the kube-scheduler release the profile was built for
	// (the zero value: DefaultKubeVersion): Enable builds plugins with it
	// to learn their extension points, which can differ by release (NodeName
	// has a PreFilter from v1.37), and a scheduler refuses a profile of
	// another release than its own.
	KubeVersion KubeVersion

	// PreEnqueue plugins gate pods before they enter the active queue.
	PreEnqueue []string
	QueueSort  []string
	PreFilter  []string
	Filter     []string
	PostFilter []string
	PreScore   []string
	Score      []string
	Reserve    []string
	Permit     []string
	PreBind    []string
	Bind       []string
	PostBind   []string

	// PlacementGenerate and PlacementScore are kube-scheduler v1.36's pod
	// group extension points (alpha, TopologyAwareWorkloadScheduling): at
	// most one PlacementGenerate plugin, and PlacementWeights gives every
	// PlacementScore plugin its weight (0 means 1).
	PlacementGenerate []string
	PlacementScore    []string
	PlacementWeights  map[string]int64

	// Weights gives every Score plugin its weight. Every score plugin needs
	// an entry; 0 means 1. A negative weight is allowed, as kube-scheduler
	// v1.36 runs one: that plugin's weighted score lowers the total.
	Weights map[string]int64
	// Args holds each plugin's typed args by plugin name (nil: defaults).
	Args map[string]any
	// PercentageOfNodesToScore overrides the scheduler-wide setting.
	PercentageOfNodesToScore *int32
}
