//go:build unix

package procstat

import (
	"runtime"
	"syscall"
	"time"
)

// CPUTime returns the process's user+system CPU time (getrusage) and
// whether the platform reports it.
func CPUTime() (time.Duration, bool) { return rusageCPU(syscall.RUSAGE_SELF) }

// rusageCPU returns who's user+system CPU time (getrusage) and whether
// the platform reports it.
func rusageCPU(who int) (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}

// PeakRSS returns the process's peak resident memory in bytes (getrusage's
// maxrss) and whether the platform reports it.
func PeakRSS() (uint64, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	if runtime.GOOS == "darwin" {
		return uint64(ru.Maxrss), true // bytes there
	}
	return uint64(ru.Maxrss) << 10, true // KiB elsewhere
}
