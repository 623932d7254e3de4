//go:build !linux

package procstat

import "time"

// ThreadCPUTime is not available on this platform.
func ThreadCPUTime() (time.Duration, bool) { return 0, false }
