package configfile

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/scheduling"
)

// Wire types of a KubeSchedulerConfiguration file, mirroring
// kube-scheduler's versioned kubescheduler.config.k8s.io/v1 types
// (staging k8s.io/kube-scheduler/config/v1 and component-base
// config/v1alpha1): optional fields are pointers so that defaulting can tell
// an absent field from an explicit zero, and the JSON names are kube's, so
// one set of tags serves YAML (through sigs.k8s.io/yaml) and JSON. Decoding
// is strict (decodeStrict): an unknown field is an error.

// API versions and kinds a configuration file may declare.
const (
	group         = "kubescheduler.config.k8s.io"
	versionV1     = group + "/v1"
	versionV1b3   = group + "/v1beta3"
	versionV1b2   = group + "/v1beta2"
	configKind    = "KubeSchedulerConfiguration"
	defaultCType  = "application/vnd.kubernetes.protobuf"
	defaultLock   = "leases"
	defaultLockNS = "kube-system"
	defaultLockNm = "kube-scheduler"
)

// file is KubeSchedulerConfiguration (v1). DebuggingConfiguration is
// inlined in kube; its two fields sit here directly.
type file struct {
	APIVersion                string          `json:"apiVersion"`
	Kind                      string          `json:"kind"`
	Parallelism               *int32          `json:"parallelism,omitempty"`
	LeaderElection            leaderElection  `json:"leaderElection"`
	ClientConnection          clientConn      `json:"clientConnection"`
	EnableProfiling           *bool           `json:"enableProfiling,omitempty"`
	EnableContentionProfiling *bool           `json:"enableContentionProfiling,omitempty"`
	PercentageOfNodesToScore  *int32          `json:"percentageOfNodesToScore,omitempty"`
	PodInitialBackoffSeconds  *int64          `json:"podInitialBackoffSeconds,omitempty"`
	PodMaxBackoffSeconds      *int64          `json:"podMaxBackoffSeconds,omitempty"`
	Profiles                  []profile       `json:"profiles,omitempty"`
	Extenders                 []extenderEntry `json:"extenders,omitempty"`
	DelayCacheUntilActive     bool            `json:"delayCacheUntilActive,omitempty"`
}

// leaderElection is component-base LeaderElectionConfiguration
// (v1alpha1). It does not matter to schedkit but is kept, defaulted and
// validated as kube does, so files load and print back unchanged.
type leaderElection struct {
	LeaderElect       *bool    `json:"leaderElect,omitempty"`
	LeaseDuration     duration `json:"leaseDuration"`
	RenewDeadline     duration `json:"renewDeadline"`
	RetryPeriod       duration `json:"retryPeriod"`
	ResourceLock      string   `json:"resourceLock"`
	ResourceName      string   `json:"resourceName"`
	ResourceNamespace string   `json:"resourceNamespace"`
}

// clientConn is component-base ClientConnectionConfiguration (v1alpha1).
type clientConn struct {
	Kubeconfig         string  `json:"kubeconfig"`
	AcceptContentTypes string  `json:"acceptContentTypes"`
	ContentType        string  `json:"contentType"`
	QPS                float32 `json:"qps"`
	Burst              int32   `json:"burst"`
}

// profile is KubeSchedulerProfile.
type profile struct {
	SchedulerName            *string        `json:"schedulerName,omitempty"`
	PercentageOfNodesToScore *int32         `json:"percentageOfNodesToScore,omitempty"`
	Plugins                  *plugins       `json:"plugins,omitempty"`
	PluginConfig             []pluginConfig `json:"pluginConfig,omitempty"`
}

// plugins is Plugins: one plugin set per extension point, plus
// multiPoint and kube's two alpha pod-group points (placementGenerate,
// placementScore), which the pod-group cycle runs. Empty sets are omitted
// when printed.
type plugins struct {
	PreEnqueue pluginSet `json:"preEnqueue,omitzero"`
	QueueSort  pluginSet `json:"queueSort,omitzero"`
	PreFilter  pluginSet `json:"preFilter,omitzero"`
	Filter     pluginSet `json:"filter,omitzero"`
	PostFilter pluginSet `json:"postFilter,omitzero"`
	PreScore   pluginSet `json:"preScore,omitzero"`
	Score      pluginSet `json:"score,omitzero"`
	Reserve    pluginSet `json:"reserve,omitzero"`
	Permit     pluginSet `json:"permit,omitzero"`
	PreBind    pluginSet `json:"preBind,omitzero"`
	Bind       pluginSet `json:"bind,omitzero"`
	PostBind   pluginSet `json:"postBind,omitzero"`
	MultiPoint pluginSet `json:"multiPoint,omitzero"`

	PlacementGenerate pluginSet `json:"placementGenerate,omitzero"`
	PlacementScore    pluginSet `json:"placementScore,omitzero"`

	// PodGroupPostFilter is v1.37's pod-group PostFilter point
	// (GenericWorkload): a field of v1.37's Plugins only, and one schedkit
	// does not run, so only an empty set is accepted (checkPodGroupPostFilter).
	PodGroupPostFilter *pluginSet `json:"podGroupPostFilter,omitempty"`
}

