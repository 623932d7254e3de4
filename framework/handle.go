package framework

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"

	"github.com/schedkit/schedkit/framework/api"
)

// Handle is what a plugin factory receives: the services of the framework
// the plugin belongs to, in kube-scheduler's terms (its framework.Handle).
// A framework a scheduler runs (package scheduling) serves the scheduler's
// queue, waiting pods, cluster and preemption; a standalone one (NewHandle,
// or a framework/runtime Framework built without them) serves defaults:
// no waiting pods, no nominations, no pod groups, DRA changes made to the
// cycle's snapshot, and an error from what only a scheduler can do (bind,
// evict). Methods that act for a cycle take the cycle's CycleState.
//
// A plugin keeps its handle and asks it for a service when it runs: a
// factory may be called with a handle that is discarded (to learn which
// extension points a plugin implements), and a service's answers change
// as the cluster does.
type Handle interface {
	// Clock is the framework's clock.
	Clock() Clock
	// Parallelism is the number of workers for per-node loops.
	Parallelism() int
	// Parallelizer runs a plugin's loop on those workers.
	Parallelizer() Parallelizer
	// KubeVersion is the kube-scheduler release whose behaviour the
	// plugins reproduce, for the plugins whose results changed between
	// releases.
	KubeVersion() KubeVersion
	// ProfileName is the schedulerName of the framework's profile.
	ProfileName() string
	// WaitingPods are the pods held at Permit.
	WaitingPods() WaitingPods
	// Activator moves queued pods to the active queue.
	Activator() PodActivator
	// Nominator tells the pods nominated to a node.
	Nominator() PodNominator
	// SnapshotLister gives the cluster as a snapshot.
	SnapshotLister() SnapshotLister
	// PodGroupManager reads the cluster's pod groups.
	PodGroupManager() PodGroupManager
	// DRAManager is where DynamicResources reads and writes the cluster's
	// DRA objects for the cycle of state (nil state: outside a cycle, for
	// PreEnqueue and queueing hints). It is nil only outside a cycle of a
	// standalone framework, which has no cluster then.
	DRAManager(state *CycleState) DRAManager
	// Binder binds pods and their volumes in the scheduler's cluster.
	Binder() Binder
	// Extenders are the framework's scheduler extenders.
	Extenders() []Extender
	// Evictor evicts preemption victims.
	Evictor() Evictor
	// PluginsRunner runs the framework's plugins for a plugin that needs
	// them (preemption's dry runs).
	PluginsRunner() PluginsRunner
	// NodeLoads gives the nodes' measured loads (api.NodeLoad).
	NodeLoads() NodeLoads
	// AddClusterEventHandler has h told of the cluster changes it handles
	// from now on (a plugin's cache of the cluster calls it once, from its
	// factory); a handler already added, or equal to one, is added once.
	AddClusterEventHandler(h ClusterEventHandler)
}

// WaitingPod is a pod held at Permit (kube's WaitingPod): it waits until
// every plugin that returned Wait allows it, one of them rejects it, or a
// timeout passes.
type WaitingPod interface {
	// Pod returns the waiting pod, assumed on Node (read-only).
	Pod() *api.Pod
	// Node returns the node the pod is assumed on.
	Node() string
	// PendingPlugins returns the plugins that have not allowed the pod
	// yet, sorted.
	PendingPlugins() []string
	// Allow records plugin's approval: the pod proceeds to binding once
	// no plugin is left.
	Allow(plugin string)
	// Reject fails the pod's Permit with Unschedulable, naming plugin and
	// msg.
	Reject(plugin, msg string)
}

// WaitingPods are the pods held at Permit by namespace/name (kube's
// GetWaitingPod and IterateOverWaitingPods). Plugins may use them during a
// cycle and from a binding goroutine.
type WaitingPods interface {
	// Get returns the waiting pod of key namespace/name.
	Get(key string) (WaitingPod, bool)
	// List returns the waiting pods, sorted by namespace/name.
	List() []WaitingPod
}

