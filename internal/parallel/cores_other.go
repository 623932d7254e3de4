//go:build !linux

package parallel

import "errors"

// errNoAffinity is LoadLatency's error where CPU affinity is unavailable.
var errNoAffinity = errors.New("parallel: LoadLatency needs CPU affinity (Linux)")

func processCPUs() ([]int, error) { return nil, errNoAffinity }

func onCPU(int, func()) error { return errNoAffinity }
