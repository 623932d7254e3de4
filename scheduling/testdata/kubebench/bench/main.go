package bench

import (
	"fmt"
	"os"
	"runtime/debug"
)

// Main runs the subcommand of args (run or compare) and exits on error.
func Main(args []string) {
	if len(args) < 1 {
		fmt.Fprintln(os.Stderr, "usage: kubebench run|compare [flags]")
		os.Exit(2)
	}
	var err error
	switch args[0] {
	case "run":
		err = runKube(args[1:])
	case "compare":
		err = runCompare(args[1:])
	default:
		err = fmt.Errorf("unknown command %q (run, compare)", args[0])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "kubebench:", err)
		os.Exit(1)
	}
}

// kubeVersion is the version of k8s.io/kubernetes built in.
func kubeVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	for _, d := range bi.Deps {
		if d.Path == "k8s.io/kubernetes" {
			if d.Replace != nil {
				return d.Replace.Version
			}
			return d.Version
		}
	}
	return "unknown"
}
