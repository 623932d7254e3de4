//go:build !unix

package procstat

import "time"

// CPUTime is not available on this platform.
func CPUTime() (time.Duration, bool) { return 0, false }

// PeakRSS is not available on this platform.
func PeakRSS() (uint64, bool) { return 0, false }
