package scheduling

import "time"

// CPUTime is scCPUTime for the external benchmarks: the process's CPU
// time, when the platform reports it.
func CPUTime() (time.Duration, bool) { return scCPUTime() }
