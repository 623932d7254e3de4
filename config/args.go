package config

// Args is the uniform interface of the plugin argument types in this
// package, used by configuration loading (package scheduling) to treat every
// plugin's args alike. SetDefaults fills the fields a configuration file
// left absent exactly as the anchor's versioned SetDefaults does (for
// kube-scheduler v1.36: apis/config/v1/defaults.go; for Koordinator:
// SetDefaults_LoadAwareSchedulingArgs); it is idempotent. Validate reports
// every invalid field, each error naming the field and its value.
//
// Fields whose absence the anchor distinguishes from an explicit zero (for
// example InterPodAffinity's hardPodAffinityWeight, where 0 is valid) cannot
// be told apart in a plain value; start from the type's Default…Args()
// value and overwrite what the file gives, as package scheduling does.
type Args interface {
	SetDefaults()
	Validate() error
}

var (
	_ Args = (*NodeResourcesFitArgs)(nil)
	_ Args = (*NodeResourcesBalancedAllocationArgs)(nil)
	_ Args = (*PodTopologySpreadArgs)(nil)
	_ Args = (*InterPodAffinityArgs)(nil)
	_ Args = (*NodeAffinityArgs)(nil)
	_ Args = (*LoadAwareSchedulingArgs)(nil)
	_ Args = (*DefaultPreemptionArgs)(nil)
)
