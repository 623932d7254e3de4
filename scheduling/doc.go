// Package scheduling is kube-scheduler's scheduler built on the framework,
// over an in-memory cluster, plus the simulation tools around it.
//
//   - Cluster holds nodes, their bound and assumed pods (as a
//     framework.Snapshot ready for a cycle), pending pods and NodeMetrics.
//     It applies cluster events, never mutates the caller's objects, and
//     branches in O(1) with Fork, Commit and Revert (an undo journal that
//     restores the cluster exactly).
//   - Scheduler is the scheduling loop: a queue ordered by the profiles'
//     QueueSort plugin with kube's backoff (1 s doubling to 10 s) on an
//     injected framework.Clock, several profiles chosen by schedulerName, the
//     scheduling cycle of kube-scheduler v1.36 (nominated-node and
//     one-feasible fast paths, adaptive percentageOfNodesToScore, the
//     round-robin start, first-fit when nothing scores, seeded host
//     selection), assume, Reserve, Permit with WaitingPod handles, and the
//     binding cycle, synchronous (for simulation) or asynchronous. Every
//     cycle yields a Decision that explains it. Its Fork returns a branch
//     handle (Fork, with Commit and Revert) that holds everything the
//     scheduler holds (cluster, queue, nominations, pods held at Permit)
//     for what-if questions; while a branch is open the live scheduler
//     waits, so no event is lost to a Revert. State is a consistent copy
//     for watching a running scheduler.
//   - DefaultBinder and DefaultPreemption are kube-scheduler's plugins of
//     those names, working on the Scheduler's cluster.
//   - Package scheduling/replay drives a workload (timed pod arrivals with
//     durations, node events) through a Scheduler on a framework.FakeClock.
//
// The package also offers kube-scheduler's plugins under their names
// (NewDefaultRegistry, DefaultProfile); package scheduling/configfile loads
// KubeSchedulerConfiguration files into them.
package scheduling
