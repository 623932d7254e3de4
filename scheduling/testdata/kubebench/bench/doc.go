// Package bench measures kube-scheduler's own framework side by side with
// schedkit on the same generated cluster and incoming pods, and checks
// pod by pod that both reach the same decisions. It lives in a module of
// its own under testdata, so schedkit's builds and tests never compile it
// and schedkit itself imports nothing from k8s.io.
//
// # What runs on kube's side
//
// `kubebench run -dir D -stream STREAM [-sampled] [-assumed] [-workers W]`
// reads the export of schedkit's `variedbench export` (v1 Namespaces,
// Nodes and Pods as `kubectl get -o json` prints them, given the API
// server's v1 defaults) and builds kube-scheduler's Scheduler with
// scheduler.New on a fake clientset whose informers are never started: the
// in-tree registry, one profile built by the framework runtime, the cache,
// the scheduling snapshot and the scheduling queue (the pod nominator).
// The profile is kube's default configuration (v1 defaults, converted as
// kube-scheduler loads its configuration) with the multiPoint plugins
// schedkit's default profile lacks left out: NodeDeclaredFeatures
// (-show-plugins prints the result; -profile
// novolume also leaves out the four volume plugins on both sides).
// Parallelism is W (scheduler.WithParallelism: the parallelizer of the
// filter pass, PreScore and Score; default 1); percentageOfNodesToScore is
// 100, or kube's adaptive default with -sampled. Nodes and existing pods
// go into the cache with Cache.AddNode and Cache.AddPod, as the
// informers' handlers would put them; namespaces go into the namespace
// informer's indexer, where InterPodAffinity's namespace selectors look
// them up. Each incoming pod becomes a QueuedPodInfo as the queue builds
// it (PodInfo and, with OpportunisticBatching on, the pod's signature),
// untimed. Each cycle then does what schedulingCycle does up to the
// assume: a fresh CycleState, Cache.UpdateSnapshot,
// Scheduler.SchedulePod (PreFilter, the filters with nominated pods, the
// adaptive node count and round-robin start, PreScore, Score,
// NormalizeScore, weights, host selection, the batching hint and result
// store), and with -assumed, Cache.AssumePod of a deep copy of the
// QueuedPodInfo with the chosen node, under a name and UID of its own
// made before the timed loop (the pod's name, "-assumed-" and its place
// in the stream), as on schedkit's side. Reserve, Permit and binding do
// not run, as on schedkit's side, nor does PostFilter (preemption) but in
// the streams meta.json lists as preempting: there a pod no node fits
// gets PostFilter as schedulingAlgorithm's caller runs it (the preemptor
// in the pod informer's store while it runs; SchedulerAsyncPreemption
// off, so that the victims' API calls, to a fake clientset that holds no
// pod, run inside the cycle), its victims, the pods whose status the
// preemption patched, leave the cache by Cache.RemovePod as the pod
// informer's delete handler removes them, and the pod gets its next cycle
// with its nominated node set, which findNodesThatFitPod evaluates first;
// schedkit's side runs the same steps with its own DefaultPreemption and
// an Evictor that removes the victims from its snapshot, on a cycle state
// it releases after each pod and uses again, as scheduling.Scheduler
// keeps the state a cycle released (kube's scheduleOne makes a fresh
// one, as this side does). A stream with
// churn adds and removes its churn nodes between cycles with
// Cache.AddNode and Cache.RemoveNode, as the node informer's handlers do,
// inside the timed loop. The timed loop's CPU time is getrusage user +
// system of the process (every thread), GC included; its wall time is
// reported beside it, and is what more workers shorten.
//
// Schedkit's side (`variedbench run`, internal/cmd/variedbench in the main
// module) runs BenchmarkVariedCycle's loop: framework.Schedule with the
// default profile, runtime.WithParallelism(W) and the same options.
//
// # Workloads and streams
//
// The varied workload is BenchmarkVariedCycle's generated cluster with
// three streams, varied, reqimages and daemonsets (DaemonSet pods, each
// naming its node). The mixed workload, generated
// independently of it and with other distributions (a production-like
// cluster of many teams: node pools, autoscaler taints, about 400
// Deployments and StatefulSets with their affinity, spread and images;
// internal/cmd/variedbench/mixed.go), has one stream, mixed. The
// scheduler_perf workloads are
// kube v1.37.2's test/integration/scheduler_perf cases at their 5,000-node
// sizes (SchedulingBasic, SchedulingNodeAffinity, SchedulingPodAffinity,
// SchedulingPodAntiAffinity, SchedulingPodMatchingAntiAffinity,
// SchedulingPreferredPodAffinity, SchedulingPreferredPodAntiAffinity,
// MixedSchedulingBasePod, SchedulingRequiredPodAntiAffinityWithNSSelector,
// SchedulingPreferredAntiAffinityWithNSSelector,
// SchedulingRequiredPodAffinityWithNSSelector,
// SchedulingPreferredAffinityWithNSSelector, TopologySpreading,
// PreferredTopologySpreading, SchedulingWithNodeInclusionPolicy,
// SchedulingDaemonset (its 15,000-node workload at a third of its size),
// SchedulingWithExtendedResource, SchedulingSecrets, the volume cases
// SchedulingInTreePVs, SchedulingMigratedInTreePVs and SchedulingCSIPVs
// (every pod with a claim bound to a volume of its own; the export
// carries the claims, volumes and CSINodes), dra's
// SchedulingWithResourceClaimTemplate (its 500-node workload at its own
// size; the export carries the ResourceSlices, the DeviceClass, the
// allocated init claims and a claim for every measured pod, which kube's
// DRA manager takes from its informers: the run waits until it lists
// them all), DefaultTopologySpreading, SchedulingDeletedPodsWithFinalizers,
// SchedulingWhileGated (one node), SchedulingWithMixedChurn,
// default_preemption's Unschedulable, PreemptionBasic (its 1000Nodes
// workload at its own size: 4,000 low-priority pods filling every node,
// and 1,000 pods that each fit only once the four on a node are
// preempted) and PreemptionAsync (5000Nodes: 20,000 such pods, measured
// pods that fit beside them and a pod needing preemption every 114 of
// them), and batching's HostPortConflict and
// ResourceSaturation, whose 20,000-node workloads are translated at a
// quarter and which kube's suite runs under
// scheduler-config-no-topology.yaml: measure them with -profile
// notopology, which also turns OpportunisticBatching off on kube's side
// as their OpportunisticBatchingDisabled workloads do), each a cluster
// and one stream named
// after the case: the case's node templates with their zone labels, its
// namespaces (with their labels) and Services, the pods it creates before
// it measures,
// already on their nodes (one per node, on nodes drawn by a seeded
// permutation, before any node gets a second), and its measured pods,
// with the churn op's pods and node additions and removals every fixed
// number of measured pods where the case churns. Counts scale by
// nodes/5,000 at other sizes. `variedbench list` prints the streams;
// internal/cmd/variedbench/perf.go documents each translation.
//
// # Same workload
//
// The export lists nodes in the order kube's node tree lists them (zones
// in turn), and schedkit's side uses that order too, so kube's round-robin
// sampling walks the nodes in the same order on both sides. Each side
// writes each pod's outcome (-parity): nodes evaluated, feasible nodes,
// best total, number of nodes tied at it, node chosen, and for a pod
// placed by preemption the number of its victims (nodes evaluated and
// feasible are then its failed cycle's, the node its next cycle's). Where
// the cycle is deterministic these must agree; the node may differ among
// ties (kube's tie-break is random) and for a pod placed by preemption
// (kube draws the offset its search for candidates starts at from
// math/rand's global source). With assumed pods the two clusters part at the
// first tie broken differently, so compare runs schedkit's side once more
// with -follow, placing each tied pod where kube's draw put it, and
// preempting for each pod on the node kube's preemption nominated when
// that node is a candidate on schedkit's side too. With
// sampling and more than one worker kube's cycle is not deterministic
// (findNodesThatPassFilters keeps the first feasible nodes its goroutines
// happen to count, and moves its start index by the nodes they happened
// to process), so there schedkit's records must equal its own at one
// worker, node chosen included, and those are compared with kube's at one
// worker; kube's own are only counted against schedkit's.
//
// # Running it
//
//	scheduling/testdata/kubebench/run.sh -nodes 1000,5000 -runs 5
//	KUBE=1.37 scheduling/testdata/kubebench/run.sh -nodes 1000,5000 -rows all -workers 1,2
//
// builds both sides and runs `kubebench compare`: for each cluster size
// it exports each workload the rows need, runs each row's two sides
// alternately (schedkit first in even rounds, kube first in odd ones,
// both with GOMAXPROCS set to the row's workers unless -gomaxprocs says
// otherwise), and prints the median CPU and wall time per pod of each
// side, their ratios, each round's ratio (CPU at one worker, wall time
// with more), and the per-pod comparison. -rows takes
// STREAM/all|sampled/fresh|assumed rows, the stream perf standing for
// every scheduler_perf stream, or the aliases default (the varied
// workload's four rows), mixed (the mixed workload's rows: every node,
// fresh and assumed, and sampled, assumed), perf (every scheduler_perf
// stream over every node and sampled, each pod assumed, as
// scheduler_perf binds them) and all; -workers lists the worker counts each row runs at. KUBE=1.37
// builds kube137/, the same harness pinned to kube-scheduler v1.37.2 (its
// go.mod requires this module through a replace and pins every k8s.io
// module; another version is a copy of kube137 with the versions changed
// and `go mod tidy`).
package bench
