// Package oracle is kubeoracle's program, built once per kube-scheduler
// release: the parent module pins every k8s.io module to v1.36.4, kube137/
// to v1.37.2, so the same code answers for either release and any
// difference between the two answers is kube's. Each mode is a subcommand:
//
//	kubeoracle [volume]      kube's volume plugins (VolumeRestrictions,
//	                         NodeVolumeLimits, VolumeBinding, VolumeZone) on
//	                         the scenarios of schedkit's volume edge tests,
//	                         read as JSON lines from stdin; prints their
//	                         PreFilter and Filter verdicts (and, for a
//	                         scenario with "score": true, VolumeBinding's
//	                         PreScore verdict and Score per node) as JSON
//	                         lines; the release's default feature gates,
//	                         changed per scenario by "featureGates".
//	kubeoracle cycle         kube-scheduler's own Scheduler (the release's
//	                         default profile without NodeDeclaredFeatures,
//	                         which schedkit does not model) on small
//	                         clusters: a JSON array of
//	                         cases on stdin (see cycle.go), one JSON line
//	                         per case with, per incoming pod, every node's
//	                         filter status, each score plugin's raw and
//	                         weighted score and the total, the selected
//	                         node and the FitError message with
//	                         PostFilter's; a queue case goes through the
//	                         scheduling queue and reports which pods
//	                         cluster events retried.
//	kubeoracle writeconfig   KubeSchedulerConfiguration documents read as
//	                         JSON lines {"name","config"} from stdin; prints
//	                         {"name","written"} (what kube-scheduler
//	                         --write-config-to writes) or {"name","error"}
//	                         per document (see writeconfig.go); arguments
//	                         after "--" go to kube-scheduler, e.g.
//	                         --feature-gates=StorageCapacityScoring=true.
//	kubeoracle kube-scheduler [flags]
//	                         kube-scheduler's own main (app.NewSchedulerCommand),
//	                         which writeconfig runs once per document.
//	kubeoracle version       the kube-scheduler release it was built with.
package oracle

import (
	"fmt"
	"os"
	"runtime/debug"
)

// Main runs the mode named by args[0].
func Main(args []string) {
	mode := ""
	if len(args) > 0 {
		mode = args[0]
	}
	switch mode {
	case "", "volume":
		runVolume()
	case "writeconfig":
		runWriteConfig(args[1:])
	case "kube-scheduler":
		runKubeScheduler(args[1:])
	case "cycle":
		runCycles()
	case "version":
		fmt.Println(kubeRelease())
	default:
		fmt.Fprintf(os.Stderr, "kubeoracle: unknown mode %q (volume, cycle, writeconfig, kube-scheduler, version)\n", mode)
		os.Exit(2)
	}
}

// kubeRelease is the version of k8s.io/kubernetes in the binary.
func kubeRelease() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "k8s.io/kubernetes" {
				if d.Replace != nil {
					return d.Replace.Version
				}
				return d.Version
			}
		}
	}
	return "unknown"
}
