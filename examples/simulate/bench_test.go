package main

import (
	"context"
	"io"
	"path/filepath"
	"testing"
)

// BenchmarkOverloaded runs the built-in workload on a cluster too small for
// it (40 pods per node, about twice what the nodes hold), one built-in
// profile at a time: pods that never fit retry and dry-run preemption, and
// the high-priority ones preempt. It is the overloaded comparison of
// docs/performance.md at 1/40 of its size.
func BenchmarkOverloaded(b *testing.B) {
	for _, p := range []string{"LeastAllocated", "MostAllocated", "LoadAware"} {
		b.Run(p, func(b *testing.B) {
			svg := filepath.Join(b.TempDir(), "chart.svg")
			for b.Loop() {
				if err := run(context.Background(), []string{"-nodes", "50", "-pods", "2000", "-profiles", p, "-svg", svg}, io.Discard, io.Discard, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
