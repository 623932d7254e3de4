package parallel

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// CPULoad is one CPU's time for a chain of dependent loads
// (LoadLatency).
type CPULoad struct {
	CPU   int
	Loads int
	Took  time.Duration
}

// NanosPerLoad returns the mean time of one load in nanoseconds.
func (c CPULoad) NanosPerLoad() float64 {
	return float64(c.Took.Nanoseconds()) / float64(max(c.Loads, 1))
}

// LoadLatency measures, one CPU after another, every CPU the process may
// run on: a thread bound to the CPU follows a chain of dependent loads
// through a buffer of size bytes, once to bring the buffer into the
// CPU's caches and then loads times, timed. The chain visits the buffer's
// 8-byte words in a fixed random order, so that each load waits for the
// one before and prefetching does not hide the caches' latency. A buffer
// a few times a core's private cache measures the shared cache and the
// path to it, which the per-node loops of a cycle read: on a VM whose
// vCPUs are not alike (one sharing its core with another guest, or far
// from the memory), the CPUs' times differ, and a loop split evenly
// between them waits for the slower. It needs Linux (CPU affinity); on
// other systems it returns an error.
func LoadLatency(size, loads int) ([]CPULoad, error) {
	if size < 64 {
		return nil, fmt.Errorf("parallel: LoadLatency(size=%d): want at least 64 bytes", size)
	}
	if loads < 1 {
		return nil, fmt.Errorf("parallel: LoadLatency(loads=%d): want at least 1", loads)
	}
	cpus, err := processCPUs()
	if err != nil {
		return nil, err
	}
	chain := loadChain(size/8, rand.New(rand.NewPCG(1, 2)))
	out := make([]CPULoad, 0, len(cpus))
	for _, cpu := range cpus {
		var d time.Duration
		var at uint64
		err := onCPU(cpu, func() {
			at = follow(chain, 0, len(chain))
			t0 := time.Now()
			at = follow(chain, at, loads)
			d = time.Since(t0)
		})
		if err != nil {
			return nil, err
		}
		if at >= uint64(len(chain)) { // the loads' result, used
			return nil, fmt.Errorf("parallel: LoadLatency: chain left the buffer at %d", at)
		}
		out = append(out, CPULoad{CPU: cpu, Loads: loads, Took: d})
	}
	return out, nil
}

// loadChain returns n words forming one cycle through every index in an
// order drawn from rng: word i holds the index that follows i.
func loadChain(n int, rng *rand.Rand) []uint64 {
	order := rng.Perm(n)
	chain := make([]uint64, n)
	for i, x := range order {
		chain[x] = uint64(order[(i+1)%n])
	}
	return chain
}

// follow takes steps loads along chain from index p and returns where it
// stopped.
func follow(chain []uint64, p uint64, steps int) uint64 {
	for range steps {
		p = chain[p]
	}
	return p
}
