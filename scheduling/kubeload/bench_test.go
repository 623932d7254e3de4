package kubeload

import (
	"flag"
	"testing"

	"github.com/schedkit/schedkit/internal/kubegen"
)

// large runs the load benchmarks on kubectl dumps of 5,000 nodes and
// 100,000 pods (generated once and kept in the temporary directory).
var large = flag.Bool("kubeload.large", false, "benchmark loading 5,000 nodes and 100,000 pods")

func benchDump(b *testing.B, cfg kubegen.Config, f kubegen.Format) []byte {
	b.Helper()
	data, err := kubegen.Cached(cfg, f)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// BenchmarkLoad reads a generated kubectl dump (realistic pods and nodes
// with managedFields, status conditions, ...) into a Dump and builds its
// Cluster: bytes/s and pods/s of the whole load.
func BenchmarkLoad(b *testing.B) {
	type size struct {
		name   string
		cfg    kubegen.Config
		format kubegen.Format
	}
	sizes := []size{
		{"json/100nodes-2kpods", kubegen.Config{Nodes: 100, Pods: 2000, Seed: 1}, kubegen.JSON},
		{"yaml/30nodes-500pods", kubegen.Config{Nodes: 30, Pods: 500, Seed: 1}, kubegen.YAML},
	}
	if *large {
		sizes = append(sizes,
			size{"json/5knodes-100kpods", kubegen.Config{Nodes: 5000, Pods: 90000, Seed: 1, NodeScale: 2, Compact: true}, kubegen.JSON},
			size{"yaml/500nodes-10kpods", kubegen.Config{Nodes: 500, Pods: 9000, Seed: 1}, kubegen.YAML})
	}
	for _, sz := range sizes {
		b.Run(sz.name, func(b *testing.B) {
			data := benchDump(b, sz.cfg, sz.format)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			pods := 0
			for b.Loop() {
				l := NewLoader(Options{})
				if err := l.ReadBytes(data, "bench"); err != nil {
					b.Fatal(err)
				}
				d, err := l.Dump()
				if err != nil {
					b.Fatal(err)
				}
				if _, err := d.Cluster(); err != nil {
					b.Fatal(err)
				}
				pods = len(d.Pods)
			}
			b.ReportMetric(float64(pods)*float64(b.N)/b.Elapsed().Seconds(), "pods/s")
		})
	}
}
