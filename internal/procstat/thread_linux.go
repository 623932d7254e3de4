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
func ThreadCPUTime() (time.Duration, bool) { return rusageCPU(syscall.RUSAGE_THREAD) }
