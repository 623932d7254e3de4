// Command kubeoracle runs kube-scheduler v1.36.4's own code on inputs that
// schedkit's tests generate, so that their expected values come from kube
// rather than from schedkit. It is a separate module under testdata so that
// schedkit itself imports nothing from k8s.io. Each mode is a subcommand:
//
//	kubeoracle [volume]      kube's volume plugins (VolumeRestrictions,
//	                         NodeVolumeLimits, VolumeBinding, VolumeZone) on
//	                         the scenarios of scheduling/volume_kube_edge_test.go,
//	                         read as JSON lines from stdin; prints their
//	                         PreFilter and Filter verdicts as JSON lines.
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
//
// The mode's code lives in the file of its name, so that a mode can gain a
// kube-version switch without touching the others.
package main

import (
	"fmt"
	"os"
)

func main() {
	mode := ""
	if len(os.Args) > 1 {
		mode = os.Args[1]
	}
	switch mode {
	case "", "volume":
		runVolume()
	case "writeconfig":
		runWriteConfig(os.Args[2:])
	case "kube-scheduler":
		runKubeScheduler(os.Args[2:])
	default:
		fmt.Fprintf(os.Stderr, "kubeoracle: unknown mode %q (volume, writeconfig, kube-scheduler)\n", mode)
		os.Exit(2)
	}
}
