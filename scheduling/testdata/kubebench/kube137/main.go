// Command kubebench, built against kube-scheduler v1.37.2: the harness of
// the parent module (package bench) with every k8s.io module pinned to
// v1.37.2 by this module's go.mod.
package main

import (
	"os"

	"kubebench/bench"
)

func main() { bench.Main(os.Args[1:]) }
