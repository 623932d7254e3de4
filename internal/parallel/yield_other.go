//go:build !linux

package parallel

import "runtime"

// yield lets the Go scheduler run another goroutine while a worker spins.
func yield(int) { runtime.Gosched() }
