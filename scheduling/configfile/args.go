package configfile

import (
	"encoding/json"
	"fmt"
	"github.com/schedkit/schedkit/filter/dynamicresources"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/schedkit/schedkit/config"
	"github.com/schedkit/schedkit/filter/defaultpreemption"
	"github.com/schedkit/schedkit/filter/interpodaffinity"
	"github.com/schedkit/schedkit/filter/nodeaffinity"
	"github.com/schedkit/schedkit/filter/noderesources"
	"github.com/schedkit/schedkit/filter/podtopologyspread"
	"github.com/schedkit/schedkit/filter/volumebinding"
	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/resource"
	"github.com/schedkit/schedkit/scheduling"
)

// args is one plugin's pluginConfig entry after decoding and defaulting.
type args struct {
	name string
	// path is where the args sit in the file ("" for default args the
	// loader added, as kube's SetDefaults does).
	path string
	// value is what framework.Profile.Args gets; nil when the registry does
	// not offer the plugin.
	value any
	// wire is the defaulted versioned args, printed by Write.
	wire json.RawMessage
	// verr is the args' validation error (already rebased onto path).
	verr error
	// atBuild says verr is reported only when the plugin is enabled, as
	// kube-scheduler validates NodeResourcesFit args only in the
	// plugin's constructor (its validation table keys them under the wrong
	// name) and Koordinator validates LoadAwareScheduling args in New.
	atBuild bool
}

// codec decodes, defaults and converts one known args kind. decode gets
// the args object without apiVersion and kind (nil when absent) and returns
// the converted args, the defaulted wire args and the validation error.
type codec struct {
	decode  func(path string, v any) (value any, wire any, verr error, err error)
	typ     reflect.Type // type of value
	atBuild bool
}

// codecs are the args kinds of kube-scheduler and Koordinator that
// schedkit decodes into versioned wire types.
func codecs() map[string]codec {
	return map[string]codec{
		config.NodeResourcesFitName:                {decode: decodeNRF, typ: reflect.TypeFor[noderesources.NodeResourcesFitArgs](), atBuild: true},
		config.NodeResourcesBalancedAllocationName: {decode: decodeBA, typ: reflect.TypeFor[noderesources.NodeResourcesBalancedAllocationArgs]()},
		config.PodTopologySpreadName:               {decode: decodePTS, typ: reflect.TypeFor[podtopologyspread.PodTopologySpreadArgs]()},
		config.InterPodAffinityName:                {decode: decodeIPA, typ: reflect.TypeFor[interpodaffinity.InterPodAffinityArgs]()},
		config.NodeAffinityName:                    {decode: decodeNA, typ: reflect.TypeFor[nodeaffinity.NodeAffinityArgs]()},
		config.LoadAwareSchedulingName:             {decode: decodeLA, typ: reflect.TypeFor[config.LoadAwareSchedulingArgs](), atBuild: true},
		config.DefaultPreemptionName:               {decode: decodeDP, typ: reflect.TypeFor[defaultpreemption.DefaultPreemptionArgs]()},
		config.VolumeBindingName:                   volumeBindingCodec(false),
		dynamicResourcesName:                       {decode: decodeDRA, typ: reflect.TypeFor[dynamicresources.DynamicResourcesArgs]()},
	}
}

// volumeBindingCodec decodes VolumeBinding's args with kube's
// StorageCapacityScoring feature gate on or off: the gate decides the
// default shape (SetDefaults_VolumeBindingArgs) and whether a shape is
// allowed (ValidateVolumeBindingArgsWithOptions).
func volumeBindingCodec(storageCapacityScoring bool) codec {
	return codec{decode: func(path string, v any) (any, any, error, error) {
		def := volumebinding.DefaultVolumeBindingArgs()
		def.StorageCapacityScoring = &storageCapacityScoring
		return decodeGeneric(path, v, def)
	}, typ: reflect.TypeFor[volumebinding.VolumeBindingArgs]()}
}

