// Package bench measures kube-scheduler's own framework side by side with
// schedkit on the same generated varied cluster and incoming pods, and
// checks pod by pod that both reach the same decisions. It lives in a
// module of its own under testdata, so schedkit's builds and tests never
// compile it and schedkit itself imports nothing from k8s.io.
//
// # What runs on kube's side
//
// `kubebench run -dir D -stream varied|reqimages [-sampled] [-assumed]`
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
// Parallelism is 1; percentageOfNodesToScore is 100, or kube's adaptive
// default with -sampled. Nodes and existing pods go into the cache with
// Cache.AddNode and Cache.AddPod, as the informers' handlers would put
// them; namespaces go into the namespace informer's indexer, where
// InterPodAffinity's namespace selectors look them up. Each incoming pod
// becomes a QueuedPodInfo as the queue builds it (PodInfo and, with
// OpportunisticBatching on, the pod's signature), untimed. Each cycle then
// does what schedulingCycle does up to the assume: a fresh CycleState,
// Cache.UpdateSnapshot, Scheduler.SchedulePod (PreFilter, the filters with
// nominated pods, the adaptive node count and round-robin start,
// PreScore, Score, NormalizeScore, weights, host selection, the batching
// hint and result store), and with -assumed, Cache.AssumePod of a deep
// copy of the QueuedPodInfo with the chosen node. PostFilter (preemption),
// Reserve, Permit and binding do not run, as on schedkit's side. The timed
// loop's CPU time is getrusage user + system of the process, GC included.
//
// Schedkit's side (`variedbench run`, internal/cmd/variedbench in the main
// module) runs BenchmarkVariedCycle's loop: framework.Schedule with the
// default profile on one core and the same options.
//
// # Same workload
//
// The export lists nodes in the order kube's node tree lists them (zones
// in turn), and schedkit's side uses that order too, so kube's round-robin
// sampling walks the nodes in the same order on both sides. Each side
// writes each pod's outcome (-parity): nodes evaluated, feasible nodes,
// best total, number of nodes tied at it, node chosen. Where the cycle is
// deterministic these must agree; the node may differ among ties (kube's
// tie-break is random). With assumed pods the two clusters part at the
// first tie broken differently, so compare runs schedkit's side once more
// with -follow, placing each tied pod where kube's draw put it.
//
// # Running it
//
//	scheduling/testdata/kubebench/run.sh -nodes 1000,5000 -runs 5
//
// builds both sides and runs `kubebench compare`: for each cluster size
// it exports the workload, runs each row's two sides alternately (schedkit
// first in even rounds, kube first in odd ones, both with GOMAXPROCS=1),
// and prints the median CPU time per pod of each side, their ratio, each
// round's ratio, and the per-pod comparison. KUBE=1.37 builds kube137/,
// the same harness pinned to kube-scheduler v1.37.2 (its go.mod requires
// this module through a replace and pins every k8s.io module; another
// version is a copy of kube137 with the versions changed and `go mod
// tidy`).
package bench
