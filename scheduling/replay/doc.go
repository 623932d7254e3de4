// Package replay runs scenarios through a scheduling.Scheduler on a virtual
// clock: an initial cluster, then timed pod arrivals with durations, node
// events, gangs and kube's PodGroups, as a simulation of a cluster over
// time. It returns every decision, every pod's fate and packing metrics,
// and the same scenario and seed give the same decision log at any
// parallelism.
//
//	var s replay.Scenario
//	err := replay.ReadCluster(clusterFile, "cluster.json", &s)
//	err = replay.ReadArrivals(arrivalsFile, "arrivals.json", &s)
//	res, err := replay.Replay(ctx, &s, replay.Options{Seed: 1})
//	err = res.WriteLog(os.Stdout)
//
// A long replay need not hold its decisions: Options.OnDecision
// receives each one as it is made, and DiscardDecisions leaves
// Result.Decisions empty.
//
// Map of the package:
//
//   - replay.go: Replay and its Options; Result (decisions,
//     PodOutcome per pod with its PodFate, metrics, WriteLog) and the event
//     loop (arrivals, completions, node events, backoff and Permit
//     deadlines, the timeline merging the sorted arrivals with the other
//     events).
//   - scenario.go: Scenario (nodes, running pods, arrivals, NodeEvents,
//     storage, metrics and loads), its Validate, and ReadCluster and
//     ReadArrivals, the JSON formats of examples/simulate's -cluster and
//     -workload files (ReadOptions bound untrusted input).
//   - scenario_gangs.go: GangArrival and WorkloadGroupArrival, gangs that
//     arrive as a whole, and their file form.
//   - scenario_storage.go: the storage objects of cluster and arrivals
//     files and the replay's cluster built from them.
//   - scenario_dra.go: the Dynamic Resource Allocation objects of a
//     cluster file, validated.
//   - gangs.go: GangOutcome, each gang's time to become whole and the
//     pod-seconds its bound pods waited idle.
//   - displaced.go: Displacement, each pod preempted or evicted and where it
//     went next.
//   - metrics.go: MeasurePacking and PackingMetrics (utilization,
//     imbalance and fragmentation of a snapshot).
package replay
