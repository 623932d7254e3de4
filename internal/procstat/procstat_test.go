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
