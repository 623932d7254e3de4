package parallel

import (
	"runtime"
	"syscall"
)

// yield gives the core to another thread while a worker spins: to one of
// the process's own (the Go scheduler's, every 16th call) or to any
// thread the kernel has waiting on the core, so that a spinning worker
// does not slow down the others when the machine has fewer free cores
// than workers.
func yield(i int) {
	if i&15 == 0 {
		runtime.Gosched()
		return
	}
	syscall.RawSyscall(syscall.SYS_SCHED_YIELD, 0, 0, 0)
}
