package configfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
	"slices"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/filter/volumebinding"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/scheduling"
	"github.com/schedkit/schedkit/scheduling/extender"
)

// Configuration is a loaded KubeSchedulerConfiguration: ready profiles and
// the scheduler-wide settings, with every default applied as kube-scheduler
// applies them (the defaults are alike in v1.36 and v1.37).
//
//	cfg, err := configfile.LoadFile("config.yaml")
//	s, err := scheduling.New(cluster, cfg.Registry(), cfg.Profiles, cfg.SchedulerOptions()...)
type Configuration struct {
	// Profiles are the resolved profiles, in file order: each extension
	// point's plugins in kube's order after merging with the default plugins
	// and expanding multiPoint, every Score plugin's weight, and the
	// defaulted args of every plugin the profile instantiates. Each
	// can be passed to runtime.NewFramework with Registry().
	Profiles []framework.Profile
	// Parallelism is the number of workers of per-node loops (default 16).
	Parallelism int32
	// PercentageOfNodesToScore is the scheduler-wide percentage (default 0,
	// adaptive); a profile's own value overrides it.
	PercentageOfNodesToScore int32
	// PodInitialBackoffSeconds and PodMaxBackoffSeconds bound the backoff
	// of unschedulable pods (defaults 1 and 10).
	PodInitialBackoffSeconds int64
	PodMaxBackoffSeconds     int64
	// Extenders are the HTTP extenders of the extenders section, built
	// (TLS files read) and ordered as kube-scheduler orders them: the
	// ignorable ones last.
	Extenders []*extender.Client

	specs    []scheduling.PluginSpec
	written  outFile // what kube-scheduler --write-config-to prints for the file
	features framework.WorkloadFeatures
	version  framework.KubeVersion
}

// KubeVersion returns the kube-scheduler release the configuration was
// loaded as (WithKubeVersion).
func (c *Configuration) KubeVersion() framework.KubeVersion { return c.version }

// Registry returns a new registry holding the plugins the configuration was
// loaded against (DefaultPlugins unless WithPlugins said otherwise).
func (c *Configuration) Registry() *framework.Registry {
	r := framework.NewRegistry()
	for _, p := range c.specs {
		_ = r.Register(p.Name, p.Factory) // names were checked unique at load
	}
	return r
}

// SchedulerOptions returns the scheduling.Options carrying the
// scheduler-wide settings to scheduling.New: the release
// (scheduling.WithKubeVersion), parallelism, percentageOfNodesToScore, the
// pod backoff bounds, the extenders and, when the configuration was loaded
// with some, scheduling.WithWorkloadFeatures.
func (c *Configuration) SchedulerOptions() []scheduling.Option {
	exts := make([]framework.Extender, len(c.Extenders))
	for i, e := range c.Extenders {
		exts[i] = e
	}
	var feats []scheduling.Option
	if c.features != (framework.WorkloadFeatures{}) {
		feats = append(feats, scheduling.WithWorkloadFeatures(c.features))
	}
	if !c.version.IsZero() {
		feats = append(feats, scheduling.WithKubeVersion(c.version))
	}
	return append(feats,
		scheduling.WithExtenders(exts...),
		scheduling.WithParallelism(int(c.Parallelism)),
		scheduling.WithPercentageOfNodesToScore(c.PercentageOfNodesToScore),
		scheduling.WithQueueOptions(scheduling.QueueOptions{
			InitialBackoff: time.Duration(c.PodInitialBackoffSeconds) * time.Second,
			MaxBackoff:     time.Duration(c.PodMaxBackoffSeconds) * time.Second,
		}),
	)
}

// Write prints the configuration as kube-scheduler --write-config-to of
// the release it was loaded as prints it (v1.36.4, v1.37.2), byte for
// byte (with kube's default feature gates): YAML in the kubescheduler.config.k8s.io/v1 shape, keys sorted,
// every default filled in; every plugin set of each profile as merged with
// the defaults (multiPoint holding kube's default plugins, DynamicResources
// and NodeDeclaredFeatures included; an empty set as {}), every plugin
// entry with a weight (0 where none applies); the defaulted args (with
// apiVersion and kind) of the plugins each profile instantiates — those
// some plugin set enables, even when disabled at every point — sorted by
// plugin name, and none for the others; an extender's httpTimeout 5s
// when it had none. Loading the output gives the same Configuration.
func (c *Configuration) Write(w io.Writer) error {
	j, err := json.Marshal(&c.written)
	if err != nil {
		return fmt.Errorf("configfile: writing configuration: %w", err)
	}
	y, err := yaml.JSONToYAML(j)
	if err != nil {
		return fmt.Errorf("configfile: writing configuration: %w", err)
	}
	_, err = w.Write(y)
	return err
}

