package config

// SetDefaults does nothing: kube-scheduler v1.36 defaults only absent
// fields (minCandidateNodesPercentage 10, minCandidateNodesAbsolute 100),
// and in this type 0 is an explicit setting. Absent fields are defaulted by
// starting from DefaultDefaultPreemptionArgs, as configuration loading does.
func (a *DefaultPreemptionArgs) SetDefaults() {}
