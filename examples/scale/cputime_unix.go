//go:build unix

package main

import (
	"runtime"
	"syscall"
	"time"
)

// cpuTime returns the process's user+system CPU time (getrusage), which a
// shared, loaded machine does not inflate as it does wall time.
func cpuTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}

// peakRSS returns the process's peak resident memory in bytes (getrusage's
// maxrss, in KiB on Linux).
func peakRSS() (uint64, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	if runtime.GOOS == "darwin" {
		return uint64(ru.Maxrss), true // bytes there
	}
	return uint64(ru.Maxrss) << 10, true
}
