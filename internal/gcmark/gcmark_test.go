package gcmark

import (
	"runtime"
	"testing"
	"time"
)

// TestStartCollects: while started, collections run one after another;
// once stopped, none runs on its account.
func TestStartCollects(t *testing.T) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	first := ms.NumGC
	stop := Start()
	for ms.NumGC < first+3 {
		runtime.Gosched()
		runtime.ReadMemStats(&ms)
	}
	stop()
	runtime.ReadMemStats(&ms)
	stopped := ms.NumGC
	time.Sleep(20 * time.Millisecond) // room for the collections a running loop would make
	runtime.ReadMemStats(&ms)
	if ms.NumGC != stopped {
		t.Errorf("%d collections after stop", ms.NumGC-stopped)
	}
}
