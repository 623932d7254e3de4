// Package procstat reads the process's own CPU time and peak memory, which
// benchmarks and example programs report instead of wall time on shared,
// loaded machines.
package procstat
