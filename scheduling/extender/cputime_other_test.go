//go:build !unix

package extender

import "time"

func cpuTime() (time.Duration, bool) { return 0, false }
