// Command variedbench is schedkit's side of the side-by-side measurement
// against kube-scheduler's own framework (the kubebench module under
// scheduling/testdata/kubebench runs kube's side and drives both). It works
// on two kinds of workload: of the varied kind, the varied workload of the
// scheduling package's BenchmarkVariedCycle (internal/st NewVaried: the
// same seeds, the same cluster, the same incoming streams "varied" and
// "reqimages", and a stream "daemonsets" of DaemonSet pods, each naming
// its node, daemonsets.go), the mixed workload (mixed.go: a production-like
// cluster of many teams, generated independently, with its stream
// "mixed") and the platform workload (platform.go: many small apps over
// racks and blocks, generated independently of both, with its stream
// "platform"); and kube-scheduler v1.37.2's own scheduler_perf test cases at
// their 5,000-node sizes (perf.go), each a cluster and one stream named
// after the case:
//
//	variedbench list
//	    prints each stream, its workload and its kind (varied or
//	    scheduler_perf), one stream a line.
//	variedbench export -workload varied|mixed|platform|CASE -nodes N -dir D
//	    writes the cluster (namespaces, nodes, existing pods) to
//	    D/cluster.json, each incoming stream to D/STREAM.json (its pods
//	    in order, and the nodes its churn adds) and its churn, if any, to
//	    D/STREAM.events.json, the Lists of v1 objects in the shape
//	    `kubectl get -o json` prints (scheduling/kubeload's writer).
//	variedbench run -nodes N -stream STREAM [-sampled] [-assumed] [-workers W]
//	    schedules the warm-up pods, then times the next pods of the stream
//	    with the default profile and W workers (the framework's
//	    parallelism), and prints one JSON line: CPU time (getrusage, user +
//	    system, every thread) and wall time of the timed loop, nodes
//	    evaluated, pods placed, allocations. -parity F writes each pod's
//	    outcome (nodes evaluated, feasible nodes, best total, ties, node
//	    chosen) as JSON lines for the comparison with kube's side; -follow
//	    F places each pod whose best nodes tie where kube's records F say
//	    kube placed it (with -assumed, the clusters then stay the same on
//	    both sides); -tieseed seeds schedkit's tie-break draws;
//	    -cpuprofile F profiles the timed loop; -steps adds each step's
//	    time per pod (steps_ns: PreFilter, Filter, PreScore, Score,
//	    NormalizeScore, SelectHost).
//	variedbench workers -nodes N -stream STREAM [-sampled] [-workers W] [-block B] [-rounds R]
//	    schedules the timed pods against the cluster as it is, in blocks
//	    of B pods, each block three ways one after the other (the six
//	    orders in turn, so that none runs after another more often): on
//	    one worker, on W workers, and
//	    shared between two frameworks of one worker each scheduling at
//	    once, each taking the block's next pod; prints one JSON line: the
//	    wall time per pod of each way, and the medians over the blocks of
//	    W workers' time and the split's over one worker's (the split's is
//	    the floor: what two cores give the same work with nothing shared
//	    but the process). Blocks default to 300 pods: the first loops of
//	    a block of W workers find its helpers asleep after the other
//	    ways' blocks, and the split starts a goroutine, which in blocks
//	    of 20 pods (1–2 ms) raised both ratios by a tenth or more.
//
// Nodes are listed in the order kube-scheduler's node tree lists them
// (zones in turn, see kubeNodeOrder) unless -order generated is given, so
// that kube's round-robin sampling walks the nodes in the same order as
// schedkit's and the sampled cycles can be compared pod by pod.
package main

import (
	"fmt"
	"io"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: variedbench export|run|workers|list [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "export":
		err = runExport(os.Args[2:])
	case "run":
		err = runBench(os.Args[2:])
	case "list":
		err = listStreams(os.Stdout)
	case "workers":
		err = runWorkers(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q (export, run, workers, list)", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "variedbench:", err)
		os.Exit(1)
	}
}

// Kinds of stream listStreams prints.
const (
	kindVaried = "varied"
	kindPerf   = "scheduler_perf"
)

// listStreams writes each stream with its workload and kind, one stream a
// line: the varied workload's streams, the mixed workload's, the platform
// workload's, then the scheduler_perf cases.
func listStreams(w io.Writer) error {
	for _, s := range []string{streamVaried, streamReqImages, streamDaemonSets} {
		if _, err := fmt.Fprintln(w, s, workloadVaried, kindVaried); err != nil {
			return err
		}
	}
	if _, err := fmt.Fprintln(w, streamMixed, workloadMixed, kindVaried); err != nil {
		return err
	}
	if _, err := fmt.Fprintln(w, streamPlatform, workloadPlatform, kindVaried); err != nil {
		return err
	}
	for _, c := range perfCases {
		if _, err := fmt.Fprintln(w, c.name, c.name, kindPerf); err != nil {
			return err
		}
	}
	return nil
}