// stripTypeMeta removes apiVersion and kind from an args object,
// checking them: kind must be <plugin>Args (kube's decodeNestedObjects
// rejects another kind), apiVersion one of the supported versions.
func stripTypeMeta(path, plugin string, v any) (any, error) {
	obj, ok := v.(map[string]any)
	if !ok {
		if v == nil {
			return nil, nil
		}
		return nil, &fieldError{path: path, msg: fmt.Sprintf("%v: must be an object", valueString(short(v)))}
	}
	var errs errorList
	if k, ok := obj["kind"]; ok {
		if k != plugin+"Args" {
			errs.invalid(join(path, "kind"), short(k), fmt.Sprintf("args of plugin %q must be of kind %q", plugin, plugin+"Args"))
		}
	}
	if a, ok := obj["apiVersion"]; ok {
		switch a {
		case versionV1, versionV1b3, versionV1b2:
		default:
			errs.invalid(join(path, "apiVersion"), short(a), fmt.Sprintf("not supported (supported: %s, %s, %s)", versionV1, versionV1b3, versionV1b2))
		}
	}
	if len(errs) > 0 {
		return nil, errs.err()
	}
	out := maps.Clone(obj)
	delete(out, "kind")
	delete(out, "apiVersion")
	return out, nil
}

// withTypeMeta marshals wire args with apiVersion v1 and kind
// <plugin>Args, as kube-scheduler --write-config-to prints them.
func withTypeMeta(plugin string, wire any) (json.RawMessage, error) {
	b, err := json.Marshal(wire)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	if m == nil {
		m = map[string]any{}
	}
	m["apiVersion"] = versionV1
	m["kind"] = plugin + "Args"
	return json.Marshal(m)
}

// rebase turns the errors of a config package Validate ("<plugin>:
// field=value: message" lines) into field errors under the args path, e.g.
// loadaware: usageThresholds["cpu"]=120: must be within [0,100] becomes
// profiles[0].pluginConfig[1].args.usageThresholds.cpu: 120: must be
// within [0,100]. A line of another shape is kept whole under the path.
func rebase(path string, err error) error {
	if err == nil {
		return nil
	}
	var errs errorList
	for line := range strings.SplitSeq(err.Error(), "\n") {
		if line == "" {
			continue
		}
		errs = append(errs, rebaseLine(path, line))
	}
	return errs.err()
}

func rebaseLine(path, line string) error {
	rest := line
	// Drop the package-level prefix ("loadaware: ", "podtopologyspread: ").
	if i := strings.Index(rest, ": "); i > 0 && strings.IndexFunc(rest[:i], func(r rune) bool { return r < 'a' || r > 'z' }) < 0 {
		rest = rest[i+2:]
	}
	tok, after, ok := pathToken(rest)
	if !ok {
		return &fieldError{path: path, msg: line}
	}
	field := join(path, tok)
	if v, ok := strings.CutPrefix(after, "="); ok {
		val := v
		msg := ""
		if strings.HasPrefix(v, `"`) {
			if q, err := strconv.QuotedPrefix(v); err == nil {
				val, msg = q, strings.TrimPrefix(v[len(q):], ": ")
			}
		}
		if msg == "" {
			var found bool
			if val, msg, found = strings.Cut(v, ": "); !found {
				return &fieldError{path: field, msg: v}
			}
		}
		return &fieldError{path: field, msg: val + ": " + msg}
	}
	return &fieldError{path: field, msg: strings.TrimPrefix(after, ": ")}
}

// pathToken reads a field path such as usageThresholds["cpu"] or
// scoringStrategy.resources[0].weight at the start of s, converting
// ["key"] to .key (or [key] for keys that are not identifiers). The path
// must be followed by '=' or ": ".
func pathToken(s string) (tok, rest string, ok bool) {
	var b strings.Builder
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == '=' || (c == ':' && strings.HasPrefix(s[i:], ": ")):
			if b.Len() == 0 {
				return "", "", false
			}
			return b.String(), s[i:], true
		case c == '[':
			j := strings.IndexByte(s[i:], ']')
			if j < 0 {
				return "", "", false
			}
			inner := s[i+1 : i+j]
			if uq, err := strconv.Unquote(inner); err == nil {
				if b.Len() == 0 {
					return "", "", false
				}
				if identKey.MatchString(uq) {
					b.WriteString("." + uq)
				} else {
					b.WriteString("[" + uq + "]")
				}
			} else {
				b.WriteString(s[i : i+j+1])
			}
			i += j + 1
		case c == '.' || c == '_' || c == '-' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'):
			b.WriteByte(c)
			i++
		default:
			return "", "", false
		}
	}
	return "", "", false
}

