package procstat

import (
	"runtime"
	"testing"
)

// TestCPUTimeAdvances: busy work moves the process's CPU time forward, and
// the peak RSS covers a buffer the test has touched.
func TestCPUTimeAdvances(t *testing.T) {
	before, ok := CPUTime()
	if !ok {
		t.Skip("no CPU time on " + runtime.GOOS)
	}
	buf := make([]byte, 32<<20)
	for i := range buf {
		buf[i] = byte(i)
	}
	x := 0
	for i := range 50_000_000 {
		x += i ^ int(buf[i%len(buf)])
	}
	after, _ := CPUTime()
	if after <= before {
		t.Errorf("CPU time %v then %v (x=%d): did not advance", before, after, x)
	}
	if rss, ok := PeakRSS(); ok && rss < uint64(len(buf)) {
		t.Errorf("peak RSS %d bytes, below the %d-byte buffer touched", rss, len(buf))
	}
}

// TestThreadCPUTimeAdvances: busy work on a locked thread moves its CPU
// time forward, and a thread's time stays within the process's.
func TestThreadCPUTimeAdvances(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	before, ok := ThreadCPUTime()
	if !ok {
		t.Skip("no thread CPU time on " + runtime.GOOS)
	}
	x := 0
	for i := range 50_000_000 {
		x += i ^ x>>3
	}
	after, _ := ThreadCPUTime()
	proc, _ := CPUTime()
	if after <= before {
		t.Errorf("thread CPU time %v then %v (x=%d): did not advance", before, after, x)
	}
	if after > proc {
		t.Errorf("thread CPU time %v above the process's %v", after, proc)
	}
}
