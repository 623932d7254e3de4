// Command kubeoracle, built against kube-scheduler v1.37.2: the program of
// the parent module (package oracle) with every k8s.io module pinned to
// v1.37.2 by this module's go.mod.
package main

import (
	"os"

	"kubeoracle/oracle"
)

func main() { oracle.Main(os.Args[1:]) }
