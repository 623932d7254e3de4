package config

// SetDefaults does nothing: kube-scheduler v1.36 has no defaults for
// NodeAffinityArgs (addedAffinity stays absent).
func (a *NodeAffinityArgs) SetDefaults() {}