// pointPodGroupPostFilter is v1.37's plugins.podGroupPostFilter.
const pointPodGroupPostFilter = "podGroupPostFilter"

// checkPodGroupPostFilter rejects plugins.podGroupPostFilter as release v
// does: v1.36's strict decoding does not know the field; v1.37 knows it,
// and schedkit, which does not model the PodGroupPostFilter extension
// point, accepts it only empty.
func checkPodGroupPostFilter(f *file, v framework.KubeVersion, errs *errorList) {
	for i, p := range f.Profiles {
		if p.Plugins == nil || p.Plugins.PodGroupPostFilter == nil {
			continue
		}
		path := fmt.Sprintf("profiles[%d].plugins.%s", i, pointPodGroupPostFilter)
		switch set := p.Plugins.PodGroupPostFilter; {
		case !v.AtLeast(framework.KubeV137):
			errs.add(path, "unknown field %q (a field of kube-scheduler v1.37's configuration, not %s's)", pointPodGroupPostFilter, v)
		case len(set.Enabled) > 0 || len(set.Disabled) > 0:
			errs.add(path, "schedkit does not run kube's PodGroupPostFilter extension point (GenericWorkload); only an empty set is accepted")
		}
	}
}

// pointPreEnqueue, pointMultiPoint and the placement points name the
// plugin sets that are not framework.Profile extension points.
const (
	pointPreEnqueue        = "preEnqueue"
	pointMultiPoint        = "multiPoint"
	pointPlacementGenerate = "placementGenerate"
	pointPlacementScore    = "placementScore"
)

// set returns the plugin set of an extension point (the names of
// AllPoints, plus preEnqueue and multiPoint).
func (p *plugins) set(point string) *pluginSet {
	switch point {
	case pointPreEnqueue:
		return &p.PreEnqueue
	case scheduling.PointQueueSort:
		return &p.QueueSort
	case scheduling.PointPreFilter:
		return &p.PreFilter
	case scheduling.PointFilter:
		return &p.Filter
	case scheduling.PointPostFilter:
		return &p.PostFilter
	case scheduling.PointPreScore:
		return &p.PreScore
	case scheduling.PointScore:
		return &p.Score
	case scheduling.PointReserve:
		return &p.Reserve
	case scheduling.PointPermit:
		return &p.Permit
	case scheduling.PointPreBind:
		return &p.PreBind
	case scheduling.PointBind:
		return &p.Bind
	case scheduling.PointPostBind:
		return &p.PostBind
	case pointMultiPoint:
		return &p.MultiPoint
	case pointPlacementGenerate:
		return &p.PlacementGenerate
	case pointPlacementScore:
		return &p.PlacementScore
	}
	panic("configfile: unknown extension point " + point) // callers pass the constants above
}

// allSets lists every plugin set in kube's mergePlugins order.
var allSets = []string{pointMultiPoint, pointPreEnqueue, scheduling.PointQueueSort, scheduling.PointPreFilter, scheduling.PointFilter,
	scheduling.PointPostFilter, scheduling.PointPreScore, scheduling.PointScore, scheduling.PointReserve, scheduling.PointPermit, scheduling.PointPreBind, scheduling.PointBind, scheduling.PointPostBind,
	pointPlacementGenerate, pointPlacementScore}

// pluginSet is PluginSet.
type pluginSet struct {
	Enabled  []plugin `json:"enabled,omitempty"`
	Disabled []plugin `json:"disabled,omitempty"`
}

// plugin is Plugin: a name and, for score plugins, a weight (nil or 0
// mean 1).
type plugin struct {
	Name   string `json:"name"`
	Weight *int32 `json:"weight,omitempty"`
}

// pluginConfig is PluginConfig; Args are decoded per plugin
// (config_args.go).
type pluginConfig struct {
	Name string          `json:"name"`
	Args json.RawMessage `json:"args,omitempty"`
}

// duration is metav1.Duration: a Go duration string such as "15s".
type duration struct{ time.Duration }

func (d duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.Duration.String()) }