// PodActivator is the scheduling queue as plugins change it (kube's
// PodActivator).
type PodActivator interface {
	// Activate moves the queued pods of keys (namespace/name) waiting in
	// the unschedulable pool or backing off to the active queue; other
	// keys are ignored.
	Activate(keys []string)
	// QueueOrderChanged tells the queue that the QueueSort plugin's order
	// of pods already queued changed (Coscheduling's order after a group
	// failed): the queue sorts again before it hands out its next pod.
	QueueOrderChanged()
}

// PodNominator tells the pods nominated to nodes by preemption (kube's
// PodNominator).
type PodNominator interface {
	// NominatedPodsForNode returns the pods nominated to node
	// (read-only).
	NominatedPodsForNode(node string) []*PodInfo
}

// SnapshotLister gives the cluster the framework schedules (kube's
// SnapshotSharedLister).
type SnapshotLister interface {
	// Snapshot returns the cluster's current snapshot (read-only; nil
	// without a cluster).
	Snapshot() *Snapshot
}

// PodGroupManager reads the cluster's pod groups (kube's PodGroupManager):
// kube's PodGroups of the Workload API (api.WorkloadPodGroup, named by
// pods' spec.schedulingGroup) and scheduler-plugins' PodGroups
// (api.PodGroup, named by the api.PodGroupLabel label). A pod is pending,
// or scheduled: assumed or bound on a node.
type PodGroupManager interface {
	// Features are the workload features turned on.
	Features() WorkloadFeatures
	// WorkloadPodGroup returns kube's PodGroup namespace/name.
	WorkloadPodGroup(namespace, name string) (*api.WorkloadPodGroup, bool)
	// WorkloadPodGroupCounts counts the pods naming kube's PodGroup
	// namespace/name, and those of them scheduled.
	WorkloadPodGroupCounts(namespace, name string) (total, scheduled int)
	// WorkloadPodGroupPods returns the pods naming kube's PodGroup
	// namespace/name, pending and scheduled, each sorted by
	// namespace/name.
	WorkloadPodGroupPods(namespace, name string) (pending, scheduled []*api.Pod)
	// TrialScheduled reports whether the cycle of state tries a pod in a
	// pod group cycle and, if so, how many of the group's pods are
	// scheduled: in the cluster, or assumed so far in the trial (kube
	// reads the snapshot's pod group state there).
	TrialScheduled(state *CycleState) (scheduled int, ok bool)
	// PodGroup returns scheduler-plugins' PodGroup of key namespace/name.
	PodGroup(key string) (*api.PodGroup, bool)
	// PodGroupCounts counts the pods of scheduler-plugins' PodGroup
	// namespace/name, and those of them scheduled.
	PodGroupCounts(namespace, name string) (total, scheduled int)
	// PodGroupGated counts the pods of scheduler-plugins' PodGroup
	// namespace/name held by scheduling gates.
	PodGroupGated(namespace, name string) int
	// PodGroupPods returns the pods of scheduler-plugins' PodGroup
	// namespace/name, pending and scheduled, each sorted by
	// namespace/name.
	PodGroupPods(namespace, name string) (pending, scheduled []*api.Pod)
}

// WorkloadFeatures mirror kube-scheduler's feature gates for
// workload-aware scheduling (v1.36 alpha), all off by default.
type WorkloadFeatures struct {
	// GenericWorkload: the PodGroup and Workload objects
	// (api.WorkloadPodGroup, api.Workload) and the pod's
	// spec.schedulingGroup.
	GenericWorkload bool
	// GangScheduling: the GangScheduling plugin; needs GenericWorkload.
	GangScheduling bool
	// TopologyAwareWorkloadScheduling: pod-group placements (the
	// placementGenerate and placementScore extension points and the
	// TopologyPlacementGenerator and PodGroupPodsCount plugins); needs
	// GenericWorkload.
	TopologyAwareWorkloadScheduling bool
	// WorkloadAwarePreemption: a pod group that cannot be placed preempts
	// as a whole (KEP-5710: DefaultPreemption's PodGroupPostFilter, victims
	// grouped by their PodGroup's disruptionMode); needs GangScheduling.
	WorkloadAwarePreemption bool
}