// Option changes how a configuration is loaded.
type Option func(*loader)

// WithPlugins sets the plugins a configuration may name (default
// scheduling.PluginsFor the release loaded, WithKubeVersion): add
// out-of-tree plugins with WithPlugins(append(scheduling.PluginsFor(v),
// mine...)...). A plugin's
// DefaultArgs, when set, is the type its pluginConfig args decode into
// (strictly, over the default value; SetDefaults and Validate run when the
// type implements config.Args).
func WithPlugins(specs ...scheduling.PluginSpec) Option {
	return func(l *loader) { l.order, l.ownOrder = slices.Clone(specs), true }
}

// WithDefaultPlugins sets the default multiPoint plugin list user
// plugin sets are merged with (default: DefaultMultiPointFor of the
// release, WithKubeVersion, with kube's NodeDeclaredFeatures at its
// place, see Load).
func WithDefaultPlugins(mp []scheduling.WeightedPlugin) Option {
	return func(l *loader) { l.defaults, l.ownDefaults = slices.Clone(mp), true }
}

// WithWorkloadFeatures loads the configuration as kube-scheduler
// v1.36 does with these alpha feature gates on (default: all off): the
// default multiPoint list gains GangScheduling (GangScheduling gate) and
// TopologyPlacementGenerator and PodGroupPodsCount with weight 1
// (TopologyAwareWorkloadScheduling), appended in that order as kube's
// applyFeatureGates appends them, and SchedulerOptions carries
// scheduling.WithWorkloadFeatures(f).
func WithWorkloadFeatures(f framework.WorkloadFeatures) Option {
	return func(l *loader) { l.features = f }
}

// WithKubeVersion loads the configuration as kube-scheduler release v
// loads it (default framework.DefaultKubeVersion): the default multiPoint
// list is DefaultMultiPointFor(v) unless WithDefaultPlugins replaces
// it, plugins are built for v to learn their extension points, every
// profile's KubeVersion is v, and SchedulerOptions carries
// scheduling.WithKubeVersion(v).
func WithKubeVersion(v framework.KubeVersion) Option {
	return func(l *loader) { l.version = v }
}

// WithStorageCapacityScoring loads the configuration as
// kube-scheduler does with its StorageCapacityScoring feature gate on or
// off (default: the release's, on from v1.37, where the gate is beta, off
// in v1.36, where it is alpha): on, VolumeBinding's args default their
// shape to {0: 10, 100: 0} and accept a shape, and VolumeBinding scores
// (volumebinding.VolumeBindingArgs.StorageCapacityScoring); off, a shape is an
// error naming the gate. As in kube, the gate is not a field of the file's
// VolumeBindingArgs.
func WithStorageCapacityScoring(on bool) Option {
	return func(l *loader) { l.storageCapacityScoring = &on }
}

// DefaultMaxProfiles is the number of profiles a configuration may hold
// unless WithMaxProfiles says otherwise. Each profile instantiates
// its plugins (about 4 ms and 300 KB with kube's defaults), so a short
// file of many profiles is costly; kube sets no bound, and a cluster runs
// a handful.
const DefaultMaxProfiles = 100

// WithMaxProfiles sets the most profiles a configuration may hold
// (default DefaultMaxProfiles; n must be positive): past it Load
// fails naming the count and the bound, before building any profile.
func WithMaxProfiles(n int) Option {
	return func(l *loader) { l.maxProfiles = n }
}

