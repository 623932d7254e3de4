package config

// Names of the kube-scheduler v1.36 default plugins schedkit reproduces
// (pkg/scheduler/framework/plugins/names). Both halves of a plugin that
// spans extension points report the same name.
const (
	// NodeResourcesFitName is kube-scheduler's NodeResourcesFit (filter on
	// requests, score by LeastAllocated/MostAllocated/RequestedToCapacityRatio).
	NodeResourcesFitName = "NodeResourcesFit"
	// NodeResourcesBalancedAllocationName is kube-scheduler's
	// NodeResourcesBalancedAllocation score plugin.
	NodeResourcesBalancedAllocationName = "NodeResourcesBalancedAllocation"
	// ImageLocalityName is kube-scheduler's ImageLocality score plugin.
	ImageLocalityName = "ImageLocality"
	// TaintTolerationName is kube-scheduler's TaintToleration plugin.
	TaintTolerationName = "TaintToleration"
	// NodeAffinityName is kube-scheduler's NodeAffinity plugin.
	NodeAffinityName = "NodeAffinity"
	// NodeNameName is kube-scheduler's NodeName filter.
	NodeNameName = "NodeName"
	// NodePortsName is kube-scheduler's NodePorts filter.
	NodePortsName = "NodePorts"
	// NodeUnschedulableName is kube-scheduler's NodeUnschedulable filter.
	NodeUnschedulableName = "NodeUnschedulable"
	// PrioritySortName is kube-scheduler's PrioritySort queue-sort plugin.
	PrioritySortName = "PrioritySort"
)
