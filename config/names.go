package config

// Names of kube-scheduler's default plugins schedkit reproduces (v1.37's
// and v1.36's; pkg/scheduler/framework/plugins/names). Both halves of a
// plugin that spans extension points report the same name.
const (
	// ImageLocalityName is kube-scheduler's ImageLocality score plugin.
	ImageLocalityName = "ImageLocality"
	// TaintTolerationName is kube-scheduler's TaintToleration plugin.
	TaintTolerationName = "TaintToleration"
	// NodeNameName is kube-scheduler's NodeName filter.
	NodeNameName = "NodeName"
	// NodePortsName is kube-scheduler's NodePorts filter.
	NodePortsName = "NodePorts"
	// NodeUnschedulableName is kube-scheduler's NodeUnschedulable filter.
	NodeUnschedulableName = "NodeUnschedulable"
	// PrioritySortName is kube-scheduler's PrioritySort queue-sort plugin.
	PrioritySortName = "PrioritySort"
)

// Names of kube-scheduler's volume and gating plugins
// (pkg/scheduler/framework/plugins/names).
const (
	// VolumeZoneName is kube-scheduler's VolumeZone filter.
	VolumeZoneName = "VolumeZone"
	// VolumeRestrictionsName is kube-scheduler's VolumeRestrictions filter.
	VolumeRestrictionsName = "VolumeRestrictions"
	// NodeVolumeLimitsName is kube-scheduler's NodeVolumeLimits (CSI
	// attach limits) filter.
	NodeVolumeLimitsName = "NodeVolumeLimits"
	// SchedulingGatesName is kube-scheduler's SchedulingGates PreEnqueue
	// plugin.
	SchedulingGatesName = "SchedulingGates"
	// EBSLimitsName, GCEPDLimitsName, AzureDiskLimitsName and
	// CinderLimitsName are the in-tree volume limit filters of
	// kube-scheduler ≤ v1.31 (in the default profile up to v1.30).
	EBSLimitsName       = "EBSLimits"
	GCEPDLimitsName     = "GCEPDLimits"
	AzureDiskLimitsName = "AzureDiskLimits"
	CinderLimitsName    = "CinderLimits"
)

// Names of the plugins that work with the scheduler: kube-scheduler's
// DefaultBinder and DefaultPreemption, its alpha workload plugins
// (GangScheduling, TopologyPlacementGenerator, PodGroupPodsCount), and
// scheduler-plugins' Coscheduling.
const (
	// DefaultBinderName is kube-scheduler's DefaultBinder bind plugin.
	DefaultBinderName = "DefaultBinder"
	// DefaultPreemptionName is kube-scheduler's DefaultPreemption
	// PostFilter plugin.
	DefaultPreemptionName = "DefaultPreemption"
	// GangSchedulingName is kube-scheduler's GangScheduling plugin
	// (pkg/scheduler/framework/plugins/gangscheduling).
	GangSchedulingName = "GangScheduling"
	// TopologyPlacementGeneratorName is kube-scheduler's
	// TopologyPlacementGenerator placement plugin.
	TopologyPlacementGeneratorName = "TopologyPlacementGenerator"
	// PodGroupPodsCountName is kube-scheduler's PodGroupPodsCount
	// placement score plugin.
	PodGroupPodsCountName = "PodGroupPodsCount"
	// CoschedulingName is scheduler-plugins' Coscheduling plugin
	// (pkg/coscheduling).
	CoschedulingName = "Coscheduling"
)
