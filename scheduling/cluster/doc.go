// Package cluster is the in-memory cluster a scheduling.Scheduler runs
// over, in the role of kube-scheduler's cache (pkg/scheduler/backend/cache)
// and the API objects it watches.
//
// A Cluster holds nodes, their bound and assumed pods (as a
// framework.Snapshot ready for a scheduling cycle), pending pods,
// NodeMetrics and NodeLoads, PodGroups (Coscheduling), kube's Workload
// objects and storage objects. It applies cluster events, never mutates
// the caller's objects, and branches in O(1) with Fork, Commit and Revert:
// an undo journal restores the cluster exactly.
//
// Assume, Bind and Forget are the cache's assume, FinishBinding and
// ForgetPod. The methods that take a pod key (PodInfo, AssumeKey,
// BindKey, AddPodInfo, Holds, SetNominated) are the scheduler's fast
// paths: the same operations without looking a pod up by namespace and
// name twice, and with memory the caller provides.
//
// Map of the package:
//
//   - cluster.go, cluster_update.go: Cluster, its pods and nodes, the undo
//     journal (Fork, Commit, Revert).
//   - cache.go: Assume, Bind and Forget.
//   - cluster_groups.go, cluster_workloads.go: the pod-group index and
//     kube's Workload objects.
//   - cluster_storage.go, storage_defaultclass.go: storage objects, the
//     claims pods own, and the default StorageClass.
//   - cluster_nodeload.go: NodeLoads (the Trimaran plugins' load).
package cluster
