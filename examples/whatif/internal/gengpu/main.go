// Command gengpu writes the GPU sample dump of examples/whatif
// (internal/kubegen.WriteGPU): twelve nodes with A100, H100 and L4 GPUs of
// one driver and MI300X GPUs of another, published in ResourceSlices, a
// DeviceClass per model, claim templates, and pods holding allocated
// claims, in the shape `kubectl get … -o json` prints. examples/whatif
// regenerates it with
//
//	go generate ./examples/whatif
//
// Output ending in .gz is gzip-compressed; the output is always the same.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/schedkit/schedkit/internal/kubegen"
)

func main() {
	out := flag.String("o", "", "output file; empty: stdout")
	flag.Parse()
	if err := run(*out); err != nil {
		fmt.Fprintln(os.Stderr, "gengpu:", err)
		os.Exit(1)
	}
}

func run(out string) error { return kubegen.WriteTo(out, kubegen.WriteGPU) }