func (d *duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("a duration must be a string such as \"15s\"")
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	d.Duration = v
	return nil
}

// Plugin args wire types (kube-scheduler's config/v1/types_pluginargs.go
// and Koordinator's v1beta3/v1 LoadAwareSchedulingArgs), plus the two
// schedkit extensions (mode, compatibilityMode). apiVersion and kind, which
// args may carry, are checked and removed before decoding.

type resourceSpec struct {
	Name   string `json:"name"`
	Weight int64  `json:"weight,omitempty"`
}

type shapePoint struct {
	Utilization int32 `json:"utilization"`
	Score       int32 `json:"score"`
}

type rtcrParam struct {
	Shape []shapePoint `json:"shape,omitempty"`
}

type scoringStrategy struct {
	Type                     string         `json:"type,omitempty"`
	Resources                []resourceSpec `json:"resources,omitempty"`
	RequestedToCapacityRatio *rtcrParam     `json:"requestedToCapacityRatio,omitempty"`
}

type nodeResourcesFitArgs struct {
	IgnoredResources      []string         `json:"ignoredResources,omitempty"`
	IgnoredResourceGroups []string         `json:"ignoredResourceGroups,omitempty"`
	ScoringStrategy       *scoringStrategy `json:"scoringStrategy,omitempty"`
}

type balancedAllocationArgs struct {
	Resources []resourceSpec `json:"resources,omitempty"`
	Mode      string         `json:"mode,omitempty"`
}

type podTopologySpreadArgs struct {
	DefaultConstraints []api.TopologySpreadConstraint `json:"defaultConstraints,omitempty"`
	DefaultingType     string                         `json:"defaultingType,omitempty"`
}

type interPodAffinityArgs struct {
	HardPodAffinityWeight              *int32 `json:"hardPodAffinityWeight,omitempty"`
	IgnorePreferredTermsOfExistingPods bool   `json:"ignorePreferredTermsOfExistingPods"`
}

type nodeAffinityArgs struct {
	AddedAffinity *api.NodeAffinity `json:"addedAffinity,omitempty"`
}

type defaultPreemptionArgs struct {
	MinCandidateNodesPercentage *int32 `json:"minCandidateNodesPercentage,omitempty"`
	MinCandidateNodesAbsolute   *int32 `json:"minCandidateNodesAbsolute,omitempty"`
}

type loadAwareAggregatedArgs struct {
	UsageThresholds         map[string]int64 `json:"usageThresholds,omitempty"`
	UsageAggregationType    string           `json:"usageAggregationType,omitempty"`
	UsageAggregatedDuration *duration        `json:"usageAggregatedDuration,omitempty"`
	ScoreAggregationType    string           `json:"scoreAggregationType,omitempty"`
	ScoreAggregatedDuration *duration        `json:"scoreAggregatedDuration,omitempty"`
}

type loadAwareArgs struct {
	FilterExpiredNodeMetrics             *bool                    `json:"filterExpiredNodeMetrics,omitempty"`
	NodeMetricExpirationSeconds          *int64                   `json:"nodeMetricExpirationSeconds,omitempty"`
	EnableScheduleWhenNodeMetricsExpired *bool                    `json:"enableScheduleWhenNodeMetricsExpired,omitempty"`
	ResourceWeights                      map[string]int64         `json:"resourceWeights,omitempty"`
	DominantResourceWeight               int64                    `json:"dominantResourceWeight,omitempty"`
	UsageThresholds                      map[string]int64         `json:"usageThresholds,omitempty"`
	ProdUsageThresholds                  map[string]int64         `json:"prodUsageThresholds,omitempty"`
	ProdUsageIncludeSys                  bool                     `json:"prodUsageIncludeSys,omitempty"`
	ScoreAccordingProdUsage              *bool                    `json:"scoreAccordingProdUsage,omitempty"`
	Estimator                            string                   `json:"estimator,omitempty"`
	EstimatedScalingFactors              map[string]int64         `json:"estimatedScalingFactors,omitempty"`
	EstimatedSecondsAfterPodScheduled    *int64                   `json:"estimatedSecondsAfterPodScheduled,omitempty"`
	EstimatedSecondsAfterInitialized     *int64                   `json:"estimatedSecondsAfterInitialized,omitempty"`
	AllowCustomizeEstimation             bool                     `json:"allowCustomizeEstimation,omitempty"`
	Aggregated                           *loadAwareAggregatedArgs `json:"aggregated,omitempty"`
	SupportedResources                   []string                 `json:"supportedResources,omitempty"`
	CompatibilityMode                    string                   `json:"compatibilityMode,omitempty"`
}