// Validate checks the gates' dependencies (kube's feature gate specs,
// pkg/features/kube_features.go): GangScheduling and
// TopologyAwareWorkloadScheduling need GenericWorkload,
// WorkloadAwarePreemption needs GangScheduling.
func (f WorkloadFeatures) Validate() error {
	if !f.GenericWorkload && (f.GangScheduling || f.TopologyAwareWorkloadScheduling) {
		return fmt.Errorf("framework: WorkloadFeatures: GangScheduling and TopologyAwareWorkloadScheduling need GenericWorkload")
	}
	if f.WorkloadAwarePreemption && !f.GangScheduling {
		return fmt.Errorf("framework: WorkloadFeatures: WorkloadAwarePreemption needs GangScheduling")
	}
	return nil
}

// DRAManager is where DynamicResources reads the cluster's Dynamic Resource
// Allocation objects and makes the changes kube-scheduler's plugin makes
// through its DRA manager and the API server (kube's SharedDRAManager):
// in-flight allocations between Reserve and PreBind, claims allocated and
// reserved in PreBind, deallocated in PostFilter, created and deleted for
// extended resources. A scheduler's changes its cluster (journaled, with
// cluster events); Snapshot.DRAManager changes a snapshot directly.
type DRAManager interface {
	// Snapshot returns the snapshot holding the cluster's DRA objects.
	Snapshot() *Snapshot
	// SetInFlight records claim (carrying its allocation) as in flight
	// under the claim UID uid, or with a nil claim ends it.
	SetInFlight(uid string, claim *api.ResourceClaim)
	// WriteClaim stores claim, a new object the caller no longer changes:
	// creating it (create) or replacing the claim of its namespace and
	// name.
	WriteClaim(claim *api.ResourceClaim, create bool) error
	// DeleteClaim deletes the claim namespace/name.
	DeleteClaim(namespace, name string) error
}

// Binder is the scheduler's side of binding: the cluster where a
// scheduler confirms the pods the Bind plugins bound and binds their
// volumes.
type Binder interface {
	// Bind accepts the binding of pod to node by a Bind plugin of the
	// cycle of state (the scheduler confirms the assumed pod on node once
	// the binding cycle's Bind plugins are done); an error means no one
	// records it.
	Bind(state *CycleState, pod *PodInfo, node string) error
	// BindPodVolumes applies VolumeBinding's decisions for a pod on node
	// in the cycle of state (kube's BindPodVolumes and the PV controller's
	// part).
	BindPodVolumes(state *CycleState, node string, pv *api.PodVolumes) error
	// Forked reports whether the cluster is a what-if fork of the
	// scheduler: what is bound there is reverted, so a plugin that binds
	// through an API server leaves it alone.
	Forked() bool
}

// Evictor evicts preemption victims (kube's preemption Executor).
type Evictor interface {
	// Evict evicts victims from node in favour of preemptor (kube's
	// prepareCandidate): a victim held at Permit is rejected, naming
	// plugin, any other is deleted; lower-priority pods nominated to node
	// lose their nomination. The scheduler records the victims as the
	// cycle's (its decision names them).
	Evict(state *CycleState, preemptor *api.Pod, node string, victims []*PodInfo, plugin string) error
}

