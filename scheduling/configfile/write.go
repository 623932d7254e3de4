package configfile

// What kube-scheduler v1.36 --write-config-to prints
// (cmd/kube-scheduler/app/options LogOrWriteConfig): the internal
// configuration encoded back to kubescheduler.config.k8s.io/v1 through
// kube's scheme, with each profile as its framework captured it. The
// round trip through the internal types shows in the output: every
// optional field the internal type holds by value (enableProfiling,
// enableContentionProfiling, a plugin's weight, a profile's
// schedulerName, every extension point's plugin set) is printed even when
// the file left it out, as its value or zero. These types are that v1
// shape; cfgFile and its parts, which keep the user's omissions for
// defaulting, are converted into them.

type cfgOutFile struct {
	APIVersion                string            `json:"apiVersion"`
	Kind                      string            `json:"kind"`
	Parallelism               int32             `json:"parallelism"`
	LeaderElection            cfgLeaderElection `json:"leaderElection"`
	ClientConnection          cfgClientConn     `json:"clientConnection"`
	EnableProfiling           bool              `json:"enableProfiling"`
	EnableContentionProfiling bool              `json:"enableContentionProfiling"`
	PercentageOfNodesToScore  int32             `json:"percentageOfNodesToScore"`
	PodInitialBackoffSeconds  int64             `json:"podInitialBackoffSeconds"`
	PodMaxBackoffSeconds      int64             `json:"podMaxBackoffSeconds"`
	Profiles                  []cfgOutProfile   `json:"profiles,omitempty"`
	Extenders                 []cfgExtender     `json:"extenders,omitempty"`
	DelayCacheUntilActive     bool              `json:"delayCacheUntilActive,omitempty"`
}

type cfgOutProfile struct {
	SchedulerName            string            `json:"schedulerName"`
	PercentageOfNodesToScore *int32            `json:"percentageOfNodesToScore,omitempty"`
	Plugins                  cfgOutPlugins     `json:"plugins"`
	PluginConfig             []cfgPluginConfig `json:"pluginConfig,omitempty"`
}

// cfgOutPlugins prints every plugin set, empty ones as {}.
type cfgOutPlugins struct {
	PreEnqueue        cfgOutPluginSet `json:"preEnqueue"`
	QueueSort         cfgOutPluginSet `json:"queueSort"`
	PreFilter         cfgOutPluginSet `json:"preFilter"`
	Filter            cfgOutPluginSet `json:"filter"`
	PostFilter        cfgOutPluginSet `json:"postFilter"`
	PreScore          cfgOutPluginSet `json:"preScore"`
	Score             cfgOutPluginSet `json:"score"`
	Reserve           cfgOutPluginSet `json:"reserve"`
	Permit            cfgOutPluginSet `json:"permit"`
	PreBind           cfgOutPluginSet `json:"preBind"`
	Bind              cfgOutPluginSet `json:"bind"`
	PostBind          cfgOutPluginSet `json:"postBind"`
	MultiPoint        cfgOutPluginSet `json:"multiPoint"`
	PlacementGenerate cfgOutPluginSet `json:"placementGenerate"`
	PlacementScore    cfgOutPluginSet `json:"placementScore"`
}

type cfgOutPluginSet struct {
	Enabled  []cfgOutPlugin `json:"enabled,omitempty"`
	Disabled []cfgOutPlugin `json:"disabled,omitempty"`
}

// cfgOutPlugin prints the weight always: 0 where the file gave none (the
// internal Plugin holds it by value), and 0 for every disabled entry (the
// merge keeps only their names).
type cfgOutPlugin struct {
	Name   string `json:"name"`
	Weight int32  `json:"weight"`
}

// cfgWriteView converts a loaded, defaulted document into what kube
// prints for it.
func cfgWriteView(f *cfgFile) cfgOutFile {
	out := cfgOutFile{
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
		op := cfgOutProfile{PercentageOfNodesToScore: p.PercentageOfNodesToScore, PluginConfig: p.PluginConfig}
		if p.SchedulerName != nil {
			op.SchedulerName = *p.SchedulerName
		}
		if p.Plugins != nil {
			op.Plugins = cfgOutPluginsOf(p.Plugins)
		}
		out.Profiles = append(out.Profiles, op)
	}
	return out
}

func cfgOutPluginsOf(p *cfgPlugins) cfgOutPlugins {
	set := func(s cfgPluginSet) cfgOutPluginSet {
		list := func(ps []cfgPlugin) []cfgOutPlugin {
			var out []cfgOutPlugin
			for _, q := range ps {
				o := cfgOutPlugin{Name: q.Name}
				if q.Weight != nil {
					o.Weight = *q.Weight
				}
				out = append(out, o)
			}
			return out
		}
		return cfgOutPluginSet{Enabled: list(s.Enabled), Disabled: list(s.Disabled)}
	}
	return cfgOutPlugins{
		PreEnqueue: set(p.PreEnqueue), QueueSort: set(p.QueueSort), PreFilter: set(p.PreFilter), Filter: set(p.Filter),
		PostFilter: set(p.PostFilter), PreScore: set(p.PreScore), Score: set(p.Score), Reserve: set(p.Reserve),
		Permit: set(p.Permit), PreBind: set(p.PreBind), Bind: set(p.Bind), PostBind: set(p.PostBind),
		MultiPoint: set(p.MultiPoint), PlacementGenerate: set(p.PlacementGenerate), PlacementScore: set(p.PlacementScore),
	}
}