func resIn(in []resourceSpec) []config.ResourceSpec {
	if in == nil {
		return nil
	}
	out := make([]config.ResourceSpec, len(in))
	for i, r := range in {
		out[i] = config.ResourceSpec{Name: r.Name, Weight: r.Weight}
	}
	return out
}

func resOut(in []config.ResourceSpec) []resourceSpec {
	if in == nil {
		return nil
	}
	out := make([]resourceSpec, len(in))
	for i, r := range in {
		out[i] = resourceSpec{Name: r.Name, Weight: r.Weight}
	}
	return out
}

// decodeNRF: kube-scheduler's SetDefaults_NodeResourcesFitArgs (via
// noderesources.NodeResourcesFitArgs.SetDefaults, which reproduces it).
func decodeNRF(path string, v any) (any, any, error, error) {
	var w nodeResourcesFitArgs
	if err := decodeStrict(path, v, &w); err != nil {
		return nil, nil, nil, err
	}
	a := noderesources.NodeResourcesFitArgs{IgnoredResources: w.IgnoredResources, IgnoredResourceGroups: w.IgnoredResourceGroups}
	if s := w.ScoringStrategy; s != nil {
		a.ScoringStrategy = &noderesources.ScoringStrategy{Type: noderesources.ScoringStrategyType(s.Type), Resources: resIn(s.Resources)}
		if r := s.RequestedToCapacityRatio; r != nil {
			p := &noderesources.RequestedToCapacityRatioParam{}
			for _, sp := range r.Shape {
				p.Shape = append(p.Shape, config.UtilizationShapePoint{Utilization: sp.Utilization, Score: sp.Score})
			}
			a.ScoringStrategy.RequestedToCapacityRatio = p
		}
	}
	a.SetDefaults()
	out := nodeResourcesFitArgs{IgnoredResources: a.IgnoredResources, IgnoredResourceGroups: a.IgnoredResourceGroups}
	if s := a.ScoringStrategy; s != nil {
		out.ScoringStrategy = &scoringStrategy{Type: string(s.Type), Resources: resOut(s.Resources)}
		if r := s.RequestedToCapacityRatio; r != nil {
			p := &rtcrParam{Shape: []shapePoint{}}
			for _, sp := range r.Shape {
				p.Shape = append(p.Shape, shapePoint{Utilization: sp.Utilization, Score: sp.Score})
			}
			out.ScoringStrategy.RequestedToCapacityRatio = p
		}
	}
	return a, out, rebase(path, a.Validate()), nil
}

// decodeBA: kube-scheduler's SetDefaults_NodeResourcesBalancedAllocationArgs
// plus schedkit's mode (printed only when it is not the default Delta).
func decodeBA(path string, v any) (any, any, error, error) {
	var w balancedAllocationArgs
	if err := decodeStrict(path, v, &w); err != nil {
		return nil, nil, nil, err
	}
	a := noderesources.NodeResourcesBalancedAllocationArgs{Resources: resIn(w.Resources), Mode: noderesources.BalancedAllocationMode(w.Mode)}
	a.SetDefaults()
	out := balancedAllocationArgs{Resources: resOut(a.Resources)}
	if a.Mode != noderesources.BalancedAllocationDelta {
		out.Mode = string(a.Mode)
	}
	return a, out, rebase(path, a.Validate()), nil
}

// decodePTS: kube-scheduler's SetDefaults_PodTopologySpreadArgs
// (defaultingType System when empty).
func decodePTS(path string, v any) (any, any, error, error) {
	var w podTopologySpreadArgs
	if err := decodeStrict(path, v, &w); err != nil {
		return nil, nil, nil, err
	}
	a := podtopologyspread.PodTopologySpreadArgs{DefaultConstraints: w.DefaultConstraints, DefaultingType: podtopologyspread.PodTopologySpreadConstraintsDefaulting(w.DefaultingType)}
	a.SetDefaults()
	out := podTopologySpreadArgs{DefaultConstraints: a.DefaultConstraints, DefaultingType: string(a.DefaultingType)}
	return a, out, rebase(path, a.Validate()), nil
}

