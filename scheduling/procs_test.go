package scheduling

import "runtime"

// atLeastProcs raises GOMAXPROCS to n, if below, and returns what
// restores it: a loop uses at most GOMAXPROCS workers, and the
// parallelism tests want all of theirs to run.
func atLeastProcs(n int) func() {
	prev := runtime.GOMAXPROCS(max(n, runtime.GOMAXPROCS(0)))
	return func() { runtime.GOMAXPROCS(prev) }
}
