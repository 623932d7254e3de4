package configfile

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/scheduling"
)

// Wire types of a KubeSchedulerConfiguration file, mirroring
// kube-scheduler v1.36's versioned kubescheduler.config.k8s.io/v1 types
// (staging k8s.io/kube-scheduler/config/v1 and component-base
// config/v1alpha1): optional fields are pointers so that defaulting can tell
// an absent field from an explicit zero, and the JSON names are kube's, so
// one set of tags serves YAML (through sigs.k8s.io/yaml) and JSON. Decoding
// is strict (cfgDecodeStrict): an unknown field is an error.

// API versions and kinds a configuration file may declare.
const (
	cfgGroup         = "kubescheduler.config.k8s.io"
	cfgVersionV1     = cfgGroup + "/v1"
	cfgVersionV1b3   = cfgGroup + "/v1beta3"
	cfgVersionV1b2   = cfgGroup + "/v1beta2"
	cfgKind          = "KubeSchedulerConfiguration"
	cfgDefaultCType  = "application/vnd.kubernetes.protobuf"
	cfgDefaultLock   = "leases"
	cfgDefaultLockNS = "kube-system"
	cfgDefaultLockNm = "kube-scheduler"
)

// cfgFile is KubeSchedulerConfiguration (v1). DebuggingConfiguration is
// inlined in kube; its two fields sit here directly.
type cfgFile struct {
	APIVersion                string            `json:"apiVersion"`
	Kind                      string            `json:"kind"`
	Parallelism               *int32            `json:"parallelism,omitempty"`
	LeaderElection            cfgLeaderElection `json:"leaderElection"`
	ClientConnection          cfgClientConn     `json:"clientConnection"`
	EnableProfiling           *bool             `json:"enableProfiling,omitempty"`
	EnableContentionProfiling *bool             `json:"enableContentionProfiling,omitempty"`
	PercentageOfNodesToScore  *int32            `json:"percentageOfNodesToScore,omitempty"`
	PodInitialBackoffSeconds  *int64            `json:"podInitialBackoffSeconds,omitempty"`
	PodMaxBackoffSeconds      *int64            `json:"podMaxBackoffSeconds,omitempty"`
	Profiles                  []cfgProfile      `json:"profiles,omitempty"`
	Extenders                 []cfgExtender     `json:"extenders,omitempty"`
	DelayCacheUntilActive     bool              `json:"delayCacheUntilActive,omitempty"`
}

// cfgLeaderElection is component-base LeaderElectionConfiguration
// (v1alpha1). It does not matter to schedkit but is kept, defaulted and
// validated as kube does, so files load and print back unchanged.
type cfgLeaderElection struct {
	LeaderElect       *bool       `json:"leaderElect,omitempty"`
	LeaseDuration     cfgDuration `json:"leaseDuration"`
	RenewDeadline     cfgDuration `json:"renewDeadline"`
	RetryPeriod       cfgDuration `json:"retryPeriod"`
	ResourceLock      string      `json:"resourceLock"`
	ResourceName      string      `json:"resourceName"`
	ResourceNamespace string      `json:"resourceNamespace"`
}

// cfgClientConn is component-base ClientConnectionConfiguration (v1alpha1).
type cfgClientConn struct {
	Kubeconfig         string  `json:"kubeconfig"`
	AcceptContentTypes string  `json:"acceptContentTypes"`
	ContentType        string  `json:"contentType"`
	QPS                float32 `json:"qps"`
	Burst              int32   `json:"burst"`
}

// cfgProfile is KubeSchedulerProfile.
type cfgProfile struct {
	SchedulerName            *string           `json:"schedulerName,omitempty"`
	PercentageOfNodesToScore *int32            `json:"percentageOfNodesToScore,omitempty"`
	Plugins                  *cfgPlugins       `json:"plugins,omitempty"`
	PluginConfig             []cfgPluginConfig `json:"pluginConfig,omitempty"`
}

