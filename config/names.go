package config

// Names of the kube-scheduler default plugins schedkit reproduces
// (pkg/scheduler/framework/plugins/names).
const (
	// ImageLocalityName is kube-scheduler's ImageLocality score plugin.
	ImageLocalityName = "ImageLocality"
	// NodeAffinityName is kube-scheduler's NodeAffinity plugin.
	NodeAffinityName = "NodeAffinity"
	// NodeResourcesFitName is kube-scheduler's NodeResourcesFit plugin
	// (filter on requests, score by LeastAllocated, MostAllocated or
	// RequestedToCapacityRatio).
	NodeResourcesFitName = "NodeResourcesFit"
	// NodeResourcesBalancedAllocationName is kube-scheduler's
	// NodeResourcesBalancedAllocation score plugin.
	NodeResourcesBalancedAllocationName = "NodeResourcesBalancedAllocation"
	// PodTopologySpreadName is kube-scheduler's PodTopologySpread plugin.
	PodTopologySpreadName = "PodTopologySpread"
	// InterPodAffinityName is kube-scheduler's InterPodAffinity plugin.
	InterPodAffinityName = "InterPodAffinity"
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
	// VolumeBindingName is kube-scheduler's VolumeBinding plugin.
	VolumeBindingName = "VolumeBinding"
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
	// TargetLoadPackingName is scheduler-plugins' Trimaran TargetLoadPacking
	// score plugin (pkg/trimaran/targetloadpacking).
	TargetLoadPackingName = "TargetLoadPacking"
	// LoadVariationRiskBalancingName is scheduler-plugins' Trimaran
	// LoadVariationRiskBalancing score plugin
	// (pkg/trimaran/loadvariationriskbalancing).
	LoadVariationRiskBalancingName = "LoadVariationRiskBalancing"
	// DynamicResourcesName is kube-scheduler's DynamicResources plugin.
	DynamicResourcesName = "DynamicResources"
)

// DynamicResourcesWeight is DynamicResources' score weight in kube's
// default profile (applyDynamicResources, v1.36 and v1.37).
const DynamicResourcesWeight = 2
