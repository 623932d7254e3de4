// Package scheduling is kube-scheduler's scheduler built on the framework,
// over an in-memory cluster (package scheduling/cluster): the core its
// subpackages (configfile, replay, whatif) build on.
//
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
//     those names, working on the Scheduler's cluster; NewDefaultRegistry
//     and DefaultProfile offer kube-scheduler's plugins under their names.
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
//     DeletePod, AddNode, ...), Run and RunUntilIdle, the cycle handle
//     plugins reach the scheduler through (SchedulerFromCycleState).
//   - schedule_one.go: one pod's way through the scheduler, as kube's
//     schedule_one.go: ScheduleOne, SchedulePod, the scheduling cycle, node
//     sampling, assume, Reserve, Permit and the binding cycle.
//   - queue_options.go, hints_groups.go: QueueOptions, and the queueing
//     hints of the gang plugins. The queue itself (active, backoff,
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
//   - registry.go, profile_workload.go, compose.go: PluginSpec,
//     DefaultPlugins, NewDefaultRegistry, DefaultProfile,
//     EnableWorkloadScheduling and the composition of split plugins.
//   - binder.go, preemption.go, podgroup_preemption.go, preempt_undo.go,
//     extenders.go: DefaultBinder, DefaultPreemption (pod and pod-group
//     preemption, Scheduler.Preempt) and the extenders' part in them.
//   - prioritysort.go, coscheduling.go, gangscheduling.go, placement.go,
//     plugin_loadaware.go, plugin_trimaran.go, plugin_volumebinding.go,
//     plugin_dynamicresources.go: the plugins that need the scheduler
//     (PrioritySort, Coscheduling, GangScheduling,
//     TopologyPlacementGenerator, PodGroupPodsCount) and the scheduler's
//     glue of LoadAwareScheduling, the Trimaran plugins, VolumeBinding and
//     DynamicResources.
package scheduling
