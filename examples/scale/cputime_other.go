//go:build !unix

package main

import "time"

// cpuTime is not available here: the program reports wall time instead.
func cpuTime() (time.Duration, bool) { return 0, false }

// peakRSS is not available here.
func peakRSS() (uint64, bool) { return 0, false }
