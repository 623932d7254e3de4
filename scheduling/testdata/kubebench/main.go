// Command kubebench runs kube-scheduler v1.36.4's own framework on the
// varied workload schedkit's benchmarks use and compares it side by side
// with schedkit (see package bench; kube137/ is the v1.37.2 build):
//
//	kubebench run -dir D -stream varied|reqimages [-sampled] [-assumed]
//	kubebench compare -schedkit path/to/variedbench [-nodes 1000,5000] [-runs 3]
//
// run.sh builds both sides and runs compare.
package main

import (
	"os"

	"kubebench/bench"
)

func main() { bench.Main(os.Args[1:]) }
