package configfile

import (
	"fmt"
	"slices"
	"strings"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/scheduling"
)

// mergePluginSet is kube-scheduler's mergePluginSet
// (apis/config/v1/default_plugins.go): the user's and the default's
// disabled plugins are kept (so that multiPoint expansion can skip them);
// unless "*" is disabled, every default plugin not disabled stays in its
// place, replaced by the user's entry of the same name (its weight too,
// absent included) when there is one; the user's other enabled plugins
// follow in their order (duplicates included: building the profile then
// rejects them).
func mergePluginSet(def, custom pluginSet) pluginSet {
	disabled := map[string]bool{}
	var out pluginSet
	for _, p := range custom.Disabled {
		out.Disabled = append(out.Disabled, plugin{Name: p.Name})
		disabled[p.Name] = true
	}
	for _, p := range def.Disabled {
		out.Disabled = append(out.Disabled, plugin{Name: p.Name})
		disabled[p.Name] = true
	}
	type indexed struct {
		i int
		p plugin
	}
	custIdx := map[string]indexed{}
	for i, p := range custom.Enabled {
		custIdx[p.Name] = indexed{i, p}
	}
	replaced := map[int]bool{}
	if !disabled["*"] {
		for _, d := range def.Enabled {
			if disabled[d.Name] {
				continue
			}
			if c, ok := custIdx[d.Name]; ok {
				d = c.p
				replaced[c.i] = true
			}
			out.Enabled = append(out.Enabled, clonePlugin(d))
		}
	}
	for i, p := range custom.Enabled {
		if !replaced[i] {
			out.Enabled = append(out.Enabled, clonePlugin(p))
		}
	}
	return out
}

func clonePlugin(p plugin) plugin {
	if p.Weight != nil {
		w := *p.Weight
		p.Weight = &w
	}
	return p
}

// mergePlugins is kube-scheduler's mergePlugins: every plugin set
// of custom merged into the same set of def. A nil custom leaves def.
func mergePlugins(def, custom *plugins) *plugins {
	out := &plugins{}
	for _, s := range allSets {
		if custom == nil {
			*out.set(s) = mergePluginSet(*def.set(s), pluginSet{})
			continue
		}
		*out.set(s) = mergePluginSet(*def.set(s), *custom.set(s))
	}
	return out
}

// defaultPlugins turns a default multiPoint list into the default
// Plugins of kube-scheduler's getDefaultPlugins (everything in
// multiPoint; weights only where given).
func defaultPlugins(mp []scheduling.WeightedPlugin) *plugins {
	out := &plugins{}
	for _, p := range mp {
		c := plugin{Name: p.Name}
		if p.Weight != 0 {
			w := int32(p.Weight)
			c.Weight = &w
		}
		out.MultiPoint.Enabled = append(out.MultiPoint.Enabled, c)
	}
	return out
}