// decodeIPA: kube-scheduler's SetDefaults_InterPodAffinityArgs: an
// absent hardPodAffinityWeight becomes 1; an explicit 0 stays 0 (valid).
func decodeIPA(path string, v any) (any, any, error, error) {
	var w interPodAffinityArgs
	if err := decodeStrict(path, v, &w); err != nil {
		return nil, nil, nil, err
	}
	a := interpodaffinity.DefaultInterPodAffinityArgs()
	if w.HardPodAffinityWeight != nil {
		a.HardPodAffinityWeight = *w.HardPodAffinityWeight
	}
	a.IgnorePreferredTermsOfExistingPods = w.IgnorePreferredTermsOfExistingPods
	a.SetDefaults()
	hw := a.HardPodAffinityWeight
	out := interPodAffinityArgs{HardPodAffinityWeight: &hw, IgnorePreferredTermsOfExistingPods: a.IgnorePreferredTermsOfExistingPods}
	return a, out, rebase(path, a.Validate()), nil
}

// decodeNA: NodeAffinityArgs have no defaults.
func decodeNA(path string, v any) (any, any, error, error) {
	var w nodeAffinityArgs
	if err := decodeStrict(path, v, &w); err != nil {
		return nil, nil, nil, err
	}
	a := nodeaffinity.NodeAffinityArgs{AddedAffinity: w.AddedAffinity}
	a.SetDefaults()
	return a, nodeAffinityArgs{AddedAffinity: a.AddedAffinity}, rebase(path, a.Validate()), nil
}

// decodeDP: kube-scheduler's SetDefaults_DefaultPreemptionArgs
// (minCandidateNodesPercentage 10, minCandidateNodesAbsolute 100 when
// absent; an explicit 0 stays) and ValidateDefaultPreemptionArgs (through
// defaultpreemption.DefaultPreemptionArgs.Validate).
func decodeDP(path string, v any) (any, any, error, error) {
	var w defaultPreemptionArgs
	if err := decodeStrict(path, v, &w); err != nil {
		return nil, nil, nil, err
	}
	a := defaultpreemption.DefaultDefaultPreemptionArgs()
	if w.MinCandidateNodesPercentage != nil {
		a.MinCandidateNodesPercentage = *w.MinCandidateNodesPercentage
	}
	if w.MinCandidateNodesAbsolute != nil {
		a.MinCandidateNodesAbsolute = *w.MinCandidateNodesAbsolute
	}
	a.SetDefaults()
	pct, abs := a.MinCandidateNodesPercentage, a.MinCandidateNodesAbsolute
	out := defaultPreemptionArgs{MinCandidateNodesPercentage: &pct, MinCandidateNodesAbsolute: &abs}
	return a, out, rebase(path, a.Validate()), nil
}

func resMapIn(m map[string]int64) map[resource.Name]int64 {
	if m == nil {
		return nil
	}
	out := make(map[resource.Name]int64, len(m))
	for k, v := range m {
		out[resource.Name(k)] = v
	}
	return out
}

func resMapOut(m map[resource.Name]int64) map[string]int64 {
	if m == nil {
		return nil
	}
	out := make(map[string]int64, len(m))
	for k, v := range m {
		out[string(k)] = v
	}
	return out
}

func durIn(d *duration) time.Duration {
	if d == nil {
		return 0
	}
	return d.Duration
}

func durOut(d time.Duration) *duration {
	if d == 0 {
		return nil
	}
	return &duration{d}
}

