package config

// SetDefaults is Default under the uniform Args interface: an empty
// DefaultingType becomes System (kube-scheduler v1.36
// SetDefaults_PodTopologySpreadArgs).
func (a *PodTopologySpreadArgs) SetDefaults() { a.Default() }
