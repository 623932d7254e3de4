package config

// SetDefaults does nothing: kube-scheduler v1.36 defaults only an absent
// hardPodAffinityWeight (to 1), and in this type every value, 0 included,
// is an explicit setting. Absent fields are defaulted by starting from
// DefaultInterPodAffinityArgs, as configuration loading does.
func (a *InterPodAffinityArgs) SetDefaults() {}
