package parallel

import (
	"math/rand/v2"
	"runtime"
	"testing"
)

func TestLoadChainIsOneCycle(t *testing.T) {
	for _, n := range []int{1, 2, 3, 64, 1000} {
		chain := loadChain(n, rand.New(rand.NewPCG(uint64(n), 7)))
		seen := make([]bool, n)
		p := uint64(0)
		for range n {
			if seen[p] {
				t.Fatalf("n=%d: index %d visited twice before every index", n, p)
			}
			seen[p] = true
			p = chain[p]
		}
		if p != 0 {
			t.Errorf("n=%d: after %d loads the chain is at %d, want back at 0", n, n, p)
		}
	}
}

func TestLoadLatencyMeasuresEveryCPU(t *testing.T) {
	if runtime.GOOS != "linux" {
		if _, err := LoadLatency(1<<12, 100); err == nil {
			t.Fatal("LoadLatency without CPU affinity: no error")
		}
		return
	}
	cpus, err := processCPUs()
	if err != nil {
		t.Fatal(err)
	}
	got, err := LoadLatency(1<<14, 10000)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(cpus) {
		t.Fatalf("LoadLatency measured %d CPUs, the process may run on %d (%v)", len(got), len(cpus), cpus)
	}
	for i, c := range got {
		if c.CPU != cpus[i] {
			t.Errorf("entry %d is CPU %d, want %d", i, c.CPU, cpus[i])
		}
		if c.Loads != 10000 || c.Took <= 0 || c.NanosPerLoad() <= 0 {
			t.Errorf("CPU %d: %d loads in %v (%.2f ns a load), want 10000 in a positive time", c.CPU, c.Loads, c.Took, c.NanosPerLoad())
		}
	}
}

func TestLoadLatencyRejectsBadArguments(t *testing.T) {
	for _, tc := range []struct{ size, loads int }{{63, 1}, {0, 1}, {64, 0}, {1 << 12, -1}} {
		if _, err := LoadLatency(tc.size, tc.loads); err == nil {
			t.Errorf("LoadLatency(%d, %d): no error", tc.size, tc.loads)
		}
	}
}
