// Package scheduling is kube-scheduler's scheduler built on the framework,
// over an in-memory cluster (package scheduling/cluster): the core its
// subpackages (configfile, replay, whatif) build on.
//
//   - Scheduler is the scheduling loop: a queue ordered by the profiles'
//     QueueSort plugin with kube's backoff (1 s doubling to 10 s) on an
//     injected framework.Clock, several profiles chosen by schedulerName, the
//     scheduling cycle of kube-scheduler (v1.37, the default release, or
//     v1.36: WithKubeVersion): nominated-node and
//     one-feasible fast paths, adaptive percentageOfNodesToScore, the
//     round-robin start, first-fit when nothing scores, seeded host
//     selection; assume, Reserve, Permit with WaitingPod handles, and the
//     binding cycle, synchronous (for simulation) or asynchronous. Every
//     cycle yields a Decision that explains it. Its Fork returns a branch
//     handle (Fork, with Commit and Revert) that holds everything the
//     scheduler holds (cluster, queue, nominations, pods held at Permit)
//     for what-if questions; while a branch is open the live scheduler
//     waits, so no event is lost to a Revert. State is a consistent copy
//     for watching a running scheduler.
//   - Every profile's framework is its plugins' framework.Handle, serving
//     the Scheduler's waiting pods, queue, nominations, pod groups, cluster
//     (DRA manager, binder, node loads), evictions and random source
//     (handle.go); no plugin reads the scheduler's own state.
//     NewDefaultRegistry and DefaultProfile offer kube-scheduler's plugins
//     (and the others DefaultPlugins lists) under their names; the
//     plugins live in packages filter and scoring and their subpackages
//     (filter/defaultpreemption, filter/coscheduling, filter/gangscheduling,
//     scoring/queuesort, scoring/topologyaware, scoring/podgrouppodscount)
//     and in scheduling/defaultbinder.
//
// Beside it: scheduling/cluster holds nodes, pods and the other objects
// the scheduler runs over, with assume, bind and forget and an undo
// journal (Fork, Commit, Revert); scheduling/configfile loads KubeSchedulerConfiguration files
// into registries, profiles and options; scheduling/replay drives a
// workload (timed arrivals, node events) through a Scheduler on a virtual
// clock; scheduling/whatif answers placement, capacity, drain and
// scale-up questions on forks; scheduling/kubeload reads cluster dumps;
// scheduling/extender speaks kube's HTTP extender protocol.
//
// Map of the package:
//
//   - scheduler.go: Scheduler, New and its Options, the event methods (AddPod,
//     DeletePod, AddNode, ...), Run and RunUntilIdle, the scheduler's data
//     of a cycle in its CycleState. handle.go: the services the scheduler
//     gives its frameworks (framework.Handle).
//   - schedule_one.go: one pod's way through the scheduler, as kube's
//     schedule_one.go: ScheduleOne, SchedulePod, the scheduling cycle, node
//     sampling, assume, Reserve, Permit and the binding cycle.
//   - queue_options.go: QueueOptions. The queue itself (active, backoff,
//     unschedulable, nominations, the queueing hints that decide which
//     cluster event moves which pod) is scheduling/internal/queue, as
//     kube's pkg/scheduler/backend/queue.
//   - scheduler_events.go, scheduler_groups.go, scheduler_storage.go,
//     scheduler_workloads.go, podupdate.go: cluster events as the queue and
//     the plugins see them (pod groups, storage, kube's Workload API).
//   - podgroup_cycle.go: the pod group cycle of kube-scheduler v1.36
//     (placements, gangs).
//   - scheduler_fork.go: Fork (Scheduler.Fork, Commit, Revert), the
//     bounded wait of the live methods for an open fork (what they read
//     of the calling goroutine is scheduling/internal/goroutine) and the
//     what-if primitives on a fork (ScheduleQueued, FitsNode); replicas.go:
//     Fork.Replicas, the fast path of capacity questions; reuse.go:
//     pod-signature reuse of the previous cycle's ranking.
//   - scheduler_state.go: State; decisionlog.go: FormatDecision;
//     waiting.go: WaitingPod.
//   - registry.go, registry_preemption.go, profile_workload.go,
//     plugin_trimaran.go, points.go: PluginSpec, DefaultPlugins,
//     NewDefaultRegistry, DefaultProfile, EnableWorkloadScheduling,
//     WithWorkloadFeatures, UpdateNodeLoad and ExtensionPoints.
//   - podgroup_preemption.go, preempt_undo.go, extenders.go: the
//     scheduler's part of preemption (evicting DefaultPreemption's victims,
//     a pod group's preemption, Scheduler.Preempt) and binding through
//     extenders; scheduler_dra.go, claimwriter.go: the DRA manager over
//     the cluster and ClaimWriter.
package scheduling