// LoadFile reads and loads a configuration file (see Load).
func LoadFile(path string, opts ...Option) (*Configuration, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("configfile: %w", err)
	}
	c, err := Load(data, opts...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// Load loads a KubeSchedulerConfiguration (YAML or JSON) as
// the kube-scheduler release of WithKubeVersion (default v1.37) does, in
// its three stages:
//
//   - decoding: apiVersion kubescheduler.config.k8s.io/v1 (v1beta3 and
//     v1beta2 are read in the v1 shape, with the v1 defaults; the fields
//     those versions lack — multiPoint in v1beta2, preEnqueue,
//     placementGenerate, placementScore, a profile's
//     percentageOfNodesToScore, delayCacheUntilActive — and v1beta2's
//     healthz/metrics addresses are errors) and kind
//     KubeSchedulerConfiguration; strict: an unknown field, a duplicate
//     key or a value of the wrong type is an error naming its path (and,
//     for the first unknown field of an object, the known fields; an error
//     lists at most 50 problems); plugin args may carry apiVersion and kind
//     (<Plugin>Args).
//   - defaulting and validation: kube's v1 SetDefaults (parallelism 16,
//     percentageOfNodesToScore 0, backoff 1 s and 10 s, one profile named
//     default-scheduler when none is given, each profile's plugins merged
//     with the default multiPoint list by mergePluginSet, each plugin's
//     args defaulted, default args added for enabled plugins) and kube's
//     validation (parallelism > 0; percentages within [0,100]; backoffs;
//     unique, non-empty schedulerNames; one queueSort set and its args
//     shared by all profiles; a pluginConfig entry per plugin at most; the
//     args of DefaultPreemption, InterPodAffinity, NodeAffinity,
//     NodeResourcesBalancedAllocation, PodTopologySpread and
//     DynamicResources; the extenders' weights, managed resources and
//     binders). Beyond kube, more than DefaultMaxProfiles profiles is an
//     error (WithMaxProfiles raises the bound), a backoff longer
//     than a time.Duration (podInitialBackoffSeconds or
//     podMaxBackoffSeconds above 9223372036) is an error (kube's
//     conversion wraps it around), a plugin name the registry does not
//     know is an error listing the
//     known ones (kube ignores unknown names in disabled lists and
//     pluginConfig), and args for a plugin that takes none are an error.
//     kube's default list also holds NodeDeclaredFeatures, which schedkit
//     does not model: unless WithDefaultPlugins replaces the list,
//     it is merged and printed as kube has it, and may be enabled in
//     multiPoint (kube's written configuration lists it there), but it
//     never runs; enabling it at another extension point is an error.
//   - building each profile: the enabled plugins are instantiated (so
//     NodeResourcesFit's and LoadAwareScheduling's args are checked only
//     when the plugin is enabled, as kube and Koordinator check them in the
//     plugin constructor), multiPoint is expanded into the extension points
//     as kube-scheduler's framework does, score
//     weights are assigned and checked as kube's getScoreWeights does
//     (negative weights are allowed, but a plugin checked
//     while the running total — which counts kube's default VolumeBinding
//     and DynamicResources — is negative fails), placementScore weights
//     likewise (kube's alpha pod group points: see
//     WithWorkloadFeatures), one QueueSort, at least one Bind plugin
//     and at most one placementGenerate plugin are required, and every
//     profile must resolve
//     to the same QueueSort plugin and args. Each profile keeps the args
//     of the plugins it instantiates. The extenders' clients are built
//     as kube-scheduler builds them (ignorable ones last, ignoredByScheduler resources
//     replace every profile's NodeResourcesFit ignoredResources, printed
//     by Write as kube-scheduler --write-config-to prints them), and TLS
//     settings with a URL that is not https are an error (kube would
//     silently use plain HTTP).
//
// Errors name the field path and value, e.g.
// profiles[0].pluginConfig[1].args.usageThresholds.cpu: 120: must be within [0,100];
// each such error is a *FieldError, whose Path the caller can read.
func Load(data []byte, opts ...Option) (*Configuration, error) {
	l, err := newLoader(opts)
	if err != nil {
		return nil, err
	}
	if err := l.features.Validate(); err != nil {
		return nil, err
	}
	if err := l.init(); err != nil {
		return nil, err
	}
	c, err := l.load(data)
	if err != nil {
		return nil, fmt.Errorf("configfile: configuration: %w", err)
	}
	return c, nil
}

// newLoader returns a loader with the options applied: the default
// multiPoint list of its release unless the caller set one.
func newLoader(opts []Option) (*loader, error) {
	l := &loader{version: framework.DefaultKubeVersion, codecs: codecs(), maxProfiles: DefaultMaxProfiles}
	for _, o := range opts {
		o(l)
	}
	if l.maxProfiles <= 0 {
		return nil, fmt.Errorf("configfile: configuration: WithMaxProfiles(%d): must be positive", l.maxProfiles)
	}
	if l.version.IsZero() {
		return nil, errors.New("configfile: configuration: WithKubeVersion: the zero KubeVersion names no release (use framework.DefaultKubeVersion or framework.ParseKubeVersion)")
	}
	if !l.ownOrder {
		l.order = scheduling.PluginsFor(l.version)
	}
	if !l.ownDefaults {
		l.defaults = scheduling.DefaultMultiPointFor(l.version)
	}
	return l, nil
}

// loader holds the plugins a configuration may name.
type loader struct {
	// version is the kube-scheduler release the configuration is loaded
	// as (WithKubeVersion).
	version framework.KubeVersion
	// maxProfiles bounds the profiles (WithMaxProfiles).
	maxProfiles int
	order       []scheduling.PluginSpec
	// ownOrder says the caller set the plugins (WithPlugins).
	ownOrder bool
	specs    map[string]scheduling.PluginSpec
	names    []string // registered names, sorted
	defaults []scheduling.WeightedPlugin
	// ownDefaults says the caller set defaults (WithDefaultPlugins):
	// kube's unmodelled default plugins are not added to them.
	ownDefaults bool
	codecs      map[string]codec
	extOpts     []extender.Option
	features    framework.WorkloadFeatures
	// storageCapacityScoring is WithStorageCapacityScoring's gate;
	// nil follows version.
	storageCapacityScoring *bool
}

func (l *loader) init() error {
	scoring := volumebinding.StorageCapacityScoringDefault(l.version)
	if l.storageCapacityScoring != nil {
		scoring = *l.storageCapacityScoring
	}
	l.codecs[config.VolumeBindingName] = volumeBindingCodec(scoring)
	l.specs = map[string]scheduling.PluginSpec{}
	for _, p := range l.order {
		if p.Name == "" || p.Factory == nil {
			return fmt.Errorf("configfile: configuration: plugin spec %q: empty name or nil factory", p.Name)
		}
		if _, dup := l.specs[p.Name]; dup {
			return fmt.Errorf("configfile: configuration: plugin %q given twice", p.Name)
		}
		l.specs[p.Name] = p
		l.names = append(l.names, p.Name)
	}
	slices.Sort(l.names)
	return nil
}

// profileState is one profile between the loading stages.
type profileState struct {
	path   string
	name   string
	merged *plugins
	// weighed is merged as kube merges it with its whole default list: with
	// the score plugins schedkit does not model (kubeHiddenScorers), for
	// kube's running-total weight check.
	weighed *plugins
	args    []*args
	byName  map[string]*args
}

func (l *loader) load(data []byte) (*Configuration, error) {
	f, _, err := decodeFile(data)
	if err != nil {
		return nil, err
	}
	var errs errorList
	if len(f.Profiles) > l.maxProfiles {
		errs.invalid("profiles", len(f.Profiles), fmt.Sprintf("more than %d profiles (WithMaxProfiles)", l.maxProfiles))
		return nil, errs.err()
	}
	checkPodGroupPostFilter(f, l.version, &errs)
	if len(errs) > 0 {
		return nil, errs.err()
	}
	setDefaults(f)
	states := make([]*profileState, len(f.Profiles))
	defaults := l.defaults
	if !l.ownDefaults {
		defaults = withKubeUnmodelled(defaults)
	}
	def := defaultPlugins(withWorkloadPlugins(defaults, l.features))
	weighDef := defaultPlugins(withWorkloadPlugins(withKubeHiddenScorers(defaults), l.features))
	for i := range f.Profiles {
		// Merged before defaultProfile replaces the user's plugin sets.
		weighed := mergePlugins(weighDef, f.Profiles[i].Plugins)
		states[i] = l.defaultProfile(fmt.Sprintf("profiles[%d]", i), &f.Profiles[i], def, &errs)
		states[i].weighed = weighed
	}
	if len(errs) > 0 {
		return nil, errs.err()
	}
	validate(f, states, &errs)
	if len(errs) > 0 {
		return nil, errs.err()
	}
	c := &Configuration{
		Parallelism:              *f.Parallelism,
		PercentageOfNodesToScore: *f.PercentageOfNodesToScore,
		PodInitialBackoffSeconds: *f.PodInitialBackoffSeconds,
		PodMaxBackoffSeconds:     *f.PodMaxBackoffSeconds,
		specs:                    slices.Clone(l.order),
		features:                 l.features,
		version:                  l.version,
	}
	if c.Extenders, err = l.buildExtenders(f.Extenders, states, f.Profiles); err != nil {
		return nil, err
	}
	for i, st := range states {
		p, err := l.build(st, f.Profiles[i].PercentageOfNodesToScore)
		if err != nil {
			return nil, err
		}
		c.Profiles = append(c.Profiles, p)
	}
	if err := checkResolvedQueueSort(c.Profiles); err != nil {
		return nil, err
	}
	f.APIVersion = versionV1
	f.Kind = configKind
	c.written = writeView(f, l.version)
	return c, nil
}

// setDefaults applies kube-scheduler's
// SetDefaults_KubeSchedulerConfiguration to the scheduler-wide fields (the
// profiles are defaulted by defaultProfile).
func setDefaults(f *file) {
	i32 := func(v int32) *int32 { return &v }
	i64 := func(v int64) *int64 { return &v }
	bl := func(v bool) *bool { return &v }
	if f.Parallelism == nil {
		f.Parallelism = i32(16)
	}
	if len(f.Profiles) == 0 {
		f.Profiles = []profile{{}}
	}
	if len(f.Profiles) == 1 && f.Profiles[0].SchedulerName == nil {
		n := scheduling.DefaultSchedulerName
		f.Profiles[0].SchedulerName = &n
	}
	if f.PercentageOfNodesToScore == nil {
		f.PercentageOfNodesToScore = i32(0)
	}
	le := &f.LeaderElection
	if le.ResourceLock == "" {
		le.ResourceLock = defaultLock
	}
	if le.ResourceNamespace == "" {
		le.ResourceNamespace = defaultLockNS
	}
	if le.ResourceName == "" {
		le.ResourceName = defaultLockNm
	}
	cc := &f.ClientConnection
	if cc.ContentType == "" {
		cc.ContentType = defaultCType
	}
	if cc.QPS == 0 {
		cc.QPS = 50
	}
	if cc.Burst == 0 {
		cc.Burst = 100
	}
	// component-base RecommendedDefaultLeaderElectionConfiguration.
	if le.LeaseDuration.Duration == 0 {
		le.LeaseDuration.Duration = 15 * time.Second
	}
	if le.RenewDeadline.Duration == 0 {
		le.RenewDeadline.Duration = 10 * time.Second
	}
	if le.RetryPeriod.Duration == 0 {
		le.RetryPeriod.Duration = 2 * time.Second
	}
	if le.LeaderElect == nil {
		le.LeaderElect = bl(true)
	}
	if f.PodInitialBackoffSeconds == nil {
		f.PodInitialBackoffSeconds = i64(1)
	}
	if f.PodMaxBackoffSeconds == nil {
		f.PodMaxBackoffSeconds = i64(10)
	}
	if f.EnableProfiling == nil {
		f.EnableProfiling = bl(true)
	}
	if *f.EnableProfiling && f.EnableContentionProfiling == nil {
		f.EnableContentionProfiling = bl(true)
	}
}

// defaultProfile checks the plugin names the user wrote, merges the plugin
// sets with the defaults and decodes and defaults the pluginConfig
// (kube's setDefaults_KubeSchedulerProfile), recording errors.
func (l *loader) defaultProfile(path string, p *profile, def *plugins, errs *errorList) *profileState {
	st := &profileState{path: path, byName: map[string]*args{}}
	if p.SchedulerName != nil {
		st.name = *p.SchedulerName
	}
	if p.Plugins != nil {
		for _, s := range allSets {
			set := p.Plugins.set(s)
			sp := join(path, "plugins."+s)
			for j, e := range set.Enabled {
				if s == pointMultiPoint && l.kubeUnmodelled(e.Name) {
					continue // kube's written configuration lists them here
				}
				l.checkEnabledName(index(join(sp, "enabled"), j)+".name", e.Name, errs)
			}
			for j, d := range set.Disabled {
				if d.Name == "*" || l.specs[d.Name].Factory != nil || slices.Contains(kubeUnmodelled, d.Name) ||
					slices.Contains(kubeRemoved, d.Name) || d.Name == config.DefaultPreemptionName {
					continue
				}
				errs.invalid(index(join(sp, "disabled"), j)+".name", d.Name, fmt.Sprintf("unknown plugin (known: %s, or \"*\")", strings.Join(l.names, ", ")))
			}
		}
	}
	st.merged = mergePlugins(def, p.Plugins)
	for j, pc := range p.PluginConfig {
		pcPath := index(join(path, "pluginConfig"), j)
		if pc.Name == "" {
			errs.add(join(pcPath, "name"), "required")
			continue
		}
		if _, dup := st.byName[pc.Name]; dup {
			errs.invalid(pcPath, pc.Name, "duplicate value")
			continue
		}
		a, err := l.decodeArgs(pcPath, pc.Name, pc.Args)
		if err != nil {
			*errs = append(*errs, err)
			st.byName[pc.Name] = nil
			continue
		}
		st.args = append(st.args, a)
		st.byName[pc.Name] = a
	}
	for _, name := range pluginsNames(st.merged) {
		spec, ok := l.specs[name]
		_, has := st.byName[name]
		_, known := l.codecs[name]
		if has || (ok && spec.DefaultArgs == nil) || (!ok && !(known && l.kubeUnmodelled(name))) {
			continue
		}
		a, err := l.decodeArgs("", name, nil)
		if err != nil {
			*errs = append(*errs, err)
			continue
		}
		st.args = append(st.args, a)
		st.byName[name] = a
	}
	p.Plugins = st.merged
	p.PluginConfig = nil
	for _, a := range st.instantiated(l) {
		p.PluginConfig = append(p.PluginConfig, pluginConfig{Name: a.name, Args: a.wire})
	}
	return st
}

// instantiated returns the args of the plugins the profile instantiates
// (registered, or one of kube's unmodelled plugins, and enabled in some
// plugin set, multiPoint included), sorted by plugin name: the
// pluginConfig kube-scheduler's NewFramework captures for
// --write-config-to (framework/runtime/framework.go), which drops the args
// of every other plugin. The others are still validated.
func (st *profileState) instantiated(l *loader) []*args {
	needed := pluginsNames(st.merged)
	var out []*args
	for _, a := range st.args {
		if _, ok := slices.BinarySearch(needed, a.name); ok && (l.specs[a.name].Factory != nil || l.kubeUnmodelled(a.name)) {
			out = append(out, a)
		}
	}
	slices.SortFunc(out, func(a, b *args) int { return strings.Compare(a.name, b.name) })
	return out
}

// checkEnabledName reports an enabled plugin the registry does not offer,
// or that kube's v1 validation rejects as removed.
func (l *loader) checkEnabledName(path, name string, errs *errorList) {
	if slices.Contains(kubeRemoved, name) {
		errs.invalid(path, name, fmt.Sprintf("was invalid in version %q", versionV1))
		return
	}
	if _, ok := l.specs[name]; ok {
		return
	}
	switch {
	case slices.Contains(kubeUnmodelled, name) || name == config.DefaultPreemptionName:
		errs.invalid(path, name, fmt.Sprintf("kube-scheduler plugin that this registry does not offer (schedkit does not model it; known: %s)", strings.Join(l.names, ", ")))
	default:
		errs.invalid(path, name, fmt.Sprintf("unknown plugin (known: %s)", strings.Join(l.names, ", ")))
	}
}

// validate is kube-scheduler's ValidateKubeSchedulerConfiguration
// over the defaulted document (component-base's client-connection and
// leader-election checks included), plus the args validations kube runs at
// this stage.
func validate(f *file, states []*profileState, errs *errorList) {
	if f.ClientConnection.Burst < 0 {
		errs.invalid("clientConnection.burst", f.ClientConnection.Burst, "must be non-negative")
	}
	le := f.LeaderElection
	if *le.LeaderElect {
		if le.LeaseDuration.Duration <= 0 {
			errs.invalid("leaderElection.leaseDuration", le.LeaseDuration.Duration, "must be greater than zero")
		}
		if le.RenewDeadline.Duration <= 0 {
			errs.invalid("leaderElection.renewDeadline", le.RenewDeadline.Duration, "must be greater than zero")
		}
		if le.RetryPeriod.Duration <= 0 {
			errs.invalid("leaderElection.retryPeriod", le.RetryPeriod.Duration, "must be greater than zero")
		}
		if le.LeaseDuration.Duration <= le.RenewDeadline.Duration {
			errs.invalid("leaderElection.leaseDuration", le.RenewDeadline.Duration, "LeaseDuration must be greater than RenewDeadline")
		}
		if le.ResourceLock != defaultLock {
			errs.invalid("leaderElection.resourceLock", le.ResourceLock, `resourceLock value must be "leases"`)
		}
	}
	if *f.Parallelism <= 0 {
		errs.invalid("parallelism", *f.Parallelism, "should be an integer value greater than zero")
	}
	seen := map[string]int{}
	for i, p := range f.Profiles {
		path := states[i].path
		if p.SchedulerName == nil || *p.SchedulerName == "" {
			why := "every profile needs one when there are several"
			if len(f.Profiles) == 1 {
				why = fmt.Sprintf("an empty value is not defaulted; omit the field for %q", scheduling.DefaultSchedulerName)
			}
			errs.add(join(path, "schedulerName"), "required (%s)", why)
		} else if j, dup := seen[*p.SchedulerName]; dup {
			errs.invalid(join(path, "schedulerName"), *p.SchedulerName, fmt.Sprintf("duplicate value (profiles[%d].schedulerName)", j))
		} else {
			seen[*p.SchedulerName] = i
		}
		validatePct(join(path, "percentageOfNodesToScore"), p.PercentageOfNodesToScore, errs)
		for _, a := range states[i].args {
			if a.verr != nil && !a.atBuild {
				*errs = append(*errs, a.verr)
			}
		}
	}
	validateCommonQueueSort(states, errs)
	validatePct("percentageOfNodesToScore", f.PercentageOfNodesToScore, errs)
	if *f.PodInitialBackoffSeconds <= 0 {
		errs.invalid("podInitialBackoffSeconds", *f.PodInitialBackoffSeconds, "must be greater than 0")
	}
	if *f.PodMaxBackoffSeconds < *f.PodInitialBackoffSeconds {
		errs.invalid("podMaxBackoffSeconds", *f.PodMaxBackoffSeconds, "must be greater than or equal to podInitialBackoffSeconds")
	}
	// Beyond kube: kube's New converts the seconds to a time.Duration
	// without a check, so a longer backoff wraps around silently.
	for _, b := range []struct {
		path string
		v    int64
	}{{"podInitialBackoffSeconds", *f.PodInitialBackoffSeconds}, {"podMaxBackoffSeconds", *f.PodMaxBackoffSeconds}} {
		if b.v > maxDurationSeconds {
			errs.invalid(b.path, b.v, fmt.Sprintf("must be at most %d (the longest time.Duration, in seconds)", maxDurationSeconds))
		}
	}
	validateExtenders(f.Extenders, errs)
}

// maxDurationSeconds is the longest time.Duration in whole seconds.
const maxDurationSeconds = math.MaxInt64 / int64(time.Second)

func validatePct(path string, v *int32, errs *errorList) {
	if v != nil && (*v < 0 || *v > 100) {
		errs.invalid(path, *v, "not in valid range [0-100]")
	}
}

// validateCommonQueueSort is kube's validateCommonQueueSort: every
// profile's merged queueSort set must equal the first profile's, and when
// the first profile enables a queueSort plugin at that point, every
// profile's args for it must equal the first profile's.
func validateCommonQueueSort(states []*profileState, errs *errorList) {
	canon := states[0].merged.QueueSort
	if n := len(canon.Enabled); n > 1 {
		errs.invalid(join(states[0].path, "plugins.queueSort.enabled"), n, "only one queue sort plugin can be enabled")
	}
	var qsName string
	var qsArgs json.RawMessage
	if len(canon.Enabled) > 0 {
		qsName = canon.Enabled[0].Name
		if a := states[0].byName[qsName]; a != nil {
			qsArgs = a.wire
		}
	}
	for i := 1; i < len(states); i++ {
		if !sameSet(canon, states[i].merged.QueueSort) {
			errs.add(join(states[i].path, "plugins.queueSort"), "%s: must be the same for all profiles (profiles[0]: %s)",
				setString(states[i].merged.QueueSort), setString(canon))
		}
		if qsName == "" {
			continue
		}
		if a := states[i].byName[qsName]; a != nil && !bytes.Equal(a.wire, qsArgs) {
			errs.add(join(states[i].path, "pluginConfig"), "args of %q: queueSort must be the same for all profiles", qsName)
		}
	}
}

func sameSet(a, b pluginSet) bool {
	eq := func(x, y []plugin) bool {
		return slices.EqualFunc(x, y, func(p, q plugin) bool {
			return p.Name == q.Name && (p.Weight == nil) == (q.Weight == nil) && (p.Weight == nil || *p.Weight == *q.Weight)
		})
	}
	return eq(a.Enabled, b.Enabled) && eq(a.Disabled, b.Disabled)
}

func setString(s pluginSet) string {
	names := func(ps []plugin) []string {
		out := make([]string, len(ps))
		for i, p := range ps {
			out[i] = p.Name
		}
		return out
	}
	return fmt.Sprintf("{enabled: %q, disabled: %q}", names(s.Enabled), names(s.Disabled))
}

// build resolves one profile (kube-scheduler's NewFramework).
func (l *loader) build(st *profileState, pct *int32) (framework.Profile, error) {
	fail := func(format string, args ...any) (framework.Profile, error) {
		return framework.Profile{}, fmt.Errorf("%s (schedulerName %q): %s", st.path, st.name, fmt.Sprintf(format, args...))
	}
	needed := pluginsNames(st.merged)
	for _, name := range needed {
		if a := st.byName[name]; a != nil && a.verr != nil && a.atBuild {
			return framework.Profile{}, a.verr
		}
	}
	points := map[string]map[string]bool{}
	for _, name := range needed {
		spec, ok := l.specs[name]
		if !ok && l.kubeUnmodelled(name) {
			continue // accepted in multiPoint, not run: it extends no point here
		}
		if !ok {
			return fail("plugin %q is not registered", name) // names were checked; kept for safety
		}
		var args any
		if a := st.byName[name]; a != nil {
			args = a.value
		}
		pl, err := spec.Factory(args, handle(l.version))
		if err != nil {
			if a := st.byName[name]; a != nil && a.path != "" {
				return framework.Profile{}, &fieldError{path: join(a.path, "args"), msg: fmt.Sprintf("initializing plugin %q: %v", name, err)}
			}
			return fail("initializing plugin %q: %v", name, err)
		}
		if pl == nil {
			return fail("initializing plugin %q: factory returned nil", name)
		}
		set := map[string]bool{}
		// Probed, as kube's multiPoint expansion asks each plugin: a
		// caller's PluginSpec may come from another release's table.
		for _, pt := range scheduling.ExtensionPoints(pl) {
			set[pt] = true
		}
		if _, ok := pl.(framework.PreEnqueuePlugin); ok {
			set[pointPreEnqueue] = true
		}
		if _, ok := pl.(framework.PlacementGeneratePlugin); ok {
			set[pointPlacementGenerate] = true
		}
		if _, ok := pl.(framework.PlacementScorePlugin); ok {
			set[pointPlacementScore] = true
		}
		points[name] = set
	}
	implements := func(name, point string) bool { return points[name][point] }
	// kube's multiPoint expansion refuses a plugin listed twice at every
	// point it implements; an unmodelled plugin implements none here.
	seen := map[string]bool{}
	for _, e := range st.merged.MultiPoint.Enabled {
		if l.kubeUnmodelled(e.Name) && seen[e.Name] {
			return fail("plugins.multiPoint: plugin %q already registered", e.Name)
		}
		seen[e.Name] = true
	}
	lists, err := expand(st.merged, implements)
	if err != nil {
		return fail("%v", err)
	}
	if len(lists[scheduling.PointQueueSort]) != 1 {
		return fail("exactly one queue sort plugin is required, got %d %q", len(lists[scheduling.PointQueueSort]), lists[scheduling.PointQueueSort])
	}
	if len(lists[scheduling.PointBind]) == 0 {
		return fail("at least one bind plugin is needed")
	}
	if len(lists[pointPlacementGenerate]) > 1 {
		return fail("at most one placement generate plugin is allowed, got %q", lists[pointPlacementGenerate])
	}
	hidden := func(name string) bool { return l.specs[name].Factory == nil && kubeHiddenScorer(name) }
	weights, err := scoreWeights(st.weighed, func(name string) bool { return implements(name, scheduling.PointScore) || hidden(name) }, hidden)
	if err != nil {
		return fail("%v", err)
	}
	p := framework.Profile{
		SchedulerName: st.name,
		KubeVersion:   l.version,
		PreEnqueue:    lists[pointPreEnqueue],
		QueueSort:     lists[scheduling.PointQueueSort],
		PreFilter:     lists[scheduling.PointPreFilter],
		Filter:        lists[scheduling.PointFilter],
		PostFilter:    lists[scheduling.PointPostFilter],
		PreScore:      lists[scheduling.PointPreScore],
		Score:         lists[scheduling.PointScore],
		Reserve:       lists[scheduling.PointReserve],
		Permit:        lists[scheduling.PointPermit],
		PreBind:       lists[scheduling.PointPreBind],
		Bind:          lists[scheduling.PointBind],
		PostBind:      lists[scheduling.PointPostBind],
		Weights:       map[string]int64{},
		Args:          map[string]any{},
	}
	for _, n := range p.Score {
		p.Weights[n] = weights[n]
	}
	if err := placementPoints(&p, st.merged, lists, func(name string) bool { return implements(name, pointPlacementScore) }); err != nil {
		return fail("%v", err)
	}
	for _, a := range st.instantiated(l) {
		if a.value != nil {
			p.Args[a.name] = a.value
		}
	}
	if pct != nil {
		v := *pct
		p.PercentageOfNodesToScore = &v
	}
	return p, nil
}

// checkResolvedQueueSort requires every resolved profile to use the same
// QueueSort plugin with the same args, as New does (kube compares only the
// queueSort sets written in the file; a queue sort enabled through
// multiPoint slips past it there).
func checkResolvedQueueSort(ps []framework.Profile) error {
	var errs []error
	for i := 1; i < len(ps); i++ {
		a, b := ps[0], ps[i]
		if !slices.Equal(a.QueueSort, b.QueueSort) ||
			(len(a.QueueSort) == 1 && !reflect.DeepEqual(a.Args[a.QueueSort[0]], b.Args[b.QueueSort[0]])) {
			errs = append(errs, &fieldError{path: fmt.Sprintf("profiles[%d]", i),
				msg: fmt.Sprintf("queue sort %q (with its args) differs from profiles[0]'s %q: all profiles must share one", b.QueueSort, a.QueueSort)})
		}
	}
	return errors.Join(errs...)
}
