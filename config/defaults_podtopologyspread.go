package config

// SetDefaults fills unset fields as kube-scheduler v1.36's
// SetDefaults_PodTopologySpreadArgs does: an empty DefaultingType becomes
// System (even when DefaultConstraints are set, which Validate then
// rejects, as kube-scheduler does).
func (a *PodTopologySpreadArgs) SetDefaults() {
	if a.DefaultingType == "" {
		a.DefaultingType = SystemDefaulting
	}
}
