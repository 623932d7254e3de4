package parallel

import (
	"fmt"
	"runtime"
	"syscall"
	"unsafe"
)

// cpuMask is a kernel CPU affinity mask for up to 1,024 CPUs.
type cpuMask [16]uint64

// processCPUs returns the CPUs the calling thread may run on, in
// increasing order.
func processCPUs() ([]int, error) {
	var m cpuMask
	if _, _, errno := syscall.RawSyscall(syscall.SYS_SCHED_GETAFFINITY, 0, unsafe.Sizeof(m), uintptr(unsafe.Pointer(&m))); errno != 0 {
		return nil, fmt.Errorf("parallel: sched_getaffinity: %w", errno)
	}
	var cpus []int
	for i, w := range m {
		for b := 0; b < 64; b++ {
			if w&(1<<b) != 0 {
				cpus = append(cpus, 64*i+b)
			}
		}
	}
	return cpus, nil
}

// pinThread binds the calling OS thread to cpu.
func pinThread(cpu int) error {
	var m cpuMask
	if cpu < 0 || cpu >= 64*len(m) {
		return fmt.Errorf("parallel: CPU %d out of range", cpu)
	}
	m[cpu/64] = 1 << (cpu % 64)
	if _, _, errno := syscall.RawSyscall(syscall.SYS_SCHED_SETAFFINITY, uintptr(syscall.Gettid()), unsafe.Sizeof(m), uintptr(unsafe.Pointer(&m))); errno != 0 {
		return fmt.Errorf("parallel: sched_setaffinity to CPU %d: %w", cpu, errno)
	}
	return nil
}

// onCPU runs f on a goroutine locked to an OS thread bound to cpu. The
// thread is not unlocked, so the runtime ends it with the goroutine
// rather than handing a pinned thread to other goroutines.
func onCPU(cpu int, f func()) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if err := pinThread(cpu); err != nil {
			errc <- err
			return
		}
		f()
		errc <- nil
	}()
	return <-errc
}
