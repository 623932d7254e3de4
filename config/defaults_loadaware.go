package config

// SetDefaults fills in Koordinator's defaults where a leaves them absent
// (SetDefaults_LoadAwareSchedulingArgs): resourceWeights and
// usageThresholds only when empty, estimatedScalingFactors completed with
// the missing cpu and memory keys; see withDefaults. Afterwards a owns its
// maps (the caller's are not modified).
func (a *LoadAwareSchedulingArgs) SetDefaults() { *a = a.withDefaults() }