// cfgPlugins is Plugins: one plugin set per extension point, plus
// multiPoint and v1.36's two pod-group points (placementGenerate,
// placementScore), which the pod-group cycle runs. Empty sets are omitted
// when printed.
type cfgPlugins struct {
	PreEnqueue cfgPluginSet `json:"preEnqueue,omitzero"`
	QueueSort  cfgPluginSet `json:"queueSort,omitzero"`
	PreFilter  cfgPluginSet `json:"preFilter,omitzero"`
	Filter     cfgPluginSet `json:"filter,omitzero"`
	PostFilter cfgPluginSet `json:"postFilter,omitzero"`
	PreScore   cfgPluginSet `json:"preScore,omitzero"`
	Score      cfgPluginSet `json:"score,omitzero"`
	Reserve    cfgPluginSet `json:"reserve,omitzero"`
	Permit     cfgPluginSet `json:"permit,omitzero"`
	PreBind    cfgPluginSet `json:"preBind,omitzero"`
	Bind       cfgPluginSet `json:"bind,omitzero"`
	PostBind   cfgPluginSet `json:"postBind,omitzero"`
	MultiPoint cfgPluginSet `json:"multiPoint,omitzero"`

	PlacementGenerate cfgPluginSet `json:"placementGenerate,omitzero"`
	PlacementScore    cfgPluginSet `json:"placementScore,omitzero"`
}

// cfgPointPreEnqueue, cfgPointMultiPoint and the placement points name the
// plugin sets that are not framework.Profile extension points.
const (
	cfgPointPreEnqueue        = "preEnqueue"
	cfgPointMultiPoint        = "multiPoint"
	cfgPointPlacementGenerate = "placementGenerate"
	cfgPointPlacementScore    = "placementScore"
)

// set returns the plugin set of an extension point (the names of
// AllPoints, plus preEnqueue and multiPoint).
func (p *cfgPlugins) set(point string) *cfgPluginSet {
	switch point {
	case cfgPointPreEnqueue:
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
	case cfgPointMultiPoint:
		return &p.MultiPoint
	case cfgPointPlacementGenerate:
		return &p.PlacementGenerate
	case cfgPointPlacementScore:
		return &p.PlacementScore
	}
	panic("scheduling: unknown extension point " + point) // callers pass the constants above
}

// cfgAllSets lists every plugin set in kube's mergePlugins order.
var cfgAllSets = []string{cfgPointMultiPoint, cfgPointPreEnqueue, scheduling.PointQueueSort, scheduling.PointPreFilter, scheduling.PointFilter,
	scheduling.PointPostFilter, scheduling.PointPreScore, scheduling.PointScore, scheduling.PointReserve, scheduling.PointPermit, scheduling.PointPreBind, scheduling.PointBind, scheduling.PointPostBind,
	cfgPointPlacementGenerate, cfgPointPlacementScore}

// cfgPluginSet is PluginSet.
type cfgPluginSet struct {
	Enabled  []cfgPlugin `json:"enabled,omitempty"`
	Disabled []cfgPlugin `json:"disabled,omitempty"`
}

// cfgPlugin is Plugin: a name and, for score plugins, a weight (nil or 0
// mean 1).
type cfgPlugin struct {
	Name   string `json:"name"`
	Weight *int32 `json:"weight,omitempty"`
}

// cfgPluginConfig is PluginConfig; Args are decoded per plugin
// (config_args.go).
type cfgPluginConfig struct {
	Name string          `json:"name"`
	Args json.RawMessage `json:"args,omitempty"`
}

// cfgDuration is metav1.Duration: a Go duration string such as "15s".
type cfgDuration struct{ time.Duration }

func (d cfgDuration) MarshalJSON() ([]byte, error) { return json.Marshal(d.Duration.String()) }

