// Command variedbench is schedkit's side of the side-by-side measurement
// against kube-scheduler's own framework (the kubebench module under
// scheduling/testdata/kubebench runs kube's side and drives both). It works
// on the varied workload of the scheduling package's BenchmarkVariedCycle
// (internal/st NewVaried: the same seeds, the same cluster, the same
// incoming streams):
//
//	variedbench export -nodes N -dir D
//	    writes the cluster (namespaces, nodes, existing pods) to
//	    D/cluster.json and the incoming streams to D/varied.json and
//	    D/reqimages.json, each one List of v1 objects in the shape
//	    `kubectl get -o json` prints (scheduling/kubeload's writer).
//	variedbench run -nodes N -stream varied|reqimages [-sampled] [-assumed]
//	    schedules the warm-up pods, then times the next pods of the stream
//	    with the default profile on one core, and prints one JSON line: CPU
//	    time (getrusage, user + system) and wall time of the timed loop,
//	    nodes evaluated, pods placed. -parity F writes each pod's outcome
//	    (nodes evaluated, feasible nodes, best total, ties, node chosen) as
//	    JSON lines for the comparison with kube's side; -follow F places
//	    each pod whose best nodes tie where kube's records F say kube
//	    placed it (with -assumed, the clusters then stay the same on both
//	    sides); -tieseed seeds schedkit's tie-break draws; -cpuprofile F
//	    profiles the timed loop.
//
// Nodes are listed in the order kube-scheduler's node tree lists them
// (zones in turn, see kubeNodeOrder) unless -order generated is given, so
// that kube's round-robin sampling walks the nodes in the same order as
// schedkit's and the sampled cycles can be compared pod by pod.
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: variedbench export|run [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "export":
		err = runExport(os.Args[2:])
	case "run":
		err = runBench(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q (export, run)", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "variedbench:", err)
		os.Exit(1)
	}
}