// decodeLA: Koordinator's SetDefaults_LoadAwareSchedulingArgs (through
// config.LoadAwareSchedulingArgs.SetDefaults) and
// ValidateLoadAwareSchedulingArgs.
func decodeLA(path string, v any) (any, any, error, error) {
	var w loadAwareArgs
	if err := decodeStrict(path, v, &w); err != nil {
		return nil, nil, nil, err
	}
	a := config.LoadAwareSchedulingArgs{
		FilterExpiredNodeMetrics:             w.FilterExpiredNodeMetrics,
		EnableScheduleWhenNodeMetricsExpired: w.EnableScheduleWhenNodeMetricsExpired,
		NodeMetricExpirationSeconds:          w.NodeMetricExpirationSeconds,
		ResourceWeights:                      resMapIn(w.ResourceWeights),
		DominantResourceWeight:               w.DominantResourceWeight,
		UsageThresholds:                      resMapIn(w.UsageThresholds),
		ProdUsageThresholds:                  resMapIn(w.ProdUsageThresholds),
		ProdUsageIncludeSys:                  w.ProdUsageIncludeSys,
		ScoreAccordingProdUsage:              w.ScoreAccordingProdUsage != nil && *w.ScoreAccordingProdUsage,
		Estimator:                            w.Estimator,
		EstimatedScalingFactors:              resMapIn(w.EstimatedScalingFactors),
		EstimatedSecondsAfterPodScheduled:    w.EstimatedSecondsAfterPodScheduled,
		EstimatedSecondsAfterInitialized:     w.EstimatedSecondsAfterInitialized,
		AllowCustomizeEstimation:             w.AllowCustomizeEstimation,
		CompatibilityMode:                    config.LoadAwareCompatibility(w.CompatibilityMode),
	}
	for _, r := range w.SupportedResources {
		a.SupportedResources = append(a.SupportedResources, resource.Name(r))
	}
	if g := w.Aggregated; g != nil {
		a.Aggregated = &config.LoadAwareSchedulingAggregatedArgs{
			UsageThresholds:         resMapIn(g.UsageThresholds),
			UsageAggregationType:    g.UsageAggregationType,
			UsageAggregatedDuration: durIn(g.UsageAggregatedDuration),
			ScoreAggregationType:    g.ScoreAggregationType,
			ScoreAggregatedDuration: durIn(g.ScoreAggregatedDuration),
		}
	}
	a.SetDefaults()
	out := loadAwareArgs{
		FilterExpiredNodeMetrics:             a.FilterExpiredNodeMetrics,
		NodeMetricExpirationSeconds:          a.NodeMetricExpirationSeconds,
		EnableScheduleWhenNodeMetricsExpired: a.EnableScheduleWhenNodeMetricsExpired,
		ResourceWeights:                      resMapOut(a.ResourceWeights),
		DominantResourceWeight:               a.DominantResourceWeight,
		UsageThresholds:                      resMapOut(a.UsageThresholds),
		ProdUsageThresholds:                  resMapOut(a.ProdUsageThresholds),
		ProdUsageIncludeSys:                  a.ProdUsageIncludeSys,
		Estimator:                            a.Estimator,
		EstimatedScalingFactors:              resMapOut(a.EstimatedScalingFactors),
		EstimatedSecondsAfterPodScheduled:    a.EstimatedSecondsAfterPodScheduled,
		EstimatedSecondsAfterInitialized:     a.EstimatedSecondsAfterInitialized,
		AllowCustomizeEstimation:             a.AllowCustomizeEstimation,
		CompatibilityMode:                    string(a.CompatibilityMode),
	}
	if a.ScoreAccordingProdUsage {
		t := true
		out.ScoreAccordingProdUsage = &t
	}
	for _, r := range a.SupportedResources {
		out.SupportedResources = append(out.SupportedResources, string(r))
	}
	if g := a.Aggregated; g != nil {
		out.Aggregated = &loadAwareAggregatedArgs{
			UsageThresholds:         resMapOut(g.UsageThresholds),
			UsageAggregationType:    g.UsageAggregationType,
			UsageAggregatedDuration: durOut(g.UsageAggregatedDuration),
			ScoreAggregationType:    g.ScoreAggregationType,
			ScoreAggregatedDuration: durOut(g.ScoreAggregatedDuration),
		}
	}
	return a, out, rebase(path, a.Validate()), nil
}