// PluginsRunner runs the framework's plugins for a plugin (kube's
// PluginsRunner), as preemption's dry runs do.
type PluginsRunner interface {
	// RunPreFilterExtensionAddPod tells the PreFilter plugins' extensions
	// that toAdd joins node for pod's cycle; the first failure stops it.
	RunPreFilterExtensionAddPod(ctx context.Context, state *CycleState, pod, toAdd *PodInfo, node *NodeInfo) *Status
	// RunPreFilterExtensionRemovePod tells them that toRemove leaves node.
	RunPreFilterExtensionRemovePod(ctx context.Context, state *CycleState, pod, toRemove *PodInfo, node *NodeInfo) *Status
	// RunFilterPluginsWithNominatedPods runs the Filter plugins for pod
	// on node as kube-scheduler does, with nominated (the pods nominated
	// to node) counted when they are as important as pod.
	RunFilterPluginsWithNominatedPods(ctx context.Context, state *CycleState, pod *PodInfo, node *NodeInfo, nominated []*PodInfo) *Status
	// RejectionsKeptByRemoval returns the Filter plugins whose rejection
	// in the cycle of state stands whatever pods leave a node.
	RejectionsKeptByRemoval(state *CycleState, pod *PodInfo) []string
	// RandInt32N draws from the framework's random source, in [0, n).
	RandInt32N(n int32) int32
}

// NodeLocalFilters is an optional extension of PluginsRunner for
// preemption's dry runs, which filter a node again and again as pods
// leave and rejoin it.
type NodeLocalFilters interface {
	// NodeLocalFilterFragments appends to buf the node-local fragments
	// of the pod's PreFilter and Filter plugins (as a framework's
	// NodeLocalFragments gives them for every point) when every Filter
	// plugin the cycle of state leaves on, and every PreFilter extension
	// it calls, is node-local for pod: the verdicts of pods with the same
	// fragments (SameFragments) on a node, whatever pods are removed from
	// it and added back, are then functions of the node's NodeInfo alone
	// while the snapshot's NodeChangeSeq stays the same. ok is false
	// otherwise.
	NodeLocalFilterFragments(ctx context.Context, state *CycleState, pod *PodInfo, buf []SignFragment) (_ []SignFragment, ok bool)
}

// NodeLoads gives the nodes' measured loads (read by the Trimaran
// plugins).
type NodeLoads interface {
	// NodeLoad returns node's load.
	NodeLoad(node string) (*api.NodeLoad, bool)
}

// ClusterEventHandler is told of the cluster changes a plugin's cache
// follows (kube's informer event handlers): pods placed on nodes other
// than by the scheduler's Reserve (bound when they arrive, or already
// bound when the scheduler starts), pods leaving nodes, NodeMetrics. The
// scheduler calls it with its lock held.
type ClusterEventHandler interface {
	// AssignedPodAdded: pod is on its node (spec.nodeName).
	AssignedPodAdded(pod *api.Pod)
	// AssignedPodDeleted: pod left its node.
	AssignedPodDeleted(pod *api.Pod)
	// NodeMetricUpdated: m was added or replaced.
	NodeMetricUpdated(m *api.NodeMetric)
}

// NewHandle returns the handle of a framework without plugins that runs
// on no scheduler, with clock, parallelism and release v as given: the
// defaults Handle describes (a PluginsRunner that runs no plugin and
// draws from a source seeded with 0).
func NewHandle(clock Clock, parallelism int, v KubeVersion) Handle {
	return &standalone{clock: clock, parallelism: parallelism, v: v}
}

// standalone is NewHandle's handle.
type standalone struct {
	clock       Clock
	parallelism int
	v           KubeVersion

	mu  sync.Mutex
	rng *rand.Rand
}

func (h *standalone) Clock() Clock                     { return h.clock }
func (h *standalone) Parallelism() int                 { return h.parallelism }
func (h *standalone) KubeVersion() KubeVersion         { return h.v }
func (h *standalone) ProfileName() string              { return "" }
func (h *standalone) WaitingPods() WaitingPods         { return noWaiting{} }
func (h *standalone) Activator() PodActivator          { return noQueue{} }
func (h *standalone) Nominator() PodNominator          { return noNominations{} }
func (h *standalone) SnapshotLister() SnapshotLister   { return noCluster{} }
func (h *standalone) PodGroupManager() PodGroupManager { return noPodGroups{} }
func (h *standalone) Binder() Binder                   { return noCluster{} }
func (h *standalone) Extenders() []Extender            { return nil }
func (h *standalone) Evictor() Evictor                 { return noCluster{} }
func (h *standalone) PluginsRunner() PluginsRunner     { return h }
func (h *standalone) NodeLoads() NodeLoads             { return noCluster{} }

