package config

// SetDefaults replaces a with a.WithDefaults(): Koordinator's
// SetDefaults_LoadAwareSchedulingArgs (resourceWeights and usageThresholds
// defaulted only when empty, estimatedScalingFactors completed with the
// missing cpu and memory keys). The result owns its maps.
func (a *LoadAwareSchedulingArgs) SetDefaults() { *a = a.WithDefaults() }