// decodeGeneric decodes the args of a plugin the loader has no wire
// type for (an out-of-tree PluginSpec with DefaultArgs): strictly, over
// the spec's default value, then SetDefaults and Validate when the type
// implements config.Args.
func decodeGeneric(path string, v any, def any) (any, any, error, error) {
	t := reflect.TypeOf(def)
	pv := reflect.New(t)
	pv.Elem().Set(reflect.ValueOf(def))
	if v != nil {
		var errs errorList
		check(path, v, t, &errs)
		if len(errs) > 0 {
			return nil, nil, nil, errs.err()
		}
		b, err := json.Marshal(v)
		if err == nil {
			err = json.Unmarshal(b, pv.Interface())
		}
		if err != nil {
			return nil, nil, nil, &fieldError{path: path, msg: err.Error()}
		}
	}
	var verr error
	if a, ok := pv.Interface().(config.Args); ok {
		a.SetDefaults()
		verr = rebase(path, a.Validate())
	}
	val := pv.Elem().Interface()
	return val, val, verr, nil
}

// kubeUnmodelled are kube-scheduler default plugins schedkit does not
// offer (node features; DynamicResources too for a registry without it).
// kube's default multiPoint list holds them (apis/config/v1/
// default_plugins.go, applyFeatureGates, with their feature gates on by
// default), so a loaded configuration lists them there and in its written
// form; they never run. A file may enable them in multiPoint (as kube's
// written configuration does) and disable them anywhere; enabling them at
// another point, or args for NodeDeclaredFeatures, is an error saying
// schedkit does not model them.
var kubeUnmodelled = []string{dynamicResourcesName, nodeDeclaredFeaturesName}

const (
	dynamicResourcesName     = "DynamicResources"
	nodeDeclaredFeaturesName = "NodeDeclaredFeatures"
)

// kubeUnmodelled reports whether name is one of kubeUnmodelled and the
// registry does not offer a plugin of that name.
func (l *loader) kubeUnmodelled(name string) bool {
	_, registered := l.specs[name]
	return !registered && slices.Contains(kubeUnmodelled, name)
}

// withKubeUnmodelled is kube-scheduler's applyFeatureGates for the gates on
// by default (alike in v1.36 and v1.37): NodeDeclaredFeatures appended, then
// DynamicResources (weight 2) inserted before DefaultPreemption when the
// list holds it. A plugin the list already holds is not added again.
func withKubeUnmodelled(mp []scheduling.WeightedPlugin) []scheduling.WeightedPlugin {
	out := slices.Clone(mp)
	has := func(name string) bool {
		return slices.ContainsFunc(out, func(p scheduling.WeightedPlugin) bool { return p.Name == name })
	}
	if !has(nodeDeclaredFeaturesName) {
		out = append(out, scheduling.WeightedPlugin{Name: nodeDeclaredFeaturesName})
	}
	if !has(dynamicResourcesName) {
		if i := slices.IndexFunc(out, func(p scheduling.WeightedPlugin) bool { return p.Name == config.DefaultPreemptionName }); i >= 0 {
			out = slices.Insert(out, i, scheduling.WeightedPlugin{Name: dynamicResourcesName, Weight: 2})
		}
	}
	return out
}

// dynamicResourcesArgs is kube-scheduler's DynamicResourcesArgs
// (kubescheduler.config.k8s.io/v1).
type dynamicResourcesArgs struct {
	FilterTimeout  *duration `json:"filterTimeout,omitempty"`
	BindingTimeout *duration `json:"bindingTimeout,omitempty"`
}