func (h *standalone) AddClusterEventHandler(ClusterEventHandler) {}

// Parallelizer starts goroutines for each loop when parallelism is
// above 1: a standalone handle has no workers that persist.
func (h *standalone) Parallelizer() Parallelizer {
	if h.parallelism <= 1 {
		return Sequential{}
	}
	return spawning{h.parallelism}
}

// DRAManager is the cycle's snapshot (nil outside a cycle).
func (h *standalone) DRAManager(state *CycleState) DRAManager {
	if state == nil {
		return nil
	}
	return state.Snapshot().DRAManager()
}

func (h *standalone) RunPreFilterExtensionAddPod(context.Context, *CycleState, *PodInfo, *PodInfo, *NodeInfo) *Status {
	return nil
}

func (h *standalone) RunPreFilterExtensionRemovePod(context.Context, *CycleState, *PodInfo, *PodInfo, *NodeInfo) *Status {
	return nil
}

func (h *standalone) RunFilterPluginsWithNominatedPods(context.Context, *CycleState, *PodInfo, *NodeInfo, []*PodInfo) *Status {
	return nil
}

func (h *standalone) RejectionsKeptByRemoval(*CycleState, *PodInfo) []string { return nil }

func (h *standalone) RandInt32N(n int32) int32 {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.rng == nil {
		h.rng = rand.New(rand.NewPCG(0, 0))
	}
	return h.rng.Int32N(n)
}

type noWaiting struct{}

func (noWaiting) Get(string) (WaitingPod, bool) { return nil, false }
func (noWaiting) List() []WaitingPod            { return nil }

type noQueue struct{}

func (noQueue) Activate([]string)  {}
func (noQueue) QueueOrderChanged() {}

type noNominations struct{}

func (noNominations) NominatedPodsForNode(string) []*PodInfo { return nil }

type noPodGroups struct{}

func (noPodGroups) Features() WorkloadFeatures { return WorkloadFeatures{} }
func (noPodGroups) WorkloadPodGroup(string, string) (*api.WorkloadPodGroup, bool) {
	return nil, false
}
func (noPodGroups) WorkloadPodGroupCounts(string, string) (int, int)             { return 0, 0 }
func (noPodGroups) WorkloadPodGroupPods(string, string) ([]*api.Pod, []*api.Pod) { return nil, nil }
func (noPodGroups) TrialScheduled(*CycleState) (int, bool)                       { return 0, false }
func (noPodGroups) PodGroup(string) (*api.PodGroup, bool)                        { return nil, false }
func (noPodGroups) PodGroupCounts(string, string) (int, int)                     { return 0, 0 }
func (noPodGroups) PodGroupGated(string, string) int                             { return 0 }
func (noPodGroups) PodGroupPods(string, string) ([]*api.Pod, []*api.Pod)         { return nil, nil }

// noCluster is a framework without a scheduler's cluster: no snapshot, no
// loads, and an error from binding and evicting.
type noCluster struct{}

// errNoScheduler is the error of what only a scheduler does.
var errNoScheduler = errors.New("no scheduler runs the framework")

func (noCluster) Snapshot() *Snapshot                   { return nil }
func (noCluster) NodeLoad(string) (*api.NodeLoad, bool) { return nil, false }
func (noCluster) Forked() bool                          { return false }

func (noCluster) Bind(_ *CycleState, pod *PodInfo, node string) error {
	return fmt.Errorf("framework: Bind of pod %s to node %q: %w", pod.Pod.Key(), node, errNoScheduler)
}

func (noCluster) BindPodVolumes(_ *CycleState, node string, _ *api.PodVolumes) error {
	return fmt.Errorf("framework: BindPodVolumes on node %q: %w", node, errNoScheduler)
}

func (noCluster) Evict(_ *CycleState, preemptor *api.Pod, node string, _ []*PodInfo, _ string) error {
	return fmt.Errorf("framework: Evict for pod %s on node %q: %w", preemptor.Key(), node, errNoScheduler)
}
