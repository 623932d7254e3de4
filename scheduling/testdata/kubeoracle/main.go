// Command kubeoracle runs kube-scheduler's own code on inputs that
// schedkit's tests generate, so that their expected values come from kube
// rather than from schedkit. It is a separate module under testdata so that
// schedkit itself imports nothing from k8s.io. This module builds it
// against kube-scheduler v1.36.4; kube137/ is the same program (package
// oracle) built against v1.37.2:
//
//	cd scheduling/testdata/kubeoracle && go build -o /tmp/kubeoracle-1.36 .
//	cd scheduling/testdata/kubeoracle/kube137 && go build -o /tmp/kubeoracle-1.37 .
//
// The modes are described in package oracle.
package main

import (
	"os"

	"kubeoracle/oracle"
)

func main() { oracle.Main(os.Args[1:]) }
