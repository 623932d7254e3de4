//go:build linux

package procstat

import (
	"syscall"
	"time"
)

// ThreadCPUTime returns the calling thread's user+system CPU time
// (getrusage RUSAGE_THREAD) and whether the platform reports it. The
// caller locks its goroutine to the thread (runtime.LockOSThread) for
// the span it measures.
func ThreadCPUTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_THREAD, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
