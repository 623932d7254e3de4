//go:build !unix

package scheduling

import "time"

func scCPUTime() (time.Duration, bool) { return 0, false }
