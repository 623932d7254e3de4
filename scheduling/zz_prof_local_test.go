package scheduling_test

import (
	"context"
	"os"
	"runtime"
	"runtime/pprof"
	"testing"

	"github.com/schedkit/schedkit/scheduling"
)

// Throwaway (not committed): a 1 kHz CPU profile of the 5k capacity
// question alone.
func BenchmarkZZProf(b *testing.B) {
	out := os.Getenv("ZZPROF")
	if out == "" {
		b.Skip()
	}
	w, d := wbCluster(b, 5000, 90000, 2)
	t := wbTemplate(b, d, wbSpread)
	ctx := context.Background()
	if _, err := w.Capacity(ctx, t.Pod, scheduling.CapacityOptions{}); err != nil {
		b.Fatal(err)
	}
	f, _ := os.Create(out)
	runtime.SetCPUProfileRate(2000)
	pprof.StartCPUProfile(f)
	for b.Loop() {
		if _, err := w.Capacity(ctx, t.Pod, scheduling.CapacityOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	pprof.StopCPUProfile()
	f.Close()
}
