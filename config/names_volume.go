package config

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