// decodeDRA: kube-scheduler's SetDefaults_DynamicResourcesArgs and
// ValidateDynamicResourcesArgs with the default feature gates of v1.36 and
// v1.37 (DRASchedulerFilterTimeout, DRADeviceBindingConditions and
// DRAResourceClaimDeviceStatus on): filterTimeout 10s and bindingTimeout 10m
// when absent; filterTimeout must not be negative and bindingTimeout must be
// at least 1s. The plugin gets them as dynamicresources.DynamicResourcesArgs.
func decodeDRA(path string, v any) (any, any, error, error) {
	var w dynamicResourcesArgs
	if err := decodeStrict(path, v, &w); err != nil {
		return nil, nil, nil, err
	}
	if w.FilterTimeout == nil {
		w.FilterTimeout = &duration{10 * time.Second}
	}
	if w.BindingTimeout == nil {
		w.BindingTimeout = &duration{10 * time.Minute}
	}
	var errs errorList
	if w.FilterTimeout.Duration < 0 {
		errs.invalid(join(path, "filterTimeout"), w.FilterTimeout.Duration, "must be zero or positive")
	}
	if w.BindingTimeout.Duration < time.Second {
		errs.invalid(join(path, "bindingTimeout"), w.BindingTimeout.Duration, "must be at least 1 second")
	}
	var verr error
	if len(errs) > 0 {
		verr = errs.err()
	}
	return dynamicresources.DynamicResourcesArgs{FilterTimeout: w.FilterTimeout.Duration, BindingTimeout: w.BindingTimeout.Duration}, w, verr, nil
}

// kubeRemoved are the plugins kube-scheduler's v1 validation rejects as
// removed (invalidPluginsByVersion) when enabled or configured, even though
// the registry offers them for profiles built in code.
var kubeRemoved = []string{"AzureDiskLimits", "CinderLimits", "EBSLimits", "GCEPDLimits"}

// decodeArgs decodes one pluginConfig entry's args (raw may be empty).
func (l *loader) decodeArgs(path, name string, raw json.RawMessage) (*args, error) {
	argsPath := join(path, "args")
	var v any
	if len(raw) > 0 {
		var err error
		if v, err = parseJSON(raw); err != nil {
			return nil, &fieldError{path: argsPath, msg: err.Error()}
		}
	}
	spec, registered := l.specs[name]
	codec, known := l.codecs[name]
	if slices.Contains(kubeRemoved, name) {
		return nil, &fieldError{path: join(path, "name"), msg: fmt.Sprintf("%q: was invalid in version %q", name, versionV1)}
	}
	if !registered && !known {
		switch {
		case slices.Contains(kubeUnmodelled, name):
			return nil, &fieldError{path: join(path, "name"), msg: fmt.Sprintf("%q: kube-scheduler plugin that schedkit does not model; it takes no args", name)}
		case slices.Contains(kubeRemoved, name):
			return nil, &fieldError{path: join(path, "name"), msg: fmt.Sprintf("%q: was invalid in version %q", name, versionV1)}
		}
		return nil, &fieldError{path: join(path, "name"), msg: fmt.Sprintf("%q: unknown plugin (known: %s)", name, strings.Join(l.names, ", "))}
	}
	if registered && spec.DefaultArgs == nil {
		if obj, _ := stripTypeMeta(argsPath, name, v); obj != nil && len(obj.(map[string]any)) > 0 {
			return nil, &fieldError{path: argsPath, msg: fmt.Sprintf("plugin %q takes no args", name)}
		}
		return &args{name: name, path: path}, nil
	}
	obj, err := stripTypeMeta(argsPath, name, v)
	if err != nil {
		return nil, err
	}
	a := &args{name: name, path: path}
	var wire any
	var def any
	if registered {
		def = spec.DefaultArgs()
	}
	switch {
	case known && (!registered || reflect.TypeOf(def) == codec.typ):
		if a.value, wire, a.verr, err = codec.decode(argsPath, obj); err != nil {
			return nil, err
		}
		a.atBuild = codec.atBuild
		if !registered {
			a.value = nil // validated and printed, but the registry has no such plugin
		}
		if a.wire, err = withTypeMeta(name, wire); err != nil {
			return nil, &fieldError{path: argsPath, msg: err.Error()}
		}
	default:
		if a.value, wire, a.verr, err = decodeGeneric(argsPath, obj, def); err != nil {
			return nil, err
		}
		a.atBuild = true
		if a.wire, err = json.Marshal(wire); err != nil {
			return nil, &fieldError{path: argsPath, msg: err.Error()}
		}
	}
	return a, nil
}

// handle is the framework.Handle plugins get when the loader builds them
// to learn their extension points (the instances are discarded), for the
// release the configuration is loaded as.
func handle(v framework.KubeVersion) framework.Handle {
	return framework.NewHandle(framework.NewFakeClock(time.Time{}), 1, v)
}
