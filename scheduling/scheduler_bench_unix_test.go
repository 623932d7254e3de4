//go:build unix

package scheduling

import (
	"syscall"
	"time"
)

// scCPUTime returns the process's user+system CPU time, so benchmarks can
// report throughput per CPU-second on a shared, loaded machine.
func scCPUTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