func (d *cfgDuration) UnmarshalJSON(b []byte) error {
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

// Plugin args wire types (kube-scheduler v1.36 config/v1/types_pluginargs.go
// and Koordinator's v1beta3/v1 LoadAwareSchedulingArgs), plus the two
// schedkit extensions (mode, compatibilityMode). apiVersion and kind, which
// args may carry, are checked and removed before decoding.

type cfgResourceSpec struct {
	Name   string `json:"name"`
	Weight int64  `json:"weight,omitempty"`
}

type cfgShapePoint struct {
	Utilization int32 `json:"utilization"`
	Score       int32 `json:"score"`
}

type cfgRTCRParam struct {
	Shape []cfgShapePoint `json:"shape,omitempty"`
}

type cfgScoringStrategy struct {
	Type                     string            `json:"type,omitempty"`
	Resources                []cfgResourceSpec `json:"resources,omitempty"`
	RequestedToCapacityRatio *cfgRTCRParam     `json:"requestedToCapacityRatio,omitempty"`
}

type cfgNodeResourcesFitArgs struct {
	IgnoredResources      []string            `json:"ignoredResources,omitempty"`
	IgnoredResourceGroups []string            `json:"ignoredResourceGroups,omitempty"`
	ScoringStrategy       *cfgScoringStrategy `json:"scoringStrategy,omitempty"`
}

type cfgBalancedAllocationArgs struct {
	Resources []cfgResourceSpec `json:"resources,omitempty"`
	Mode      string            `json:"mode,omitempty"`
}

type cfgPodTopologySpreadArgs struct {
	DefaultConstraints []framework.TopologySpreadConstraint `json:"defaultConstraints,omitempty"`
	DefaultingType     string                               `json:"defaultingType,omitempty"`
}

type cfgInterPodAffinityArgs struct {
	HardPodAffinityWeight              *int32 `json:"hardPodAffinityWeight,omitempty"`
	IgnorePreferredTermsOfExistingPods bool   `json:"ignorePreferredTermsOfExistingPods"`
}

type cfgNodeAffinityArgs struct {
	AddedAffinity *framework.NodeAffinity `json:"addedAffinity,omitempty"`
}

type cfgDefaultPreemptionArgs struct {
	MinCandidateNodesPercentage *int32 `json:"minCandidateNodesPercentage,omitempty"`
	MinCandidateNodesAbsolute   *int32 `json:"minCandidateNodesAbsolute,omitempty"`
}

type cfgLoadAwareAggregatedArgs struct {
	UsageThresholds         map[string]int64 `json:"usageThresholds,omitempty"`
	UsageAggregationType    string           `json:"usageAggregationType,omitempty"`
	UsageAggregatedDuration *cfgDuration     `json:"usageAggregatedDuration,omitempty"`
	ScoreAggregationType    string           `json:"scoreAggregationType,omitempty"`
	ScoreAggregatedDuration *cfgDuration     `json:"scoreAggregatedDuration,omitempty"`
}

type cfgLoadAwareArgs struct {
	FilterExpiredNodeMetrics             *bool                       `json:"filterExpiredNodeMetrics,omitempty"`
	NodeMetricExpirationSeconds          *int64                      `json:"nodeMetricExpirationSeconds,omitempty"`
	EnableScheduleWhenNodeMetricsExpired *bool                       `json:"enableScheduleWhenNodeMetricsExpired,omitempty"`
	ResourceWeights                      map[string]int64            `json:"resourceWeights,omitempty"`
	DominantResourceWeight               int64                       `json:"dominantResourceWeight,omitempty"`
	UsageThresholds                      map[string]int64            `json:"usageThresholds,omitempty"`
	ProdUsageThresholds                  map[string]int64            `json:"prodUsageThresholds,omitempty"`
	ProdUsageIncludeSys                  bool                        `json:"prodUsageIncludeSys,omitempty"`
	ScoreAccordingProdUsage              *bool                       `json:"scoreAccordingProdUsage,omitempty"`
	Estimator                            string                      `json:"estimator,omitempty"`
	EstimatedScalingFactors              map[string]int64            `json:"estimatedScalingFactors,omitempty"`
	EstimatedSecondsAfterPodScheduled    *int64                      `json:"estimatedSecondsAfterPodScheduled,omitempty"`
	EstimatedSecondsAfterInitialized     *int64                      `json:"estimatedSecondsAfterInitialized,omitempty"`
	AllowCustomizeEstimation             bool                        `json:"allowCustomizeEstimation,omitempty"`
	Aggregated                           *cfgLoadAwareAggregatedArgs `json:"aggregated,omitempty"`
	SupportedResources                   []string                    `json:"supportedResources,omitempty"`
	CompatibilityMode                    string                      `json:"compatibilityMode,omitempty"`
}
