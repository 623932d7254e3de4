// Package sweep runs capacity-planning sweeps: every combination of
// clusters, workloads, scheduling profiles, kube-scheduler releases and
// seeds, each a deterministic replay (a unit), spread over the cores of a
// machine or over the pods of a Kubernetes Indexed Job, and merged into
// one report.
//
// A Spec (ReadSpec, YAML or JSON, strict and bounded by Limits) gives the
// values of each axis; Spec.Units lists the units of their cross product
// (or the units the spec names), each with a stable id that hashes what
// it runs and a stable index. Run runs one shard of them (the units whose
// index is the shard modulo the shards), several at a time, and writes a
// JSON line per unit: its axes, pods placed, pending and preempted, node
// utilization and its spread, stranded capacity, decisions per second and
// the SHA-256 of its decision log. Merge reads any set of shard outputs,
// refuses duplicates and names missing units, and the Report it returns
// writes a table, CSV, the merged lines and an SVG chart.
//
//	spec, err := sweep.ReadSpecFile("sweep.yaml", sweep.Limits{})
//	units, err := spec.Units()
//	_, err = sweep.Run(ctx, units, sweep.RunOptions{Shard: 0, Shards: 4}, shardFile)
//	report, err := sweep.Merge(units, []sweep.Input{{Name: "shard-0", R: shard0}, …}, sweep.MergeOptions{})
//	err = report.WriteTable(os.Stdout)
//
// Each unit runs with its own seed and its scheduler's per-node loops on
// one goroutine, so its results depend on the unit alone: merging the
// shards of any split, run at any parallelism, gives the report of one
// unsharded run, timings aside. The units share nothing but the files
// they read.
//
// Map of the package:
//
//   - spec.go: Spec and its axes, Limits, ReadSpec.
//   - units.go: Unit, Axes, Spec.Units (ids, order), WriteUnits and
//     ReadUnits.
//   - run.go: Run, Select, each unit's workload and scheduler.
//   - result.go: Result, one JSON line per unit.
//   - merge.go: Merge and Report (table, CSV, JSON lines, WriteFiles).
//   - chart.go: Report.WriteSVG.
package sweep