// pluginsNames is kube's pluginsNames: the sorted names enabled in any
// plugin set (multiPoint included; disabled lists ignored).
func pluginsNames(p *plugins) []string {
	set := map[string]bool{}
	for _, s := range allSets {
		for _, e := range p.set(s).Enabled {
			set[e.Name] = true
		}
	}
	out := make([]string, 0, len(set))
	for n := range set {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// orderedSet is kube's orderedSet: insertion order with deletion.
type orderedSet struct {
	list []string
	idx  map[string]int
}

func newCfgOrderedSet() *orderedSet { return &orderedSet{idx: map[string]int{}} }

func (s *orderedSet) insert(n string) {
	if _, ok := s.idx[n]; !ok {
		s.idx[n] = len(s.list)
		s.list = append(s.list, n)
	}
}

func (s *orderedSet) has(n string) bool { _, ok := s.idx[n]; return ok }

func (s *orderedSet) delete(n string) {
	i, ok := s.idx[n]
	if !ok {
		return
	}
	s.list = slices.Delete(s.list, i, i+1)
	delete(s.idx, n)
	for j := i; j < len(s.list); j++ {
		s.idx[s.list[j]] = j
	}
}

// expand resolves merged plugin sets into the ordered plugin list of
// every extension point (AllPoints plus preEnqueue and the two placement
// points), as kube-scheduler's NewFramework does: first each point's
// enabled list (updatePluginList: the plugin must implement the point and
// appear once), then expandMultiPointPlugins when multiPoint has enabled plugins:
//   - a point whose disabled list has "*" is not expanded;
//   - multiPoint plugins that do not implement the point, or are disabled
//     at it, are skipped; those also enabled at the point are overrides;
//     a multiPoint plugin listed twice (and not an override) is an error;
//   - the order is: the overrides in the point's order, then the
//     multiPoint plugins in multiPoint order, then the point's other
//     plugins.
//
// implements(name, point) reports whether a plugin implements a point.
func expand(p *plugins, implements func(name, point string) bool) (map[string][]string, error) {
	points := append([]string{pointPreEnqueue}, scheduling.AllPoints()...)
	points = append(points, pointPlacementGenerate, pointPlacementScore)
	out := map[string][]string{}
	for _, pt := range points {
		seen := map[string]bool{}
		for _, e := range p.set(pt).Enabled {
			if !implements(e.Name, pt) {
				return nil, fmt.Errorf("plugins.%s: plugin %q does not extend %s", pt, e.Name, pt)
			}
			if seen[e.Name] {
				return nil, fmt.Errorf("plugins.%s: plugin %q already registered at %s", pt, e.Name, pt)
			}
			seen[e.Name] = true
			out[pt] = append(out[pt], e.Name)
		}
	}
	if len(p.MultiPoint.Enabled) == 0 {
		return out, nil
	}
	for _, pt := range points {
		set := p.set(pt)
		enabled := newCfgOrderedSet()
		for _, e := range set.Enabled {
			enabled.insert(e.Name)
		}
		disabled := map[string]bool{}
		for _, d := range set.Disabled {
			disabled[d.Name] = true
		}
		if disabled["*"] {
			continue
		}
		multi := newCfgOrderedSet()
		overrides := newCfgOrderedSet()
		for _, e := range p.MultiPoint.Enabled {
			if !implements(e.Name, pt) || disabled[e.Name] {
				continue
			}
			if enabled.has(e.Name) {
				overrides.insert(e.Name)
				continue
			}
			if multi.has(e.Name) {
				return nil, fmt.Errorf("plugins.multiPoint: plugin %q already registered at %s", e.Name, pt)
			}
			multi.insert(e.Name)
		}
		var list []string
		for _, n := range slices.Clone(enabled.list) {
			if overrides.has(n) {
				list = append(list, n)
				enabled.delete(n)
			}
		}
		list = append(list, multi.list...)
		list = append(list, enabled.list...)
		out[pt] = list
	}
	return out, nil
}

// kubeHiddenScorers are the score plugins of kube-scheduler's
// default multiPoint list (apis/config/v1/default_plugins.go) that a
// registry may lack (DynamicResources always; VolumeBinding in a registry
// built without it), with their weights and the default plugin they follow.
// Without a factory they never run, but kube's getScoreWeights counts them
// in its running total (VolumeBinding weighs 1 with no weight given,
// DynamicResources 2), so the loader counts them too, at their place, to
// accept and refuse the same negative weights as kube.
var kubeHiddenScorers = []struct {
	name, after string
	weight      int64
}{
	{name: "VolumeBinding", after: config.NodeResourcesFitName, weight: 1},
	{name: "DynamicResources", after: config.InterPodAffinityName, weight: 2},
}

// kubeHiddenScorer reports whether name is one of kubeHiddenScorers.
func kubeHiddenScorer(name string) bool {
	for _, h := range kubeHiddenScorers {
		if h.name == name {
			return true
		}
	}
	return false
}

// withKubeHiddenScorers returns mp with each of kubeHiddenScorers
// inserted after the plugin it follows in kube's list, unless mp already
// holds it or lacks that plugin.
func withKubeHiddenScorers(mp []scheduling.WeightedPlugin) []scheduling.WeightedPlugin {
	out := slices.Clone(mp)
	for _, h := range kubeHiddenScorers {
		if slices.ContainsFunc(out, func(p scheduling.WeightedPlugin) bool { return p.Name == h.name }) {
			continue
		}
		if i := slices.IndexFunc(out, func(p scheduling.WeightedPlugin) bool { return p.Name == h.after }); i >= 0 {
			out = slices.Insert(out, i+1, scheduling.WeightedPlugin{Name: h.name, Weight: h.weight})
		}
	}
	return out
}

// scoreWeights is kube-scheduler's getScoreWeights over the score
// point's enabled plugins followed by multiPoint's: for every plugin that
// implements Score (whether or not it ends up at the point), the first
// entry gives its weight (so a weight at the score point beats
// multiPoint's); an absent or 0 weight is 1; negative weights are allowed.
// Before each plugin is added, weight·MaxNodeScore must not exceed
// MaxTotalScore − total with int64 wrap-around, so a negative weight only
// fails once the running total has turned negative and a later plugin is
// checked (kube's behaviour, confirmed against the binary). The loader
// passes the plugin sets merged with kubeHiddenScorers, so the running
// total is kube's; hidden (nil: none) names them for the error message.
func scoreWeights(p *plugins, isScore, hidden func(name string) bool) (map[string]int64, error) {
	return weights("plugins.score", append(slices.Clone(p.Score.Enabled), p.MultiPoint.Enabled...), isScore, hidden)
}

// weights is getScoreWeights over list (a point's enabled plugins then
// multiPoint's) for the plugins isScore selects; prefix starts its errors.
func weights(prefix string, list []plugin, isScore, hidden func(name string) bool) (map[string]int64, error) {
	weights := map[string]int64{}
	var total int64
	var counted []string // hidden plugins counted so far
	neg := ""            // the last plugin with a negative weight, for the error
	for _, e := range list {
		if !isScore(e.Name) {
			continue
		}
		if _, ok := weights[e.Name]; ok {
			continue
		}
		var w int64 = 1
		if e.Weight != nil && *e.Weight != 0 {
			w = int64(*e.Weight)
		}
		weights[e.Name] = w
		if w*framework.MaxNodeScore > framework.MaxTotalScore-total {
			note := ""
			if len(counted) > 0 {
				note = fmt.Sprintf(", counting kube's default %s, which schedkit does not run", strings.Join(counted, " and "))
			}
			if total < 0 { // only a negative weight gets here: say so
				return nil, fmt.Errorf("%s: plugin %q weight %d is negative and takes the total of Score weights below zero, which kube-scheduler refuses (its overflow check for plugin %q weight %d, running total %d%s, wraps around)",
					prefix, neg, weights[neg], e.Name, w, total, note)
			}
			return nil, fmt.Errorf("%s: total score of Score plugins could overflow (plugin %q weight %d, running total %d%s)", prefix, e.Name, w, total, note)
		}
		if w < 0 {
			neg = e.Name
		}
		total += w * framework.MaxNodeScore
		if hidden != nil && hidden(e.Name) {
			counted = append(counted, fmt.Sprintf("%s (weight %d)", e.Name, w))
		}
	}
	return weights, nil
}
