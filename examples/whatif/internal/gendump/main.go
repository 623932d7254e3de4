// Command gendump writes the sample cluster dump of examples/whatif: a
// realistic cluster (internal/kubegen: three zones, general, high-memory
// and tainted GPU pools, DaemonSets, Deployments with anti-affinity and
// zone spread, StatefulSets with volumeClaimTemplates, Jobs with finished
// pods, PriorityClasses, PodDisruptionBudgets, GKE's StorageClasses,
// CSIDriver and CSINodes, the StatefulSet replicas' claims bound to zonal
// volumes, Koordinator NodeMetrics, pending pods) in the
// shape `kubectl get … -o json` (or -o yaml) prints, every field an API
// server writes included. examples/whatif regenerates its sample with
//
//	go generate ./examples/whatif
//
// Output ending in .gz is gzip-compressed; the same flags give the same
// bytes.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/schedkit/schedkit/internal/kubegen"
)

func main() {
	nodes := flag.Int("nodes", 300, "nodes")
	pods := flag.Int("pods", 4000, "workload pods besides the two DaemonSet pods per node")
	seed := flag.Uint64("seed", 1, "random seed")
	metrics := flag.Bool("nodemetrics", true, "add a Koordinator NodeMetric per node")
	out := flag.String("o", "", "output file (.json, .yaml, optionally .gz); empty: JSON on stdout")
	flag.Parse()
	if err := run(*out, kubegen.Config{Nodes: *nodes, Pods: *pods, Seed: *seed, NodeMetrics: *metrics}); err != nil {
		fmt.Fprintln(os.Stderr, "gendump:", err)
		os.Exit(1)
	}
}

func run(out string, cfg kubegen.Config) error {
	format := kubegen.JSON
	if strings.HasSuffix(strings.TrimSuffix(out, ".gz"), ".yaml") {
		format = kubegen.YAML
	}
	return kubegen.WriteTo(out, func(w io.Writer) error { return kubegen.Write(w, cfg, format) })
}
