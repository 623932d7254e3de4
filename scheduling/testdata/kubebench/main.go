// Command kubebench runs kube-scheduler v1.36.4's own framework on the
// workloads schedkit's side exports (the varied workload its benchmarks
// use, and kube's own scheduler_perf cases) and compares it side by side
// with schedkit (see package bench; kube137/ is the v1.37.2 build):
//
//	kubebench run -dir D -stream STREAM [-sampled] [-assumed] [-workers W]
//	kubebench compare -schedkit path/to/variedbench [-nodes 1000,5000] [-runs 3] [-rows default|perf|all|...] [-workers 1,2]
//
// run.sh builds both sides and runs compare.
package main

import (
	"os"

	"kubebench/bench"
)

func main() { bench.Main(os.Args[1:]) }
