package configfile

import "github.com/schedkit/schedkit/framework"

// What kube-scheduler --write-config-to prints
// (cmd/kube-scheduler/app/options LogOrWriteConfig), as v1.36.4 and
// v1.37.2 print it: the internal configuration encoded back to
// kubescheduler.config.k8s.io/v1 through kube's scheme, with each profile
// as its framework captured it. The round trip through the internal types
// shows in the output: every optional field the internal type holds by
// value (enableProfiling, enableContentionProfiling, a plugin's weight, a
// profile's schedulerName, every extension point's plugin set) is printed
// even when the file left it out, as its value or zero. These types are
// that v1 shape; file and its parts, which keep the user's omissions for
// defaulting, are converted into them. The releases differ in what the
// loader put in the file (the default multiPoint list, VolumeBinding's
// shape under the StorageCapacityScoring gate) and in one field of the
// shape itself: v1.37's plugins.podGroupPostFilter
// (kube-scheduler/config/v1 Plugins.PodGroupPostFilter, a value field of
// the internal Plugins, so always printed, as {} when empty).

type outFile struct {
	APIVersion                string          `json:"apiVersion"`
	Kind                      string          `json:"kind"`
	Parallelism               int32           `json:"parallelism"`
	LeaderElection            leaderElection  `json:"leaderElection"`
	ClientConnection          clientConn      `json:"clientConnection"`
	EnableProfiling           bool            `json:"enableProfiling"`
	EnableContentionProfiling bool            `json:"enableContentionProfiling"`
	PercentageOfNodesToScore  int32           `json:"percentageOfNodesToScore"`
	PodInitialBackoffSeconds  int64           `json:"podInitialBackoffSeconds"`
	PodMaxBackoffSeconds      int64           `json:"podMaxBackoffSeconds"`
	Profiles                  []outProfile    `json:"profiles,omitempty"`
	Extenders                 []extenderEntry `json:"extenders,omitempty"`
	DelayCacheUntilActive     bool            `json:"delayCacheUntilActive,omitempty"`
}

type outProfile struct {
	SchedulerName            string         `json:"schedulerName"`
	PercentageOfNodesToScore *int32         `json:"percentageOfNodesToScore,omitempty"`
	Plugins                  outPlugins     `json:"plugins"`
	PluginConfig             []pluginConfig `json:"pluginConfig,omitempty"`
}

// outPlugins prints every plugin set, empty ones as {}.
type outPlugins struct {
	PreEnqueue        outPluginSet `json:"preEnqueue"`
	QueueSort         outPluginSet `json:"queueSort"`
	PreFilter         outPluginSet `json:"preFilter"`
	Filter            outPluginSet `json:"filter"`
	PostFilter        outPluginSet `json:"postFilter"`
	PreScore          outPluginSet `json:"preScore"`
	Score             outPluginSet `json:"score"`
	Reserve           outPluginSet `json:"reserve"`
	Permit            outPluginSet `json:"permit"`
	PreBind           outPluginSet `json:"preBind"`
	Bind              outPluginSet `json:"bind"`
	PostBind          outPluginSet `json:"postBind"`
	MultiPoint        outPluginSet `json:"multiPoint"`
	PlacementGenerate outPluginSet `json:"placementGenerate"`
	PlacementScore    outPluginSet `json:"placementScore"`
	// PodGroupPostFilter is printed from v1.37 on (nil before).
	PodGroupPostFilter *outPluginSet `json:"podGroupPostFilter,omitempty"`
}

type outPluginSet struct {
	Enabled  []outPlugin `json:"enabled,omitempty"`
	Disabled []outPlugin `json:"disabled,omitempty"`
}

// outPlugin prints the weight always: 0 where the file gave none (the
// internal Plugin holds it by value), and 0 for every disabled entry (the
// merge keeps only their names).
type outPlugin struct {
	Name   string `json:"name"`
	Weight int32  `json:"weight"`
}

// writeView converts a loaded, defaulted document into what kube release
// v prints for it.
func writeView(f *file, v framework.KubeVersion) outFile {
	out := outFile{
		APIVersion:               f.APIVersion,
		Kind:                     f.Kind,
		Parallelism:              *f.Parallelism,
		LeaderElection:           f.LeaderElection,
		ClientConnection:         f.ClientConnection,
		PercentageOfNodesToScore: *f.PercentageOfNodesToScore,
		PodInitialBackoffSeconds: *f.PodInitialBackoffSeconds,
		PodMaxBackoffSeconds:     *f.PodMaxBackoffSeconds,
		Extenders:                f.Extenders,
		DelayCacheUntilActive:    f.DelayCacheUntilActive,
	}
	if f.EnableProfiling != nil {
		out.EnableProfiling = *f.EnableProfiling
	}
	if f.EnableContentionProfiling != nil {
		out.EnableContentionProfiling = *f.EnableContentionProfiling
	}
	for _, p := range f.Profiles {
		op := outProfile{PercentageOfNodesToScore: p.PercentageOfNodesToScore, PluginConfig: p.PluginConfig}
		if p.SchedulerName != nil {
			op.SchedulerName = *p.SchedulerName
		}
		if p.Plugins != nil {
			op.Plugins = outPluginsOf(p.Plugins)
		}
		if v.AtLeast(framework.KubeV137) {
			op.Plugins.PodGroupPostFilter = &outPluginSet{}
		}
		out.Profiles = append(out.Profiles, op)
	}
	return out
}

func outPluginsOf(p *plugins) outPlugins {
	set := func(s pluginSet) outPluginSet {
		list := func(ps []plugin) []outPlugin {
			var out []outPlugin
			for _, q := range ps {
				o := outPlugin{Name: q.Name}
				if q.Weight != nil {
					o.Weight = *q.Weight
				}
				out = append(out, o)
			}
			return out
		}
		return outPluginSet{Enabled: list(s.Enabled), Disabled: list(s.Disabled)}
	}
	return outPlugins{
		PreEnqueue: set(p.PreEnqueue), QueueSort: set(p.QueueSort), PreFilter: set(p.PreFilter), Filter: set(p.Filter),
		PostFilter: set(p.PostFilter), PreScore: set(p.PreScore), Score: set(p.Score), Reserve: set(p.Reserve),
		Permit: set(p.Permit), PreBind: set(p.PreBind), Bind: set(p.Bind), PostBind: set(p.PostBind),
		MultiPoint: set(p.MultiPoint), PlacementGenerate: set(p.PlacementGenerate), PlacementScore: set(p.PlacementScore),
	}
}
